"""The ``sym.*`` functions: one generated per registry operator and alias, sorted
into MXNet's namespaces (``sym``, ``sym.op``, ``sym.contrib``, ``sym.linalg``,
``sym.image``, ``sym.sparse``, ``sym._internal``), as :mod:`gluonlite.ndarray._api` does for ``nd``."""
from __future__ import annotations

import types

from ..ops.registry import all_ops
from .register import make_function

_PREFIXES = {"_contrib_": "contrib", "_linalg_": "linalg", "_image_": "image",
             "_sparse_": "sparse"}

op = types.ModuleType("gluonlite.symbol.op")
_internal = types.ModuleType("gluonlite.symbol._internal")
contrib = types.ModuleType("gluonlite.symbol.contrib")
linalg = types.ModuleType("gluonlite.symbol.linalg")
image = types.ModuleType("gluonlite.symbol.image")
sparse = types.ModuleType("gluonlite.symbol.sparse")
_SUBMODULES = {"contrib": contrib, "linalg": linalg, "image": image, "sparse": sparse}

_functions: dict = {}
public: dict = {}


def _install() -> None:
    for opdef in all_ops():
        for name in (opdef.name,) + opdef.aliases:
            fn = make_function(opdef, name)
            _functions[name] = fn
            setattr(op, name, fn)
            if name.startswith("_"):
                setattr(_internal, name, fn)
                for prefix, sub in _PREFIXES.items():
                    if name.startswith(prefix):
                        short = name[len(prefix):]  # named after the short name (gemm20)
                        setattr(_SUBMODULES[sub], short, make_function(opdef, short))
            else:
                public[name] = fn


_install()


def function(name: str):
    """The generated ``sym`` function of operator ``name`` (any registered name)."""
    return _functions[name]
