"""gluonlite: MXNet 1.9's Gluon API on NumPy (CPU) and CuPy (GPU).

``import gluonlite as mx`` gives MXNet's top-level names.

Notes for contributors
======================

Layers
------
The package is built in layers, bottom up: ``device < ops < tape < arrays < graphs <
engine < front``.  A module imports only its own layer and the layers below it, at
module level and inside functions alike.  Where a lower layer needs something of a
higher one, the higher one lends it when it loads: the arrays layer gives the tape its
array class, a wrapper and the ``F`` namespace (``autograd.use_arrays``); the Executor
gives ``Symbol`` its ``bind`` (``symbol.symbol.use_executor``); ``mx.operator``
installs the ``Custom`` operator's runtime (``ops.custom.use_runtime``); this file,
the package face, may import everything and sets ``mx.nd.CachedOp``.
``tests/test_layering.py`` parses the table below (the top-level modules of each
layer; ``*`` is every module not named) and checks every import of the package
against it::

    device: base backend context _malloc _blas _rng name attribute util registry libinfo
    ops: ops
    tape: autograd
    arrays: ndarray
    graphs: symbol
    engine: engine
    front: *

``device`` holds ``Context`` and the array module (``numpy``/``cupy``) of each
device, ``MXNetError``; ``ops`` the operator registry, written against ``xp`` only;
``tape`` the autograd tape over raw arrays (it knows no ``NDArray`` class);
``arrays`` ``NDArray``, imperative invoke, ``nd.*``, ``nd.save``/``nd.load``;
``graphs`` ``Symbol``, JSON, shape/type inference; ``engine`` the CachedOp; ``front``
Gluon, the Executor (``mx.executor``), custom operators (``mx.operator``), the Module
family, optimizers, metrics, io, kvstore, image, contrib.

Where an operator lives
-----------------------
Every operator is defined once, in ``gluonlite/ops/<family>.py``, as
``register(OpDef(name, forward, backward=..., ...))``; heavy kernels and helpers live
in private modules beside it (``ops/_*.py``).  That one definition serves ``nd.X``,
``sym.X``, ``F.X`` in ``hybrid_forward``, the JSON loader and the CachedOp.  Its test
samples go in ``tests/ops/samples/<family>.py`` (``SAMPLES[name]``); the op harness
(``tests/ops/harness.py``) walks the whole registry and fails on an operator without
samples.  Forward is ``forward(oc, attrs, inputs, out)`` on raw arrays with
``xp = oc.xp``, writing into ``out`` when given; backward is ``backward(oc, attrs,
inputs, outputs, out_grads)``, one gradient (or ``None``) per input.

What an operator declares
-------------------------
What the engine, symbols and Gluon need to know is declared on the ``OpDef`` (see its
docstring), never inferred from the name: MXNet's ``name``, ``aliases``, ``attrs``
(types and MXNet defaults), ``inputs``, ``aux`` (auxiliary states),
``num_outputs``/``num_visible_outputs``, ``infer_shape``/``infer_type``; the traits
``elementwise`` (one shape for every input and output), ``math`` (the elementwise
math written once, below), ``cuda``/``cuda_grad`` or ``cuda_fn`` (fusion expressions,
rendered from ``math``; ``where`` and ``clip`` write theirs by hand), ``fuse_int``
(fuses on integers), ``fuse_shape``, ``input_init`` (``__init__`` of auxiliary
variables), ``float32_inputs``, ``backward_uses`` (what backward reads),
``backward_mask``, ``inplace_out``, ``second_order`` with ``backward_graph`` (the
gradient for ``create_graph=True``, written over the ``F`` namespace that the tape
hands in, so ``ops/`` never imports ``ndarray``: ``backward_graph(F, attrs, inputs,
outputs, out_grads)``), ``sparse_forward``/``sparse_from_dense`` (MXNet's storage
dispatch) and ``saved_state``.  No list of operator names lives outside ``ops/``.

Elementwise math, written once
------------------------------
An elementwise operator states its forward and partial derivatives once, in the
expression form of ``ops/expr.py``: ``math=ElemMath(forward, grads, inputs)`` (or
``f(attrs)`` returning one), built from variables, numbers, ``+ - * /``, comparisons,
``where`` and the functions of ``expr.FUNCTIONS``.  From it come the CUDA expressions
of GPU fusion, the recorded backward for ``create_graph=True`` and the NumPy kernels
(``numpy_kernel``, ``head_grad_kernel``) that the unary, binary and scalar families run
unless a hand-tuned kernel is faster or follows MXNet's integer rules; the op harness
checks every NumPy forward and backward against the expression (``check_math``).

How state reaches backward
--------------------------
An operator whose backward wants what its forward computed (a convolution's columns,
the RNN's BPTT caches, a ``Custom`` operator's instance) declares
``saved_state=True``.  Where a backward may follow, callers run ``forward(oc, attrs,
inputs, out, keep_state=True)``, which returns ``(outputs, state)``; imperative invoke
puts ``state`` on the tape node, the CachedOp keeps it in its plan's saved entries,
and backward receives it as ``backward(..., state=state)``.  Without ``keep_state``
forward returns its outputs alone and backward gets ``state=None`` and must recompute.
Backward only reads the state (a retained graph hands it to a second backward).  No
cache keyed on object identity stands in for it.
"""
from __future__ import annotations

import importlib.machinery
import sys
import types

__version__ = "0.1.0"
MXNET_VERSION = "1.9.1"

from . import _malloc  # noqa: E402,F401 - allocator tuning, see _malloc.py
from . import _blas  # noqa: E402,F401 - the BLAS thread count, see _blas.py
from . import base  # noqa: E402
from .base import MXNetError  # noqa: E402,F401
from . import context  # noqa: E402
from .context import Context, cpu, gpu, cpu_pinned, current_context, num_gpus  # noqa: E402,F401
from . import ops  # noqa: E402,F401
from . import autograd  # noqa: E402
from . import ndarray  # noqa: E402
from . import ndarray as nd  # noqa: E402
from . import random  # noqa: E402
from . import util  # noqa: E402
from .util import (is_np_array, is_np_shape, np_array, np_shape, set_np_shape,  # noqa: E402,F401
                   use_np, use_np_array, use_np_shape)
from . import operator  # noqa: E402,F401
from . import name  # noqa: E402,F401
from . import attribute  # noqa: E402,F401
from .attribute import AttrScope  # noqa: E402,F401
from . import registry  # noqa: E402,F401
from . import initializer  # noqa: E402,F401
from . import initializer as init  # noqa: E402,F401
from . import symbol  # noqa: E402,F401
from . import symbol as sym  # noqa: E402,F401
from . import engine  # noqa: E402
ndarray.CachedOp = engine.CachedOp  # mx.nd.CachedOp, without nd importing the engine
from . import gluon  # noqa: E402,F401
from . import monitor  # noqa: E402,F401
from . import monitor as mon  # noqa: E402,F401
from . import executor  # noqa: E402,F401
from . import runtime  # noqa: E402,F401
from . import callback  # noqa: E402,F401
from . import lr_scheduler  # noqa: E402,F401
from . import optimizer  # noqa: E402,F401
from .optimizer import Optimizer  # noqa: E402,F401
from . import metric  # noqa: E402,F401
from . import kvstore  # noqa: E402,F401
from . import kvstore as kv  # noqa: E402,F401
from . import recordio  # noqa: E402,F401
from . import image  # noqa: E402,F401
from . import image as img  # noqa: E402,F401
from . import io  # noqa: E402,F401
from . import model  # noqa: E402,F401
from . import module  # noqa: E402,F401
from . import module as mod  # noqa: E402,F401
from . import rnn  # noqa: E402,F401
from . import contrib  # noqa: E402,F401
from . import visualization  # noqa: E402,F401
from . import visualization as viz  # noqa: E402,F401
from . import error  # noqa: E402,F401
from . import log  # noqa: E402,F401
from . import libinfo  # noqa: E402,F401
from . import library  # noqa: E402,F401 - mx.library.load (MXNet's __init__ imports it)
from . import profiler  # noqa: E402,F401
from . import onnx  # noqa: E402,F401 - mx.onnx.export_model (needs the onnx package when called)
from . import executor_manager  # noqa: E402,F401
from . import ndarray_doc  # noqa: E402,F401
from . import symbol_doc  # noqa: E402,F401
from . import notebook  # noqa: E402,F401
from . import numpy as np  # noqa: E402,F401 - MXNet's NumPy interface
from . import numpy_extension as npx  # noqa: E402,F401
from . import numpy  # noqa: E402,F401
from . import numpy_extension  # noqa: E402,F401
from .symbol import numpy as np_symbol  # noqa: E402,F401 - MXNet's name for mx.sym.np
from . import _numpy_op_doc  # noqa: E402,F401 - documented signatures of mx.np functions

# ``from mxnet.autograd import *`` also gives ``NDArray``, ``array`` and ``Symbol`` (MXNet's
# module has no ``__all__`` and imports them): the tape knows no such classes, so the
# package hands them over once every layer is loaded
autograd.NDArray, autograd.array, autograd.Symbol = ndarray.NDArray, ndarray.array, \
    symbol.Symbol
autograd.__all__ = list(autograd.__all__) + ["NDArray", "array", "Symbol"]

__all__ = ["base", "context", "Context", "cpu", "gpu", "cpu_pinned", "current_context",
           "num_gpus", "autograd", "ndarray", "nd", "random", "util", "test_utils",
           "MXNetError", "install_mxnet_alias", "name", "attribute", "AttrScope", "symbol", "sym"]


def __getattr__(name: str):
    # ``mx.test_utils`` loads on first use: like MXNet's, it imports scipy.stats, which
    # would double the time ``import gluonlite`` takes (1.1 of 2.3 s)
    if name == "test_utils":
        import importlib
        return importlib.import_module(".test_utils", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# NumPy < 1.24 (what MXNet 1.9 runs beside) had these aliases of the builtin types;
# code written for MXNet uses them (GluonCV's Faster R-CNN anchors: ``dtype=np.float``).
_NUMPY_BUILTIN_ALIASES = {"float": float, "int": int, "complex": complex, "object": object,
                          "str": str}
# names NumPy 2.0 removed that MXNet-era code (MXNet 1.9's own tests included) still uses:
# constants, scalar-type aliases and a few function aliases, bound to what they meant
_NUMPY2_REMOVED_ALIASES = {
    "NaN": float("nan"), "NAN": float("nan"), "Inf": float("inf"),
    "Infinity": float("inf"), "infty": float("inf"), "PINF": float("inf"),
    "NINF": float("-inf"), "PZERO": 0.0, "NZERO": -0.0,
    "float_": "float64", "complex_": "complex128", "cfloat": "complex128",
    "singlecomplex": "complex64", "longfloat": "longdouble", "clongfloat": "clongdouble",
    "longcomplex": "clongdouble", "unicode_": "str_", "string_": "bytes_", "bool8": "bool_",
    "int0": "intp", "uint0": "uintp", "object0": "object_", "str0": "str_",
    "bytes0": "bytes_", "void0": "void",
    "round_": "round", "product": "prod", "cumproduct": "cumprod", "sometrue": "any",
    "alltrue": "all", "row_stack": "vstack",
}


def _restore_numpy_aliases() -> None:
    """Give NumPy back the builtin-type aliases it removed in 1.24, where it has none of
    its own, and the names NumPy 2.0 removed (``NaN``, ``Inf``, ``float_``, ...); a name
    NumPy defines is left alone."""
    import numpy
    for name, value in _NUMPY_BUILTIN_ALIASES.items():
        if name not in vars(numpy):
            setattr(numpy, name, value)
    for name, value in _NUMPY2_REMOVED_ALIASES.items():
        if name not in vars(numpy):  # a string names the NumPy attribute it stood for
            setattr(numpy, name, getattr(numpy, value) if isinstance(value, str) else value)


def install_mxnet_alias(numpy_aliases: bool = True) -> None:
    """Register gluonlite as ``mxnet`` in ``sys.modules`` (submodules included), so code
    that does ``import mxnet`` runs on gluonlite.  ``mxnet.__version__`` reads ``1.9.1``.

    With ``numpy_aliases`` (the default), also restore ``numpy.float``, ``numpy.int``,
    ``numpy.complex``, ``numpy.object`` and ``numpy.str`` (the builtin types, as NumPy
    before 1.24 had them), which MXNet-era packages such as GluonCV still use, and the
    names NumPy 2.0 removed (``numpy.NaN``, ``numpy.NINF``, ``numpy.float_``,
    ``numpy.product``, ...), bound to the values and types they stood for.
    """
    if numpy_aliases:
        _restore_numpy_aliases()

    alias = _MXNetModule("mxnet", __doc__)
    alias.__dict__.update({k: v for k, v in globals().items() if not k.startswith("__")})
    alias.__version__ = MXNET_VERSION
    alias.__path__ = __path__  # lets `import mxnet.gluon.nn` find submodules
    alias.__file__ = __file__
    # importlib.util.find_spec("mxnet"), which checks for an installed package, reads it
    alias.__spec__ = importlib.machinery.ModuleSpec("mxnet", None, origin=__file__,
                                                    is_package=True)
    alias.__spec__.submodule_search_locations = list(__path__)
    alias.__package__ = "mxnet"
    sys.modules["mxnet"] = alias
    for name, module in list(sys.modules.items()):
        if name.startswith(__name__ + "."):
            sys.modules["mxnet" + name[len(__name__):]] = module
    if _alias_finder not in sys.meta_path:
        sys.meta_path.insert(0, _alias_finder)


class _MXNetModule(types.ModuleType):
    """``sys.modules["mxnet"]``: gluonlite's names, copied when the alias is installed,
    and any other attribute read from gluonlite when it is asked for: the ones gluonlite
    loads on first use (``test_utils``, which MXNet imports at start-up, so that client
    code writes ``mx.test_utils.x`` after a bare ``import mxnet``) and the ones that
    appear later (submodules imported afterwards)."""

    def __getattr__(self, name: str):
        return getattr(sys.modules[__name__], name)

    def __dir__(self):
        package = sys.modules[__name__]
        return sorted(set(self.__dict__) | set(dir(package)) | set(package.__all__))


class _AliasFinder:
    """Imports ``mxnet.X`` as ``gluonlite.X`` for submodules not yet loaded."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith("mxnet."):
            return None
        import importlib
        import importlib.util
        real = __name__ + fullname[len("mxnet"):]
        try:
            module = importlib.import_module(real)
        except ImportError:
            return None
        return importlib.util.spec_from_loader(fullname, _AliasLoader(module))


class _AliasLoader:
    def __init__(self, module):
        self.module = module

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        return None


_alias_finder = _AliasFinder()
