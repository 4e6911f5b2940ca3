"""gluonlite: MXNet 1.9's Gluon API on NumPy (CPU) and CuPy (GPU).

``import gluonlite as mx`` gives MXNet's top-level names.
"""
from __future__ import annotations

import sys

__version__ = "0.1.0"
MXNET_VERSION = "1.9.1"

from . import _malloc  # noqa: E402,F401 - allocator tuning, see _malloc.py
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
from . import test_utils  # noqa: E402
from . import operator  # noqa: E402,F401
from . import name  # noqa: E402,F401
from . import attribute  # noqa: E402,F401
from .attribute import AttrScope  # noqa: E402,F401
from . import registry  # noqa: E402,F401
from . import initializer  # noqa: E402,F401
from . import initializer as init  # noqa: E402,F401
from . import symbol  # noqa: E402,F401
from . import symbol as sym  # noqa: E402,F401
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

__all__ = ["base", "context", "Context", "cpu", "gpu", "cpu_pinned", "current_context",
           "num_gpus", "autograd", "ndarray", "nd", "random", "util", "test_utils",
           "MXNetError", "install_mxnet_alias", "name", "attribute", "AttrScope", "symbol", "sym"]


# NumPy < 1.24 (what MXNet 1.9 runs beside) had these aliases of the builtin types;
# code written for MXNet uses them (GluonCV's Faster R-CNN anchors: ``dtype=np.float``).
_NUMPY_BUILTIN_ALIASES = {"float": float, "int": int, "complex": complex, "object": object,
                          "str": str}


def _restore_numpy_aliases() -> None:
    """Give NumPy back the builtin-type aliases it removed in 1.24, where it has none of
    its own (a name NumPy defines again is left alone)."""
    import numpy
    for name, value in _NUMPY_BUILTIN_ALIASES.items():
        if name not in vars(numpy):
            setattr(numpy, name, value)


def install_mxnet_alias(numpy_aliases: bool = True) -> None:
    """Register gluonlite as ``mxnet`` in ``sys.modules`` (submodules included), so code
    that does ``import mxnet`` runs on gluonlite.  ``mxnet.__version__`` reads ``1.9.1``.

    With ``numpy_aliases`` (the default), also restore ``numpy.float``, ``numpy.int``,
    ``numpy.complex``, ``numpy.object`` and ``numpy.str`` (the builtin types, as NumPy
    before 1.24 had them), which MXNet-era packages such as GluonCV still use.
    """
    import types

    if numpy_aliases:
        _restore_numpy_aliases()

    alias = types.ModuleType("mxnet", __doc__)
    alias.__dict__.update({k: v for k, v in globals().items() if not k.startswith("__")})
    alias.__version__ = MXNET_VERSION
    alias.__path__ = __path__  # lets `import mxnet.gluon.nn` find submodules
    alias.__file__ = __file__
    sys.modules["mxnet"] = alias
    for name, module in list(sys.modules.items()):
        if name.startswith(__name__ + "."):
            sys.modules["mxnet" + name[len(__name__):]] = module
    if _alias_finder not in sys.meta_path:
        sys.meta_path.insert(0, _alias_finder)


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
