"""Bounding-box operators of ``mx.contrib``: ``box_nms``, ``box_iou``,
``bipartite_matching``, ``box_encode`` and ``box_decode``.

Semantics follow MXNet 1.9 exactly, quirks included:

* thresholds are single-precision attributes: they are rounded to float32 before
  being compared with the data, whatever its dtype;
* ``box_nms`` keeps a hidden second output, the flat input row (over all batches)
  each output row came from (-1 for padding), which its backward uses to send
  gradients back to the kept boxes;  ``topk=0`` returns the input unchanged;
  converting the output format skips rows whose first coordinate is negative;
* ``bipartite_matching`` with ``topk=k > 0`` stops after ``k + 1`` matches;
* ``box_iou``, ``bipartite_matching``, ``box_encode`` and ``box_decode`` pass zero
  gradients back.

Greedy algorithms (NMS, bipartite matching) are written as a loop over at most
``topk`` (resp. ``min(N, M)``) steps of whole-array operations over every batch at
once: never a loop over single boxes.
"""
from __future__ import annotations

import math

import numpy as np

from ._binary_math import quiet
from .attrs import Attr
from .common import fail, put
from .registry import OpDef, register

_NMS = "_contrib_box_nms"
_IOU = "_contrib_box_iou"
_BM = "_contrib_bipartite_matching"
_ENC = "_contrib_box_encode"
_DEC = "_contrib_box_decode"

_FORMAT = ("corner", "center")
_BLOCK = 1 << 22  # IoU entries computed at once by greedy_suppress


def _quietly(forward):
    """``forward`` without NumPy's floating point warnings: boxes of untrained networks
    overflow ``exp`` or give ``nan`` overlaps, which MXNet computes silently."""
    def run(oc, attrs, inputs, out):
        with quiet(oc.xp):
            return forward(oc, attrs, inputs, out)
    run.__name__ = forward.__name__
    run.__doc__ = forward.__doc__
    return run


def _acc(dtype) -> str:
    """Computation dtype: float64 and float32 stay, float16 is widened to float32."""
    return "float64" if np.dtype(dtype) == np.float64 else "float32"


def _f32(value: float) -> float:
    """An attribute as MXNet stores it: a C ``float``."""
    return float(np.float32(value))


def _batch(shape, tail: int) -> int:
    return int(math.prod(shape[:-tail])) if len(shape) > tail else 1


def _intersect_1d(xp, a0, a1, b0, b1, fmt: str):
    """Overlap length along one axis (0 where disjoint); ``a1``/``b1`` are the far edge
    (corner) or the extent (center)."""
    if fmt == "center":
        a0, a1 = a0 - a1 / 2, a0 + a1 / 2
        b0, b1 = b0 - b1 / 2, b0 + b1 / 2
    w = xp.minimum(a1, b1) - xp.maximum(a0, b0)
    return xp.where(w > 0, w, 0)


def _area(xp, box, fmt: str):
    """Box area, 0 for boxes of negative width or height; ``box`` is (..., 4)."""
    if fmt == "corner":
        w = box[..., 2] - box[..., 0]
        h = box[..., 3] - box[..., 1]
    else:
        w, h = box[..., 2], box[..., 3]
    return xp.where((w < 0) | (h < 0), 0, w * h)


def _intersection(xp, a, b, fmt: str):
    """Intersection areas of broadcast-compatible (..., 4) boxes ``a`` and ``b``."""
    ix = _intersect_1d(xp, a[..., 0], a[..., 2], b[..., 0], b[..., 2], fmt)
    iy = _intersect_1d(xp, a[..., 1], a[..., 3], b[..., 1], b[..., 3], fmt)
    return ix * iy


def greedy_suppress(xp, keep, overlaps, thresh: float, cls=None, strict: bool = True,
                    limit: int | None = None):
    """Greedy NMS over candidates already sorted by descending score.

    Parameters
    ----------
    keep : (B, K) bool array
        Candidates taking part; updated copy returned.
    overlaps : callable
        ``overlaps(rows, start) -> (B, len(rows), K - start)``: IoU of the candidates
        ``rows`` (an index array) with candidates ``start:``.
    thresh : float
        Suppress when IoU ``> thresh`` (``>=`` with ``strict=False``).
    cls : (B, K) array, optional
        Class of each candidate: only equal classes suppress each other.
    limit : int, optional
        Only the first ``limit`` kept candidates of each row are wanted: once every row
        has them, the later candidates are dropped unexamined.

    The result is the one mask with ``keep[j] = taking_part[j] and no kept i < j
    suppresses j``.  When the (B, K, K) suppression matrix fits in ``_BLOCK`` entries it
    is found by iterating that equation on whole arrays (one matrix product per step;
    each step fixes at least the next candidate, and a step that changes nothing has
    reached the answer), which takes a few steps unless suppression chains are long;
    after ``_FIXPOINT_STEPS`` steps, and for larger matrices, the loop runs over the K
    candidate positions, one whole-array update of the (B, K) mask each, with the IoU
    rows computed in blocks so that memory stays O(B K) times the block; a block computes
    only the rows no earlier block suppressed everywhere, against the later columns.
    """
    nb, k = keep.shape
    keep = keep.copy()
    block = max(1, min(k, _BLOCK // max(1, nb * k)))
    if block >= k and k > 1:
        later = xp.arange(k)
        sup = _suppression(xp, overlaps(later, 0), thresh, cls, later, 0, strict)
        sup &= later[:, None] < later[None, :]            # only earlier boxes suppress
        found = _fixpoint(xp, keep, sup.astype(np.float32))
        if found is not None:
            return found
    for lo in range(0, k, block):
        # keep[:, :lo] is final here: every candidate before lo has been examined
        if limit is not None and lo and bool((keep[:, :lo].sum(axis=1) >= limit).all()):
            keep[:, lo:] = False
            break
        hi = min(k, lo + block)
        # a candidate suppressed in every row suppresses nothing: no IoU row for it
        alive = lo + xp.flatnonzero(keep[:, lo:hi].any(axis=0))
        if alive.size == 0:
            continue
        sup = _suppression(xp, overlaps(alive, lo), thresh, cls, alive, lo, strict)
        for r, i in enumerate(alive.tolist()):
            kept = keep[:, i:i + 1]
            if i == k - 1 or not bool(kept.any()):  # suppressed by a row of this block
                continue
            keep[:, i + 1:] &= ~(sup[:, r, i + 1 - lo:] & kept)
    return keep


_FIXPOINT_STEPS = 32


def _suppression(xp, iou, thresh: float, cls, rows, start: int, strict: bool):
    """``(B, len(rows), K - start)``: candidate ``rows[r]`` would suppress candidate
    ``start + c``."""
    sup = iou > thresh if strict else iou >= thresh
    if cls is not None:
        sup = sup & (cls[:, rows, None] == cls[:, None, start:])
    return sup


def _fixpoint(xp, taking_part, sup):
    """The NMS mask by iteration (``greedy_suppress``), or ``None`` when it has not
    settled after ``_FIXPOINT_STEPS`` steps.  ``sup`` is float32 0/1 ``(B, K, K)``."""
    cur = taking_part
    for _ in range(_FIXPOINT_STEPS):
        hit = xp.matmul(cur[:, None, :].astype(np.float32), sup)[:, 0, :] > 0
        new = taking_part & ~hit
        if bool((new == cur).all()):
            return new
        cur = new
    return None


# -- box_nms ------------------------------------------------------------------------------

def _nms_infer(attrs, shapes):
    data = shapes[0]
    if data is None:
        return [None], [None, None]
    if len(data) < 2:
        fail(_NMS, "input must have at least 2 dimensions (..., num_box, box_width)", data)
    width = data[-1]
    if width:
        expected = 6 if attrs.id_index >= 0 else 5
        if width < expected:
            fail(_NMS, f"the last dimension must have at least {expected} elements "
                       f"(score, 4 coordinates{', class id' if expected == 6 else ''})", data)
        cs, si, ii = attrs.coord_start, attrs.score_index, attrs.id_index
        if not 0 <= si < width:
            fail(_NMS, f"score_index {si} out of range [0, {width})", data)
        if cs <= si <= cs + 3:
            fail(_NMS, f"score_index {si} conflicts with coordinates [{cs}, {cs + 3}]", data)
        if cs < 0 or cs + 3 >= width:
            fail(_NMS, f"coordinates [{cs}, {cs + 3}] out of range [0, {width})", data)
        if ii >= 0:
            if ii >= width:
                fail(_NMS, f"id_index {ii} out of range [0, {width})", data)
            if cs <= ii <= cs + 3:
                fail(_NMS, f"id_index {ii} conflicts with coordinates [{cs}, {cs + 3}]", data)
            if ii == si:
                fail(_NMS, f"id_index {ii} conflicts with score_index {si}", data)
    data = tuple(data)
    return [data], [data, data[:-1] + (1,)]


def _convert_format(xp, boxes, to: str):
    """Convert (..., 4) boxes between corner and center; rows whose first coordinate is
    negative stay as they are (MXNet's conversion kernels skip them, padding included)."""
    a, b, c, d = (boxes[..., i] for i in range(4))
    if to == "center":
        conv = xp.stack([(a + c) / 2, (b + d) / 2, c - a, d - b], axis=-1)
    else:
        conv = xp.stack([a - c / 2, b - d / 2, a + c / 2, b + d / 2], axis=-1)
    return xp.where((a < 0)[..., None], boxes, conv)


def _nms_forward(oc, attrs, inputs, out):
    xp = oc.xp
    data = inputs[0]
    _nms_infer(attrs, [data.shape])
    shape = data.shape
    n, width = shape[-2], shape[-1]
    nb = _batch(shape, 2)
    dtype = data.dtype
    topk = n if attrs.topk < 0 else min(n, attrs.topk)
    if topk < 1:  # MXNet: nothing to do, the input is returned with identity bookkeeping
        record = xp.arange(nb * n).astype(dtype).reshape(shape[:-1] + (1,))
        return [put(out, 0, data.copy()), put(out, 1, record)]
    x = data.reshape(nb, n, width).astype(_acc(dtype))
    scores = x[:, :, attrs.score_index]
    valid = scores > _f32(attrs.valid_thresh)
    if attrs.id_index >= 0:
        valid = valid & (x[:, :, attrs.id_index] != attrs.background_id)
    # MXNet sorts the valid boxes by descending score with a stable sort, per batch;
    # invalid ones go last (key +inf), then only the first topk take part
    key = xp.where(valid, -scores, xp.inf)
    kw = {"kind": "stable"} if xp is np else {}
    order = xp.argsort(key, axis=1, **kw)[:, :topk]                       # (B, K)
    cand = xp.take_along_axis(x, order[:, :, None], axis=1)               # (B, K, W)
    keep = xp.take_along_axis(valid, order, axis=1)                       # (B, K)
    cs = attrs.coord_start
    boxes = cand[:, :, cs:cs + 4]
    area = _area(xp, boxes, attrs.in_format)
    fmt = attrs.in_format

    def overlaps(rows, start):
        inter = _intersection(xp, boxes[:, rows, None, :], boxes[:, None, start:, :], fmt)
        with np.errstate(divide="ignore", invalid="ignore"):
            # no guard for 0/0 (NaN never suppresses), as in MXNet
            return inter / (area[:, rows, None] + area[:, None, start:] - inter)

    cls = None
    if not attrs.force_suppress and attrs.id_index >= 0:
        cls = xp.trunc(cand[:, :, attrs.id_index])
    keep = greedy_suppress(xp, keep, overlaps, _f32(attrs.overlap_thresh), cls, strict=True)
    # move the kept boxes to the front, in score order (a stable argsort of ~keep)
    front = xp.argsort(~keep, axis=1, **kw)
    rows = xp.take_along_axis(order, front, axis=1)                       # (B, K)
    kept = xp.take_along_axis(keep, front, axis=1)
    result = xp.take_along_axis(data.reshape(nb, n, width), rows[:, :, None], axis=1)
    result = xp.where(kept[:, :, None], result, xp.asarray(-1, dtype=dtype))
    base = (xp.arange(nb) * n)[:, None]
    record = xp.where(kept, rows + base, -1).astype(dtype)
    if topk < n:
        pad = xp.full((nb, n - topk, width), -1, dtype=dtype)
        result = xp.concatenate([result, pad], axis=1)
        record = xp.concatenate([record, xp.full((nb, n - topk), -1, dtype=dtype)], axis=1)
    if attrs.in_format != attrs.out_format:
        conv = _convert_format(xp, result[:, :, cs:cs + 4], attrs.out_format)
        result = xp.concatenate([result[:, :, :cs], conv.astype(dtype),
                                 result[:, :, cs + 4:]], axis=2)
    return [put(out, 0, result.reshape(shape)),
            put(out, 1, record.reshape(shape[:-1] + (1,)))]


def _nms_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    data = inputs[0]
    shape = data.shape
    rows = _batch(shape, 1)
    width = shape[-1]
    record = outputs[1].reshape(rows).astype("int64")
    head = out_grads[0].reshape(rows, width)
    # each kept input row receives the gradient of the output row it went to; rows
    # that are padding (-1) write into a spare last row that is dropped
    grad = xp.zeros((rows + 1, width), dtype=data.dtype)
    grad[xp.where(record >= 0, record, rows)] = head
    return [grad[:rows].reshape(shape)]


_NMS_ATTRS = {
    "overlap_thresh": Attr("float", 0.5),
    "valid_thresh": Attr("float", 0.0),
    "topk": Attr("int", -1),
    "coord_start": Attr("int", 2),
    "score_index": Attr("int", 1),
    "id_index": Attr("int", -1),
    "background_id": Attr("int", -1),
    "force_suppress": Attr("bool", False),
    "in_format": Attr("str", "corner", choices=_FORMAT),
    "out_format": Attr("str", "corner", choices=_FORMAT),
}

register(OpDef(_NMS, _quietly(_nms_forward), backward=_nms_backward, attrs=_NMS_ATTRS,
               inputs=("data",), num_outputs=2, num_visible_outputs=1,
               infer_shape=_nms_infer, backward_uses=("inputs", "outputs"),
               aliases=("_contrib_box_non_maximum_suppression",),
               doc="Non-maximum suppression of scored boxes, sorted by descending score."))


# -- box_iou ------------------------------------------------------------------------------

def _iou_infer(attrs, shapes):
    lhs, rhs = shapes
    for name, s in (("lhs", lhs), ("rhs", rhs)):
        if s is not None and (len(s) < 2 or s[-1] not in (0, 4)):
            fail(_IOU, f"{name} must have at least 2 dimensions and a last dimension of 4",
                 lhs, rhs)
    if lhs is None or rhs is None:
        return [lhs, rhs], [None]
    return [tuple(lhs[:-1]) + (4,), tuple(rhs[:-1]) + (4,)], \
        [tuple(lhs[:-1]) + tuple(rhs[:-1])]


def _iou_forward(oc, attrs, inputs, out):
    xp = oc.xp
    lhs, rhs = inputs
    _iou_infer(attrs, [lhs.shape, rhs.shape])
    acc = _acc(lhs.dtype)
    a = lhs.reshape(-1, 1, 4).astype(acc)
    b = rhs.reshape(1, -1, 4).astype(acc)
    inter = _intersection(xp, a, b, attrs.format)
    union = _area(xp, a, attrs.format) + _area(xp, b, attrs.format) - inter
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = xp.where(inter > 0, inter / xp.where(inter > 0, union, 1), 0)
    return [put(out, 0, iou.astype(lhs.dtype).reshape(lhs.shape[:-1] + rhs.shape[:-1]))]


def _zero_grads(oc, attrs, inputs, outputs, out_grads):
    return [oc.xp.zeros_like(a) for a in inputs]


register(OpDef(_IOU, _quietly(_iou_forward), backward=_zero_grads, inputs=("lhs", "rhs"),
               attrs={"format": Attr("str", "corner", choices=_FORMAT)},
               infer_shape=_iou_infer, backward_uses=("inputs",),
               doc="Pairwise intersection-over-union of two sets of boxes (zero gradients)."))


# -- bipartite_matching ---------------------------------------------------------------------

def _bm_infer(attrs, shapes):
    data = shapes[0]
    if data is None:
        return [None], [None, None]
    if len(data) < 2:
        fail(_BM, "score matrix must have at least 2 dimensions", data)
    data = tuple(data)
    return [data], [data[:-1], data[:-2] + data[-1:]]


def _bm_forward(oc, attrs, inputs, out):
    xp = oc.xp
    data = inputs[0]
    _bm_infer(attrs, [data.shape])
    shape = data.shape
    nr, nc = shape[-2], shape[-1]
    nb = _batch(shape, 2)
    dtype = data.dtype
    s = data.reshape(nb, nr * nc).astype(_acc(dtype))
    thresh = _f32(attrs.threshold)
    row_m = xp.full((nb, nr), -1, dtype="int64")
    col_m = xp.full((nb, nc), -1, dtype="int64")
    row_free = xp.ones((nb, nr), dtype=bool)
    col_free = xp.ones((nb, nc), dtype=bool)
    active = xp.ones(nb, dtype=bool)
    count = xp.zeros(nb, dtype="int64")
    batch = xp.arange(nb)
    fill = -xp.inf if not attrs.is_ascend else xp.inf
    # MXNet walks the pairs in sorted order (stable) and takes every pair whose row and
    # column are both free: the next pair taken is always the best free pair, lowest
    # flat index first among equal scores, i.e. argmax (argmin) over the free pairs.
    # At most min(N, M) steps of whole-array operations over all batches.
    for _ in range(min(nr, nc)):
        free = (row_free[:, :, None] & col_free[:, None, :]).reshape(nb, nr * nc)
        masked = xp.where(free, s, fill)
        pick = (xp.argmin if attrs.is_ascend else xp.argmax)(masked, axis=1)
        best = xp.take_along_axis(s, pick[:, None], axis=1)[:, 0]
        is_free = xp.take_along_axis(free, pick[:, None], axis=1)[:, 0]
        passes = best < thresh if attrs.is_ascend else best > thresh
        take = active & is_free & passes
        active = take  # a batch stops at its first free pair failing the threshold
        r, c = pick // nc, pick % nc
        row_m[batch, r] = xp.where(take, c, row_m[batch, r])
        col_m[batch, c] = xp.where(take, r, col_m[batch, c])
        row_free[batch, r] &= ~take
        col_free[batch, c] &= ~take
        count += take
        if attrs.topk > 0:
            active = active & (count <= attrs.topk)  # MXNet stops after topk + 1 matches
    return [put(out, 0, row_m.astype(dtype).reshape(shape[:-1])),
            put(out, 1, col_m.astype(dtype).reshape(shape[:-2] + shape[-1:]))]


register(OpDef(_BM, _quietly(_bm_forward), backward=_zero_grads, inputs=("data",), num_outputs=2,
               attrs={"is_ascend": Attr("bool", False), "threshold": Attr("float"),
                      "topk": Attr("int", -1)},
               infer_shape=_bm_infer, backward_uses=("inputs",),
               doc="Greedy bipartite matching of a (..., N, M) score matrix."))


# -- box_encode / box_decode --------------------------------------------------------------------

def _enc_infer(attrs, shapes):
    samples, matches, anchors, refs, means, stds = shapes
    if samples is not None and len(samples) != 2:
        fail(_ENC, "samples must be 2-D (B, N)", *shapes)
    if matches is not None and len(matches) < 2:
        fail(_ENC, "matches must be 2-D (B, N)", *shapes)
    for name, s in (("anchors", anchors), ("refs", refs)):
        if s is not None and (len(s) < 3 or s[-1] not in (0, 4)):
            fail(_ENC, f"{name} must be 3-D (B, *, 4)", *shapes)
    for name, s in (("means", means), ("stds", stds)):
        if s is not None and tuple(s) not in ((4,), (0,)):
            fail(_ENC, f"{name} must have shape (4,)", *shapes)
    out = tuple(anchors) if anchors is not None else None
    return [samples, matches, anchors, refs, (4,), (4,)], [out, out]


def _enc_forward(oc, attrs, inputs, out):
    xp = oc.xp
    _enc_infer(attrs, [a.shape for a in inputs])
    samples, matches, anchors, refs, means, stds = inputs
    nb, n = anchors.shape[0], anchors.shape[1]
    m = refs.shape[1]
    dtype = anchors.dtype
    acc = _acc(dtype)
    a = anchors.reshape(nb, n, 4).astype(acc)
    # MXNet reads refs[b, int(match)]; an out-of-range match of an ignored sample is
    # clamped here (its target is zero anyway)
    idx = xp.clip(matches.reshape(nb, n).astype(acc).astype("int64"), 0, max(m - 1, 0))
    r = xp.take_along_axis(refs.reshape(nb, m, 4).astype(acc), idx[:, :, None], axis=1)
    aw, ah = a[..., 2] - a[..., 0], a[..., 3] - a[..., 1]
    rw, rh = r[..., 2] - r[..., 0], r[..., 3] - r[..., 1]
    ax, ay = a[..., 0] + aw * 0.5, a[..., 1] + ah * 0.5
    rx, ry = r[..., 0] + rw * 0.5, r[..., 1] + rh * 0.5
    mu = means.astype(acc)
    sd = stds.astype(acc)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = xp.stack([((rx - ax) / aw - mu[0]) / sd[0], ((ry - ay) / ah - mu[1]) / sd[1],
                      (xp.log(rw / aw) - mu[2]) / sd[2], (xp.log(rh / ah) - mu[3]) / sd[3]],
                     axis=-1)
    valid = (samples.reshape(nb, n) > 0.5)[:, :, None]
    targets = xp.where(valid, t, 0).astype(dtype)
    masks = xp.broadcast_to(valid, (nb, n, 4)).astype(dtype)
    return [put(out, 0, targets.reshape(anchors.shape)),
            put(out, 1, masks.reshape(anchors.shape))]


register(OpDef(_ENC, _quietly(_enc_forward), backward=_zero_grads,
               inputs=("samples", "matches", "anchors", "refs", "means", "stds"),
               num_outputs=2, infer_shape=_enc_infer, backward_uses=("inputs",),
               doc="Encode matched reference boxes as normalised center offsets of anchors."))


def _dec_infer(attrs, shapes):
    data, anchors = shapes
    if data is not None and (len(data) != 3 or data[-1] not in (0, 4)):
        fail(_DEC, "data must be 3-D (B, N, 4)", data, anchors)
    if anchors is not None and (len(anchors) < 3 or anchors[-1] not in (0, 4)):
        fail(_DEC, "anchors must be 3-D (1, N, 4)", data, anchors)
    return [data, anchors], [tuple(data) if data is not None else None]


def _dec_forward(oc, attrs, inputs, out):
    xp = oc.xp
    data, anchors = inputs
    _dec_infer(attrs, [data.shape, anchors.shape])
    n = data.shape[1]
    if anchors.size != n * 4:
        fail(_DEC, f"anchors must hold one box per data box, (1, {n}, 4)",
             data.shape, anchors.shape)
    dtype = data.dtype
    acc = _acc(dtype)
    a = anchors.reshape(1, n, 4).astype(acc)
    x = data.astype(acc)
    if attrs.format == "corner":
        aw, ah = a[..., 2] - a[..., 0], a[..., 3] - a[..., 1]
        ax, ay = a[..., 0] + aw * 0.5, a[..., 1] + ah * 0.5
    else:
        ax, ay, aw, ah = a[..., 0], a[..., 1], a[..., 2], a[..., 3]
    std = [_f32(v) for v in (attrs.std0, attrs.std1, attrs.std2, attrs.std3)]
    ox = x[..., 0] * std[0] * aw + ax
    oy = x[..., 1] * std[1] * ah + ay
    dw = x[..., 2] * std[2]
    dh = x[..., 3] * std[3]
    if attrs.clip > 0:
        clip = _f32(attrs.clip)
        dw = xp.minimum(dw, clip)
        dh = xp.minimum(dh, clip)
    ow = xp.exp(dw) * aw * 0.5
    oh = xp.exp(dh) * ah * 0.5
    res = xp.stack([ox - ow, oy - oh, ox + ow, oy + oh], axis=-1)
    return [put(out, 0, res.astype(dtype))]


register(OpDef(_DEC, _quietly(_dec_forward), backward=_zero_grads, inputs=("data", "anchors"),
               attrs={"std0": Attr("float", 1.0), "std1": Attr("float", 1.0),
                      "std2": Attr("float", 1.0), "std3": Attr("float", 1.0),
                      "clip": Attr("float", -1.0),
                      "format": Attr("str", "center", choices=_FORMAT)},
               infer_shape=_dec_infer, backward_uses=("inputs",),
               doc="Decode center-offset regressions against anchors into corner boxes."))
