"""The ``nd.*`` functions: one generated per registry operator and alias, sorted
into MXNet's namespaces (``nd``, ``nd.contrib``, ``nd.linalg``, ``nd.image``,
``nd.random``'s raw samplers, ``nd._internal``) by :class:`~gluonlite.ops.namespaces.OpNamespaces`."""
from __future__ import annotations

from ..ops.namespaces import OpNamespaces
from .register import make_function

_NS = OpNamespaces("gluonlite.ndarray", make_function, ("contrib", "linalg", "image"))
op, _internal = _NS.op, _NS.internal
contrib, linalg, image = _NS.subs["contrib"], _NS.subs["linalg"], _NS.subs["image"]
_functions = _NS.functions
globals().update(_NS.public)


def function(name: str):
    """The generated ``nd`` function of operator ``name`` (any registered name)."""
    return _functions[name]
