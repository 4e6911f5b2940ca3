"""``mx.sym.npx.random``: ``uniform_n`` and ``normal_n`` with scalar parameters on
symbols (the batch shape is the result's shape)."""
from __future__ import annotations

from ..numpy import random as _np_random

__all__ = ["uniform_n", "normal_n"]


def uniform_n(low=0.0, high=1.0, batch_shape=None, dtype=None, ctx=None):
    """Uniform draws of shape ``batch_shape``."""
    return _np_random.uniform(low, high, batch_shape, dtype, ctx)


def normal_n(loc=0.0, scale=1.0, batch_shape=None, dtype=None, ctx=None):
    """Normal draws of shape ``batch_shape``."""
    return _np_random.normal(loc, scale, batch_shape, dtype, ctx)
