"""``EarlyStoppingHandler``: stop when a monitored metric stops improving."""
from __future__ import annotations

import warnings
from typing import Optional

import numpy as np

from ._events import EpochEnd, TrainBegin, TrainEnd
from ._monitor import improvement_op
from ....metric import CompositeEvalMetric, EvalMetric

__all__ = ["EarlyStoppingHandler"]


class EarlyStoppingHandler(TrainBegin, EpochEnd, TrainEnd):
    """Stop training when ``monitor`` has not improved for ``patience`` epochs.

    Parameters
    ----------
    monitor : EvalMetric
        One of the estimator's metrics (not a composite one).
    min_delta : float, default 0
        Smallest change that counts as an improvement.
    patience : int, default 0
        Epochs without improvement tolerated before stopping.
    mode : {'auto', 'min', 'max'}, default 'auto'
        Direction of improvement; ``'auto'`` takes ``'max'`` for accuracy and F1
        metrics and ``'min'`` otherwise.
    baseline : float, optional
        Initial best value.

    Raises
    ------
    ValueError
        When ``monitor`` is not an ``EvalMetric`` or is a ``CompositeEvalMetric``.
    """

    def __init__(self, monitor: EvalMetric, min_delta: float = 0, patience: int = 0,
                 mode: str = "auto", baseline: Optional[float] = None):
        if not isinstance(monitor, EvalMetric):
            raise ValueError("Please provide one of the metric objects from "
                             "estimator.train_metrics and estimator.val_metrics as monitor.")
        if isinstance(monitor, CompositeEvalMetric):
            raise ValueError("CompositeEvalMetric is not supported for EarlyStoppingHandler, "
                             "please specify a simple metric instead.")
        self.monitor = monitor
        self.baseline = baseline
        self.patience = patience
        self.monitor_op = improvement_op(monitor, mode, "EarlyStopping")
        # the delta is subtracted from the new value before comparing
        self.min_delta = min_delta if self.monitor_op is np.greater else -min_delta
        self.wait = 0
        self.stopped_epoch = 0
        self.current_epoch = 0
        self.stop_training = False

    def train_begin(self, estimator, *args, **kwargs) -> None:
        self.wait = 0
        self.stopped_epoch = 0
        self.current_epoch = 0
        self.stop_training = False
        if self.baseline is not None:
            self.best = self.baseline
        else:
            self.best = np.inf if self.monitor_op is np.less else -np.inf

    def epoch_end(self, estimator, *args, **kwargs) -> bool:
        name, value = self.monitor.get()
        if np.isnan(value):
            warnings.warn(RuntimeWarning(
                f"{name} is not updated, make sure you pass one of the metric objects from "
                "estimator.train_metrics and estimator.val_metrics as monitor."))
        elif self.monitor_op(value - self.min_delta, self.best):
            self.best = value
            self.wait = 0
        else:
            self.wait += 1
            if self.wait >= self.patience:
                self.stopped_epoch = self.current_epoch
                self.stop_training = True
        self.current_epoch += 1
        return self.stop_training

    def train_end(self, estimator, *args, **kwargs) -> None:
        if self.stopped_epoch > 0:
            estimator.logger.info("[Epoch %d] EarlyStoppingHanlder: early stopping due to %s "
                                  "not improving", self.stopped_epoch, self.monitor.get()[0])
