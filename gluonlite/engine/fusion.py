"""Grouping of elementwise operators for kernel fusion.

:func:`find_groups` walks the operator nodes in topological order and grows
maximal groups of *fusable* nodes: single-output operators with a normalised CUDA
expression for their dtypes (:func:`gluonlite.engine.cuda_expr.op_expr`) and known
shapes.  A node joins (and thereby merges) the groups of its fusable producers when

* the merged group stays *convex*: no path leaves the group and comes back
  (otherwise the group could not run as one step);
* every member's shape broadcasts to the merged group's shape (the shape of the
  newest node, which consumes the others), and every member whose shape differs
  from it is an intermediate: not pinned and consumed only inside the group (a
  group's outputs all have the group's full shape, the kernel's index space).

Convexity uses ancestor/descendant bit sets (Python integers, one bit per node), so a
merge test is a few big-integer operations.  Groups of one node are dropped: the
engine runs those as plain steps.  ``GLUONLITE_FUSION=0`` turns fusion off.

:func:`rewrite` is the engine's hook: it runs :func:`find_groups` over a plan's
units (slot-numbered :class:`~gluonlite.engine.graph_info.OpUnit`) and replaces each
group by one unit whose ``op`` is a :class:`~gluonlite.engine.fused_kernel.FusedGroup`.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from .cuda_expr import ElemExpr, op_expr

__all__ = ["Group", "find_groups", "fusion_enabled", "node_expr", "rewrite"]


@dataclass
class Group:
    """A fusable group of nodes, run as one step.

    Attributes
    ----------
    nodes : list of Node
        Members in topological order.
    inputs : list of Entry
        Entries read by members and produced outside the group, in first-use order.
    outputs : list of Entry
        Members' entries that must be materialised (pinned, or read outside the
        group), in topological order; all have the group's shape.
    shape : tuple
        The group's full (broadcast) shape.
    exprs : list of ElemExpr
        Each member's normalised expressions, aligned with ``nodes``.
    """

    nodes: list
    inputs: list
    outputs: list
    shape: tuple
    exprs: list = field(default_factory=list)

    @property
    def name(self) -> str:
        """``fused_<op>_<op>...`` (short, for profiles and error messages)."""
        ops = "_".join(n.op.name.strip("_") for n in self.nodes[:6])
        more = f"_{len(self.nodes) - 6}more" if len(self.nodes) > 6 else ""
        return f"fused_{ops}{more}"


def fusion_enabled() -> bool:
    """False when the environment sets ``GLUONLITE_FUSION=0``."""
    return os.environ.get("GLUONLITE_FUSION", "1").strip().lower() not in ("0", "false",
                                                                           "off", "no")


def _broadcast(a: tuple, b: tuple) -> tuple | None:
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            return None
    return tuple(out)


def node_expr(node, shapes: Mapping, dtypes: Mapping) -> ElemExpr | None:
    """The normalised expression of ``node`` if it can be fused with these shapes/dtypes."""
    if node.op is None or node.num_outputs() != 1:
        return None
    out = (node, 0)
    if out not in shapes or out not in dtypes:
        return None
    try:
        in_dt = [dtypes[e] for e in node.inputs]
        in_sh = [tuple(shapes[e]) for e in node.inputs]
    except KeyError:
        return None
    expr = op_expr(node.op, node.attrs, in_dt, dtypes[out])
    if expr is None:
        return None
    out_shape = tuple(shapes[out])
    if expr.shape_rule == "broadcast":
        if any(_broadcast(s, out_shape) != out_shape for s in in_sh):
            return None
    elif any(s != out_shape for s in in_sh):
        return None  # same-shape ops; where with a 1-D condition is not NumPy broadcasting
    return expr


class _Cluster:
    __slots__ = ("members", "mask", "anc", "desc")

    def __init__(self, idx: int, anc: int, desc: int):
        self.members = [idx]
        self.mask = 1 << idx
        self.anc = anc
        self.desc = desc


def find_groups(nodes: Sequence, pinned, shapes: Mapping, dtypes: Mapping,
                min_size: int = 2) -> list[Group]:
    """Maximal convex groups of fusable elementwise nodes.

    Parameters
    ----------
    nodes : sequence of Node
        Every node of the graph in topological order (variables may be included).
    pinned : set of Entry
        Entries that must stay materialised whatever the grouping: the heads, entries
        a monitor watches, entries a non-fused node's backward reads.  Entries read by
        nodes outside a group are materialised anyway.
    shapes, dtypes : mapping of Entry to tuple / numpy dtype
        Known shape and dtype of every entry.
    min_size : int
        Smallest group returned.

    Returns
    -------
    list of Group
        Disjoint groups, ordered by their last member's position.
    """
    if not fusion_enabled():
        return []
    nodes = list(nodes)
    index = {id(n): i for i, n in enumerate(nodes)}
    consumers: list[list[int]] = [[] for _ in nodes]
    for i, n in enumerate(nodes):
        for src, _ in n.inputs:
            j = index.get(id(src))
            if j is not None:
                consumers[j].append(i)
    exprs = [node_expr(n, shapes, dtypes) for n in nodes]
    if sum(e is not None for e in exprs) < min_size:
        return []
    anc = [0] * len(nodes)  # strict ancestors, one bit per node position
    for i, n in enumerate(nodes):
        a = 0
        for src, _ in n.inputs:
            j = index.get(id(src))
            if j is not None:
                a |= anc[j] | (1 << j)
        anc[i] = a
    desc = [0] * len(nodes)
    for i in range(len(nodes) - 1, -1, -1):
        d = 0
        for c in consumers[i]:
            d |= desc[c] | (1 << c)
        desc[i] = d
    pinned_ids = {(id(e[0]), e[1]) for e in pinned}
    out_shape = [tuple(shapes[(n, 0)]) if exprs[i] is not None else None
                 for i, n in enumerate(nodes)]
    cluster_of: dict[int, _Cluster] = {}

    for i, n in enumerate(nodes):
        if exprs[i] is None:
            continue
        merged = _Cluster(i, anc[i], desc[i])
        full = out_shape[i]
        seen = set()
        for src, _ in n.inputs:
            j = index.get(id(src))
            cl = cluster_of.get(j) if j is not None else None
            if cl is None or id(cl) in seen:
                continue
            seen.add(id(cl))
            if _can_merge(merged, cl, full, out_shape, consumers, nodes, pinned_ids):
                merged.members.extend(cl.members)
                merged.mask |= cl.mask
                merged.anc |= cl.anc
                merged.desc |= cl.desc
        for j in merged.members:
            cluster_of[j] = merged

    clusters = {id(c): c for c in cluster_of.values()}.values()
    groups = []
    for cl in sorted(clusters, key=lambda c: max(c.members)):
        if len(cl.members) < min_size:
            continue
        groups.append(_make_group(sorted(cl.members), nodes, index, consumers, exprs,
                                  out_shape, pinned_ids))
    return groups


def _can_merge(merged: _Cluster, cl: _Cluster, full: tuple, out_shape, consumers, nodes,
               pinned_ids) -> bool:
    mask = merged.mask | cl.mask
    # convex: nothing outside is both below and above the merged group
    if (merged.anc | cl.anc) & (merged.desc | cl.desc) & ~mask:
        return False
    for m in cl.members + merged.members:
        s = out_shape[m]
        if s == full:
            continue
        if _broadcast(s, full) != full:
            return False
        if (id(nodes[m]), 0) in pinned_ids:
            return False
        if any(not (mask >> c) & 1 for c in consumers[m]):
            return False
    return True


def _make_group(members, nodes, index, consumers, exprs, out_shape, pinned_ids) -> Group:
    mset = set(members)
    inputs, seen = [], set()
    outputs = []
    for m in members:
        node = nodes[m]
        for e in node.inputs:
            j = index.get(id(e[0]))
            if j in mset:
                continue
            key = (id(e[0]), e[1])
            if key not in seen:
                seen.add(key)
                inputs.append(e)
        if (id(node), 0) in pinned_ids or any(c not in mset for c in consumers[m]):
            outputs.append((node, 0))
    last = members[-1]
    return Group([nodes[m] for m in members], inputs, outputs, out_shape[last],
                 [exprs[m] for m in members])


def rewrite(units: Sequence, pinned, shapes: Sequence, dtypes: Sequence, oc, grad: bool) -> list:
    """The CachedOp's fusion pass: ``units`` with every fusable group replaced by one unit.

    Parameters
    ----------
    units : sequence of OpUnit
        The plan's steps in topological order (``ins``/``outs`` are slot numbers).
    pinned : set of int
        Slots that must stay materialised (heads, monitored entries).
    shapes, dtypes : sequence
        Shape and dtype of every slot (``None`` where unknown: never fused).
    oc : OpContext
        Unused: the caller decides where fusion runs (the GPU).
    grad : bool
        Whether a backward plan follows.  Nothing changes: a fused unit's backward
        reads only its inputs, which stay materialised, and the entries an unfused
        unit's backward reads are that unit's own inputs or outputs, which are
        materialised because it reads or writes them.

    Returns
    -------
    list of OpUnit
        In a topological order close to the original one.
    """
    from .fused_kernel import FusedGroup
    from .graph_info import OpUnit
    if not fusion_enabled() or any(u.node is None for u in units):
        return list(units)
    slot_of: dict = {}
    eshapes: dict = {}
    edtypes: dict = {}
    for u in units:
        for e, s in zip(u.node.inputs, u.ins):
            slot_of[(id(e[0]), e[1])] = s
            if shapes[s] is not None and dtypes[s] is not None:
                eshapes[e], edtypes[e] = shapes[s], dtypes[s]
        for k, s in enumerate(u.outs):
            slot_of[(id(u.node), k)] = s
            if shapes[s] is not None and dtypes[s] is not None:
                eshapes[(u.node, k)], edtypes[(u.node, k)] = shapes[s], dtypes[s]
    pinned_entries = [(u.node, k) for u in units for k, s in enumerate(u.outs) if s in pinned]
    groups = find_groups([u.node for u in units], pinned_entries, eshapes, edtypes)
    if not groups:
        return list(units)
    unit_of = {id(u.node): u for u in units}
    out_name = {}
    for u in units:
        for s, name in zip(u.outs, u.out_names):
            out_name[s] = name
    replaced: dict = {}  # id(node) of a group's last member -> fused unit
    members: set = set()
    for g in groups:
        fg = FusedGroup(g, edtypes)
        ins = [slot_of[(id(e[0]), e[1])] for e in g.inputs]
        outs = [slot_of[(id(e[0]), e[1])] for e in g.outputs]
        replaced[id(g.nodes[-1])] = OpUnit(
            fg, None, fg.name, ins, outs, None, [out_name.get(s, str(s)) for s in outs],
            [f"in{k}" for k in range(len(ins))])
        members.update(id(n) for n in g.nodes)
    staged = []
    for u in units:
        nid = id(u.node)
        if nid in replaced:
            staged.append(replaced[nid])
        elif nid not in members:
            staged.append(unit_of[nid])
    return _topo_sort(staged)


def _topo_sort(units: list) -> list:
    """Units reordered so that every slot is written before it is read (stable DFS)."""
    producer = {}
    for i, u in enumerate(units):
        for s in u.outs:
            producer[s] = i
    done = [False] * len(units)
    order = []
    for root in range(len(units)):
        if done[root]:
            continue
        stack = [(root, 0)]
        while stack:
            i, pos = stack[-1]
            ins = units[i].ins
            if pos < len(ins):
                stack[-1] = (i, pos + 1)
                j = producer.get(ins[pos])
                if j is not None and not done[j] and j != i:
                    stack.append((j, 0))
                continue
            stack.pop()
            if not done[i]:
                done[i] = True
                order.append(units[i])
    return order
