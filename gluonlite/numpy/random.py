"""``mx.np.random``: NumPy's samplers over MXNet's generator."""
from ..ndarray.numpy.random import *  # noqa: F401,F403
from ..ndarray.numpy.random import __all__  # noqa: F401
