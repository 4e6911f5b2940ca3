"""``mx.np.multiarray``: the ``mx.np.ndarray`` class and the array functions: gluonlite's
own (recorded by autograd) where it has one, else MXNet's NumPy fallback."""
from .fallback import *  # noqa: F401,F403 - first: the native functions below replace them
from .fallback import __all__ as _fallback_all
from ..ndarray.numpy._array import ndarray  # noqa: F401
from ..ndarray.numpy._op import *  # noqa: F401,F403
from ..ndarray.numpy._op import __all__ as _op_all

__all__ = sorted(set(_op_all) | set(_fallback_all) | {"ndarray"})
