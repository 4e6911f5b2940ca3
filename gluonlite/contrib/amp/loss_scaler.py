"""Dynamic loss scaling: start at 2**16, halve on a gradient overflow (and skip that
update), double after 2000 steps without one (MXNet's ``LossScaler``)."""
from __future__ import annotations

import logging

from ... import autograd
from ...backend import array_module

__all__ = ["LossScaler"]


class LossScaler:
    """Loss scale that follows gradient overflows."""

    def __init__(self):
        self._loss_scale = 2.0 ** 16
        self._next_loss_scale = self._loss_scale
        self._max_loss_scale = 2.0 ** 24
        self._scale_seq_len = 2000
        self._unskipped = 0

    @property
    def loss_scale(self) -> float:
        """The current scale."""
        return self._loss_scale

    def has_overflow(self, params) -> bool:
        """Whether any gradient of ``params`` is not finite; updates the next scale."""
        with autograd.pause():
            overflow = False
            for param in params:
                if param._grad is None:
                    continue
                data = param._grad[0]._data
                if not bool(array_module(data).isfinite(data).all()):
                    overflow = True
                    break
        self._loss_scale = self._next_loss_scale
        if overflow:
            self._next_loss_scale = self._loss_scale / 2.0
            self._unskipped = 0
            logging.info("AMP: decreasing loss scale to %f", self._next_loss_scale)
        else:
            self._unskipped += 1
        if self._unskipped == self._scale_seq_len:
            self._unskipped = 0
            self._next_loss_scale = min(self._max_loss_scale, self._loss_scale * 2.0)
            logging.info("AMP: increasing loss scale to %f", self._next_loss_scale)
        return overflow
