"""``mx.sym``: Symbol, variables, composition, inference and one function per
registry operator (``sym.FullyConnected``, ``sym.contrib.*``, ``sym.linalg.*``, ...)."""
import sys as _sys
from . import graph  # noqa: F401
from . import symbol  # noqa: F401
from .symbol import Symbol, Group, load, load_json  # noqa: F401
from . import _api
from ._api import op, _internal, contrib, linalg, image, sparse  # noqa: F401
from . import arith as _arith  # noqa: F401 - installs the operators on Symbol
from .arith import pow, power, maximum, minimum, hypot  # noqa: F401
from .creation import var, Variable, zeros, ones, full, arange, linspace, eye  # noqa: F401
from . import fluent as _fluent
from . import from_tape as _from_tape  # noqa: F401 - installs autograd.get_symbol
from . import random  # noqa: F401
from .extras import split_v2, histogram  # noqa: F401

_fluent.install()
from . import numpy as np  # noqa: E402 - mx.sym.np, MXNet's NumPy interface on symbols
from . import numpy_extension as npx  # noqa: E402
globals().update({k: v for k, v in _api.public.items() if k not in globals()})
del _arith


from . import control_flow as _control_flow

contrib.foreach = _control_flow.foreach
contrib.while_loop = _control_flow.while_loop
contrib.cond = _control_flow.cond
from .zipfian import rand_zipfian as _rand_zipfian  # noqa: E402
contrib.rand_zipfian = _rand_zipfian

# MXNet's generated-file module name of the random namespace
_sys.modules.setdefault(__name__ + ".gen_random", random)

__all__ = [k for k in globals() if not k.startswith("_")]
