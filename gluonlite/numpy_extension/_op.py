"""``mx.npx._op``: the NumPy-extension operators (MXNet's module path)."""
from ..ndarray.numpy_extension._op import *  # noqa: F401,F403
from ..ndarray.numpy_extension._op import __all__  # noqa: F401
