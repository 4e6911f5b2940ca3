"""MXNet's refusal to differentiate through an operator without a gradient.

MXNet 1.9.1 builds a gradient graph over every operator node reachable from the heads
(not only those between the heads and the arguments that want gradients) and fails
when a node whose operator registers no ``FGradient`` would receive a gradient that
is not all zeros: "Operator X is non-differentiable because it didn't register
FGradient attribute".  A gradient is all zeros where it comes only from operators whose
gradient is zeros (``stop_gradient``/``BlockGrad``, ``argmax``...) or from nothing (an
output nobody reads).  Which operators have no ``FGradient`` is declared data in the
registry (``OpDef.has_fgradient``).
"""
from __future__ import annotations

from ..base import MXNetError

__all__ = ["check_fgradient"]


def check_fgradient(info) -> None:
    """Raise ``MXNetError`` where a gradient graph over ``info`` (a
    :class:`~gluonlite.engine.graph_info.GraphInfo`) would need the gradient of an
    operator without one, as MXNet's ``bind`` with a ``grad_req`` other than ``'null'``."""
    flows = [False] * info.n_slots  # per entry: a gradient that may be non-zero reaches it
    for s in info.heads:
        flows[s] = True
    for u in reversed(info.units):
        op = u.op
        if not u.ins or not any(flows[s] for s in u.outs):
            continue
        if not getattr(op, "has_fgradient", True):
            raise MXNetError(f"Operator {op.name} is non-differentiable because it didn't "
                             f"register FGradient attribute (node '{u.name}')")
        if getattr(op, "zero_gradient", False) or not getattr(op, "differentiable", True):
            continue  # its input gradients are zeros (MXNet's MakeZeroGradNodes)
        for s in u.ins:
            flows[s] = True
