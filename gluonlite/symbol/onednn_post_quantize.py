"""MXNet 1.9.1's post-quantization passes of the ``MKLDNN_QUANTIZE`` backend, run on a
calibrated INT8 graph:

* requantize fusion: a calibrated ``_contrib_requantize`` right after a quantized
  ``_sg_mkldnn_conv`` or ``_contrib_quantized_elemwise_add`` folds into it (the node
  takes ``min_calib_range``/``max_calib_range`` and gives int8/uint8 directly); after a
  quantized fully connected, self-attention or ``elemwise_mul`` node too, and when a
  ``_contrib_dequantize`` follows the requantize, both fold in and the node gives
  float32 (``enable_float_output``);
* scale alignment: the calibrated nodes feeding a quantized concat (directly or through
  quantized pooling and concats, and read by nothing else) all take the union of their
  ranges (widened to include 0), so that the concat copies bytes instead of rescaling.

Which operators play which part is operator knowledge (:mod:`gluonlite.ops.quantization`);
this module only rewires the graph.  Ranges are written as MXNet writes them: float32
values printed with six decimals.
"""
from __future__ import annotations

from collections import defaultdict

import numpy as np

from ..ops.quantization import (absorbs_requantize, is_dequantize, is_requantize,
                                scale_alignment)
from .graph import Node, topo_order
from .entry_versions import copy_graph, set_inputs
from .symbol import Symbol

__all__ = ["post_quantize_onednn"]


def _consumers(order: list) -> dict:
    users = defaultdict(list)
    for node in order:
        for src, _ in node.inputs:
            users[id(src)].append(node)
    return users


def _only_user(users: dict, node: Node, heads_ids: set):
    """The single node reading ``node`` (None when several or when it is a graph head)."""
    readers = users.get(id(node), [])
    if not readers or id(node) in heads_ids or any(r is not readers[0] for r in readers):
        return None
    return readers[0]


def _text(value) -> str:
    return "%f" % float(np.float32(value))


def _set_attrs(node: Node, **strings) -> None:
    given = dict(node.attrs._given)
    given.pop("subgraphs", None)
    given.update(strings)
    parsed = node.op.parse_attrs(given).with_given(given)
    subgraphs = getattr(node.attrs, "subgraphs", None)
    node.attrs = parsed.with_values(subgraphs=subgraphs) if subgraphs else parsed


def _calibrated(node: Node) -> bool:
    given = node.attrs._given if node.op is not None else {}
    return "min_calib_range" in given and "max_calib_range" in given


def _fuse_requantize(heads: list) -> list:
    order = topo_order(heads)
    users = _consumers(order)
    head_ids = {id(n) for n, _ in heads}
    moved: dict = {}  # (id(old node), output) -> new entry
    for node in order:
        kind = None if node.op is None else absorbs_requantize(node.op, node.attrs)
        if kind is None:
            continue
        rq = _only_user(users, node, head_ids)
        if rq is None or not is_requantize(rq.op) or not _calibrated(rq):
            continue
        dq = _only_user(users, rq, head_ids) if kind == "calib_or_float" else None
        if dq is not None and is_dequantize(dq.op):
            _set_attrs(node, enable_float_output="True")
            moved[(id(dq), 0)] = (node, 0)
        else:
            _set_attrs(node, min_calib_range=_text(rq.attrs.min_calib_range),
                       max_calib_range=_text(rq.attrs.max_calib_range))
            for i in range(3):
                moved[(id(rq), i)] = (node, i)
    if not moved:
        return heads
    for node in order:
        set_inputs(node, [moved.get((id(s), i), (s, i)) for s, i in node.inputs])
    return [moved.get((id(s), i), (s, i)) for s, i in heads]


def _align_scales(heads: list) -> None:
    order = topo_order(heads)
    users = _consumers(order)
    taken: set = set()
    for head in order:
        if head.op is None or scale_alignment(head.op) != "head" or id(head) in taken:
            continue
        visited, members, matched = {id(head)}, {id(head)}, []
        follow_outputs = len({id(u) for u in users.get(id(head), [])}) <= 1
        queue = [head]
        while queue:
            cur = queue.pop(0)
            if id(cur) not in visited:
                continue
            for src, _ in cur.inputs:
                if src.op is None or id(src) in members or id(src) in taken:
                    continue
                if any(id(u) not in visited for u in users.get(id(src), [])):
                    continue
                if _calibrated(src):
                    matched.append(src)
                    members.add(id(src))
                elif scale_alignment(src.op) is not None:
                    visited.add(id(src))
                    members.add(id(src))
                    queue.append(src)
            if follow_outputs:
                for user in users.get(id(cur), []):
                    if id(user) not in members and scale_alignment(user.op) is not None:
                        visited.add(id(user))
                        members.add(id(user))
                        queue.append(user)
        if len(matched) < 2:
            continue
        lo = min([np.float32(0.0)] + [np.float32(n.attrs.min_calib_range) for n in matched])
        hi = max([np.float32(0.0)] + [np.float32(n.attrs.max_calib_range) for n in matched])
        for node in matched:
            _set_attrs(node, min_calib_range=_text(lo), max_calib_range=_text(hi))
        taken |= members


def post_quantize_onednn(sym: Symbol) -> Symbol:
    """``sym`` (a calibrated INT8 graph) after MXNet's post-quantization passes."""
    heads = _fuse_requantize(copy_graph(sym._heads))
    _align_scales(heads)
    return Symbol(heads)
