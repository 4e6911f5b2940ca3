"""``mx.nd.np``: the functions of MXNet's NumPy interface over ``mx.np`` arrays
(``mx.np`` re-exports them with the array class and NumPy's dtypes and constants)."""
from . import _array, _methods
from ._array import ndarray, array, empty, zeros, ones, full  # noqa: F401
from ._op import *  # noqa: F401,F403
from ._op import __all__ as _op_all
from . import linalg, random, _internal  # noqa: F401

_methods.install()

__all__ = list(_op_all) + ["linalg", "random"]
