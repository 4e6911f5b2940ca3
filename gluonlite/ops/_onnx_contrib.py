"""ONNX conversions of ``mx.contrib`` box operators and of ``sample_multinomial`` (see
:mod:`gluonlite.ops.onnx_export`).

``_contrib_box_nms`` follows the operator's definition (:mod:`.contrib_box`) step by
step: the valid boxes (score above ``valid_thresh``, class not ``background_id``) are
ranked by descending score with a stable ``TopK``, the first ``topk`` take part, and
ONNX's ``NonMaxSuppression`` suppresses among them with *rank* scores (``K - k`` for
candidate ``k``), so that its greedy order is exactly the stable order MXNet uses,
ties included; the kept rows are then moved to the front and the rest filled with -1.
Suppression per class (``id_index >= 0`` without ``force_suppress``) moves the boxes
of each class (corner form) to their own band of coordinates, where they cannot
overlap another class's boxes.  Boxes and IoU are single precision, as ONNX's operator
wants (float64 data is suppressed in float32); inverted corner boxes (``x2 < x1``)
have area 0 for MXNet while ONNX Runtime reorders their corners.
"""
from __future__ import annotations

import math

import numpy as np

from .onnx_export import register, scalar

_F32 = np.dtype(np.float32)
_I64 = np.dtype(np.int64)


def _cast(b, x, dtype):
    return b.node("Cast", [x], to=b.tensor_type(dtype))[0]


def _column(b, x, index):
    """``x[..., index]`` of a rank-3 tensor, as rank 2."""
    return b.node("Gather", [x, b.const(np.array(index, np.int64), "index")], axis=2)[0]


def _split4(b, x):
    """The four ``(..., 1)`` slices of the last axis (of length 4) of ``x``."""
    return b.node("Split", [x], n_out=4, axis=-1)


# -- box_nms ---------------------------------------------------------------------------
def _to_corner(b, parts, dt):
    """Corner coordinates of center-format ``(x, y, w, h)`` slices."""
    x, y, w, h = parts
    half = scalar(b, 0.5, dt, "half")
    hw = b.node("Mul", [w, half])[0]
    hh = b.node("Mul", [h, half])[0]
    return [b.node("Sub", [x, hw])[0], b.node("Sub", [y, hh])[0],
            b.node("Add", [x, hw])[0], b.node("Add", [y, hh])[0]]


def _to_center(b, parts, dt):
    x0, y0, x1, y1 = parts
    half = scalar(b, 0.5, dt, "half")
    return [b.node("Mul", [b.node("Add", [x0, x1])[0], half])[0],
            b.node("Mul", [b.node("Add", [y0, y1])[0], half])[0],
            b.node("Sub", [x1, x0])[0], b.node("Sub", [y1, y0])[0]]


def _class_bands(b, boxes, ids, in_format):
    """Corner boxes of each class moved to a band of their own: ``(box - lowest) +
    trunc(class) * (span + 1)`` with ``span`` the extent of every coordinate."""
    parts = _split4(b, boxes)
    if in_format == "center":
        parts = _to_corner(b, parts, _F32)
    corner = b.node("Concat", parts, axis=2)[0]
    lo = b.node("ReduceMin", [corner], keepdims=1)[0]
    hi = b.node("ReduceMax", [corner], keepdims=1)[0]
    band = b.node("Add", [b.node("Sub", [hi, lo])[0], scalar(b, 1.0, _F32, "one")])[0]
    cls = _cast(b, _cast(b, ids, _I64), _F32)                # trunc, as the operator
    offset = b.node("Mul", [b.node("Unsqueeze", [cls, b.ints([2], "axes")])[0], band])[0]
    return b.node("Add", [b.node("Sub", [corner, lo])[0], offset])[0]


@register("_contrib_box_nms")
def _box_nms(b, n):
    a = n.attrs
    shape = tuple(n.in_shapes[0])
    dt = n.in_dtypes[0]
    n_box, width = shape[-2], shape[-1]
    nb = int(math.prod(shape[:-2])) if len(shape) > 2 else 1
    topk = n_box if a.topk < 0 else min(n_box, a.topk)
    if topk < 1:  # MXNet returns the input as it is
        b.node("Identity", n.inputs[:1], outputs=n.outputs)
        return
    n.static("the number of boxes")
    x = b.node("Reshape", [n.inputs[0], b.ints([nb, n_box, width], "shape")])[0]
    xf = _cast(b, x, _F32)
    # valid boxes ranked by descending score (stable), the first topk are candidates
    scores = _column(b, xf, a.score_index)
    valid = b.node("Greater", [scores, scalar(b, a.valid_thresh, _F32, "valid_thresh")])[0]
    if a.id_index >= 0:
        other = b.node("Not", [b.node("Equal", [_column(b, xf, a.id_index),
                                                scalar(b, a.background_id, _F32,
                                                       "background")])[0]])
        valid = b.node("And", [valid, other[0]])[0]
    key = b.node("Where", [valid, scores, scalar(b, -np.inf, _F32, "lowest")])[0]
    _, order = b.node("TopK", [key, b.ints([topk], "k")], n_out=2, axis=1, largest=1,
                      sorted=1)
    cand_ok = b.node("GatherElements", [valid, order], axis=1)[0]
    rows3 = b.node("Unsqueeze", [order, b.ints([2], "axes")])[0]
    cand = b.node("GatherND", [xf, rows3], batch_dims=1)[0]
    cs = a.coord_start
    boxes = b.node("Slice", [cand, b.ints([cs], "starts"), b.ints([cs + 4], "ends"),
                             b.ints([2], "axes")])[0]
    center = a.in_format == "center"
    if a.id_index >= 0 and not a.force_suppress:
        boxes = _class_bands(b, boxes, _column(b, cand, a.id_index), a.in_format)
        center = False
    # rank scores K - k for the candidates taking part, 0 (under the threshold) otherwise
    rank = b.const(np.arange(topk, 0, -1, dtype=np.float32)[None, :], "rank")
    rank = b.node("Where", [cand_ok, rank, scalar(b, 0.0, _F32, "zero")])[0]
    rank = b.node("Unsqueeze", [rank, b.ints([1], "axes")])[0]
    picked = b.node("NonMaxSuppression",
                    [boxes, rank, b.ints([topk], "max_boxes"),
                     b.const(np.array([a.overlap_thresh], np.float32), "iou"),
                     b.const(np.array([0.0], np.float32), "score_threshold")],
                    center_point_box=int(center))[0]
    # the kept mask over (batch, candidate)
    where = b.node("Gather", [picked, b.ints([0, 2], "columns")], axis=1)[0]
    first = b.node("Gather", [picked, b.const(np.array(0, np.int64), "index")], axis=1)[0]
    ones = b.node("Add", [b.node("Mul", [first, b.const(np.array(0, np.int64), "zero")])[0],
                          b.const(np.array(1, np.int64), "one")])[0]     # (S,) ones
    keep = b.node("ScatterND", [b.const(np.zeros((nb, topk), np.int64), "keep0"), where,
                                ones])[0]
    # kept candidates first (in rank order), then the others
    front_key = b.node("Add", [b.node("Mul", [keep, b.const(np.array(2 * topk, np.int64),
                                                            "weight")])[0],
                               b.const(np.arange(topk, 0, -1, dtype=np.int64)[None, :],
                                       "rank")])[0]
    _, front = b.node("TopK", [front_key, b.ints([topk], "k")], n_out=2, axis=1, largest=1,
                      sorted=1)
    rows = b.node("GatherElements", [order, front], axis=1)[0]
    kept = b.node("GatherElements", [keep, front], axis=1)[0]
    kept = _cast(b, b.node("Unsqueeze", [kept, b.ints([2], "axes")])[0], np.dtype(bool))
    picked_rows = b.node("GatherND", [x, b.node("Unsqueeze", [rows, b.ints([2], "axes")])[0]],
                         batch_dims=1)[0]
    result = b.node("Where", [kept, picked_rows, scalar(b, -1, dt, "fill")])[0]
    if topk < n_box:
        pad = b.const(np.full((nb, n_box - topk, width), -1, dtype=dt), "fill")
        result = b.node("Concat", [result, pad], axis=1)[0]
    if a.in_format != a.out_format:
        result = _convert_rows(b, result, cs, width, a.out_format, dt)
    b.node("Reshape", [result, b.ints(shape, "shape")], outputs=n.outputs)


def _convert_rows(b, result, cs, width, to, dt):
    """Coordinates of ``(B, N, width)`` rows converted to ``to``, except for rows whose
    first coordinate is negative (padding included), which MXNet's kernels skip."""
    coords = b.node("Slice", [result, b.ints([cs], "starts"), b.ints([cs + 4], "ends"),
                              b.ints([2], "axes")])[0]
    parts = _split4(b, coords)
    conv = _to_center(b, parts, dt) if to == "center" else _to_corner(b, parts, dt)
    conv = b.node("Concat", conv, axis=2)[0]
    skip = b.node("Less", [parts[0], scalar(b, 0, dt, "zero")])[0]
    coords = b.node("Where", [skip, coords, conv])[0]
    pieces = []
    if cs > 0:
        pieces.append(b.node("Slice", [result, b.ints([0], "starts"), b.ints([cs], "ends"),
                                       b.ints([2], "axes")])[0])
    pieces.append(coords)
    if cs + 4 < width:
        pieces.append(b.node("Slice", [result, b.ints([cs + 4], "starts"),
                                       b.ints([width], "ends"), b.ints([2], "axes")])[0])
    return b.node("Concat", pieces, axis=2)[0] if len(pieces) > 1 else coords


# -- box_decode ------------------------------------------------------------------------
@register("_contrib_box_decode")
def _box_decode(b, n):
    """Offsets against anchors to corner boxes, in float32 for float16 data (as the
    operator computes)."""
    a = n.attrs
    dt = n.in_dtypes[0]
    acc = np.dtype(np.float64) if dt == np.float64 else _F32
    x = _cast(b, n.inputs[0], acc) if dt != acc else n.inputs[0]
    anchors = n.inputs[1]
    if len(n.in_shapes[1]) != 3 or n.in_shapes[1][0] != 1:
        anchors = b.node("Reshape", [anchors, b.ints([1, -1, 4], "shape")])[0]
    if n.in_dtypes[1] != acc:
        anchors = _cast(b, anchors, acc)
    a0, a1, a2, a3 = _split4(b, anchors)
    if a.format == "corner":
        aw = b.node("Sub", [a2, a0])[0]
        ah = b.node("Sub", [a3, a1])[0]
        half = scalar(b, 0.5, acc, "half")
        ax = b.node("Add", [a0, b.node("Mul", [aw, half])[0]])[0]
        ay = b.node("Add", [a1, b.node("Mul", [ah, half])[0]])[0]
    else:
        ax, ay, aw, ah = a0, a1, a2, a3
    d0, d1, d2, d3 = _split4(b, x)
    std = [float(np.float32(v)) for v in (a.std0, a.std1, a.std2, a.std3)]

    def scaled(d, s):
        return d if s == 1.0 else b.node("Mul", [d, scalar(b, s, acc, "std")])[0]

    ox = b.node("Add", [b.node("Mul", [scaled(d0, std[0]), aw])[0], ax])[0]
    oy = b.node("Add", [b.node("Mul", [scaled(d1, std[1]), ah])[0], ay])[0]
    dw, dh = scaled(d2, std[2]), scaled(d3, std[3])
    if a.clip > 0:
        clip = scalar(b, float(np.float32(a.clip)), acc, "clip")
        dw = b.node("Min", [dw, clip])[0]
        dh = b.node("Min", [dh, clip])[0]
    half = scalar(b, 0.5, acc, "half")
    ow = b.node("Mul", [b.node("Mul", [b.node("Exp", [dw])[0], aw])[0], half])[0]
    oh = b.node("Mul", [b.node("Mul", [b.node("Exp", [dh])[0], ah])[0], half])[0]
    corners = [b.node("Sub", [ox, ow])[0], b.node("Sub", [oy, oh])[0],
               b.node("Add", [ox, ow])[0], b.node("Add", [oy, oh])[0]]
    if dt == acc:
        b.node("Concat", corners, outputs=n.outputs, axis=2)
        return
    out = b.node("Concat", corners, axis=2)[0]
    b.node("Cast", [out], outputs=n.outputs, to=b.tensor_type(dt))


# -- sample_multinomial ----------------------------------------------------------------
@register("_sample_multinomial")
def _sample_multinomial(b, n):
    """Draws from the distribution the operator samples: it compares a uniform draw with
    the running sum of ``data`` clipped to [0, 1], so category ``j`` has probability
    ``cdf[j] - cdf[j-1]`` and the last one the rest ``1 - cdf[k-2]`` (the same as
    ``data`` where rows sum to 1); ONNX's ``Multinomial`` draws from its logarithm."""
    a = n.attrs
    ndim = len(n.in_shapes[0])
    extra = [int(d) for d in a.shape]
    draws = int(math.prod(extra)) if extra else 1
    data = n.inputs[0]
    if ndim == 1:
        p = b.node("Unsqueeze", [data, b.ints([0], "axes")])[0]
    else:
        p = b.node("Flatten", [data], axis=ndim - 1)[0]
    p = _cast(b, p, _F32) if n.in_dtypes[0] != _F32 else p
    # the output shape: data's shape but the last axis, then ``shape`` (or (1,))
    if ndim == 1 and not extra:
        out_shape = b.ints([1], "shape")
    else:
        lead = b.node("Slice", [b.node("Shape", [data])[0], b.ints([0], "starts"),
                                b.ints([-1], "ends"), b.ints([0], "axes")])[0]
        out_shape = b.node("Concat", [lead, b.ints(extra, "extra")], axis=0)[0] \
            if extra else lead
    one = scalar(b, 1.0, _F32, "one")
    cdf = b.node("CumSum", [p, b.const(np.array(1, np.int64), "axis")])[0]
    cdf = b.node("Clip", [cdf, scalar(b, 0.0, _F32, "zero"), one])[0]
    if n.in_shapes[0][-1] > 1:
        def head(end):
            return b.node("Slice", [cdf, b.ints([0], "starts"), b.ints([end], "ends"),
                                    b.ints([1], "axes")])[0]
        below = head(-1)                       # cdf[:, :k-1]; the last category: 1
        top = b.node("Add", [b.node("Mul", [head(1), scalar(b, 0.0, _F32, "zero")])[0], one])
        cdf = b.node("Concat", [below, top[0]], axis=1)[0]
        before = b.node("Pad", [below, b.ints([0, 1, 0, 0], "pads")], mode="constant")[0]
        probs = b.node("Sub", [cdf, before])[0]
    else:
        probs = b.node("Add", [b.node("Mul", [cdf, scalar(b, 0.0, _F32, "zero")])[0], one])[0]
    drawn = b.node("Multinomial", [b.node("Log", [probs])[0]], sample_size=draws,
                   dtype=b.tensor_type(_I64))[0]
    idx = b.node("Cast", [drawn], to=b.tensor_type(n.out_dtypes[0]))[0]
    b.node("Reshape", [idx, out_shape], outputs=n.outputs[:1])
    if len(n.outputs) > 1:  # get_prob: the log-probability of each draw under ``data``
        logp = b.node("Log", [b.node("GatherElements", [p, drawn], axis=1)[0]])[0]
        if n.out_dtypes[1] != _F32:
            logp = _cast(b, logp, n.out_dtypes[1])
        b.node("Reshape", [logp, out_shape], outputs=n.outputs[1:2])
