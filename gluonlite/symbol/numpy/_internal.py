"""``mx.sym.np._internal``: the ``_npi_*`` and ``_np_*`` operators as functions on
symbols (generated from the registry)."""
from ...ops.registry import all_ops
from ._symbol import apply


def _make(name):
    def fn(*inputs, **attrs):
        return apply(name, list(inputs), **attrs)
    fn.__name__ = name
    fn.__doc__ = f"The ``{name}`` operator on ``mx.np`` symbols."
    return fn


for _op in all_ops():
    for _name in (_op.name,) + tuple(_op.aliases):
        if _name.startswith(("_npi_", "_np_")):
            globals()[_name] = _make(_name)
__all__ = sorted(n for n in globals() if n.startswith(("_npi_", "_np_")))
