"""``mx.np.io``: ``genfromtxt`` (NumPy's parser; the result is an ``mx.np`` array)."""
from __future__ import annotations

import numpy as onp

from ..ndarray.numpy._array import array

__all__ = ["genfromtxt"]


def genfromtxt(*args, ctx=None, **kwargs):
    """Load data from a text file with NumPy's ``genfromtxt``; onto ``ctx``."""
    host = onp.genfromtxt(*args, **kwargs)
    return array(host, dtype=host.dtype, ctx=ctx)
