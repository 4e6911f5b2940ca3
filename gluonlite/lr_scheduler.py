"""``mx.lr_scheduler``: learning rate as a function of the number of updates.

A scheduler is called with ``num_update`` (the largest number of updates any
weight has had) and returns the learning rate.  As in MXNet, the step schedulers
keep state (the decayed ``base_lr``), and an optimizer that owns a scheduler sets
the scheduler's ``base_lr`` to its own learning rate.
"""
from __future__ import annotations

import logging
import math

__all__ = ["LRScheduler", "FactorScheduler", "MultiFactorScheduler", "PolyScheduler",
           "CosineScheduler"]


class LRScheduler:
    """Base class of learning-rate schedules, with an optional warm-up.

    Parameters
    ----------
    base_lr : float
        Learning rate after the warm-up.
    warmup_steps : int
        Updates spent warming up before the schedule starts.
    warmup_begin_lr : float
        Learning rate at update 0 of the warm-up.
    warmup_mode : {'linear', 'constant'}
        ``linear`` rises in equal steps from ``warmup_begin_lr`` to ``base_lr``;
        ``constant`` stays at ``warmup_begin_lr``.
    """

    def __init__(self, base_lr: float = 0.01, warmup_steps: int = 0,
                 warmup_begin_lr: float = 0, warmup_mode: str = "linear"):
        if not isinstance(warmup_steps, int):
            raise TypeError("warmup_steps must be an int")
        if warmup_begin_lr > base_lr:
            raise ValueError("Base lr has to be higher than warmup_begin_lr")
        if warmup_steps < 0:
            raise ValueError("Warmup steps has to be positive or 0")
        if warmup_mode not in ("linear", "constant"):
            raise ValueError("Supports only linear and constant modes of warmup")
        self.base_lr = base_lr
        self.warmup_steps = warmup_steps
        self.warmup_final_lr = base_lr
        self.warmup_begin_lr = warmup_begin_lr
        self.warmup_mode = warmup_mode

    def get_warmup_lr(self, num_update: int) -> float:
        """Learning rate at update ``num_update`` of the warm-up."""
        if num_update >= self.warmup_steps:
            raise ValueError(f"update {num_update} is past the {self.warmup_steps} warm-up steps")
        if self.warmup_mode == "constant":
            return self.warmup_begin_lr
        span = self.warmup_final_lr - self.warmup_begin_lr
        return self.warmup_begin_lr + span * float(num_update) / float(self.warmup_steps)

    def __call__(self, num_update: int) -> float:
        raise NotImplementedError("an LRScheduler subclass must define __call__")


def _check_factor(factor: float) -> None:
    if factor > 1.0:
        raise ValueError("Factor must be no more than 1 to make lr reduce")


class FactorScheduler(LRScheduler):
    """``base_lr * factor ** floor((num_update - 1) / step)``, not below ``stop_factor_lr``.

    The rate changes once ``num_update`` exceeds a multiple of ``step``.
    """

    def __init__(self, step: int, factor: float = 1, stop_factor_lr: float = 1e-8,
                 base_lr: float = 0.01, warmup_steps: int = 0, warmup_begin_lr: float = 0,
                 warmup_mode: str = "linear"):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if step < 1:
            raise ValueError("Schedule step must be greater or equal than 1 round")
        _check_factor(factor)
        self.step = step
        self.factor = factor
        self.stop_factor_lr = stop_factor_lr
        self.count = 0

    def __call__(self, num_update: int) -> float:
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        # a loop, not one power: training resumed at a later update catches up
        while num_update > self.count + self.step:
            self.count += self.step
            self.base_lr = max(self.base_lr * self.factor, self.stop_factor_lr)
            logging.info("Update[%d]: Change learning rate to %0.5e", num_update, self.base_lr)
        return self.base_lr


class MultiFactorScheduler(LRScheduler):
    """Multiply the rate by ``factor`` each time ``num_update`` passes one of ``step``
    (an increasing list)."""

    def __init__(self, step: list, factor: float = 1, base_lr: float = 0.01,
                 warmup_steps: int = 0, warmup_begin_lr: float = 0,
                 warmup_mode: str = "linear"):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if not isinstance(step, list) or not step:
            raise ValueError("step must be a non-empty list of update counts")
        for i, s in enumerate(step):
            if i and s <= step[i - 1]:
                raise ValueError("Schedule step must be an increasing integer list")
            if s < 1:
                raise ValueError("Schedule step must be greater or equal than 1 round")
        _check_factor(factor)
        self.step = step
        self.factor = factor
        self.cur_step_ind = 0
        self.count = 0

    def __call__(self, num_update: int) -> float:
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        while self.cur_step_ind < len(self.step) and num_update > self.step[self.cur_step_ind]:
            self.count = self.step[self.cur_step_ind]
            self.cur_step_ind += 1
            self.base_lr *= self.factor
            logging.info("Update[%d]: Change learning rate to %0.5e", num_update, self.base_lr)
        return self.base_lr


class _DecayToUpdate(LRScheduler):
    """A schedule that decays from ``base_lr`` to ``final_lr`` over ``max_update``
    updates (warm-up included) and stays there."""

    def __init__(self, max_update: int, base_lr: float, final_lr: float, warmup_steps: int,
                 warmup_begin_lr: float, warmup_mode: str):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if not isinstance(max_update, int):
            raise TypeError("max_update must be an int")
        if max_update < 1:
            raise ValueError("maximum number of updates must be strictly positive")
        self.base_lr_orig = self.base_lr
        self.max_update = max_update
        self.final_lr = final_lr
        self.max_steps = max_update - warmup_steps

    def _shape(self, progress: float) -> float:
        raise NotImplementedError

    def __call__(self, num_update: int) -> float:
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        if num_update <= self.max_update:
            progress = float(num_update - self.warmup_steps) / float(self.max_steps)
            self.base_lr = (self.final_lr
                            + (self.base_lr_orig - self.final_lr) * self._shape(progress))
        return self.base_lr


class PolyScheduler(_DecayToUpdate):
    """``final_lr + (base_lr - final_lr) * (1 - t) ** pwr`` with ``t`` the fraction of
    the ``max_update`` updates after warm-up done."""

    def __init__(self, max_update: int, base_lr: float = 0.01, pwr: float = 2,
                 final_lr: float = 0, warmup_steps: int = 0, warmup_begin_lr: float = 0,
                 warmup_mode: str = "linear"):
        super().__init__(max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr,
                         warmup_mode)
        self.power = pwr

    def _shape(self, progress: float) -> float:
        return pow(1 - progress, self.power)


class CosineScheduler(_DecayToUpdate):
    """``final_lr + (base_lr - final_lr) * (1 + cos(pi * t)) / 2`` with ``t`` the
    fraction of the ``max_update`` updates after warm-up done."""

    def __init__(self, max_update: int, base_lr: float = 0.01, final_lr: float = 0,
                 warmup_steps: int = 0, warmup_begin_lr: float = 0,
                 warmup_mode: str = "linear"):
        super().__init__(max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr,
                         warmup_mode)

    def _shape(self, progress: float) -> float:
        return (1 + math.cos(math.pi * progress)) / 2
