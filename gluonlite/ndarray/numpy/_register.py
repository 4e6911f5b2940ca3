"""Functions for registry operators over ``mx.np`` arrays: MXNet generates
``mx.nd.np._internal`` (``_npi_*``, ``_np_*``) and ``mx.nd.npx`` functions from its
operator registry; so does this module from gluonlite's."""
from __future__ import annotations

from ...ops.registry import all_ops
from ._array import apply, as_np

__all__ = ["make_op_function", "op_functions"]


def make_op_function(name: str):
    """A function calling operator ``name`` on ``mx.np`` array inputs (positional) with
    attributes (keywords)."""
    def fn(*inputs, **attrs):
        ctx = attrs.pop("ctx", None)
        arrays = [as_np(x) for x in inputs]
        return apply(name, arrays, ctx=ctx, **attrs)
    fn.__name__ = name
    fn.__doc__ = f"The ``{name}`` operator on ``mx.np`` arrays."
    return fn


def op_functions(prefixes: tuple) -> dict:
    """``{name: function}`` for every registered operator (and alias) with one of
    ``prefixes``."""
    out = {}
    for op in all_ops():
        for name in (op.name,) + tuple(op.aliases):
            if name.startswith(prefixes):
                out[name] = make_op_function(name)
    return out
