"""MXNet 1.9.1's ``MKLDNN`` subgraph backend as a graph pass: the fused oneDNN nodes
(``_sg_mkldnn_conv``, ``_sg_mkldnn_fully_connected``, ``_sg_mkldnn_selfatt_qk``/``_valatt``)
that ``get_backend_symbol('MKLDNN')`` and ``optimize_for(backend='MKLDNN')`` make.

Each property of the backend (:mod:`gluonlite.ops.onednn_fusion_rules`: Identity, Conv,
FC, Transformer) runs MXNet's ``BuildSubgraph`` over the graph in turn, and this module
follows that algorithm step by step, because its details are visible in the result:

* seeds are tried in the graph's depth-first post-order; from a seed the subgraph grows
  breadth-first over the selector's ``select_input``/``select_output`` (a node's readers
  in MXNet's iteration order: the reader met last first); a subgraph that would make a
  cycle with outside nodes gives up its last node and tries again;
* subgraphs are numbered from 0 per property in seed order (``sg_mkldnn_conv_bn_act_0``);
* each input entry of a subgraph (sorted by the order in which a depth-first walk from
  the heads finishes entries) becomes a new variable named after the entry's output
  (``data0``, ``conv0_weight0``, ``sg_mkldnn_conv_bn_act_0_output1``: the number counts
  uses of one output), and the fused node reads the original entries in that order (a
  fused convolution moves the extra ``elemwise_add`` operand last);
* readers outside the subgraph read the fused node instead.

The fused node's subgraph holds the original nodes, so it runs in gluonlite (and gives
the unfused graph's results) through the operators' subgraph execution.
"""
from __future__ import annotations

from collections import deque

from ..ops.onednn_fusion_rules import Property, backend_properties
from ..ops.registry import get_op
from .graph import Node, topo_order, variable_node
from .entry_versions import (copy_graph, input_versions, record_versions,
                             set_input)
from .register import parse_op_attrs
from .subgraph import Subgraph

__all__ = ["partition_onednn", "build_subgraph"]


class _Graph:
    """The mutable state of one ``BuildSubgraph`` run: MXNet's indexed graph (node ids in
    post-order), the entry order, the readers of every node and the labels."""

    def __init__(self, heads: list, node_attrs=None):
        self.heads = heads
        self.order = topo_order(heads)
        self.nid = {id(n): i for i, n in enumerate(self.order)}
        self.labels = [-1] * len(self.order)
        self.node_attrs = node_attrs
        # readers: nid -> {id(reader): (reader, [input positions])}, insertion ordered
        self.readers = [dict() for _ in self.order]
        for node in self.order:
            for pos, (src, _) in enumerate(node.inputs):
                slot = self.readers[self.nid[id(src)]].setdefault(id(node), (node, []))
                slot[1].append(pos)
        self.entry_order = self._entry_order()

    # entries are slots: (node, position) for an input, (None, k) for head k
    def get(self, slot) -> tuple:
        node, pos = slot
        return self.heads[pos] if node is None else node.inputs[pos]

    def set(self, slot, entry) -> None:
        node, pos = slot
        if node is None:
            self.heads[pos] = entry
        else:
            set_input(node, pos, entry)

    @staticmethod
    def key(slot) -> tuple:
        return (id(slot[0]) if slot[0] is not None else -1, slot[1])

    def _entry_order(self) -> dict:
        """MXNet's ``TopSortEntries``: an entry is numbered when the depth-first walk
        finishes its source node, or when it is met if the source was already walked."""
        order: dict = {}
        seen: set = set()
        for k, (root, _) in enumerate(self.heads):
            if id(root) in seen:
                order[(-1, k)] = len(order)
                continue
            seen.add(id(root))
            stack = [(root, 0, (-1, k))]
            while stack:
                node, pos, key = stack[-1]
                if pos == len(node.inputs):
                    order[key] = len(order)
                    stack.pop()
                    continue
                stack[-1] = (node, pos + 1, key)
                src = node.inputs[pos][0]
                if id(src) in seen:
                    order[(id(node), pos)] = len(order)
                else:
                    seen.add(id(src))
                    stack.append((src, 0, (id(node), pos)))
        return order

    def exists(self, node) -> bool:
        return id(node) in self.nid

    def reader_items(self, nid: int) -> list:
        """The readers of node ``nid`` in MXNet's iteration order (its ``unordered_map``
        of pointers lists the reader inserted last first)."""
        return list(reversed(list(self.readers[nid].values())))

    def node_attr(self, node):
        """``(shape, dtype)`` of the node's first input when shapes were inferred."""
        if self.node_attrs is None or not node.inputs:
            return None
        return self.node_attrs(node.inputs[0])


def _label(g: _Graph, sel, label: int, snid: int, excluded: set) -> list | None:
    """MXNet's ``LabelSubgraph``: the nodes grown from seed ``snid``, sorted by id, or
    ``None`` after adding a node to ``excluded`` to break a cycle."""
    g.labels[snid] = label
    queue, members = deque([snid]), []
    outside: dict = {}   # id(node) -> [node, readers inside, sources inside]
    while queue:
        cur_id = queue.popleft()
        members.append(cur_id)
        cur = g.order[cur_id]
        for src, _ in cur.inputs:
            nid = g.nid[id(src)]
            if g.labels[nid] == -1 and nid not in excluded and sel.select_input(cur, src):
                g.labels[nid] = label
                queue.append(nid)
            elif g.labels[nid] == -1:
                outside.setdefault(id(src), [src, [], []])[1].append(cur_id)
        for reader, _ in g.reader_items(cur_id):
            nid = g.nid[id(reader)]
            if g.labels[nid] == -1 and nid not in excluded and sel.select_output(cur, reader):
                g.labels[nid] = label
                queue.append(nid)
            elif g.labels[nid] == -1:
                outside.setdefault(id(reader), [reader, [], []])[2].append(cur_id)
    inside = {id(g.order[i]) for i in members}
    nodes = sorted(outside.values(), key=lambda v: g.nid[id(v[0])])
    for v in nodes:
        v[1].sort()
        v[2].sort()
    excluded_id = -1
    for i, (node, readers_in, sources_in) in enumerate(nodes):
        if readers_in and sources_in:
            excluded_id = max(excluded_id, readers_in[-1], sources_in[-1])
        elif sources_in:
            for other, readers2, _ in nodes[i + 1:]:
                if readers2 and _is_ancestor(g, node, other, inside):
                    excluded_id = max(excluded_id, sources_in[-1], readers2[-1])
    if excluded_id != -1:
        excluded.add(excluded_id)
        for i in members:
            g.labels[i] = -1
        return None
    return sorted(members)


def _is_ancestor(g: _Graph, ancestor, descendant, inside: set) -> bool:
    if ancestor is descendant:
        return True
    stack, count = [descendant], 0
    while stack and count < len(g.order):
        count += 1
        top = stack.pop()
        if top is ancestor:
            return True
        stack += [src for src, _ in top.inputs if id(src) not in inside]
    return False


def _find_subgraphs(g: _Graph, prop: Property) -> list:
    """MXNet's ``FindSubgraphs``: ``[node ids]`` of each accepted subgraph, in order."""
    found = []
    for snid, node in enumerate(g.order):
        sel = prop.selector()
        if g.labels[snid] != -1 or not sel.select(node, g.node_attr(node)):
            continue
        label, excluded, members = len(found), set(), None
        for _ in range(len(g.order) ** 2):
            before = len(excluded)
            members = _label(g, sel, label, snid, excluded)
            if members is not None or len(excluded) == before:
                break
            sel.reset()
        if members is None:  # always a cycle: the seed alone
            g.labels[snid] = label
            members = [snid]
        keep = sel.filter([g.order[i] for i in members])
        if prop.kind in ("conv", "fc"):
            keep = _trim_at_escape(g, keep)
        kept = {id(n) for n in keep}
        for i in members:
            if id(g.order[i]) not in kept:
                g.labels[i] = -1
        if keep:
            found.append(sorted(g.nid[id(n)] for n in keep))
    return found


def _trim_at_escape(g: _Graph, keep: list) -> list:
    """The nodes of a fused chain up to the first whose output is read outside it.

    A fused convolution or fully connected node has one output, the chain's last; MXNet
    1.9.1 reconnects every outside reader to it, so a reader of an inner node (a graph
    head, or a reader the selector never saw because cycle breaking excluded it) would
    read the activation's result instead of, say, the BatchNorm's.  MXNet's graph is
    wrong there; this keeps the chain only up to that node (a deliberate difference
    that changes nothing where MXNet is right)."""
    chain = sorted(keep, key=lambda n: g.nid[id(n)])
    inside = {id(n) for n in chain}
    heads = {id(n) for n, _ in g.heads}
    for k, node in enumerate(chain[:-1]):
        readers = g.readers[g.nid[id(node)]]
        if id(node) in heads or any(key not in inside for key in readers):
            return chain[:k + 1]
    return chain


def _output_name(entry) -> str:
    node, index = entry
    return node.name if node.op is None else node.output_names()[index]


def _create(g: _Graph, prop: Property, members: list, label: int) -> None:
    """MXNet's ``CreateSubgraphNode`` with the property's node and wiring."""
    nodes = [g.order[i] for i in members]
    inputs = []
    for node in nodes:
        for pos, (src, _) in enumerate(node.inputs):
            if not g.exists(src) or g.labels[g.nid[id(src)]] != label:
                inputs.append((node, pos))
    inputs.sort(key=lambda s: g.entry_order[g.key(s)])
    # the versions of the cut entries, read before any is cut (they stay the fused
    # node's: MXNet's entries keep their versions; a node read without a record had
    # versions 0), or None when no node has a record (the writer counts mutations)
    read = {id(n): input_versions(n) for n in nodes}
    versions = None
    if any(v is not None for v in read.values()):
        versions = [(read[id(n)] or [0] * len(n.inputs))[pos] for n, pos in inputs]
    orig, counts = [], {}
    for slot in inputs:  # cut: each use of an outside entry becomes a new variable
        entry = g.get(slot)
        orig.append(entry)
        name = _output_name(entry)
        counts[name] = counts.get(name, -1) + 1
        g.set(slot, (variable_node(f"{name}{counts[name]}"), 0))
    outputs = []
    for i, node in zip(members, nodes):
        for reader, positions in g.readers[i].values():
            if not g.exists(reader) or g.labels[g.nid[id(reader)]] != label:
                outputs += [(reader, p) for p in positions]
    for k, (node, _) in enumerate(g.heads):
        if g.exists(node) and g.labels[g.nid[id(node)]] == label:
            outputs.append((None, k))
    outputs.sort(key=lambda s: g.entry_order[g.key(s)])
    sub_outputs = [g.get(s) for s in outputs]

    if prop.kind == "identity":
        last = [e for e in sub_outputs if prop.is_identity(e[0])][-1][0]
        org = [n for n in topo_order([(last, 0)]) if not prop.is_identity(n)][-1]
        fused = Node(org.op, org.name, org.attrs, [], dict(org.extra))
        for s in outputs:
            node, index = g.get(s)
            if prop.is_identity(node):
                index = node.inputs[0][1]
            g.set(s, (fused, index))
    else:
        heads = [(sub_outputs[0][0], 0)]
        ops = [n for n in topo_order(heads) if n.op is not None]
        op_name, name, strings = prop.describe(ops, label)
        op = get_op(op_name)
        attrs = parse_op_attrs(op, strings).with_values(subgraphs=(Subgraph(heads),))
        fused = Node(op, name, attrs, [], {})
        for s in outputs:
            g.set(s, (fused, prop.output_index(g.get(s)[1])))
        inside: set = set()
        for node in topo_order(heads):
            if node.op is None:
                continue
            inside.add(id(node))
            if prop.swaps_sum_operands(node, inside):
                node.inputs[0], node.inputs[1] = node.inputs[1], node.inputs[0]
                inputs = inputs[1:] + inputs[:1]
                orig = orig[1:] + orig[:1]
                if versions is not None:
                    versions = versions[1:] + versions[:1]
    fused.inputs = list(orig)
    if versions is not None:
        record_versions(fused, versions)
    if prop.kind != "identity":
        _fresh_versions(heads)
    member_ids = {id(n) for n in nodes}
    for i, (src, _) in enumerate(fused.inputs):
        g.entry_order[(id(fused), i)] = g.entry_order[g.key(inputs[i])]
        if g.exists(src):
            readers = g.readers[g.nid[id(src)]]
            for key in [k for k in readers if k in member_ids]:
                del readers[key]
            readers.setdefault(id(fused), (fused, []))[1].append(i)


def _fresh_versions(heads: list) -> None:
    """The cut inputs are new entries (version 0 in MXNet's JSON, even where a node of
    the subgraph mutates them): recorded as the JSON writer's read versions."""
    for node in topo_order(heads):
        if node.op is not None and node.op.aux_names:
            record_versions(node, (0,) * len(node.inputs))


def build_subgraph(heads: list, prop: Property, node_attrs=None) -> list:
    """Run one property over the graph of ``heads`` (changed in place); the new heads.

    ``node_attrs(entry)`` gives ``(shape, dtype)`` of an entry when shapes were inferred
    (``optimize_for`` with arrays), else leave it ``None``."""
    g = _Graph(list(heads), node_attrs)
    for label, members in enumerate(_find_subgraphs(g, prop)):
        _create(g, prop, members, label)
    return g.heads


def partition_onednn(sym, quantize: bool = False, honour_disable: bool = True,
                     shape_info=None):
    """The graph of ``sym`` rewritten as MXNet 1.9.1's ``MKLDNN`` backend rewrites it
    (``quantize=True``: the fusion properties of ``MKLDNN_QUANTIZE``, which fuse only
    what oneDNN's INT8 kernels support).

    Parameters
    ----------
    sym : Symbol
        The graph; it is copied, never changed.
    quantize : bool
        Apply the selection rules of the ``MKLDNN_QUANTIZE`` backend.
    honour_disable : bool
        Skip properties turned off by ``MXNET_DISABLE_MKLDNN_{CONV,FC,TRANSFORMER}_OPT``
        (``get_backend_symbol`` does, MXNet's ``optimize_for`` does not).
    shape_info : callable, optional
        ``shape_info(heads) -> node_attrs`` giving, for the current graph, a function of
        an entry returning ``(shape, dtype)`` (``optimize_for`` with arrays).

    Returns
    -------
    Symbol
        A new symbol with the fused nodes.
    """
    from .symbol import Symbol
    heads = copy_graph(sym._heads)
    for prop in backend_properties(quantize):
        if honour_disable and prop.disabled:
            continue
        node_attrs = None if shape_info is None else shape_info(heads)
        heads = build_subgraph(heads, prop, node_attrs)
    return Symbol(heads)
