"""``mx.sym.np._register``: functions for registry operators over ``mx.np`` symbols (MXNet
generates its ``mx.sym.np``/``mx.sym.npx`` operator functions from its registry)."""
from __future__ import annotations

import numbers

from ...ops.registry import all_ops, get_op
from ._symbol import apply

__all__ = ["make_op_function", "op_functions"]


def make_op_function(name: str):
    """A function building a node of operator ``name`` from symbol inputs (positional)
    and attributes (keywords)."""
    def fn(*inputs, **attrs):
        attrs.pop("out", None)  # a symbol's result is always a new node
        inputs = _scalar_attrs(name, inputs, attrs)
        return apply(name, list(inputs), **attrs)
    fn.__name__ = name
    fn.__doc__ = f"The ``{name}`` operator on ``mx.np`` symbols."
    return fn


def _scalar_attrs(name: str, inputs: tuple, attrs: dict) -> list:
    """The array inputs of a call; positional numbers after them are attributes, in the
    operator's declared order (MXNet's generated signatures put them there:
    ``boolean_mask_assign_scalar(data, mask, value, start_axis)``)."""
    arrays = [x for x in inputs if not isinstance(x, numbers.Number)]
    numbers_given = [x for x in inputs if isinstance(x, numbers.Number)]
    if numbers_given:
        free = [k for k in get_op(name).attrs if k not in attrs]
        for key, value in zip(free, numbers_given):
            attrs[key] = value
    return arrays


def op_functions(prefixes: tuple) -> dict:
    """``{name: function}`` for every registered operator (and alias) with one of
    ``prefixes``."""
    out = {}
    for op in all_ops():
        for name in (op.name,) + tuple(op.aliases):
            if name.startswith(prefixes):
                out[name] = make_op_function(name)
    return out
