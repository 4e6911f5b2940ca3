"""SSD's multibox operators: ``_contrib_MultiBoxPrior``, ``_contrib_MultiBoxTarget`` and
``_contrib_MultiBoxDetection``, with MXNet 1.9's semantics (all pass zero gradients).

* ``MultiBoxPrior``: per feature-map cell, one anchor per size (with the first ratio)
  then one per further ratio (with the first size), corner format, normalised.
* ``MultiBoxTarget``: greedy best-pair matching of anchors and ground truths, then
  every anchor whose best IoU passes ``overlap_threshold``; optional hard negative
  mining on the background probability.  Labels stop at the first row with class -1.
  (MXNet's CPU kernel ignores ``minimum_negative_samples``; so does this one.)
* ``MultiBoxDetection``: best non-background class per anchor, decoded boxes, valid rows
  first in anchor order, then per batch sorted by score and greedily suppressed
  (IoU ``>=`` ``nms_threshold``); suppressed rows keep their values with class -1.

Greedy steps loop over ground truths (target) or sorted candidates (detection), each step
whole-array operations over every batch and anchor.
"""
from __future__ import annotations

import numpy as np

from .attrs import Attr
from .common import fail, put
from .contrib_box import greedy_suppress
from .registry import OpDef, register

_PRIOR = "_contrib_MultiBoxPrior"
_TARGET = "_contrib_MultiBoxTarget"
_DET = "_contrib_MultiBoxDetection"


def _f32(v: float) -> float:
    return float(np.float32(v))


def _zero_grads(oc, attrs, inputs, outputs, out_grads):
    return [oc.xp.zeros_like(a) for a in inputs]


# -- MultiBoxPrior ------------------------------------------------------------------------------

def _prior_infer(attrs, shapes):
    data = shapes[0]
    if len(attrs.steps) != 2 or len(attrs.offsets) != 2:
        fail(_PRIOR, f"steps and offsets must have 2 entries (y, x), got {attrs.steps}, "
                     f"{attrs.offsets}")
    if not attrs.sizes or not attrs.ratios:
        fail(_PRIOR, "sizes and ratios must not be empty")
    if data is None:
        return [None], [None]
    if len(data) < 4:
        fail(_PRIOR, "data must be 4-D (batch, channel, y, x)", data)
    per_cell = len(attrs.sizes) + len(attrs.ratios) - 1
    return [tuple(data)], [(1, data[2] * data[3] * per_cell, 4)]


def _prior_forward(oc, attrs, inputs, out):
    xp = oc.xp
    data = inputs[0]
    _prior_infer(attrs, [data.shape])
    h, w = data.shape[2], data.shape[3]
    f = np.float32
    step_y, step_x = (f(s) for s in attrs.steps)
    if step_y <= 0 or step_x <= 0:
        step_y, step_x = f(1) / f(h), f(1) / f(w)
    # per-cell half extents, in float32 as MXNet computes them (host side: tiny)
    sizes = np.asarray(attrs.sizes, dtype=f)
    ratios = np.sqrt(np.asarray(attrs.ratios, dtype=f))
    half_w = np.concatenate([sizes * f(h) / f(w) * ratios[0] / f(2),
                             sizes[0] * f(h) / f(w) * ratios[1:] / f(2)]).astype(f)
    half_h = np.concatenate([sizes / ratios[0] / f(2), sizes[0] / ratios[1:] / f(2)]).astype(f)
    cy = (xp.arange(h, dtype="float32") + f(attrs.offsets[0])) * step_y
    cx = (xp.arange(w, dtype="float32") + f(attrs.offsets[1])) * step_x
    cy = cy[:, None, None]
    cx = cx[None, :, None]
    hw = xp.asarray(half_w)[None, None, :]
    hh = xp.asarray(half_h)[None, None, :]
    shape = (h, w, half_w.size)
    boxes = xp.stack([xp.broadcast_to(cx - hw, shape), xp.broadcast_to(cy - hh, shape),
                      xp.broadcast_to(cx + hw, shape), xp.broadcast_to(cy + hh, shape)],
                     axis=-1).reshape(1, -1, 4)
    if attrs.clip:
        boxes = xp.clip(boxes, 0, 1)
    return [put(out, 0, boxes.astype(data.dtype))]


register(OpDef(_PRIOR, _prior_forward, backward=_zero_grads, inputs=("data",),
               attrs={"sizes": Attr("floats", (1.0,)), "ratios": Attr("floats", (1.0,)),
                      "clip": Attr("bool", False), "steps": Attr("floats", (-1.0, -1.0)),
                      "offsets": Attr("floats", (0.5, 0.5))},
               infer_shape=_prior_infer, backward_uses=("inputs",),
               aliases=("_npx_multibox_prior",),
               doc="Anchor boxes for every cell of a feature map."))


# -- MultiBoxTarget -----------------------------------------------------------------------------

def _target_infer(attrs, shapes):
    anchor, label, cls_pred = shapes
    if anchor is not None and (len(anchor) != 3 or anchor[0] not in (0, 1)
                               or anchor[2] not in (0, 4)):
        fail(_TARGET, "anchor must be (1, num_anchors, 4)", *shapes)
    if label is not None and (len(label) != 3 or (label[2] and label[2] < 5)):
        fail(_TARGET, "label must be (batch, num_labels, width >= 5)", *shapes)
    if cls_pred is not None and len(cls_pred) != 3:
        fail(_TARGET, "cls_pred must be (batch, num_classes, num_anchors)", *shapes)
    if anchor is not None and cls_pred is not None and anchor[1] and cls_pred[2] \
            and anchor[1] != cls_pred[2]:
        fail(_TARGET, "number of anchors mismatch between anchor and cls_pred", *shapes)
    if anchor is None or label is None:
        return [anchor, label, cls_pred], [None, None, None]
    nb, na = label[0], anchor[1]
    return [tuple(anchor), tuple(label), cls_pred], [(nb, na * 4), (nb, na * 4), (nb, na)]


def _target_forward(oc, attrs, inputs, out):
    xp = oc.xp
    anchor, label, cls_pred = inputs
    _target_infer(attrs, [a.shape for a in inputs])
    dtype = anchor.dtype
    acc = "float64" if dtype == np.float64 else "float32"
    nb, nl = label.shape[0], label.shape[1]
    na = anchor.shape[1]
    a = anchor.reshape(na, 4).astype(acc)
    lab = label.astype(acc)
    # ground truths count up to the first row whose class is -1
    is_end = lab[:, :, 0] == -1
    gt_ok = xp.cumsum(is_end, axis=1) == 0                                   # (B, L)
    g = lab[:, :, 1:5]
    ga, gg = a[None, :, None, :], g[:, None, :, :]
    iw = xp.maximum(0, xp.minimum(ga[..., 2], gg[..., 2]) - xp.maximum(ga[..., 0], gg[..., 0]))
    ih = xp.maximum(0, xp.minimum(ga[..., 3], gg[..., 3]) - xp.maximum(ga[..., 1], gg[..., 1]))
    inter = iw * ih
    union = (ga[..., 2] - ga[..., 0]) * (ga[..., 3] - ga[..., 1]) + \
        (gg[..., 2] - gg[..., 0]) * (gg[..., 3] - gg[..., 1]) - inter
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = xp.where(union == 0, 0, inter / xp.where(union == 0, 1, union))  # (B, A, L)
    iou = iou.astype("float32")
    batch = xp.arange(nb)
    positive = xp.zeros((nb, na), dtype=bool)
    match = xp.full((nb, na), -1, dtype="int64")
    gt_free = gt_ok.copy()
    # phase 1: repeatedly the best (anchor, gt) pair among unmatched ones (IoU > 1e-6),
    # first in anchor-major order on ties; at most num_labels steps
    for _ in range(nl):
        cand = (~positive)[:, :, None] & gt_free[:, None, :]
        masked = xp.where(cand, iou, -1).reshape(nb, na * nl)
        pick = xp.argmax(masked, axis=1)
        best = xp.take_along_axis(masked, pick[:, None], axis=1)[:, 0]
        ok = best > np.float32(1e-6)
        j, k = pick // nl, pick % nl
        positive[batch, j] |= ok
        match[batch, j] = xp.where(ok, k, match[batch, j])
        gt_free[batch, k] &= ~ok
    has_gt = gt_ok.any(axis=1)[:, None]
    masked_all = xp.where(gt_ok[:, None, :], iou, -1)
    best_gt = xp.argmax(masked_all, axis=2)                                   # (B, A)
    best_iou = xp.max(masked_all, axis=2)
    if attrs.overlap_threshold > 0:
        extra = ~positive & (best_iou > _f32(attrs.overlap_threshold)) & has_gt
        match = xp.where(extra, best_gt, match)
        positive = positive | extra
    num_pos = positive.sum(axis=1)
    if attrs.negative_mining_ratio > 0:
        # hardest negatives: lowest background probability among anchors whose best IoU
        # is under negative_mining_thresh
        logits = cls_pred.astype(acc)                                         # (B, C, A)
        shifted = logits - logits.max(axis=1, keepdims=True)
        prob0 = xp.exp(shifted[:, 0]) / xp.exp(shifted).sum(axis=1)
        cand = ~positive & (best_iou < _f32(attrs.negative_mining_thresh)) & has_gt
        num_neg = xp.minimum((num_pos * _f32(attrs.negative_mining_ratio)).astype("int64"),
                             na - num_pos)
        key = xp.where(cand, prob0, xp.inf)
        order = xp.argsort(key, axis=1, **({"kind": "stable"} if xp is np else {}))
        rank = xp.empty_like(order)
        rank[batch[:, None], order] = xp.arange(na)[None, :]
        negative = cand & (rank < num_neg[:, None])
    else:
        negative = ~positive & has_gt
    # targets of positives, computed in float32 as MXNet does
    gsel = xp.take_along_axis(g.astype("float32"), xp.maximum(match, 0)[:, :, None], axis=1)
    a32 = a.astype("float32")[None]
    aw, ah = a32[..., 2] - a32[..., 0], a32[..., 3] - a32[..., 1]
    ax, ay = (a32[..., 0] + a32[..., 2]) * 0.5, (a32[..., 1] + a32[..., 3]) * 0.5
    gw, gh = gsel[..., 2] - gsel[..., 0], gsel[..., 3] - gsel[..., 1]
    gx, gy = (gsel[..., 0] + gsel[..., 2]) * 0.5, (gsel[..., 1] + gsel[..., 3]) * 0.5
    v = [np.float32(x) for x in attrs.variances]
    with np.errstate(divide="ignore", invalid="ignore"):
        loc = xp.stack([(gx - ax) / aw / v[0], (gy - ay) / ah / v[1],
                        xp.log(gw / aw) / v[2], xp.log(gh / ah) / v[3]], axis=-1)
    pos3 = positive[:, :, None]
    loc_target = xp.where(pos3, loc, 0).astype(dtype).reshape(nb, na * 4)
    loc_mask = xp.broadcast_to(pos3, (nb, na, 4)).astype(dtype).reshape(nb, na * 4)
    gcls = xp.take_along_axis(lab[:, :, 0], xp.maximum(match, 0), axis=1) + 1
    cls_target = xp.where(positive, gcls, xp.where(negative, 0, _f32(attrs.ignore_label)))
    return [put(out, 0, loc_target), put(out, 1, loc_mask),
            put(out, 2, cls_target.astype(dtype))]


def _target_type(op, attrs, in_dtypes):
    known = next((d for d in in_dtypes if d is not None), None)
    return [known] * 3, [known] * 3


register(OpDef(_TARGET, _target_forward, backward=_zero_grads,
               inputs=("anchor", "label", "cls_pred"), num_outputs=3,
               attrs={"overlap_threshold": Attr("float", 0.5),
                      "ignore_label": Attr("float", -1.0),
                      "negative_mining_ratio": Attr("float", -1.0),
                      "negative_mining_thresh": Attr("float", 0.5),
                      "minimum_negative_samples": Attr("int", 0),
                      "variances": Attr("floats", (0.1, 0.1, 0.2, 0.2))},
               infer_shape=_target_infer, infer_type=_target_type, backward_uses=("inputs",),
               aliases=("_npx_multibox_target",),
               doc="SSD training targets: box offsets, their mask and anchor classes."))


# -- MultiBoxDetection ----------------------------------------------------------------------------

def _det_infer(attrs, shapes):
    cls_prob, loc_pred, anchor = shapes
    if cls_prob is not None and len(cls_prob) != 3:
        fail(_DET, "cls_prob must be (batch, num_classes, num_anchors)", *shapes)
    if loc_pred is not None and len(loc_pred) != 2:
        fail(_DET, "loc_pred must be (batch, num_anchors * 4)", *shapes)
    if anchor is not None and (len(anchor) != 3 or anchor[2] not in (0, 4)):
        fail(_DET, "anchor must be (1, num_anchors, 4)", *shapes)
    if cls_prob is not None and anchor is not None and cls_prob[2] != anchor[1]:
        fail(_DET, "number of anchors mismatch", *shapes)
    if cls_prob is not None and loc_pred is not None and cls_prob[2] * 4 != loc_pred[1]:
        fail(_DET, "loc_pred must hold 4 values per anchor", *shapes)
    if cls_prob is None or anchor is None:
        return [cls_prob, loc_pred, anchor], [None]
    return [tuple(cls_prob), (cls_prob[0], cls_prob[2] * 4), tuple(anchor)], \
        [(cls_prob[0], anchor[1], 6)]


def _det_forward(oc, attrs, inputs, out):
    xp = oc.xp
    cls_prob, loc_pred, anchor = inputs
    _det_infer(attrs, [a.shape for a in inputs])
    dtype = cls_prob.dtype
    acc = "float64" if dtype == np.float64 else "float32"
    nb, nc, na = cls_prob.shape
    p = cls_prob.astype(acc)
    if nc > 1:
        fg = p[:, 1:, :]
        arg = xp.argmax(fg, axis=1)
        top = xp.max(fg, axis=1)
        score = xp.where(top > -1, top, -1)
        cid = xp.where(top > -1, arg + 1, 0)
    else:
        score = xp.full((nb, na), -1, dtype=acc)
        cid = xp.zeros((nb, na), dtype="int64")
    cid = xp.where((cid > 0) & (score < _f32(attrs.threshold)), 0, cid)
    a = anchor.reshape(na, 4).astype(acc)[None]
    lp = loc_pred.reshape(nb, na, 4).astype(acc)
    v = [_f32(x) for x in attrs.variances]
    aw, ah = a[..., 2] - a[..., 0], a[..., 3] - a[..., 1]
    ax, ay = (a[..., 0] + a[..., 2]) / 2, (a[..., 1] + a[..., 3]) / 2
    ox = lp[..., 0] * v[0] * aw + ax
    oy = lp[..., 1] * v[1] * ah + ay
    ow = xp.exp(lp[..., 2] * v[2]) * aw / 2
    oh = xp.exp(lp[..., 3] * v[3]) * ah / 2
    box = xp.stack([ox - ow, oy - oh, ox + ow, oy + oh], axis=-1)
    if attrs.clip:
        box = xp.clip(box, 0, 1)
    rows = xp.concatenate([(cid - 1).astype(acc)[..., None], score[..., None], box], axis=-1)
    valid = cid > 0
    kw = {"kind": "stable"} if xp is np else {}
    # valid rows first, in anchor order; the rest is -1
    front = xp.argsort(~valid, axis=1, **kw)
    rows = xp.take_along_axis(rows, front[:, :, None], axis=1)
    nvalid = valid.sum(axis=1)
    slot = xp.arange(na)[None, :]
    in_valid = slot < nvalid[:, None]
    rows = xp.where(in_valid[:, :, None], rows, -1)
    if 0 < attrs.nms_threshold <= 1:
        key = xp.where(in_valid, -rows[:, :, 1], xp.inf)
        order = xp.argsort(key, axis=1, **kw)
        srt = xp.take_along_axis(rows, order[:, :, None], axis=1)
        nkeep = nvalid if attrs.nms_topk <= 0 else xp.minimum(nvalid, attrs.nms_topk)
        in_keep = slot < nkeep[:, None]
        # rows past nms_topk keep their unsorted values with class -1, as in MXNet
        rows = xp.where(in_keep[:, :, None], srt, rows)
        tail = in_valid & ~in_keep
        rows[:, :, 0] = xp.where(tail, -1, rows[:, :, 0])
        k = int(xp.max(nkeep)) if nb else 0
        if k > 1:
            cand = rows[:, :k]
            b = cand[:, :, 2:6]
            area = (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1])

            def overlaps(rows, start):
                bi = b[:, rows, None, :]
                bj = b[:, None, start:, :]
                w = xp.maximum(0, xp.minimum(bi[..., 2], bj[..., 2]) -
                               xp.maximum(bi[..., 0], bj[..., 0]))
                h = xp.maximum(0, xp.minimum(bi[..., 3], bj[..., 3]) -
                               xp.maximum(bi[..., 1], bj[..., 1]))
                inter = w * h
                union = area[:, rows, None] + area[:, None, start:] - inter
                with np.errstate(divide="ignore", invalid="ignore"):
                    return xp.where(union <= 0, 0, inter / xp.where(union <= 0, 1, union))

            cls = None if attrs.force_suppress else cand[:, :, 0]
            keep = greedy_suppress(xp, in_keep[:, :k], overlaps, _f32(attrs.nms_threshold),
                                   cls, strict=False)
            sup = in_keep[:, :k] & ~keep
            rows[:, :k, 0] = xp.where(sup, -1, rows[:, :k, 0])
    return [put(out, 0, rows.astype(dtype))]


register(OpDef(_DET, _det_forward, backward=_zero_grads,
               inputs=("cls_prob", "loc_pred", "anchor"),
               attrs={"clip": Attr("bool", True), "threshold": Attr("float", 0.01),
                      "background_id": Attr("int", 0), "nms_threshold": Attr("float", 0.5),
                      "force_suppress": Attr("bool", False),
                      "variances": Attr("floats", (0.1, 0.1, 0.2, 0.2)),
                      "nms_topk": Attr("int", -1)},
               infer_shape=_det_infer, backward_uses=("inputs",),
               aliases=("_npx_multibox_detection",),
               doc="Decode SSD predictions into [class, score, box] rows with NMS."))
