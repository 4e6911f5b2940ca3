"""The graph data model shared by ``Symbol``, the JSON reader/writer and the CachedOp.

A graph is a set of :class:`Node` objects joined by *entries*: an entry is a
``(node, output_index)`` tuple naming one output of one node.  A variable (an
argument or auxiliary state of the graph) is a node whose ``op`` is ``None``.
A ``Symbol`` is just a list of head entries; everything else (arguments, order,
internals) is derived by walking from the heads, the way MXNet/NNVM does.

Ordering contract (MXNet's): :func:`topo_order` is a depth-first post-order from
the heads in order, visiting each node's inputs in order.  ``list_arguments``,
``list_auxiliary_states``, ``get_internals`` and the JSON node order all follow it.
"""
from __future__ import annotations

from typing import Iterable

from ..base import MXNetError
from ..ops.registry import OpAttrs, OpDef, get_op

__all__ = ["Node", "Entry", "topo_order", "variable_node", "op_node", "aux_variable_ids",
           "list_variables"]

Entry = tuple  # (Node, int)


class Node:
    """One node of a graph: an operator call or a variable.

    Attributes
    ----------
    op : OpDef or None
        The registry operator, ``None`` for a variable.
    name : str
        The node's name (``fullyconnected0``, ``data``).
    attrs : OpAttrs or None
        Parsed operator attributes (``None`` for a variable).
    inputs : list of Entry
        The entries this node reads, in the operator's input order (aux states included).
    extra : dict of str to str
        User attributes kept as MXNet strings: ``__shape__``, ``__dtype__``,
        ``__init__``, ``__lr_mult__``, ``__wd_mult__``, ``__storage_type__`` and any
        ``AttrScope`` attributes; written into JSON next to the op attributes.
    """

    __slots__ = ("op", "name", "attrs", "inputs", "extra", "__weakref__")

    def __init__(self, op: OpDef | None, name: str, attrs: OpAttrs | None = None,
                 inputs: list | None = None, extra: dict | None = None):
        self.op = op
        self.name = name
        self.attrs = attrs
        self.inputs = list(inputs or [])
        self.extra = dict(extra or {})

    @property
    def is_variable(self) -> bool:
        """True for an argument or auxiliary-state node."""
        return self.op is None

    def num_outputs(self) -> int:
        """Number of outputs, hidden ones included (1 for a variable)."""
        return 1 if self.op is None else self.op.num_outputs(self.attrs)

    def num_visible_outputs(self) -> int:
        """Outputs a user sees (BatchNorm shows 1 of 3 unless ``output_mean_var``)."""
        return 1 if self.op is None else self.op.num_visible_outputs(self.attrs)

    def output_names(self) -> tuple:
        """``<name>_<output>`` names as ``list_outputs`` prints them (all outputs)."""
        if self.op is None:
            return (self.name,)
        if not self.name:  # an atomic symbol (``Symbol._gen_atomic_symbol``): bare names
            return tuple(self.op.output_names(self.attrs))
        return tuple(f"{self.name}_{o}" for o in self.op.output_names(self.attrs))

    def __repr__(self) -> str:
        kind = "var" if self.op is None else self.op.name
        return f"<Node {self.name} ({kind})>"


def variable_node(name: str, extra: dict | None = None) -> Node:
    """A new variable node."""
    return Node(None, name, None, [], extra)


def op_node(op: OpDef | str, name: str, inputs: list, attrs: dict | OpAttrs | None = None,
            extra: dict | None = None) -> Node:
    """A new operator node; ``attrs`` may be raw (strings or Python values) or parsed.

    Raises ``MXNetError`` when the number of inputs does not match the operator.
    """
    if isinstance(op, str):
        op = get_op(op)
    parsed = attrs if isinstance(attrs, OpAttrs) else op.parse_attrs(dict(attrs or {}))
    expected = op.num_inputs(parsed)
    if len(inputs) != expected:
        raise MXNetError(f"Operator {op.name} ({name}): expected {expected} input(s) "
                         f"{list(op.input_names(parsed))}, got {len(inputs)}")
    return Node(op, name, parsed, list(inputs), extra)


def topo_order(heads: Iterable[Entry]) -> list[Node]:
    """All nodes reachable from ``heads``, inputs before users (MXNet's DFS post-order)."""
    order: list[Node] = []
    seen: set[int] = set()
    for head in heads:
        root = head[0]
        if id(root) in seen:
            continue
        seen.add(id(root))
        # iterative post-order: (node, next input position)
        stack = [(root, 0)]
        while stack:
            node, pos = stack[-1]
            if pos < len(node.inputs):
                stack[-1] = (node, pos + 1)
                child = node.inputs[pos][0]
                if id(child) not in seen:
                    seen.add(id(child))
                    stack.append((child, 0))
            else:
                stack.pop()
                order.append(node)
    return order


def aux_variable_ids(order: Iterable[Node]) -> set[int]:
    """``id``s of the variable nodes used as an auxiliary-state input by some operator."""
    aux: set[int] = set()
    for node in order:
        if node.op is not None and node.op.aux_names:
            for i in node.op.aux_indices(node.attrs):
                src = node.inputs[i][0]
                if src.op is None:
                    aux.add(id(src))
    return aux


def list_variables(heads: Iterable[Entry]) -> tuple[list[Node], list[Node]]:
    """The graph's (argument nodes, auxiliary-state nodes), each in topological order."""
    order = topo_order(heads)
    aux = aux_variable_ids(order)
    args = [n for n in order if n.op is None and id(n) not in aux]
    auxs = [n for n in order if n.op is None and id(n) in aux]
    return args, auxs
