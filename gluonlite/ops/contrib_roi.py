"""Region-of-interest operators: ``_contrib_ROIAlign`` and ``ROIPooling``.

Both take NCHW ``data`` and ``rois`` of shape (R, 5), each row
``[batch_index, x1, y1, x2, y2]`` in image coordinates (scaled by ``spatial_scale``).

``ROIAlign`` averages bilinear samples on a regular grid in every bin.  Bilinear
weights factor into a y part and an x part, so every ROI becomes two small interpolation
matrices, ``Wy`` (PH, H) and ``Wx`` (PW, W), built for all ROIs at once with one
``bincount`` each; the sampling itself is then two GEMMs per image
(``Wy @ data[n] @ Wx.T`` for all the image's ROIs together), and so is the gradient.
The only Python loop is over the images of the batch.  A ROI with a negative batch
index gives zeros (MXNet documents this; its CPU kernel zeroes a single element only).

``ROIPooling`` max-pools quantised bins: the bin windows of all ROIs are gathered at once
(in chunks of ROIs that bound the memory) and reduced with ``argmax``; the hidden second
output keeps the flat input position of each maximum, through which backward scatters
the gradient with one ``bincount``.
"""
from __future__ import annotations

import math

import numpy as np

from .attrs import Attr
from .common import fail, put
from .registry import OpDef, register

_RA = "_contrib_ROIAlign"
_RP = "ROIPooling"
_FLT_MAX = float(np.finfo(np.float32).max)


def _acc(dtype) -> str:
    return "float64" if np.dtype(dtype) == np.float64 else "float32"


def _f32(value: float) -> float:
    return float(np.float32(value))


def _roi_infer(op: str, attrs, shapes, channels_of):
    data, rois = shapes
    if data is not None and len(data) != 4:
        fail(op, "data must be a 4-D tensor (N, C, H, W)", data, rois)
    if rois is not None and (len(rois) != 2 or rois[1] not in (0, 5)):
        fail(op, "rois must be a 2-D tensor of shape (num_rois, 5)", data, rois)
    ph, pw = (tuple(attrs.pooled_size) + (0, 0))[:2]
    if len(attrs.pooled_size) != 2 or not ph or not pw:
        fail(op, f"pooled_size must be (h, w) with nonzero entries, got {attrs.pooled_size}")
    if data is None or rois is None:
        return [data, tuple(rois[:1]) + (5,) if rois is not None else None], [None]
    return [tuple(data), (rois[0], 5)], [(rois[0], channels_of(data[1]), ph, pw)]


# -- ROIAlign -----------------------------------------------------------------------------------

def _ra_channels(attrs):
    def channels(c):
        if not attrs.position_sensitive:
            return c
        ph, pw = attrs.pooled_size
        if c and c % (ph * pw):
            fail(_RA, f"with position_sensitive, input channels ({c}) must be divisible by "
                      f"pooled_size[0]*pooled_size[1] ({ph * pw})")
        return c // (ph * pw)
    return channels


def _ra_infer(attrs, shapes):
    return _roi_infer(_RA, attrs, shapes, _ra_channels(attrs))


def _axis_weights(xp, start, bin_size, grid, gmax: int, pooled: int, size: int,
                  valid_roi, acc: str):
    """Interpolation matrices (R, pooled, size) along one axis: the mean over ``grid``
    samples per bin of the 1-D bilinear weights, as MXNet places and clamps them."""
    r = start.shape[0]
    p = xp.arange(pooled, dtype=acc)[None, :, None]
    i = xp.arange(gmax, dtype=acc)[None, None, :]
    g = grid.astype(acc)[:, None, None]
    b = bin_size[:, None, None]
    pos = start[:, None, None] + p * b + (i + 0.5) * b / g              # (R, P, G)
    inside = (i < g) & ~((pos < -1.0) | (pos > size)) & valid_roi[:, None, None]
    pos = xp.maximum(pos, 0)
    low = xp.floor(pos).astype("int64")
    at_end = low >= size - 1
    low = xp.where(at_end, size - 1, low)
    high = xp.where(at_end, size - 1, low + 1)
    pos = xp.where(at_end, low.astype(acc), pos)
    frac = pos - low
    scale = inside / g                                                  # 1/grid per sample
    rows = (xp.arange(r)[:, None, None] * pooled + xp.arange(pooled)[None, :, None]) * size
    idx = xp.concatenate([(rows + low).ravel(), (rows + high).ravel()])
    wts = xp.concatenate([((1 - frac) * scale).ravel(), (frac * scale).ravel()])
    m = xp.bincount(idx, weights=wts, minlength=r * pooled * size)
    return m.astype(acc).reshape(r, pooled, size)


def _ra_plan(xp, attrs, data, rois):
    """Per-ROI interpolation matrices, batch indices and the images that have ROIs."""
    acc = _acc(data.dtype)
    n, _, h, w = data.shape
    ph, pw = attrs.pooled_size
    r = rois.astype(acc)
    batch = xp.trunc(r[:, 0]).astype("int64")
    valid = (batch >= 0) & (batch < n)
    scale = _f32(attrs.spatial_scale)
    off = 0.5 if attrs.aligned else 0.0
    x1, y1, x2, y2 = (r[:, k] * scale - off for k in range(1, 5))
    roi_w, roi_h = x2 - x1, y2 - y1
    if attrs.aligned:
        if bool(xp.any(valid & ((roi_w <= 0) | (roi_h <= 0)))):
            fail(_RA, "with aligned=True every ROI must have a positive width and height",
                 data.shape, rois.shape)
    else:
        roi_w = xp.maximum(roi_w, 1.0)
        roi_h = xp.maximum(roi_h, 1.0)
    bin_h, bin_w = roi_h / ph, roi_w / pw
    if attrs.sample_ratio > 0:
        grid_h = grid_w = xp.full(r.shape[0], attrs.sample_ratio, dtype="int64")
        gmax_h = gmax_w = attrs.sample_ratio
    else:
        grid_h = xp.ceil(roi_h / ph).astype("int64")
        grid_w = xp.ceil(roi_w / pw).astype("int64")
        gmax_h = max(int(xp.max(xp.where(valid, grid_h, 1))), 1) if r.shape[0] else 1
        gmax_w = max(int(xp.max(xp.where(valid, grid_w, 1))), 1) if r.shape[0] else 1
    wy = _axis_weights(xp, y1, bin_h, grid_h, gmax_h, ph, h, valid, acc)
    wx = _axis_weights(xp, x1, bin_w, grid_w, gmax_w, pw, w, valid, acc)
    safe = xp.where(valid, batch, n)  # invalid ROIs sort last and belong to no image
    order = xp.argsort(safe, **({"kind": "stable"} if xp is np else {}))
    counts = [int(c) for c in xp.bincount(safe, minlength=n + 1)[:n].tolist()]
    return wy, wx, order, counts


def _ps_view(attrs, data):
    """Data as (N, C_out, P1, P2, H, W): P1, P2 = pooled_size when position-sensitive."""
    n, c, h, w = data.shape
    if attrs.position_sensitive:
        ph, pw = attrs.pooled_size
        return data.reshape(n, c // (ph * pw), ph, pw, h, w)
    return data.reshape(n, c, 1, 1, h, w)


def _ra_forward(oc, attrs, inputs, out):
    xp = oc.xp
    data, rois = inputs
    _ra_infer(attrs, [data.shape, rois.shape])
    acc = _acc(data.dtype)
    ph, pw = attrs.pooled_size
    wy, wx, order, counts = _ra_plan(xp, attrs, data, rois)
    view = _ps_view(attrs, data.astype(acc))
    c_out = view.shape[1]
    result = xp.zeros((rois.shape[0], c_out, ph, pw), dtype=acc)
    start = 0
    for img, cnt in enumerate(counts):  # a loop over images; all their ROIs at once
        if not cnt:
            continue
        sel = order[start:start + cnt]
        start += cnt
        result[sel] = _ra_image(xp, attrs, view[img], wy[sel], wx[sel])
    return [put(out, 0, result.astype(data.dtype))]


def _ra_image(xp, attrs, img, wy, wx):
    """Pooled output (r, C_out, PH, PW) of one image's ROIs; ``img`` is (C, P1, P2, H, W)."""
    c, p1, p2, h, w = img.shape
    r, ph, _ = wy.shape
    pw = wx.shape[1]
    if p1 == 1:
        # (r*PH, H) @ (H, C*W) -> (r, PH, C, W), then per ROI (PH*C, W) @ (W, PW)
        t = (wy.reshape(r * ph, h) @ img.reshape(c, h, w).transpose(1, 0, 2).reshape(h, c * w))
        t = t.reshape(r, ph * c, w)
        res = xp.matmul(t, wx.transpose(0, 2, 1)).reshape(r, ph, c, pw)
        return res.transpose(0, 2, 1, 3)
    # position-sensitive: bin (ph, pw) reads channel block (ph, pw) only
    t = xp.matmul(wy.transpose(1, 0, 2),                                   # (PH, r, H)
                  img.transpose(1, 3, 0, 2, 4).reshape(ph, h, c * pw * w))  # (PH, H, C*PW*W)
    t = t.reshape(ph, r, c, pw, w)
    res = (t * wx[None, :, None, :, :]).sum(axis=-1)                       # (PH, r, C, PW)
    return res.transpose(1, 2, 0, 3)


def _ra_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    data, rois = inputs
    acc = _acc(data.dtype)
    head = out_grads[0].astype(acc)
    wy, wx, order, counts = _ra_plan(xp, attrs, data, rois)
    grad = xp.zeros(_ps_view(attrs, data).shape, dtype=acc)
    start = 0
    for img, cnt in enumerate(counts):
        if not cnt:
            continue
        sel = order[start:start + cnt]
        start += cnt
        grad[img] = _ra_image_grad(xp, grad.shape[1:], head[sel], wy[sel], wx[sel])
    return [grad.reshape(data.shape).astype(data.dtype), xp.zeros_like(rois)]


def _ra_image_grad(xp, shape, g, wy, wx):
    """Gradient (C, P1, P2, H, W) of one image from its ROIs' head gradient (r, C, PH, PW)."""
    c, p1, p2, h, w = shape
    r, ph, _ = wy.shape
    if p1 == 1:
        u = xp.matmul(g.transpose(0, 2, 1, 3).reshape(r, ph * c, -1), wx)      # (r, PH*C, W)
        d = wy.reshape(r * ph, h).T @ u.reshape(r * ph, c * w)                 # (H, C*W)
        return d.reshape(h, c, w).transpose(1, 0, 2).reshape(shape)
    u = g.transpose(2, 0, 1, 3)[..., None] * wx[None, :, None, :, :]          # (PH, r, C, PW, W)
    d = xp.matmul(wy.transpose(1, 2, 0), u.reshape(ph, r, c * p2 * w))       # (PH, H, C*PW*W)
    return d.reshape(ph, h, c, p2, w).transpose(2, 0, 3, 1, 4)


register(OpDef(_RA, _ra_forward, backward=_ra_backward, inputs=("data", "rois"),
               attrs={"pooled_size": Attr("shape"), "spatial_scale": Attr("float"),
                      "sample_ratio": Attr("int", -1),
                      "position_sensitive": Attr("bool", False),
                      "aligned": Attr("bool", False)},
               infer_shape=_ra_infer, backward_uses=("inputs",),
               doc="Bilinear ROI Align (Mask R-CNN), optionally position-sensitive."))


# -- ROIPooling -------------------------------------------------------------------------------

def _rp_infer(attrs, shapes):
    ins, outs = _roi_infer(_RP, attrs, shapes, lambda c: c)
    return ins, outs * 2


def _rp_type(op, attrs, in_dtypes):
    known = next((d for d in in_dtypes if d is not None), None)
    return [known, known], [known, np.dtype("int64") if known is not None else None]


def _round_half_away(xp, v):
    """C's ``std::round``: halves away from zero (NumPy rounds them to even)."""
    return xp.sign(v) * xp.floor(xp.abs(v) + 0.5)


_CHUNK = 1 << 24  # gathered window elements per chunk of ROIs


def _rp_forward(oc, attrs, inputs, out):
    xp = oc.xp
    data, rois = inputs
    _rp_infer(attrs, [data.shape, rois.shape])
    acc = _acc(data.dtype)
    n, c, h, w = data.shape
    ph, pw = attrs.pooled_size
    nr = rois.shape[0]
    r = rois.astype(acc)
    scale = _f32(attrs.spatial_scale)
    x1, y1, x2, y2 = (_round_half_away(xp, r[:, k] * scale).astype("int64")
                      for k in range(1, 5))
    batch = r[:, 0].astype("int64")
    valid_b = (batch >= 0) & (batch < n)
    bin_h = xp.maximum(y2 - y1 + 1, 1).astype(acc) / ph
    bin_w = xp.maximum(x2 - x1 + 1, 1).astype(acc) / pw
    p_h = xp.arange(ph, dtype=acc)
    p_w = xp.arange(pw, dtype=acc)
    hs = xp.clip(xp.floor(p_h[None] * bin_h[:, None]).astype("int64") + y1[:, None], 0, h)
    he = xp.clip(xp.ceil((p_h[None] + 1) * bin_h[:, None]).astype("int64") + y1[:, None], 0, h)
    ws = xp.clip(xp.floor(p_w[None] * bin_w[:, None]).astype("int64") + x1[:, None], 0, w)
    we = xp.clip(xp.ceil((p_w[None] + 1) * bin_w[:, None]).astype("int64") + x1[:, None], 0, w)
    kh = max(int(xp.max(he - hs)), 1) if nr else 1
    kw = max(int(xp.max(we - ws)), 1) if nr else 1
    flat = data.reshape(-1)
    vals = xp.zeros((nr, c, ph, pw), dtype=data.dtype)
    idxs = xp.full((nr, c, ph, pw), -1, dtype="int64")
    step = max(1, _CHUNK // max(1, c * ph * pw * kh * kw))
    dh = xp.arange(kh)
    dw = xp.arange(kw)
    chans = xp.arange(c)[None, :, None, None, None, None]
    for lo in range(0, nr, step):  # chunks of ROIs, bounding the gathered windows
        sl = slice(lo, min(nr, lo + step))
        yy = hs[sl, :, None] + dh[None, None, :]                            # (r, PH, kh)
        xx = ws[sl, :, None] + dw[None, None, :]                            # (r, PW, kw)
        inside = (yy < he[sl, :, None])[:, :, :, None, None] & \
                 (xx < we[sl, :, None])[:, None, None, :, :]                # (r,PH,kh,PW,kw)
        b = xp.where(valid_b[sl], batch[sl], 0)[:, None, None, None, None, None]
        pos = (yy.clip(0, h - 1)[:, None, :, :, None, None] * w
               + xx.clip(0, w - 1)[:, None, None, None, :, :])             # (r,1,PH,kh,PW,kw)
        gidx = (b * c + chans) * (h * w) + pos                               # (r,C,PH,kh,PW,kw)
        win = xp.where(inside[:, None], flat[gidx].astype(acc), -xp.inf)
        win = win.transpose(0, 1, 2, 4, 3, 5).reshape(gidx.shape[0], c, ph, pw, kh * kw)
        gidx = gidx.transpose(0, 1, 2, 4, 3, 5).reshape(win.shape)
        arg = xp.argmax(win, axis=-1)  # first maximum in row-major window order, as MXNet
        best = xp.take_along_axis(win, arg[..., None], axis=-1)[..., 0]
        where = xp.take_along_axis(gidx, arg[..., None], axis=-1)[..., 0]
        # MXNet starts every bin at -FLT_MAX with index -1 and takes strictly larger values;
        # empty bins and ROIs of invalid images give 0 and -1
        found = best > -_FLT_MAX
        empty = ~(valid_b[sl][:, None, None, None] & (he > hs)[sl][:, None, :, None]
                  & (we > ws)[sl][:, None, None, :])
        best = xp.where(found, best, -_FLT_MAX)
        vals[sl] = xp.where(empty, 0, best).astype(data.dtype)
        idxs[sl] = xp.where(empty | ~found, -1, where)
    return [put(out, 0, vals), put(out, 1, idxs)]


def _rp_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    data, rois = inputs
    idx = outputs[1].reshape(-1)
    head = out_grads[0].reshape(-1)
    hit = idx >= 0
    total = xp.bincount(xp.where(hit, idx, 0), weights=xp.where(hit, head, 0).astype("float64"),
                        minlength=data.size)
    return [total.astype(data.dtype).reshape(data.shape), xp.zeros_like(rois)]


register(OpDef(_RP, _rp_forward, backward=_rp_backward, inputs=("data", "rois"),
               attrs={"pooled_size": Attr("shape"), "spatial_scale": Attr("float")},
               num_outputs=2, num_visible_outputs=1, output_names=("output", "maxidx"),
               infer_shape=_rp_infer, infer_type=_rp_type,
               backward_uses=("inputs", "outputs"),
               doc="Max pooling of quantised ROI bins (Fast R-CNN)."))
