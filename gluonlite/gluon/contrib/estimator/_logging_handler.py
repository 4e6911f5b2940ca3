"""``LoggingHandler``: training progress through ``estimator.logger``, worded as
MXNet 1.9 words it."""
from __future__ import annotations

import time
from typing import Union

from ._events import BatchBegin, BatchEnd, EpochBegin, EpochEnd, TrainBegin, TrainEnd
from .utils import _check_metrics

__all__ = ["LoggingHandler"]


def _metric_text(metrics) -> str:
    return "".join("%s: %.4f, " % metric.get() for metric in metrics)


class LoggingHandler(TrainBegin, TrainEnd, EpochBegin, EpochEnd, BatchBegin, BatchEnd):
    """Log the optimizer and learning rate, then metrics every epoch or every
    ``log_interval`` batches, and a summary at the end.

    Parameters
    ----------
    log_interval : int or 'epoch', default 'epoch'
        ``'epoch'``: log at epoch begin and end; an integer k: also log every k-th batch
        (batches 0, k, 2k... of each epoch).
    metrics : EvalMetric or list of EvalMetric, optional
        Metrics to report.
    priority : float, default inf
        Handlers run in ascending priority (this one last).

    Raises
    ------
    ValueError
        When ``log_interval`` is neither an int nor ``'epoch'``.
    """

    def __init__(self, log_interval: Union[int, str] = "epoch", metrics=None,
                 priority: float = float("inf")):
        if not isinstance(log_interval, int) and log_interval != "epoch":
            raise ValueError("log_interval must be either an integer or string 'epoch'")
        self.metrics = _check_metrics(metrics)
        self.batch_index = 0
        self.current_epoch = 0
        self.processed_samples = 0
        self.priority = priority
        self.log_interval = log_interval
        self.log_interval_time = 0

    def _log(self, estimator, msg: str) -> None:
        estimator.logger.info(msg.rstrip(", "))

    def train_begin(self, estimator, *args, **kwargs) -> None:
        self.train_start = time.time()
        trainer = estimator.trainer
        estimator.logger.info("Training begin: using optimizer %s "
                              "with current learning rate %.4f ",
                              type(trainer.optimizer).__name__, trainer.learning_rate)
        if estimator.max_epoch:
            estimator.logger.info("Train for %d epochs.", estimator.max_epoch)
        else:
            estimator.logger.info("Train for %d batches.", estimator.max_batch)
        self.current_epoch = 0
        self.batch_index = 0
        self.processed_samples = 0
        self.log_interval_time = 0

    def train_end(self, estimator, *args, **kwargs) -> None:
        train_time = time.time() - self.train_start
        self._log(estimator, "Train finished using total %ds with %d epochs. "
                  % (train_time, self.current_epoch) + _metric_text(self.metrics))

    def batch_begin(self, estimator, *args, **kwargs) -> None:
        if isinstance(self.log_interval, int):
            self.batch_start = time.time()

    def batch_end(self, estimator, *args, **kwargs) -> None:
        if isinstance(self.log_interval, int):
            self.log_interval_time += time.time() - self.batch_start
            self.processed_samples += kwargs["batch"][0].shape[0]
            if self.batch_index % self.log_interval == 0:
                msg = "[Epoch %d][Batch %d][Samples %s] time/interval: %.3fs " % (
                    self.current_epoch, self.batch_index, self.processed_samples,
                    self.log_interval_time)
                self.log_interval_time = 0
                self._log(estimator, msg + _metric_text(self.metrics))
        self.batch_index += 1

    def epoch_begin(self, estimator, *args, **kwargs) -> None:
        self.epoch_start = time.time()
        if any("training" in metric.name for metric in self.metrics):
            estimator.logger.info("[Epoch %d] Begin, current learning rate: %.4f",
                                  self.current_epoch, estimator.trainer.learning_rate)
        else:
            estimator.logger.info("Validation Begin")

    def epoch_end(self, estimator, *args, **kwargs) -> None:
        epoch_time = time.time() - self.epoch_start
        self._log(estimator, "[Epoch %d] Finished in %.3fs, " % (self.current_epoch, epoch_time)
                  + _metric_text(self.metrics))
        self.current_epoch += 1
        self.batch_index = 0
