"""``autograd.get_symbol``: the recorded computation of an array as a Symbol.

The tape knows no Symbol class; this module (graphs layer) walks the tape entries
behind an NDArray and rebuilds the graph with the operators' own definitions:
every array the recording started from (a marked variable, or an array that took
no part in gradients) becomes a variable ``var0``, ``var1``, ... in the order the
walk meets them.  A hybridized block's call recorded as a whole (its CachedOp was not
inlined) becomes one ``_CachedOp`` node holding the block's graph, as in MXNet; a
custom ``autograd.Function`` has no operator graph to give and raises.
"""
from __future__ import annotations

from .. import autograd
from ..base import MXNetError
from ..name import NameManager
from ..ops.registry import get_op
from .creation import var
from .graph import Node
from .register import _user_attrs, create, parse_op_attrs
from .subgraph import Subgraph
from .symbol import Symbol


def symbol_from_tape(x) -> Symbol:
    """The Symbol of everything recorded to compute ``x`` (an NDArray)."""
    variables: dict = {}
    built: dict = {}

    def leaf(arr, key=None) -> Symbol:
        key = id(arr) if key is None else key
        if key not in variables:
            variables[key] = (arr, var(f"var{len(variables)}"))
        return variables[key][1]

    def outputs_of(node) -> Symbol:
        got = built.get(id(node))
        if got is not None:
            return got
        graph = getattr(node.function, "graph", None)
        if graph is not None:
            sym = _cached_op_node(graph, [
                as_input(parent, None, (id(node), pos))
                for pos, parent in enumerate(node.parents)])
            built[id(node)] = sym
            return sym
        if node.op is None or node.function is not None:
            raise MXNetError("autograd.get_symbol: the recording holds a call without an "
                             "operator graph (a hybridized block or a custom Function)")
        inputs = [as_input(parent, data, None) for parent, data
                  in zip(node.parents, node.in_datas or [None] * len(node.parents))]
        sym = create(node.op, node.op.name.lower(), inputs, {}, node.attrs.to_strings())
        built[id(node)] = sym
        return sym

    def as_input(parent, data, key) -> Symbol:
        if isinstance(parent, tuple):
            src, k = parent
            sym = outputs_of(src)
            return sym[k] if len(sym.list_outputs()) > 1 else sym
        if parent is None and data is None:  # an input the tape kept no array of
            return leaf(None, key)
        return leaf(parent if parent is not None else data)

    entry = getattr(x, "_entry", None)
    if entry is None:
        return leaf(x)
    node, k = entry
    sym = outputs_of(node)
    return sym[k] if len(sym.list_outputs()) > 1 else sym


def _cached_op_node(graph: Symbol, inputs: list) -> Symbol:
    """One ``_CachedOp`` node running ``graph`` on ``inputs`` (Symbols, in the order of
    the graph's inputs)."""
    op = get_op("_CachedOp")
    n_out = len(graph._heads)
    attrs = parse_op_attrs(op, {"num_args": str(len(inputs) + 1),
                                "num_outputs": str(n_out)})
    attrs = attrs.with_values(subgraphs=(Subgraph(list(graph._heads)),))
    entries = [s._heads[0] for s in inputs]
    name = NameManager.current.get(None, "_cachedop")
    res = Node(op, name, attrs, entries, _user_attrs(None))
    return Symbol([(res, i) for i in range(n_out)])


autograd.use_graph_builder(symbol_from_tape)
