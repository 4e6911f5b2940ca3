"""``mx.np._op``: the array functions (MXNet's module path)."""
from ..ndarray.numpy._op import *  # noqa: F401,F403
from ..ndarray.numpy._op import __all__  # noqa: F401
