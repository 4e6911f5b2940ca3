"""Common subexpression elimination over a symbol graph (MXNet's executor pass).

Two operator nodes compute the same thing when they have the same operator, the
same attributes and the same input entries (after earlier merges); the later one
is then replaced by the first.  Left alone: random operators (each draw is its
own), operators with auxiliary states (each would update them), per-call state
or user Python (``Custom``).  Where merging makes two heads one entry, a
``_copy`` keeps the outputs apart, as MXNet inserts one.

``MXNET_ELIMINATE_COMMON_EXPR=0`` turns the pass off in ``bind``/``simple_bind``
(read when an executor is bound, MXNet's default being on).
"""
from __future__ import annotations

import os

from ..ops.registry import get_op
from .graph import Node, topo_order

__all__ = ["eliminate_common_expr", "enabled"]


def enabled() -> bool:
    return os.environ.get("MXNET_ELIMINATE_COMMON_EXPR", "1") != "0"


def _mergeable(node: Node) -> bool:
    op = node.op
    return (op is not None and not getattr(op, "random", False) and not op.aux_names
            and getattr(op, "capturable", True) and not getattr(op, "saved_state", False))


def eliminate_common_expr(heads: list) -> list:
    """The heads of an equivalent graph without repeated subexpressions.

    ``heads`` and the result are lists of ``(node, output index)`` entries; nodes that
    change (their inputs were merged) are new ``Node`` objects, the rest are shared.
    """
    replaced: dict = {}      # id(node of the given graph) -> node standing for it
    seen: dict = {}          # signature -> node
    for old in topo_order(heads):
        if old.op is None:
            replaced[id(old)] = old
            continue
        inputs = [(replaced[id(src)], k) for src, k in old.inputs]
        if all(new is src for (new, _), (src, _) in zip(inputs, old.inputs)):
            node = old
        else:
            node = Node(old.op, old.name, old.attrs, inputs, old.extra)
        if _mergeable(node):
            key = (node.op.name, tuple(sorted(node.attrs.to_strings().items())),
                   tuple(sorted(node.extra.items())),
                   tuple((id(src), k) for src, k in node.inputs))
            node = seen.setdefault(key, node)
        replaced[id(old)] = node
    return _isolate_heads([(replaced[id(n)], k) for n, k in heads], heads)


def _isolate_heads(new_heads: list, old_heads: list) -> list:
    """Heads that became one entry get a ``_copy`` each after the first."""
    copy = get_op("_copy")
    taken = set()
    out = []
    for (node, k), (old, _) in zip(new_heads, old_heads):
        key = (id(node), k)
        if key in taken:
            node = Node(copy, f"{old.name}_cse_copy", copy.parse_attrs({}), [(node, k)])
            k = 0
        taken.add(key)
        out.append((node, k))
    return out
