"""``mx.nd``: NDArray, creation functions and one function per registry operator.

``mx.nd.CachedOp`` is the engine's class (a higher layer): the package face
(``gluonlite/__init__.py``) sets it here once the engine has loaded, so this
package never imports the engine.
"""
import sys as _sys
from .. import autograd as _autograd
from . import ndarray  # noqa: F401
from .ndarray import (NDArray, array, empty, zeros, ones, full, arange, linspace, eye,
                      concatenate,  # noqa: F401
                      waitall, from_numpy, from_dlpack, to_dlpack_for_read,
                      to_dlpack_for_write)
from . import _api
from ._api import op, _internal, contrib, linalg, image  # noqa: F401
from . import arith as _arith
from .arith import (add, subtract, multiply, divide, true_divide, modulo, power,  # noqa: F401
                    maximum, minimum, hypot, equal, not_equal, greater, greater_equal,
                    lesser, lesser_equal, logical_and, logical_or, logical_xor, negative)
from . import fluent as _fluent
from . import random  # noqa: F401
from . import utils  # noqa: F401
from .utils import save, load, load_frombuffer  # noqa: F401
from .extras import moveaxis, reset_arrays, split_v2, onehot_encode  # noqa: F401
from . import sparse  # noqa: F401
from . import extras as _extras

contrib.isinf, contrib.isfinite, contrib.isnan = _extras.isinf, _extras.isfinite, _extras.isnan
from . import control_flow as _control_flow  # noqa: E402
contrib.foreach = _control_flow.foreach
contrib.while_loop = _control_flow.while_loop
from .zipfian import rand_zipfian as _rand_zipfian  # noqa: E402
contrib.rand_zipfian = _rand_zipfian
from .extras_more import histogram  # noqa: E402,F401
from . import extras_more as _extras_more  # noqa: E402
contrib.multi_lamb_update = _extras_more.multi_lamb_update
contrib.multi_mp_lamb_update = _extras_more.multi_mp_lamb_update
contrib.cond = _control_flow.cond
for _name in ("adamw_update", "mp_adamw_update", "multi_adamw_update", "multi_mp_adamw_update"):
    setattr(contrib, _name, getattr(_extras, _name))
del _name

_fluent.install()
from . import numpy as np  # noqa: E402 - mx.nd.np, MXNet's NumPy interface functions
from . import numpy_extension as npx  # noqa: E402
globals().update({k: v for k, v in vars(_api).items()
                  if not k.startswith("_") and callable(v) and k not in globals()})
del _arith

# MXNet's generated-file module names for the namespaces defined as real modules here
_sys.modules.setdefault(__name__ + ".gen_random", random)
_sys.modules.setdefault(__name__ + ".gen_sparse", sparse)

from ._autograd_function import Function as _AutogradFunction  # noqa: E402

# the tape (below this layer) gets the array class, its wrapper and the recorded
# functions that operators' backward_graph calls as ``F`` (this namespace)
_autograd.use_arrays(NDArray, NDArray._wrap, _sys.modules[__name__], _AutogradFunction)

__all__ = [k for k in globals() if not k.startswith("_")] + ["CachedOp"]


def __getattr__(name):
    if name == "CachedOp":  # set by the package face once the engine has loaded
        raise AttributeError("mx.nd.CachedOp is the engine's class and is set when "
                             "gluonlite.engine loads; import gluonlite first")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
