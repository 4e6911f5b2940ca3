"""The subgraphs of control-flow nodes (``_foreach``, ``_while_loop``, ``_cond``) and of
MXNet's fused oneDNN nodes (``_sg_mkldnn_conv``, ...).

A :class:`Subgraph` is the graph of a loop body, a condition or a branch: its head
entries, whose variables are the subgraph's inputs in ``list_inputs`` order.  It
lives in the node's ``attrs.subgraphs`` and gives the operator the inference it asks
for (the protocol of :mod:`gluonlite.ops.control_flow`) through this layer's one
inference.  Running one is the engine's work: the CachedOp hands the operator
runnable counterparts (:mod:`gluonlite.engine.subgraph`), so calling :meth:`run` here
is an error.
"""
from __future__ import annotations

import numpy as np

from ..base import MXNetError
from .graph import topo_order
from .inference import index_graph, infer_slots

__all__ = ["Subgraph"]


class Subgraph:
    """The graph of one subgraph of a control-flow node.

    Parameters
    ----------
    heads : list of (Node, int)
        The subgraph's outputs, in the order the operator reads them.
    """

    def __init__(self, heads: list):
        self.heads = list(heads)
        self._index = None

    @property
    def index(self):
        """The slot numbering of the subgraph (inputs first, in ``list_inputs`` order)."""
        if self._index is None:
            self._index = index_graph(topo_order(self.heads))
        return self._index

    def input_names(self) -> list:
        """Names of the subgraph's input variables."""
        return [n.name for n in self.index.variables]

    def _head_slots(self) -> list:
        idx = self.index
        return [idx.slot_of[(id(n), k)] for n, k in self.heads]

    def infer_shape(self, in_shapes: list) -> tuple[list, list]:
        """``(input shapes, output shapes)`` from what is known of the inputs (partial)."""
        idx = self.index
        shapes: list = [None] * idx.n_slots
        for i, s in enumerate(in_shapes):
            shapes[i] = None if s is None else tuple(int(d) for d in s)
        infer_slots(idx, shapes, None)
        return shapes[:idx.n_inputs], [shapes[s] for s in self._head_slots()]

    def infer_type(self, in_dtypes: list) -> tuple[list, list]:
        """``(input dtypes, output dtypes)`` from what is known of the inputs."""
        idx = self.index
        dtypes: list = [None] * idx.n_slots
        for i, d in enumerate(in_dtypes):
            dtypes[i] = None if d is None else np.dtype(d)
        infer_slots(idx, None, dtypes)
        return dtypes[:idx.n_inputs], [dtypes[s] for s in self._head_slots()]

    def aux_positions(self) -> tuple:
        """Positions (in input order) of the inputs some node of the subgraph mutates
        (auxiliary states: a BatchNorm's moving statistics)."""
        idx = self.index
        slot = {id(v): i for i, v in enumerate(idx.variables)}
        found = set()
        for node in topo_order(self.heads):
            if node.op is None or not node.op.aux_names:
                continue
            for k in node.op.aux_indices(node.attrs):
                src = node.inputs[k][0]
                if src.op is None and id(src) in slot:
                    found.add(slot[id(src)])
        return tuple(sorted(found))

    def op_nodes(self) -> list:
        """``(operator name, parsed attributes)`` of the subgraph's operator nodes in
        topological order (how a fused oneDNN node reads its recipe)."""
        return [(n.op.name, n.attrs) for n in topo_order(self.heads) if n.op is not None]

    def run(self, oc, inputs, keep):
        raise MXNetError("a control-flow subgraph runs inside a compiled graph (a "
                         "hybridized block, SymbolBlock or bound executor), not on its own")

    backward = run

    def __repr__(self) -> str:
        return f"<Subgraph inputs={self.input_names()} outputs={len(self.heads)}>"
