"""Position-sensitive ROI pooling: ``_contrib_PSROIPooling`` (R-FCN) and
``_contrib_DeformablePSROIPooling`` (Deformable R-FCN).

``data`` (N, C, H, W) holds ``output_dim * group_size**2`` score maps; ``rois`` (R, 5)
rows ``[batch_index, x1, y1, x2, y2]``.  Bin ``(ph, pw)`` of output channel ``d`` averages
channel ``(d * group_size + gh) * group_size + gw`` (``gh = floor(ph * group_size /
pooled_size)``, likewise ``gw``) over the integer window MXNet derives from the ROI
(corners rounded half away from zero, the end corner made inclusive with ``+ 1``, scaled
by ``spatial_scale``, a ROI at least 0.1 wide and high, bin edges floored/ceiled and
clipped to the map); an empty window gives 0.

Window sums are four lookups in a summed-area table of the data (one gather over all
ROIs and bins).  Backward spreads each bin's gradient evenly over its window: four signed
corner updates into a difference table (one ``bincount``) and two cumulative sums.

``DeformablePSROIPooling`` averages ``sample_per_part**2`` bilinear samples per bin
instead (the ROI shifted by half a pixel, each bin moved by ``trans * trans_std`` times
the ROI size, the offsets shared by the bins of one of ``part_size**2`` parts and by the
output channels of one class); samples outside ``[-0.5, W - 0.5] x [-0.5, H - 0.5]`` are
skipped, the others clamped to the map.  All samples of all ROIs are one gather per
corner; backward is one ``bincount`` for the data and one for ``trans``.  The hidden
second output ``top_count`` holds the number of samples of each bin, as in MXNet.
"""
from __future__ import annotations

import numpy as np

from .attrs import Attr
from .common import fail, merge_shapes, put
from .registry import OpDef, register

_PS = "_contrib_PSROIPooling"


def _group(attrs) -> int:
    return attrs.group_size if attrs.group_size > 0 else attrs.pooled_size


def _infer(attrs, shapes):
    data, rois = shapes
    p = attrs.pooled_size
    if p < 1 or attrs.output_dim < 1:
        fail(_PS, f"pooled_size ({p}) and output_dim ({attrs.output_dim}) must be positive")
    if data is not None and len(data) != 4:
        fail(_PS, "data must be a 4-D tensor (N, C, H, W)", data, rois)
    if rois is not None and (len(rois) != 2 or rois[1] not in (0, 5)):
        fail(_PS, "rois must be a 2-D tensor of shape (num_rois, 5)", data, rois)
    need = attrs.output_dim * _group(attrs) ** 2
    if data is not None and data[1] and data[1] < need:
        fail(_PS, f"data needs output_dim * group_size**2 = {need} channels, "
                  f"got {data[1]}", data, rois)
    rois = merge_shapes(_PS, "rois", rois, (0, 5)) if rois is not None else None
    if rois is None:
        return [data, None], [None]
    return [data, rois], [(rois[0], attrs.output_dim, p, p)]


def _round_half_away(xp, v):
    """C's ``round``: halves away from zero (NumPy rounds them to even)."""
    return xp.sign(v) * xp.floor(xp.abs(v) + 0.5)


def _windows(xp, attrs, data_shape, rois):
    """Flat (R, D, P, P) positions of the four window corners in the (N*C, H+1, W+1)
    summed-area table, the window areas, and the mask of non-empty windows."""
    n, c, h, w = data_shape
    p, dim, gs = attrs.pooled_size, attrs.output_dim, _group(attrs)
    ct = "float64" if rois.dtype == np.float64 else "float32"
    r = rois.astype(ct, copy=False)
    scale = np.dtype(ct).type(attrs.spatial_scale)
    x1 = _round_half_away(xp, r[:, 1]) * scale
    y1 = _round_half_away(xp, r[:, 2]) * scale
    x2 = (_round_half_away(xp, r[:, 3]) + 1) * scale
    y2 = (_round_half_away(xp, r[:, 4]) + 1) * scale
    bin_h = xp.maximum(y2 - y1, np.dtype(ct).type(0.1)) / np.dtype(ct).type(p)
    bin_w = xp.maximum(x2 - x1, np.dtype(ct).type(0.1)) / np.dtype(ct).type(p)
    steps = xp.arange(p, dtype=ct)
    hs = xp.floor(steps[None] * bin_h[:, None] + y1[:, None]).astype("int64").clip(0, h)
    he = xp.ceil((steps[None] + 1) * bin_h[:, None] + y1[:, None]).astype("int64").clip(0, h)
    ws = xp.floor(steps[None] * bin_w[:, None] + x1[:, None]).astype("int64").clip(0, w)
    we = xp.ceil((steps[None] + 1) * bin_w[:, None] + x1[:, None]).astype("int64").clip(0, w)
    batch = r[:, 0].astype("int64")
    valid = (batch >= 0) & (batch < n)
    g = (xp.arange(p) * gs // p).clip(0, gs - 1)                       # (P,) group cell
    chan = ((xp.arange(dim)[:, None, None] * gs + g[None, :, None]) * gs
            + g[None, None, :])                                          # (D, P, P)
    plane = (xp.where(valid, batch, 0)[:, None, None, None] * c + chan[None]) \
        * ((h + 1) * (w + 1))                                            # (R, D, P, P)
    hs4, he4 = hs[:, None, :, None], he[:, None, :, None]
    ws4, we4 = ws[:, None, None, :], we[:, None, None, :]
    corners = [(plane + he4 * (w + 1) + we4, 1.0), (plane + hs4 * (w + 1) + we4, -1.0),
               (plane + he4 * (w + 1) + ws4, -1.0), (plane + hs4 * (w + 1) + ws4, 1.0)]
    area = ((he - hs)[:, None, :, None] * (we - ws)[:, None, None, :])
    nonempty = (area > 0) & valid[:, None, None, None]
    return corners, area, nonempty


def _forward(oc, attrs, inputs, out):
    xp = oc.xp
    data, rois = inputs
    _infer(attrs, [data.shape, rois.shape])
    n, c, h, w = data.shape
    table = xp.zeros((n * c, h + 1, w + 1), dtype="float64")
    table[:, 1:, 1:] = data.reshape(n * c, h, w).astype("float64").cumsum(1).cumsum(2)
    flat = table.reshape(-1)
    corners, area, nonempty = _windows(xp, attrs, data.shape, rois)
    total = None
    for idx, sign in corners:
        term = flat[idx] * sign
        total = term if total is None else total + term
    res = xp.where(nonempty, total / xp.maximum(area, 1), 0.0)
    return [put(out, 0, res.astype(data.dtype))]


def _backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    data, rois = inputs
    n, c, h, w = data.shape
    corners, area, nonempty = _windows(xp, attrs, data.shape, rois)
    share = xp.where(nonempty, out_grads[0].astype("float64") / xp.maximum(area, 1), 0.0)
    idx = xp.concatenate([i.reshape(-1) for i, _ in corners])
    wts = xp.concatenate([(share * s).reshape(-1) for _, s in corners])
    # the window [hs, he) x [ws, we) gets +share: a 2-D difference table with +share at
    # (hs, ws) and (he, we), -share at (hs, we) and (he, ws) (the signs of the forward's
    # corners), then cumulative sums along both axes
    diff = xp.bincount(idx, weights=wts, minlength=n * c * (h + 1) * (w + 1))
    diff = diff.reshape(n * c, h + 1, w + 1)
    grad = diff.cumsum(1).cumsum(2)[:, :h, :w]
    return [grad.reshape(data.shape).astype(data.dtype), xp.zeros_like(rois)]


register(OpDef(_PS, _forward, backward=_backward, inputs=("data", "rois"),
               attrs={"spatial_scale": Attr("float"), "output_dim": Attr("int"),
                      "pooled_size": Attr("int"), "group_size": Attr("int", 0)},
               infer_shape=_infer, backward_uses=("inputs",),
               doc="Position-sensitive ROI average pooling (R-FCN)."))


# -- DeformablePSROIPooling ---------------------------------------------------------------

_DPS = "_contrib_DeformablePSROIPooling"


def _d_part(attrs) -> int:
    return attrs.part_size if attrs.part_size > 0 else attrs.pooled_size


def _d_infer(attrs, shapes):
    data, rois = shapes[0], shapes[1]
    trans = None if attrs.no_trans else shapes[2]
    p, gs = attrs.pooled_size, attrs.group_size
    if p < 1 or gs < 1 or attrs.output_dim < 1 or attrs.sample_per_part < 1:
        fail(_DPS, f"pooled_size ({p}), group_size ({gs}), output_dim ({attrs.output_dim}) "
                   f"and sample_per_part ({attrs.sample_per_part}) must be positive")
    if data is not None and len(data) != 4:
        fail(_DPS, "data must be a 4-D tensor (N, C, H, W)", *shapes)
    if rois is not None and (len(rois) != 2 or rois[1] not in (0, 5)):
        fail(_DPS, "rois must be a 2-D tensor of shape (num_rois, 5)", *shapes)
    need = attrs.output_dim * gs * gs
    if data is not None and data[1] and data[1] < need:
        fail(_DPS, f"data needs output_dim * group_size**2 = {need} channels, got {data[1]}",
             *shapes)
    rois = merge_shapes(_DPS, "rois", rois, (0, 5)) if rois is not None else None
    ins = [data, rois]
    if not attrs.no_trans:
        part = _d_part(attrs)
        if trans is not None and (len(trans) != 4 or (trans[1] and trans[1] % 2)):
            fail(_DPS, "trans must be (num_rois, 2 * num_classes, part_size, part_size)",
                 *shapes)
        if trans is not None:
            classes = trans[1] // 2
            if classes and attrs.output_dim % classes:
                fail(_DPS, f"output_dim ({attrs.output_dim}) must be divisible by the "
                           f"number of classes in trans ({classes})", *shapes)
            trans = merge_shapes(_DPS, "trans", trans,
                                 (rois[0] if rois is not None else 0, trans[1], part, part))
        ins.append(trans)
    if rois is None:
        return ins, [None, None]
    out = (rois[0], attrs.output_dim, p, p)
    return ins, [out, out]


def _d_inputs(attrs):
    return ("data", "rois") if attrs.no_trans else ("data", "rois", "trans")


def _d_samples(xp, attrs, data, rois, trans):
    """Every sample of every bin: flat corner positions, corner weights, validity,
    and the pieces the trans gradient needs."""
    n, c, h, w = data.shape
    ct = "float64" if data.dtype == np.float64 else "float32"
    f = np.dtype(ct).type
    p, gs, dim, sp = attrs.pooled_size, attrs.group_size, attrs.output_dim, attrs.sample_per_part
    part = _d_part(attrs)
    nr = rois.shape[0]
    r = rois.astype(ct, copy=False)
    scale = f(attrs.spatial_scale)
    x1 = _round_half_away(xp, r[:, 1]) * scale - f(0.5)
    y1 = _round_half_away(xp, r[:, 2]) * scale - f(0.5)
    x2 = (_round_half_away(xp, r[:, 3]) + 1) * scale - f(0.5)
    y2 = (_round_half_away(xp, r[:, 4]) + 1) * scale - f(0.5)
    roi_w = xp.maximum(x2 - x1, f(0.1))
    roi_h = xp.maximum(y2 - y1, f(0.1))
    bin_w, bin_h = roi_w / f(p), roi_h / f(p)
    sub_w, sub_h = bin_w / f(sp), bin_h / f(sp)
    steps = xp.arange(p, dtype=ct)
    part_idx = xp.floor(steps / f(p) * f(part)).astype("int64")          # (P,)
    if attrs.no_trans:
        classes = 1
        tx = ty = xp.zeros((nr, 1, p, p), dtype=ct)
    else:
        classes = trans.shape[1] // 2
        t = trans.astype(ct, copy=False).reshape(nr, classes, 2, part, part)
        t = t[:, :, :, part_idx[:, None], part_idx[None, :]]               # (R, cls, 2, P, P)
        tx = t[:, :, 0] * f(attrs.trans_std)
        ty = t[:, :, 1] * f(attrs.trans_std)
    per_class = dim // classes
    cls = xp.arange(dim) // per_class                                     # (D,)
    tx, ty = tx[:, cls], ty[:, cls]                                       # (R, D, P, P)
    wstart = (steps[None, None, None, :] * bin_w[:, None, None, None] + x1[:, None, None, None]
              + tx * roi_w[:, None, None, None])
    hstart = (steps[None, None, :, None] * bin_h[:, None, None, None] + y1[:, None, None, None]
              + ty * roi_h[:, None, None, None])
    i = xp.arange(sp, dtype=ct)
    ww = wstart[..., None, None] + i[None, :] * sub_w[:, None, None, None, None, None]
    hh = hstart[..., None, None] + i[:, None] * sub_h[:, None, None, None, None, None]
    shape = (nr, dim, p, p, sp, sp)
    ww = xp.broadcast_to(ww, shape)
    hh = xp.broadcast_to(hh, shape)
    batch = r[:, 0].astype("int64")
    valid_roi = (batch >= 0) & (batch < n)
    valid = ~((ww < f(-0.5)) | (ww > f(w - 0.5)) | (hh < f(-0.5)) | (hh > f(h - 0.5)))
    valid = valid & valid_roi[:, None, None, None, None, None]
    ww = xp.clip(ww, 0, w - 1)
    hh = xp.clip(hh, 0, h - 1)
    xl, xh = xp.floor(ww), xp.ceil(ww)
    yl, yh = xp.floor(hh), xp.ceil(hh)
    dx, dy = (ww - xl).astype(ct), (hh - yl).astype(ct)
    g = (xp.arange(p) * gs // p).clip(0, gs - 1)
    chan = (xp.arange(dim)[:, None, None] * gs + g[None, :, None]) * gs + g[None, None, :]
    plane = (xp.where(valid_roi, batch, 0)[:, None, None, None] * c + chan[None]) * (h * w)
    plane = plane[..., None, None]
    xl, xh, yl, yh = (v.astype("int64") for v in (xl, xh, yl, yh))
    corners = [(plane + yl * w + xl, (1 - dx) * (1 - dy)), (plane + yh * w + xl, (1 - dx) * dy),
               (plane + yl * w + xh, dx * (1 - dy)), (plane + yh * w + xh, dx * dy)]
    count = valid.sum(axis=(-2, -1)).astype(ct)
    return corners, valid, count, (dx, dy, roi_w, roi_h, classes, part_idx, cls), ct


def _d_forward(oc, attrs, inputs, out):
    xp = oc.xp
    data, rois = inputs[:2]
    trans = None if attrs.no_trans else inputs[2]
    _d_infer(attrs, [a.shape for a in inputs])
    corners, valid, count, _, ct = _d_samples(xp, attrs, data, rois, trans)
    flat = data.reshape(-1).astype(ct, copy=False)
    total = None
    for idx, wt in corners:
        term = flat[idx] * wt
        total = term if total is None else total + term
    total = xp.where(valid, total, 0).sum(axis=(-2, -1))
    res = xp.where(count > 0, total / xp.maximum(count, 1), 0)
    return [put(out, 0, res.astype(data.dtype)), put(out, 1, count.astype(data.dtype))]


def _d_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    data, rois = inputs[:2]
    trans = None if attrs.no_trans else inputs[2]
    corners, valid, count, extra, ct = _d_samples(xp, attrs, data, rois, trans)
    share = xp.where(count > 0, out_grads[0].astype(ct) / xp.maximum(count, 1), 0)
    share = xp.where(valid, share[..., None, None], 0)                  # (R, D, P, P, S, S)
    idx = xp.concatenate([i.reshape(-1) for i, _ in corners])
    wts = xp.concatenate([(wt * share).reshape(-1) for _, wt in corners])
    gdata = xp.bincount(idx, weights=wts, minlength=data.size)
    grads = [gdata.reshape(data.shape).astype(data.dtype), xp.zeros_like(rois)]
    if attrs.no_trans:
        return grads
    dx, dy, roi_w, roi_h, classes, part_idx, cls = extra
    flat = data.reshape(-1).astype(ct, copy=False)
    u00, u01, u10, u11 = (flat[i] for i, _ in corners)  # (y0,x0) (y1,x0) (y0,x1) (y1,x1)
    std = float(attrs.trans_std)
    gx = (u11 * dy + u10 * (1 - dy) - u01 * dy - u00 * (1 - dy)) * share
    gy = (u11 * dx + u01 * (1 - dx) - u10 * dx - u00 * (1 - dx)) * share
    gx = gx.sum(axis=(-2, -1)) * std * roi_w[:, None, None, None]        # (R, D, P, P)
    gy = gy.sum(axis=(-2, -1)) * std * roi_h[:, None, None, None]
    nr, dim, p, _ = gx.shape
    part = _d_part(attrs)
    base = ((xp.arange(nr)[:, None] * classes + cls[None, :]) * 2)[:, :, None, None]
    cell = (part_idx[:, None] * part + part_idx[None, :])[None, None]
    tx_idx = base * part * part + cell
    ty_idx = (base + 1) * part * part + cell
    gtrans = xp.bincount(xp.concatenate([tx_idx.reshape(-1), ty_idx.reshape(-1)]),
                         weights=xp.concatenate([gx.reshape(-1), gy.reshape(-1)]),
                         minlength=trans.size)
    grads.append(gtrans.reshape(trans.shape).astype(trans.dtype))
    return grads


register(OpDef(_DPS, _d_forward, backward=_d_backward, inputs=_d_inputs,
               attrs={"spatial_scale": Attr("float"), "output_dim": Attr("int"),
                      "group_size": Attr("int"), "pooled_size": Attr("int"),
                      "part_size": Attr("int", 0), "sample_per_part": Attr("int", 1),
                      "trans_std": Attr("float", 0.0), "no_trans": Attr("bool", False)},
               num_outputs=2, num_visible_outputs=1, output_names=("output", "top_count"),
               infer_shape=_d_infer, backward_uses=("inputs",),
               doc="Deformable position-sensitive ROI pooling (Deformable R-FCN)."))
