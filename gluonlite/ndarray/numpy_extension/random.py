"""``mx.nd.npx.random``: MXNet's extra samplers over ``mx.np`` arrays: ``bernoulli``,
``uniform_n`` and ``normal_n`` (the batch shape goes before the parameters' shape)."""
from __future__ import annotations

from ..numpy import random as _np_random


__all__ = ["bernoulli", "uniform_n", "normal_n"]


def bernoulli(prob=None, logit=None, size=None, dtype=None, ctx=None, out=None):
    """Draws of 1 with probability ``prob`` (or ``sigmoid(logit)``), else 0."""
    return _np_random.bernoulli(prob, logit, size, dtype, ctx, out)


def uniform_n(low=0.0, high=1.0, batch_shape=None, dtype=None, ctx=None):
    """Uniform draws of shape ``batch_shape + broadcast(low, high).shape``."""
    return _np_random._dist("uniform_n", {"low": low, "high": high}, batch_shape, ctx,
                            dtype)


def normal_n(loc=0.0, scale=1.0, batch_shape=None, dtype=None, ctx=None):
    """Normal draws of shape ``batch_shape + broadcast(loc, scale).shape``."""
    return _np_random._dist("normal_n", {"loc": loc, "scale": scale}, batch_shape, ctx,
                            dtype)
