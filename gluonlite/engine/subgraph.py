"""Runnable subgraphs for the control-flow operators (``_foreach``, ``_while_loop``,
``_cond``) and MXNet's fused oneDNN nodes (``_sg_mkldnn_*``).

A graph's control-flow nodes keep :class:`~gluonlite.symbol.subgraph.Subgraph`
objects (inference only).  :class:`GraphInfo` gives each such unit a
:class:`SubgraphRunner` per subgraph instead: the same inference, plus ``run`` and
``backward`` on raw arrays through forward plans of the subgraph, one per signature
(input shapes and dtypes, mode, device, whether a backward follows), built on first
use and kept as long as the graph.  Nested control flow nests runners the same way.

Plans are reused across a loop's iterations: their heads and the entries a backward
reads are never planned buffers, so one iteration's results and saved state stay
intact while the next runs.
"""
from __future__ import annotations

__all__ = ["SubgraphRunner", "runnable"]


class SubgraphRunner:
    """A subgraph the control-flow operators can run (the protocol of
    :mod:`gluonlite.ops.control_flow`).

    Parameters
    ----------
    subgraph : gluonlite.symbol.subgraph.Subgraph
    """

    def __init__(self, subgraph):
        from .graph_info import GraphInfo
        self.subgraph = subgraph
        self.info = GraphInfo(subgraph.heads)
        self._plans: dict = {}

    def infer_shape(self, in_shapes: list) -> tuple[list, list]:
        return self.subgraph.infer_shape(in_shapes)

    def input_names(self) -> list:
        return self.subgraph.input_names()

    def op_nodes(self) -> list:
        return self.subgraph.op_nodes()

    def aux_positions(self) -> tuple:
        return self.subgraph.aux_positions()

    def infer_type(self, in_dtypes: list) -> tuple[list, list]:
        return self.subgraph.infer_type(in_dtypes)

    def _plan(self, oc, inputs, keep: bool):
        key = (tuple((x.shape, x.dtype) for x in inputs), oc.is_train, keep, oc.ctx)
        plan = self._plans.get(key)
        if plan is None:
            from .plan import ForwardPlan
            mask = [x.dtype.kind in "fc" for x in inputs] if keep else None
            plan = ForwardPlan(self.info, [x.shape for x in inputs],
                               [x.dtype for x in inputs], oc, mask)
            self._plans[key] = plan
        return plan

    def run(self, oc, inputs: list, keep: bool):
        """``(outputs, state)`` of one evaluation; ``state`` for :meth:`backward` when
        ``keep`` (``None`` otherwise)."""
        if len(inputs) != self.info.n_inputs:
            from ..base import MXNetError
            raise MXNetError(f"control-flow subgraph: {len(inputs)} inputs given, it has "
                             f"{self.info.n_inputs} ({self.info.input_names})")
        plan = self._plan(oc, inputs, keep)
        heads, saved = plan.run(inputs, keep=keep)
        return heads, ((plan, saved) if keep else None)

    def backward(self, oc, state, out_grads: list) -> list:
        """Input gradients (``None`` where none) of the evaluation ``state`` came from."""
        plan, saved = state
        if saved is None:  # nothing in the subgraph wants a gradient
            return [None] * self.info.n_inputs
        return plan.backward(saved, list(out_grads), oc)


def runnable(attrs):
    """``attrs`` of a control-flow unit with its graph subgraphs made runnable (objects
    that run already, such as the op harness's NumPy subgraphs, stay as they are)."""
    from ..symbol.subgraph import Subgraph
    return attrs.with_values(subgraphs=tuple(
        SubgraphRunner(s) if isinstance(s, Subgraph) else s for s in attrs.subgraphs))
