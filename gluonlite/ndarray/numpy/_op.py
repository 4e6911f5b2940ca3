"""The functions of ``mx.np`` (MXNet's ``mx.nd.np``): NumPy's names and signatures over
``mx.np`` arrays, each one or a few registry operators, so that autograd records them.

Where MXNet 1.9's ``mx.np`` differs from NumPy, MXNet's rule holds (see
:mod:`gluonlite.ops.numpy_binary` for dtypes): lists and scalars become ``float32``,
``arange``/``linspace``/``eye``/``full`` default to ``float32``, integer ``mean`` and
division give ``float32``, indices are ``int64``.  The functions live by purpose in
``_creation``, ``_elementwise``, ``_reduce``, ``_manip``, ``_search``, ``_products`` and
``_misc``; this module gathers them.
"""
from . import _creation, _elementwise, _manip, _misc, _products, _reduce, _search
from ._array import ndarray, array, zeros, ones, full, empty  # noqa: F401
from ._common import _arr, _out  # noqa: F401 - used by the methods, linalg and random
from ._creation import *  # noqa: F401,F403
from ._elementwise import *  # noqa: F401,F403
from ._elementwise import _BINARY_NAMES, _binary  # noqa: F401 - the ndarray operators
from ._manip import *  # noqa: F401,F403
from ._misc import *  # noqa: F401,F403
from ._products import *  # noqa: F401,F403
from ._reduce import *  # noqa: F401,F403
from ._search import *  # noqa: F401,F403

__all__ = sorted({n for m in (_creation, _elementwise, _manip, _misc, _products, _reduce,
                              _search) for n in m.__all__}
                 | {"ndarray", "array", "zeros", "ones", "full", "empty"})
