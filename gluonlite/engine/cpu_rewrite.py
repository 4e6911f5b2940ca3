"""The CachedOp's graph rewrite for CPU (NumPy) plans.

Two patterns, matched on a plan's slot-numbered units (see
:class:`~gluonlite.engine.plan.ForwardPlan`'s ``rewrite`` hook):

* **folded BatchNorm** (inference plans only: no gradient wanted, and the
  BatchNorm in predict mode or with ``use_global_stats``): ``Convolution ->
  BatchNorm`` becomes one convolution on folded weights and bias
  (:class:`~gluonlite.ops._fused_conv.FusedLayer`); a ReLU that follows is absorbed
  too;
* **ReLU in place**: ``Convolution`` (any plan) or ``FullyConnected`` (inference
  plans) followed by ``relu`` / ``Activation(relu)`` becomes one step that applies
  the ReLU on the layer's output buffer; its backward masks the head gradient with
  ``y > 0`` and runs the layer's backward.  (Dense layers' outputs are small: in
  training their fusion saved nothing measurable, and their separate backward steps
  keep the per-layer pruning of the backward plan visible.)

A member's output is absorbed only when exactly one unit reads it (once), as the
next member's data input, and it is not pinned (a head, a monitored entry); a
folded BatchNorm's ``mean``/``var`` outputs must be read by nobody.  A convolution
whose output has a second consumer is therefore left alone.  The fused step takes
the last member's place in the unit order (all of its inputs exist by then).

The CachedOp selects this pass for CPU contexts; plans with a monitor or a device
placement are never rewritten (the plan skips the hook).  ``GLUONLITE_CPU_REWRITE=0``
turns it off.
"""
from __future__ import annotations

import os
from typing import Sequence

import numpy as np

from ..ops._fused_conv import (FusedLayer, absorbs_relu, folds_batchnorm, opens_epilogue,
                               relu_kind)
from .graph_info import OpUnit

__all__ = ["rewrite", "rewrite_enabled"]


def rewrite_enabled() -> bool:
    """False when the environment sets ``GLUONLITE_CPU_REWRITE=0``."""
    return os.environ.get("GLUONLITE_CPU_REWRITE", "1").strip().lower() not in (
        "0", "false", "off", "no")


def _readers(units: Sequence) -> dict:
    """slot -> list of (unit index, input position), every read counted."""
    readers: dict = {}
    for k, u in enumerate(units):
        for j, s in enumerate(u.ins):
            readers.setdefault(s, []).append((k, j))
    return readers


def _size(shape) -> int:
    """Elements of ``shape`` (unknown counts as large)."""
    if shape is None:
        return 1 << 62
    n = 1
    for d in shape:
        n *= int(d)
    return n


def _sole_reader(slot: int, readers: dict, pinned) -> int | None:
    """The unit that is the only reader of ``slot`` (as its input 0), or ``None``."""
    if slot in pinned:
        return None
    rd = readers.get(slot)
    if rd is None or len(rd) != 1 or rd[0][1] != 0:
        return None
    return rd[0][0]


def rewrite(units: Sequence, pinned, shapes: Sequence, dtypes: Sequence, oc,
            grad: bool) -> list:
    """``units`` with each matched group replaced by one :class:`FusedLayer` unit.

    Parameters
    ----------
    units : sequence of OpUnit
        The plan's steps in topological order.
    pinned : set of int
        Slots that must stay materialised (heads; every slot under a monitor).
    shapes, dtypes : sequence
        Per slot (``None`` where unknown).
    oc : OpContext
        The plan's array module and mode: nothing changes unless it is NumPy.
    grad : bool
        Whether a backward plan follows (then no BatchNorm is folded).

    Returns
    -------
    list of OpUnit
    """
    units = list(units)
    if not rewrite_enabled() or oc.xp is not np:
        return units
    readers = _readers(units)
    replaced: dict = {}
    absorbed: set = set()
    for k, u in enumerate(units):
        if k in absorbed or k in replaced or len(u.outs) != 1 or len(u.ins) < 2:
            continue
        y = u.outs[0]
        if not opens_epilogue(u.op, dtypes[y], grad):
            continue
        members = [k]
        bn = None
        nxt = _sole_reader(y, readers, pinned)
        if nxt is not None and not grad and shapes[y] is not None:
            cand = units[nxt]
            if len(cand.outs) == 3 and len(cand.ins) == 5 and folds_batchnorm(
                    u.op, u.attrs, cand.op, cand.attrs, bool(oc.is_train),
                    [dtypes[s] for s in u.ins + cand.ins[1:]], len(shapes[y])) and \
                    all(s not in pinned and s not in readers for s in cand.outs[1:]):
                bn = cand
                members.append(nxt)
                y = cand.outs[0]
                nxt = _sole_reader(y, readers, pinned)
        relu = None
        if nxt is not None and absorbs_relu(u.op, dtypes[y], grad):
            cand = units[nxt]
            kind = relu_kind(cand.op, cand.attrs)
            if kind is not None and len(cand.ins) == 1 and len(cand.outs) == 1 and \
                    dtypes[cand.outs[0]] == dtypes[y]:
                relu = kind
                members.append(nxt)
                y = cand.outs[0]
        if len(members) == 1:
            continue
        post_scale = bn is not None and _size(shapes[u.outs[0]]) < _size(shapes[u.ins[1]])
        op = FusedLayer(u.op, u.attrs, relu, None if bn is None else bn.attrs, post_scale)
        ins = u.ins + (bn.ins[1:] if bn is not None else ())
        in_names = u.in_names + (bn.in_names[1:] if bn is not None else ())
        aux_pos = (len(u.ins) + 2, len(u.ins) + 3) if bn is not None else ()
        last = units[members[-1]]
        replaced[members[-1]] = OpUnit(op, u.attrs, u.name, ins, (y,), None,
                                       last.out_names[:1], in_names, aux_pos)
        absorbed.update(members[:-1])
    if not replaced:
        return units
    return [replaced.get(k, u) for k, u in enumerate(units) if k not in absorbed]
