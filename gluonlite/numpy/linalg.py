"""``mx.np.linalg``: NumPy's linear algebra over ``mx.np`` arrays."""
from ..ndarray.numpy.linalg import *  # noqa: F401,F403
from ..ndarray.numpy.linalg import __all__  # noqa: F401
from . import fallback_linalg  # noqa: F401
