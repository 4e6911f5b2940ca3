"""The handlers every ``fit`` gets by default: stopping, gradient update, metric
update and validation."""
from __future__ import annotations

from typing import Callable, Optional

from ._events import BatchEnd, EpochBegin, EpochEnd, TrainBegin
from .utils import _check_metrics
from ....metric import Loss as LossMetric

__all__ = ["StoppingHandler", "MetricHandler", "ValidationHandler", "GradientUpdateHandler"]


class StoppingHandler(TrainBegin, BatchEnd, EpochEnd):
    """Stop after ``max_epoch`` epochs or ``max_batch`` batches (read from the
    estimator at train begin).

    Parameters
    ----------
    max_epoch : int, optional
        Epochs to train.
    max_batch : int, optional
        Batches to train.
    """

    def __init__(self, max_epoch: Optional[int] = None, max_batch: Optional[int] = None):
        self.max_epoch = max_epoch
        self.max_batch = max_batch
        self.current_batch = 0
        self.current_epoch = 0
        self.stop_training = False

    def train_begin(self, estimator, *args, **kwargs) -> None:
        self.max_epoch = estimator.max_epoch
        self.max_batch = estimator.max_batch
        self.current_batch = 0
        self.current_epoch = 0

    def batch_end(self, estimator, *args, **kwargs) -> bool:
        self.current_batch += 1
        if self.current_batch == self.max_batch:
            self.stop_training = True
        return self.stop_training

    def epoch_end(self, estimator, *args, **kwargs) -> bool:
        self.current_epoch += 1
        if self.current_epoch == self.max_epoch:
            self.stop_training = True
        return self.stop_training


class MetricHandler(EpochBegin, BatchEnd):
    """Reset metrics at epoch begin and update them at batch end (a ``metric.Loss``
    with the losses, the others with labels and predictions).

    Parameters
    ----------
    metrics : EvalMetric or list of EvalMetric
        The metrics to update.
    priority : float, default -1000
        Handlers run in ascending priority.
    """

    def __init__(self, metrics, priority: float = -1000):
        self.metrics = _check_metrics(metrics)
        self.priority = priority

    def epoch_begin(self, estimator, *args, **kwargs) -> None:
        for metric in self.metrics:
            metric.reset()

    def batch_end(self, estimator, *args, **kwargs) -> None:
        for metric in self.metrics:
            if isinstance(metric, LossMetric):
                metric.update(0, kwargs["loss"])
            else:
                metric.update(kwargs["label"], kwargs["pred"])


class ValidationHandler(TrainBegin, BatchEnd, EpochEnd):
    """Run ``eval_fn`` on ``val_data`` every ``epoch_period`` epochs and/or every
    ``batch_period`` batches.

    Parameters
    ----------
    val_data : DataLoader
        Validation data.
    eval_fn : callable
        Called as ``eval_fn(val_data=, batch_axis=, event_handlers=)``, e.g.
        ``estimator.evaluate``.
    epoch_period : int, default 1
        Validate every this many epochs (None: never at epoch end).
    batch_period : int, optional
        Validate every this many batches.
    priority : float, default -1000
        Handlers run in ascending priority.
    event_handlers : EventHandler or list, optional
        Handed to ``eval_fn``.
    """

    def __init__(self, val_data, eval_fn: Callable, epoch_period: Optional[int] = 1,
                 batch_period: Optional[int] = None, priority: float = -1000,
                 event_handlers=None):
        self.val_data = val_data
        self.eval_fn = eval_fn
        self.epoch_period = epoch_period
        self.batch_period = batch_period
        self.current_batch = 0
        self.current_epoch = 0
        self.priority = priority
        self.event_handlers = event_handlers

    def _validate(self, estimator) -> None:
        self.eval_fn(val_data=self.val_data, batch_axis=estimator.batch_axis,
                     event_handlers=self.event_handlers)

    def train_begin(self, estimator, *args, **kwargs) -> None:
        self.current_batch = 0
        self.current_epoch = 0

    def batch_end(self, estimator, *args, **kwargs) -> None:
        self.current_batch += 1
        if self.batch_period and self.current_batch % self.batch_period == 0:
            self._validate(estimator)

    def epoch_end(self, estimator, *args, **kwargs) -> None:
        self.current_epoch += 1
        if self.epoch_period and self.current_epoch % self.epoch_period == 0:
            self._validate(estimator)


class GradientUpdateHandler(BatchEnd):
    """``estimator.trainer.step(batch size)`` at batch end, the batch size being the
    total length of the losses.

    Parameters
    ----------
    priority : float, default -2000
        Handlers run in ascending priority (this one first).
    """

    def __init__(self, priority: float = -2000):
        self.priority = priority

    def batch_end(self, estimator, *args, **kwargs) -> None:
        loss = kwargs["loss"]
        losses = loss if isinstance(loss, list) else [loss]
        estimator.trainer.step(sum(l.shape[0] for l in losses))
