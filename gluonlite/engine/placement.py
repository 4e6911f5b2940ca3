"""Model parallelism: placing a graph's nodes on devices by their ``ctx_group``.

MXNet's ``group2ctx`` (``Module(group2ctxs=...)``, ``Symbol.bind(group2ctx=...)``) maps
the ``ctx_group`` attribute that ``AttrScope(ctx_group=...)`` gives nodes to devices.
A placed plan runs each operator on its node's device (the call's device where the
node has no group or its group is not mapped), moving inputs across devices where a
step reads an entry made elsewhere; backward runs each step on the same device.
"""
from __future__ import annotations

from ..context import Context

__all__ = ["unit_contexts", "move_to"]

GROUP_KEY = "__ctx_group__"


def unit_contexts(units, group2ctx: dict | None, default: Context):
    """Per unit, the Context its node's group maps to (``default`` otherwise); ``None``
    when every unit stays on ``default``."""
    if not group2ctx:
        return None
    ctxs = []
    for u in units:
        extra = getattr(u.node, "extra", None) or {}
        ctxs.append(group2ctx.get(extra.get(GROUP_KEY), default))
    if all(c == default for c in ctxs):
        return None
    return tuple(ctxs)


def move_to(data, ctx: Context):
    """``data`` (a raw array) on ``ctx``: the same object when it is already there."""
    from ..ndarray.ndarray import _move
    return _move(data, ctx)
