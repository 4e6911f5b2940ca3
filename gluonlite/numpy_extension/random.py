"""``mx.npx.random``: ``bernoulli``, ``uniform_n``, ``normal_n`` and ``seed``."""
from ..ndarray.numpy_extension.random import *  # noqa: F401,F403
from ..random import seed  # noqa: F401

__all__ = ["bernoulli", "uniform_n", "normal_n", "seed"]
