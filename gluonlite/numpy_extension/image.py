"""``mx.npx.image``: image operators over ``mx.np`` arrays."""
from ..ndarray.numpy_extension.image import *  # noqa: F401,F403
from ..ndarray.numpy_extension.image import __all__  # noqa: F401
