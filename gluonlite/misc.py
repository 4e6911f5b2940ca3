"""``mx.misc``: MXNet's first, iteration-based learning-rate schedulers, kept for old
scripts (new code uses :mod:`gluonlite.lr_scheduler`, which the optimizers call)."""
from __future__ import annotations

import logging
import math

__all__ = ["LearningRateScheduler", "FactorScheduler"]


class LearningRateScheduler:
    """Base class: ``scheduler(iteration)`` gives the learning rate of that iteration,
    starting from ``base_lr`` (0.01)."""

    def __init__(self) -> None:
        self.base_lr = 0.01

    def __call__(self, iteration: int) -> float:
        raise NotImplementedError("must override this")


class FactorScheduler(LearningRateScheduler):
    """``base_lr * factor ** (iteration // step)``, logging each change.

    Parameters
    ----------
    step : int
        Iterations between reductions (at least 1).
    factor : float
        Multiplier of each reduction, below 1.
    """

    def __init__(self, step: int, factor: float = 0.1) -> None:
        super().__init__()
        if step < 1:
            raise ValueError("Schedule step must be greater or equal than 1 round")
        if factor >= 1.0:
            raise ValueError("Factor must be less than 1 to make lr reduce")
        self.step = step
        self.factor = factor
        self.old_lr = self.base_lr
        self.init = False

    def __call__(self, iteration: int) -> float:
        if not self.init:  # base_lr may have been set after construction
            self.init = True
            self.old_lr = self.base_lr
        lr = self.base_lr * math.pow(self.factor, int(iteration / self.step))
        if lr != self.old_lr:
            self.old_lr = lr
            logging.info("At Iteration [%d]: Swith to new learning rate %.5f", iteration, lr)
        return lr
