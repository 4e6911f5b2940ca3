"""Functions for registry operators over ``mx.np`` arrays: MXNet generates
``mx.nd.np._internal`` (``_npi_*``, ``_np_*``) and ``mx.nd.npx`` functions from its
operator registry; so does this module from gluonlite's."""
from __future__ import annotations

from ...ops.registry import names_with_prefix, positional_attrs
from ._array import apply, as_np

__all__ = ["make_op_function", "op_functions"]


def make_op_function(name: str):
    """A function calling operator ``name`` on ``mx.np`` array inputs (positional) with
    attributes (keywords)."""
    def fn(*inputs, **attrs):
        ctx = attrs.pop("ctx", None)
        out = attrs.pop("out", None)
        inputs = positional_attrs(name, inputs, attrs)
        arrays = [as_np(x) for x in inputs]
        res = apply(name, arrays, ctx=ctx, **attrs)
        if out is None:
            return res
        out[...] = res
        return out
    fn.__name__ = name
    fn.__doc__ = f"The ``{name}`` operator on ``mx.np`` arrays."
    return fn


def op_functions(prefixes: tuple) -> dict:
    """``{name: function}`` for every registered operator (and alias) with one of
    ``prefixes``."""
    return {name: make_op_function(name) for name in names_with_prefix(prefixes)}
