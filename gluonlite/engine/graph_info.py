"""Signature-independent analysis of a graph for the CachedOp.

Numbers every entry with a *slot*: the graph inputs (variables, in MXNet's
``list_inputs`` order: topological order, arguments and auxiliary states
interleaved) take slots ``0 .. n_inputs-1``; every output of every operator
node gets the next slots in topological order.  Plans and their hot loops work
on slot numbers only.
"""
from __future__ import annotations

from ..base import MXNetError

__all__ = ["GraphInfo", "OpUnit"]


class OpUnit:
    """One operator step of a graph.

    ``in_names`` are the names monitors give the inputs (MXNet's: the operator's listed
    input names, else ``input0``, ``input1``, ...).

    ``op`` is an :class:`~gluonlite.ops.registry.OpDef` or any object with the same
    ``forward``/``backward``/``backward_uses``/``differentiable``/``random``/``name``
    (a fused group from GPU fusion fills this role).
    """

    __slots__ = ("op", "attrs", "name", "ins", "outs", "node", "out_names", "in_names",
                 "aux_pos")

    def __init__(self, op, attrs, name, ins, outs, node=None, out_names=(), in_names=(),
                 aux_pos=()):
        self.op = op
        self.attrs = attrs
        self.name = name
        self.ins = tuple(ins)
        self.outs = tuple(outs)
        self.node = node
        self.out_names = tuple(out_names)
        self.in_names = tuple(in_names)
        self.aux_pos = tuple(aux_pos)

    def __repr__(self) -> str:
        return f"<OpUnit {self.name} {self.ins}->{self.outs}>"


class GraphInfo:
    """The numbered graph behind a CachedOp.

    Attributes
    ----------
    variables : list of Node
        Input nodes in ``list_inputs`` order.
    input_names : list of str
    aux_inputs : tuple of int
        Input positions that are auxiliary states.
    units : list of OpUnit
        Operator nodes in topological order.
    heads : list of int
        Slot of each head entry.
    entries : list of Entry
        The graph entry ``(node, output index)`` of each slot.
    n_slots : int
    prepared : dict
        What the plans' prepared steps keep (``OpDef.prepare``), by the step's first
        output slot: one object per node, shared by every plan of the graph (each
        batch size, train or predict).
    """

    def __init__(self, heads):
        # imported here: ``mx.nd`` exposes CachedOp and must not import the symbol package
        from ..symbol.graph import aux_variable_ids, topo_order
        heads = list(heads)
        if not heads:
            raise MXNetError("CachedOp: the symbol has no outputs")
        order = topo_order(heads)
        aux_ids = aux_variable_ids(order)
        self.variables = [n for n in order if n.op is None]
        self.input_names = [n.name for n in self.variables]
        self.aux_inputs = tuple(i for i, n in enumerate(self.variables) if id(n) in aux_ids)
        slot_of: dict = {}
        for i, n in enumerate(self.variables):
            slot_of[(id(n), 0)] = i
        nxt = len(self.variables)
        self.units: list[OpUnit] = []
        for node in order:
            if node.op is None:
                continue
            n_out = node.num_outputs()
            outs = list(range(nxt, nxt + n_out))
            for k, s in enumerate(outs):
                slot_of[(id(node), k)] = s
            nxt += n_out
            ins = [slot_of[(id(src), idx)] for src, idx in node.inputs]
            attrs = node.attrs
            if node.op.num_subgraphs:  # control flow: subgraphs the operator can run
                from .subgraph import runnable
                attrs = runnable(attrs)
            self.units.append(OpUnit(node.op, attrs, node.name, ins, outs, node,
                                     node.output_names(),
                                     node.op.monitor_input_names(node.attrs),
                                     node.op.aux_indices(node.attrs) if node.op.aux_names
                                     else ()))
        self.n_slots = nxt
        self.prepared: dict = {}
        # the graph entry (node, output index) of every slot
        self.entries: list = [None] * nxt
        for i, n in enumerate(self.variables):
            self.entries[i] = (n, 0)
        for u in self.units:
            for k, s in enumerate(u.outs):
                self.entries[s] = (u.node, k)
        self.heads = [slot_of[(id(n), i)] for n, i in heads]
        self.slot_names = [""] * nxt
        for i, n in enumerate(self.variables):
            self.slot_names[i] = n.name
        for u in self.units:
            for s, name in zip(u.outs, u.out_names):
                self.slot_names[s] = name

    @property
    def n_inputs(self) -> int:
        return len(self.variables)
