"""The ``nd.*`` functions: one generated per registry operator and alias, sorted
into MXNet's namespaces (``nd``, ``nd.contrib``, ``nd.linalg``, ``nd.image``,
``nd.random``'s raw samplers, ``nd._internal``)."""
from __future__ import annotations

import types

from ..ops.registry import all_ops
from .register import make_function

_PREFIXES = {"_contrib_": "contrib", "_linalg_": "linalg", "_image_": "image"}

op = types.ModuleType("gluonlite.ndarray.op")
_internal = types.ModuleType("gluonlite.ndarray._internal")
contrib = types.ModuleType("gluonlite.ndarray.contrib")
linalg = types.ModuleType("gluonlite.ndarray.linalg")
image = types.ModuleType("gluonlite.ndarray.image")
_SUBMODULES = {"contrib": contrib, "linalg": linalg, "image": image}

_functions: dict = {}


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
                        setattr(_SUBMODULES[sub], name[len(prefix):], fn)
            else:
                globals()[name] = fn


_install()


def function(name: str):
    """The generated ``nd`` function of operator ``name`` (any registered name)."""
    return _functions[name]
