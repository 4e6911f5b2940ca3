"""``mx.random``: seeding of the random streams and MXNet's samplers.

``seed(n)`` reseeds the stream of every device (or of one ``ctx``), so that the
draws that follow are repeatable.  The samplers are those of ``mx.nd.random``.
"""
from __future__ import annotations

import numbers

from . import _rng
from .ndarray.random import (uniform, normal, randn, randint, exponential, gamma,  # noqa: F401
                             poisson, negative_binomial, generalized_negative_binomial,
                             multinomial, shuffle)

__all__ = ["seed", "uniform", "normal", "randn", "randint", "exponential", "gamma", "poisson",
           "negative_binomial", "generalized_negative_binomial", "multinomial", "shuffle"]


def seed(seed_state: int, ctx="all") -> None:
    """Seed the random number generators.

    Parameters
    ----------
    seed_state : int
        The seed; the same seed gives the same draws on the same device.
    ctx : Context or 'all'
        Seed only this device's stream, or (``'all'``, the default) every device's.
        With ``'all'``, each device gets a distinct stream derived from the seed.
    """
    if not isinstance(seed_state, numbers.Integral) or isinstance(seed_state, bool):
        raise ValueError("seed_state must be int")
    _rng.seed(int(seed_state), None if ctx is None or ctx == "all" else ctx)
