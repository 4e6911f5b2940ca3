"""Broadcasting binary operators (``broadcast_add``, ``broadcast_greater``, ...).

Shapes broadcast as in NumPy, which is MXNet 1.9's rule: dimensions are aligned
from the right, missing leading ones count as 1, and each pair must be equal or
contain a 1 (``(2, 3)`` with ``(3,)`` works, ``(2, 3)`` with ``(2,)`` fails).  The
gradient of an input sums the output gradient over the axes it was broadcast
along.  The math and the CUDA expression conventions are those of
:mod:`.elemwise_binary` (inputs ``lhs``, ``rhs``, output ``y``).
"""
from __future__ import annotations

from .common import fail
from .elemwise_binary import make_binary_op

__all__ = ["broadcast_shape"]


def broadcast_shape(op: str, lhs: tuple, rhs: tuple) -> tuple:
    """The broadcast shape of ``lhs`` and ``rhs``; unknown dimensions (0) stay unknown
    unless the other side fixes them; raise ``MXNetError`` naming ``op`` when they clash."""
    n = max(len(lhs), len(rhs))
    left = (1,) * (n - len(lhs)) + tuple(lhs)
    right = (1,) * (n - len(rhs)) + tuple(rhs)
    out = []
    for x, y in zip(left, right):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        elif x == 0:
            out.append(y)
        elif y == 0:
            out.append(x)
        else:
            fail(op, "operands could not be broadcast together", lhs, rhs)
    return tuple(out)


def _broadcast_infer(op_name):
    def infer(attrs, in_shapes):
        lhs, rhs = in_shapes
        if lhs is None or rhs is None:
            return [lhs, rhs], [None]
        return [tuple(lhs), tuple(rhs)], [broadcast_shape(op_name, lhs, rhs)]
    return infer


_BROADCAST = [
    ("broadcast_add", "add", ("broadcast_plus", "_sparse_broadcast_add",
                              "_sparse_broadcast_plus")),
    ("broadcast_sub", "sub", ("broadcast_minus", "_sparse_broadcast_sub",
                              "_sparse_broadcast_minus")),
    ("broadcast_mul", "mul", ("_sparse_broadcast_mul",)),
    ("broadcast_div", "div", ("_sparse_broadcast_div",)),
    ("broadcast_mod", "mod", ()),
    ("broadcast_power", "power", ()),
    ("broadcast_maximum", "maximum", ()),
    ("broadcast_minimum", "minimum", ()),
    ("broadcast_hypot", "hypot", ()),
    ("broadcast_equal", "equal", ()),
    ("broadcast_not_equal", "not_equal", ()),
    ("broadcast_greater", "greater", ()),
    ("broadcast_greater_equal", "greater_equal", ()),
    ("broadcast_lesser", "lesser", ()),
    ("broadcast_lesser_equal", "lesser_equal", ()),
    ("broadcast_logical_and", "logical_and", ()),
    ("broadcast_logical_or", "logical_or", ()),
    ("broadcast_logical_xor", "logical_xor", ()),
]

for _name, _math, _aliases in _BROADCAST:
    make_binary_op(_name, _math, broadcast=True, infer_shape=_broadcast_infer(_name),
                   aliases=_aliases,
                   doc=f"Elementwise ``{_math}`` with NumPy-style broadcasting "
                       f"(MXNet ``{_name}``).")
