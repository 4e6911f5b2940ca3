"""``mx.npx.random``: ``bernoulli``, ``uniform_n``, ``normal_n`` and ``seed``."""
from ..ndarray.numpy_extension.random import *  # noqa: F401,F403
from .. import random as _random

__all__ = ["bernoulli", "uniform_n", "normal_n", "seed"]


def seed(seed, ctx="all") -> None:  # noqa: A001 - MXNet's keyword is ``seed``
    """Seed the random number generators (``mx.random.seed``; MXNet's ``mx.npx.random``
    names the argument ``seed``).

    Parameters
    ----------
    seed : int
        The seed; the same seed gives the same draws on the same device.
    ctx : Context or 'all'
        Seed only this device's stream, or (``'all'``) every device's.
    """
    _random.seed(seed, ctx)
