"""``autograd.get_symbol``: the recorded computation of an array as a Symbol.

The tape knows no Symbol class; this module (graphs layer) walks the tape entries
behind an NDArray and rebuilds the graph with the operators' own definitions:
every array the recording started from (a marked variable, or an array that took
no part in gradients) becomes a variable ``var0``, ``var1``, ... in the order the
walk meets them.  Calls recorded as a whole (a hybridized block's CachedOp, a
custom ``autograd.Function``) have no operator graph to give and raise.
"""
from __future__ import annotations

from .. import autograd
from ..base import MXNetError
from .creation import var
from .register import create
from .symbol import Symbol


def symbol_from_tape(x) -> Symbol:
    """The Symbol of everything recorded to compute ``x`` (an NDArray)."""
    variables: dict = {}
    built: dict = {}

    def leaf(arr) -> Symbol:
        key = id(arr)
        if key not in variables:
            variables[key] = (arr, var(f"var{len(variables)}"))
        return variables[key][1]

    def outputs_of(node) -> Symbol:
        got = built.get(id(node))
        if got is not None:
            return got
        if node.op is None or node.function is not None:
            raise MXNetError("autograd.get_symbol: the recording holds a call without an "
                             "operator graph (a hybridized block or a custom Function)")
        inputs = []
        for parent, data in zip(node.parents, node.in_datas or [None] * len(node.parents)):
            if isinstance(parent, tuple):
                src, k = parent
                sym = outputs_of(src)
                inputs.append(sym[k] if len(sym.list_outputs()) > 1 else sym)
            else:
                inputs.append(leaf(parent if parent is not None else data))
        sym = create(node.op, node.op.name.lower(), inputs, {}, node.attrs.to_strings())
        built[id(node)] = sym
        return sym

    entry = getattr(x, "_entry", None)
    if entry is None:
        return leaf(x)
    node, k = entry
    sym = outputs_of(node)
    return sym[k] if len(sym.list_outputs()) > 1 else sym


autograd.use_graph_builder(symbol_from_tape)
