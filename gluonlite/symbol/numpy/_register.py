"""``mx.sym.np._register``: functions for registry operators over ``mx.np`` symbols (MXNet
generates its ``mx.sym.np``/``mx.sym.npx`` operator functions from its registry)."""
from __future__ import annotations

from ...ops.registry import names_with_prefix, positional_attrs
from ._symbol import apply

__all__ = ["make_op_function", "op_functions"]


def make_op_function(name: str):
    """A function building a node of operator ``name`` from symbol inputs (positional)
    and attributes (keywords)."""
    def fn(*inputs, **attrs):
        attrs.pop("out", None)  # a symbol's result is always a new node
        inputs = positional_attrs(name, inputs, attrs)
        return apply(name, list(inputs), **attrs)
    fn.__name__ = name
    fn.__doc__ = f"The ``{name}`` operator on ``mx.np`` symbols."
    return fn


def op_functions(prefixes: tuple) -> dict:
    """``{name: function}`` for every registered operator (and alias) with one of
    ``prefixes``."""
    return {name: make_op_function(name) for name in names_with_prefix(prefixes)}
