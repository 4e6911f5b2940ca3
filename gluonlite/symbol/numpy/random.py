"""``mx.sym.np.random``: ``uniform``, ``normal`` and ``randint`` with scalar parameters
(MXNet's generator; ``float32``, ``int64`` for ``randint``)."""
from __future__ import annotations

import numbers

import numpy as onp

from ._symbol import apply

__all__ = ["uniform", "normal", "randint"]


def _size(size) -> tuple:
    if size is None:
        return (1,)
    return (size,) if isinstance(size, numbers.Integral) else tuple(size)


def uniform(low=0.0, high=1.0, size=None, dtype=None, ctx=None, out=None):
    return apply("_random_uniform", [], low=float(low), high=float(high), shape=_size(size),
                 dtype=onp.dtype(dtype or onp.float32))


def normal(loc=0.0, scale=1.0, size=None, dtype=None, ctx=None, out=None):
    return apply("_random_normal", [], loc=float(loc), scale=float(scale), shape=_size(size),
                 dtype=onp.dtype(dtype or onp.float32))


def randint(low, high=None, size=None, dtype=None, ctx=None, out=None):
    if high is None:
        low, high = 0, low
    return apply("_random_randint", [], low=int(low), high=int(high), shape=_size(size),
                 dtype=onp.dtype(dtype or onp.int64))
