"""Functions for registry operators over ``mx.np`` arrays: MXNet generates
``mx.nd.np._internal`` (``_npi_*``, ``_np_*``) and ``mx.nd.npx`` functions from its
operator registry; so does this module from gluonlite's."""
from __future__ import annotations

import numbers

from ...ops.registry import all_ops, get_op
from ._array import apply, as_np

__all__ = ["make_op_function", "op_functions"]


def make_op_function(name: str):
    """A function calling operator ``name`` on ``mx.np`` array inputs (positional) with
    attributes (keywords)."""
    def fn(*inputs, **attrs):
        ctx = attrs.pop("ctx", None)
        out = attrs.pop("out", None)
        inputs = _scalar_attrs(name, inputs, attrs)
        arrays = [as_np(x) for x in inputs]
        res = apply(name, arrays, ctx=ctx, **attrs)
        if out is None:
            return res
        out[...] = res
        return out
    fn.__name__ = name
    fn.__doc__ = f"The ``{name}`` operator on ``mx.np`` arrays."
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
