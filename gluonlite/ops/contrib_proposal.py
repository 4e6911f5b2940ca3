"""Region-proposal operators of ``mx.contrib``: ``Proposal``, ``MultiProposal`` (the
Faster R-CNN RPN head) and ``RROIAlign`` (rotated ROI align), MXNet 1.9.1 semantics.

``Proposal`` / ``MultiProposal`` take ``cls_prob`` (N, 2A, H, W) (the foreground scores are
channels A..2A-1), ``bbox_pred`` (N, 4A, H, W) and ``im_info`` (N, 3) = (height, width,
scale), with A = len(ratios) * len(scales) anchors per position.  Per image:

1. anchors: a ``feature_stride`` square base box reshaped to each ratio (rounded sizes,
   ratio-major, then scale), shifted over the H x W grid; row ``(h * W + w) * A + a``;
2. the deltas applied (``iou_loss``: added to the corners; else the centre/size
   transform with "+1" widths), boxes clipped to the image; positions beyond
   ``im_info / feature_stride`` get score -1;
3. boxes narrower or lower than ``rpn_min_size * scale`` are widened by half that size
   on each side and get score -1 (they stay candidates, sorted last);
4. a stable sort by descending score, the first ``rpn_pre_nms_top_n`` (all when <= 0),
   greedy NMS (IoU with "+1" areas ``> threshold`` suppresses), reusing
   :func:`gluonlite.ops.contrib_box.greedy_suppress`;
5. ``rpn_post_nms_top_n`` rows ``[batch_index, x1, y1, x2, y2]`` (and the scores when
   ``output_score``); missing rows repeat the kept ones cyclically.

``Proposal`` accepts one image only, as MXNet's; ``MultiProposal`` any batch.  Both pass
zero gradients back.  MXNet supports float32 only; float64 also works here.

``RROIAlign`` takes ``rois`` (R, 6) = (batch_index, x_center, y_center, width, height,
angle in degrees) and averages bilinear samples of a rotated grid in every bin: all
sampling positions of a chunk of ROIs are gathered at once.  MXNet has no backward for
it (its backward raises), and neither does this operator.
"""
from __future__ import annotations

import math

import numpy as np

from .attrs import Attr
from .common import fail, put
from .contrib_box import greedy_suppress
from .registry import OpDef, register

_PROP = "_contrib_Proposal"
_MPROP = "_contrib_MultiProposal"
_RROI = "_contrib_RROIAlign"
_CHUNK = 1 << 22  # gathered elements per chunk of ROIs in RROIAlign


def _acc(dtype) -> str:
    return "float64" if np.dtype(dtype) == np.float64 else "float32"


# -- anchors and box transforms ------------------------------------------------------------------

def _anchors(stride: int, ratios, scales, acc: str) -> np.ndarray:
    """(A, 4) base anchors, ratio-major then scale (a handful of values, on the host)."""
    f = np.dtype(acc).type
    base = f(stride)                                  # width = height of the base box
    ctr = f(0.5) * (base - f(1))
    rows = []
    for ratio in ratios:
        size_ratio = np.floor(base * base / f(ratio))
        for scale in scales:
            s = f(scale)
            w = np.floor(np.sqrt(size_ratio) + f(0.5)) * s
            h = np.floor(w / s * f(ratio) + f(0.5)) * s
            rows.append([ctr - f(0.5) * (w - f(1)), ctr - f(0.5) * (h - f(1)),
                         ctr + f(0.5) * (w - f(1)), ctr + f(0.5) * (h - f(1))])
    return np.asarray(rows, dtype=acc)


def _prop_infer_for(op: str, multi: bool):
    def infer(attrs, shapes):
        cls, bbox, info = shapes
        for name, s, nd in (("cls_prob", cls, 4), ("bbox_pred", bbox, 4), ("im_info", info, 2)):
            if s is not None and len(s) != nd:
                fail(op, f"{name} must be {nd}-D", *shapes)
        if cls is None:
            return [cls, bbox, info], [None, None]
        n, c2, h, w = cls
        if not multi and n and n != 1:
            fail(op, "only one image per call is supported (use MultiProposal)", *shapes)
        anchors = len(attrs.ratios) * len(attrs.scales)
        if c2 and c2 != 2 * anchors:
            fail(op, f"cls_prob needs 2 * len(ratios) * len(scales) = {2 * anchors} channels",
                 *shapes)
        want_b, want_i = (n, 2 * c2, h, w), (n, 3)
        for name, s, want in (("bbox_pred", bbox, want_b), ("im_info", info, want_i)):
            if s is not None and any(a and b and a != b for a, b in zip(s, want)):
                fail(op, f"{name} must have shape {want}", *shapes)
        rows = (n if multi else 1) * attrs.rpn_post_nms_top_n
        return [tuple(cls), want_b, want_i], [(rows, 5), (rows, 1)]
    return infer


def _prop_type(op, attrs, dtypes):
    known = next((d for d in dtypes if d is not None), None)
    return [known] * 3, [known, known]


def _decode(xp, attrs, anchors, deltas, info, acc):
    """Predicted boxes (B, K, 4) clipped to each image."""
    one, half = acc_type(acc)(1), acc_type(acc)(0.5)
    im_h = info[:, 0][:, None]
    im_w = info[:, 1][:, None]
    ax1, ay1, ax2, ay2 = (anchors[None, :, i] for i in range(4))
    dx, dy, dw, dh = (deltas[:, :, i] for i in range(4))
    if attrs.iou_loss:
        x1, y1, x2, y2 = ax1 + dx, ay1 + dy, ax2 + dw, ay2 + dh
    else:
        width = ax2 - ax1 + one
        height = ay2 - ay1 + one
        cx = ax1 + half * (width - one)
        cy = ay1 + half * (height - one)
        pcx = dx * width + cx
        pcy = dy * height + cy
        pw = xp.exp(dw) * width
        ph = xp.exp(dh) * height
        x1, y1 = pcx - half * (pw - one), pcy - half * (ph - one)
        x2, y2 = pcx + half * (pw - one), pcy + half * (ph - one)
    clip_x = lambda v: xp.maximum(xp.minimum(v, im_w - one), 0)
    clip_y = lambda v: xp.maximum(xp.minimum(v, im_h - one), 0)
    return xp.stack([clip_x(x1), clip_y(y1), clip_x(x2), clip_y(y2)], axis=-1)


def acc_type(acc: str):
    """The NumPy scalar type of a computation dtype name."""
    return np.dtype(acc).type


def _proposals(xp, attrs, cls_prob, bbox_pred, im_info):
    """Rows (B, post, 4) and scores (B, post) of every image."""
    acc = _acc(cls_prob.dtype)
    nb, c2, h, w = cls_prob.shape
    na = c2 // 2
    count = na * h * w
    stride = attrs.feature_stride
    pre = attrs.rpn_pre_nms_top_n if attrs.rpn_pre_nms_top_n > 0 else count
    pre = min(pre, count)
    post_cap = min(attrs.rpn_post_nms_top_n, pre)
    post = attrs.rpn_post_nms_top_n
    base = xp.asarray(_anchors(stride, attrs.ratios, attrs.scales, acc))      # (A, 4)
    sx = (xp.arange(w, dtype=acc) * stride)[None, :, None]
    sy = (xp.arange(h, dtype=acc) * stride)[:, None, None]
    shift = xp.stack([xp.broadcast_to(sx, (h, w, 1)), xp.broadcast_to(sy, (h, w, 1))] * 2,
                     axis=-1)                                                  # (H, W, 1, 4)
    anchors = (base[None, None] + shift).reshape(count, 4)
    scores = cls_prob[:, na:].astype(acc).transpose(0, 2, 3, 1).reshape(nb, count)
    deltas = bbox_pred.astype(acc).reshape(nb, na, 4, h, w).transpose(0, 3, 4, 1, 2) \
        .reshape(nb, count, 4)
    info = im_info.astype(acc)
    boxes = _decode(xp, attrs, anchors, deltas, info, acc)
    real_h = xp.trunc(info[:, 0] / stride).astype("int64")
    real_w = xp.trunc(info[:, 1] / stride).astype("int64")
    if bool(xp.any((real_h > h) | (real_w > w))):
        fail(_PROP if nb == 1 else _MPROP, "im_info describes an image larger than the "
             "feature map times feature_stride", cls_prob.shape, im_info.shape)
    pos_h = xp.repeat(xp.arange(h), w * na)
    pos_w = xp.tile(xp.repeat(xp.arange(w), na), h)
    outside = (pos_h[None] >= real_h[:, None]) | (pos_w[None] >= real_w[:, None])
    scores = xp.where(outside, acc_type(acc)(-1), scores)
    # too small: widened by min_size / 2 on every side and scored -1
    min_size = (acc_type(acc)(attrs.rpn_min_size) * info[:, 2])[:, None]
    one = acc_type(acc)(1)
    bw = boxes[..., 2] - boxes[..., 0] + one
    bh = boxes[..., 3] - boxes[..., 1] + one
    small = (bw < min_size) | (bh < min_size)
    grow = xp.where(small, min_size / 2, 0)[..., None]
    boxes = boxes + grow * xp.asarray([-1, -1, 1, 1], dtype=acc)
    scores = xp.where(small, acc_type(acc)(-1), scores)
    kw = {"kind": "stable"} if xp is np else {}
    order = xp.argsort(-scores, axis=1, **kw)[:, :pre]                        # (B, P)
    cand = xp.take_along_axis(boxes, order[:, :, None], axis=1)
    cscore = xp.take_along_axis(scores, order, axis=1)
    area = (cand[..., 2] - cand[..., 0] + one) * (cand[..., 3] - cand[..., 1] + one)

    def overlaps(rows, start):
        a, b = cand[:, rows, None, :], cand[:, None, start:, :]
        iw = xp.maximum(0, xp.minimum(a[..., 2], b[..., 2]) - xp.maximum(a[..., 0], b[..., 0])
                        + one)
        ih = xp.maximum(0, xp.minimum(a[..., 3], b[..., 3]) - xp.maximum(a[..., 1], b[..., 1])
                        + one)
        inter = iw * ih
        with np.errstate(divide="ignore", invalid="ignore"):
            return inter / (area[:, rows, None] + area[:, None, start:] - inter)

    keep = xp.ones(order.shape, dtype=bool)
    # only the first post_cap kept rows are output
    keep = greedy_suppress(xp, keep, overlaps, float(np.float32(attrs.threshold)), strict=True,
                           limit=post_cap)
    front = xp.argsort(~keep, axis=1, **kw)                                   # kept first
    kept = xp.minimum(keep.sum(axis=1), post_cap)[:, None]                    # (B, 1)
    i = xp.arange(post)[None, :]
    pick = xp.where(i < kept, i, i % xp.maximum(kept, 1))
    rows = xp.take_along_axis(front, pick, axis=1)
    return (xp.take_along_axis(cand, rows[:, :, None], axis=1),
            xp.take_along_axis(cscore, rows, axis=1))


def _prop_forward_for(op: str, multi: bool):
    infer = _prop_infer_for(op, multi)

    def forward(oc, attrs, inputs, out):
        xp = oc.xp
        cls_prob, bbox_pred, im_info = inputs
        infer(attrs, [x.shape for x in inputs])
        if attrs.rpn_post_nms_top_n <= 0:
            fail(op, f"rpn_post_nms_top_n must be positive, got {attrs.rpn_post_nms_top_n}")
        boxes, scores = _proposals(xp, attrs, cls_prob, bbox_pred, im_info)
        nb, post = scores.shape
        batch = xp.broadcast_to(xp.arange(nb, dtype=boxes.dtype)[:, None, None], (nb, post, 1))
        rois = xp.concatenate([batch, boxes], axis=2).reshape(nb * post, 5)
        dt = cls_prob.dtype
        return [put(out, 0, rois.astype(dt)), put(out, 1, scores.reshape(-1, 1).astype(dt))]

    return forward, infer


def _zero_grads(oc, attrs, inputs, outputs, out_grads):
    return [oc.xp.zeros_like(x) for x in inputs]


_PROP_ATTRS = {
    "rpn_pre_nms_top_n": Attr("int", 6000),
    "rpn_post_nms_top_n": Attr("int", 300),
    "threshold": Attr("float", 0.7),
    "rpn_min_size": Attr("int", 16),
    "scales": Attr("floats", (4.0, 8.0, 16.0, 32.0)),
    "ratios": Attr("floats", (0.5, 1.0, 2.0)),
    "feature_stride": Attr("int", 16),
    "output_score": Attr("bool", False),
    "iou_loss": Attr("bool", False),
}

for _name, _multi in ((_PROP, False), (_MPROP, True)):
    _fwd, _inf = _prop_forward_for(_name, _multi)
    register(OpDef(_name, _fwd, backward=_zero_grads, attrs=_PROP_ATTRS,
                   inputs=("cls_prob", "bbox_pred", "im_info"), num_outputs=2,
                   num_visible_outputs=lambda a: 2 if a.output_score else 1,
                   output_names=("output", "score"), infer_shape=_inf,
                   infer_type=_prop_type, backward_uses=("inputs",), zero_gradient=True,
                   doc="Region proposals of a Faster R-CNN RPN "
                       + ("for a batch of images." if _multi else "for one image.")))


# -- RROIAlign ---------------------------------------------------------------------------------

def _rroi_infer(attrs, shapes):
    data, rois = shapes
    if data is not None and len(data) != 4:
        fail(_RROI, "data must be a 4-D tensor (N, C, H, W)", data, rois)
    if rois is not None and (len(rois) != 2 or rois[1] not in (0, 6)):
        fail(_RROI, "rois must be a 2-D tensor of shape (num_rois, 6)", data, rois)
    if len(attrs.pooled_size) != 2 or not all(attrs.pooled_size):
        fail(_RROI, f"pooled_size must be (h, w) with nonzero entries, got {attrs.pooled_size}")
    ph, pw = attrs.pooled_size
    if data is None or rois is None:
        return [data, (rois[0], 6) if rois is not None else None], [None]
    return [tuple(data), (rois[0], 6)], [(rois[0], data[1], ph, pw)]


def _rroi_forward(oc, attrs, inputs, out):
    xp = oc.xp
    data, rois = inputs
    _rroi_infer(attrs, [data.shape, rois.shape])
    acc = _acc(data.dtype)
    f = acc_type(acc)
    n, c, h, w = data.shape
    ph, pw = attrs.pooled_size
    nr = rois.shape[0]
    r = rois.astype(acc)
    scale = f(np.float32(attrs.spatial_scale))
    batch = r[:, 0].astype("int64")
    valid = (batch >= 0) & (batch < n)
    cx, cy = r[:, 1] * scale, r[:, 2] * scale
    rw = xp.maximum(r[:, 3] * scale, f(1))
    rh = xp.maximum(r[:, 4] * scale, f(1))
    theta = (r[:, 5].astype("float64") * math.pi / 180.0).astype(acc)
    cos_t, sin_t = xp.cos(theta), xp.sin(theta)
    bin_h, bin_w = rh / f(ph), rw / f(pw)
    if attrs.sampling_ratio > 0:
        gh = gw = xp.full(nr, attrs.sampling_ratio, dtype="int64")
    else:
        gh = xp.ceil(rh / f(ph)).astype("int64")
        gw = xp.ceil(rw / f(pw)).astype("int64")
    gmh = max(int(xp.max(gh)), 1) if nr else 1
    gmw = max(int(xp.max(gw)), 1) if nr else 1
    table = data.astype(acc).reshape(n, c, h * w).transpose(0, 2, 1)          # (N, HW, C)
    result = xp.zeros((nr, ph, pw, c), dtype=acc)
    per_roi = ph * pw * gmh * gmw * 4 * c
    step = max(1, _CHUNK // max(1, per_roi))
    iy = xp.arange(gmh, dtype=acc)
    ix = xp.arange(gmw, dtype=acc)
    py = xp.arange(ph, dtype=acc)
    px = xp.arange(pw, dtype=acc)
    for lo in range(0, nr, step):  # chunks of ROIs, bounding the gathered samples
        s = slice(lo, min(nr, lo + step))
        k = s.stop - s.start
        e = lambda v: v[s][:, None, None, None, None]                          # (k,1,1,1,1)
        yy = (-e(rh) / 2 + py[None, :, None, None, None] * e(bin_h)
              + (iy[None, None, None, :, None] + f(0.5)) * e(bin_h) / e(gh).astype(acc))
        xx = (-e(rw) / 2 + px[None, None, :, None, None] * e(bin_w)
              + (ix[None, None, None, None, :] + f(0.5)) * e(bin_w) / e(gw).astype(acc))
        x = xx * e(cos_t) + yy * e(sin_t) + e(cx)                              # (k,PH,PW,GH,GW)
        y = yy * e(cos_t) - xx * e(sin_t) + e(cy)
        in_grid = (iy[None, None, None, :, None] < e(gh)) & (ix[None, None, None, None, :] < e(gw))
        inside = in_grid & ~((y < -1) | (y > h) | (x < -1) | (x > w)) & e(valid)
        y = xp.maximum(y, 0)
        x = xp.maximum(x, 0)
        y_lo = xp.trunc(y).astype("int64")
        x_lo = xp.trunc(x).astype("int64")
        y_end = y_lo >= h - 1
        x_end = x_lo >= w - 1
        y_lo = xp.where(y_end, h - 1, y_lo)
        x_lo = xp.where(x_end, w - 1, x_lo)
        y_hi = xp.where(y_end, h - 1, y_lo + 1)
        x_hi = xp.where(x_end, w - 1, x_lo + 1)
        ly = xp.where(y_end, 0, y - y_lo)
        lx = xp.where(x_end, 0, x - x_lo)
        hy, hx = 1 - ly, 1 - lx
        wts = xp.stack([hy * hx, hy * lx, ly * hx, ly * lx], axis=-1) * inside[..., None]
        pos = xp.stack([y_lo * w + x_lo, y_lo * w + x_hi, y_hi * w + x_lo, y_hi * w + x_hi],
                       axis=-1)
        pos = xp.where(inside[..., None], pos, 0)
        b = xp.where(valid[s], batch[s], 0)[:, None]
        vals = table[b, pos.reshape(k, -1)]                                    # (k, S*4, C)
        vals = vals.reshape(pos.shape + (c,)) * wts[..., None]
        summed = vals.sum(axis=(3, 4, 5))                                      # (k, PH, PW, C)
        count = (gh[s] * gw[s]).astype(acc)[:, None, None, None]
        result[s] = summed / count
    return [put(out, 0, result.transpose(0, 3, 1, 2).astype(data.dtype))]


register(OpDef(_RROI, _rroi_forward, inputs=("data", "rois"),
               attrs={"pooled_size": Attr("shape"), "spatial_scale": Attr("float"),
                      "sampling_ratio": Attr("int", -1)},
               infer_shape=_rroi_infer, differentiable=False,
               doc="Rotated ROI align: bilinear samples of a rotated grid averaged per bin."))
