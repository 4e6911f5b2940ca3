"""``mx.np``: MXNet's NumPy-compatible interface: the ``ndarray`` class with NumPy's
semantics, NumPy's functions (through the operator registry, so autograd records them),
``linalg``, ``random``, NumPy's dtypes and constants, and the functions MXNet runs with
official NumPy (``fallback``).  ``mx.npx.set_np()`` makes Gluon blocks take and give
these arrays."""
from . import random, linalg, fallback, fallback_linalg  # noqa: F401
from . import multiarray, _op, _register, utils, function_base, stride_tricks, io  # noqa: F401
from . import arrayprint  # noqa: F401
from .multiarray import *  # noqa: F401,F403
from .utils import *  # noqa: F401,F403
from .utils import bool  # noqa: F401,A004 - MXNet exports np.bool
from .function_base import *  # noqa: F401,F403
from .stride_tricks import *  # noqa: F401,F403
from .io import *  # noqa: F401,F403
from .arrayprint import *  # noqa: F401,F403
from .multiarray import __all__ as _array_all
from .utils import __all__ as _utils_all

__all__ = sorted(set(_array_all) | set(_utils_all) | {"random", "linalg", "genfromtxt",
                                                        "set_printoptions"})
