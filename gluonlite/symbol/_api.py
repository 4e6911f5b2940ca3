"""The ``sym.*`` functions: one generated per registry operator and alias, sorted
into MXNet's namespaces (``sym``, ``sym.op``, ``sym.contrib``, ``sym.linalg``,
``sym.image``, ``sym.sparse``, ``sym._internal``) by
:class:`~gluonlite.ops.namespaces.OpNamespaces`, as for ``nd``."""
from __future__ import annotations

from ..ops.namespaces import OpNamespaces
from .register import make_function

# short-name functions of their own: nodes are named after them (linalg.gemm2 -> gemm20)
_NS = OpNamespaces("gluonlite.symbol", make_function, ("contrib", "linalg", "image", "sparse"),
                   own_short_functions=True)
op, _internal = _NS.op, _NS.internal
contrib, linalg, image, sparse = (_NS.subs[s] for s in ("contrib", "linalg", "image", "sparse"))
_functions = _NS.functions
public = _NS.public
# MXNet's ``sym.sparse`` also lists the ordinary operators (``sym.sparse.dot``,
# ``Embedding``, ...); in gluonlite's graphs they compute on dense values
for _name, _fn in public.items():
    if not hasattr(sparse, _name):
        setattr(sparse, _name, _fn)


def function(name: str):
    """The generated ``sym`` function of operator ``name`` (any registered name)."""
    return _functions[name]
