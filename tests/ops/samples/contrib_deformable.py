"""Samples for ``_contrib_DeformableConvolution``, ``_contrib_ModulatedDeformableConvolution``,
``_contrib_PSROIPooling`` and ``_contrib_DeformablePSROIPooling`` with point-by-point NumPy references (MXNet 1.9.1's values,
gradients included, are checked in ``tests/contrib/test_deformable.py``)."""
import math

import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(71)


def _sample_v1(img, y, x, ho_y, wo_x):
    """MXNet's v1 bilinear sample of ``img`` (C, H, W); the floor is taken relative to the
    window origin, the last row/column is clamped, outside ``[0, H) x [0, W)`` is zero."""
    h, w = img.shape[1:]
    if y < 0 or x < 0 or y >= h or x >= w:
        return np.zeros(img.shape[0])
    ry, rx = y - ho_y, x - wo_x
    y0 = math.floor(ry) + ho_y
    x0 = math.floor(rx) + wo_x
    ly, lx = ry - math.floor(ry), rx - math.floor(rx)
    if y0 >= h - 1:
        y0 = y1 = h - 1
        ly = 0.0
    else:
        y1 = y0 + 1
    if x0 >= w - 1:
        x0 = x1 = w - 1
        lx = 0.0
    else:
        x1 = x0 + 1
    return ((1 - ly) * (1 - lx) * img[:, y0, x0] + (1 - ly) * lx * img[:, y0, x1]
            + ly * (1 - lx) * img[:, y1, x0] + ly * lx * img[:, y1, x1])


def _sample_v2(img, y, x):
    """v2: zero outside ``(-1, H) x (-1, W)``; corners off the image count as zero."""
    h, w = img.shape[1:]
    out = np.zeros(img.shape[0])
    if not (y > -1 and x > -1 and y < h and x < w):
        return out
    y0, x0 = math.floor(y), math.floor(x)
    ly, lx = y - y0, x - x0
    for yy, wy in ((y0, 1 - ly), (y0 + 1, ly)):
        for xx, wx in ((x0, 1 - lx), (x0 + 1, lx)):
            if 0 <= yy < h and 0 <= xx < w:
                out = out + wy * wx * img[:, yy, xx]
    return out


def _deform_ref(modulated):
    def ref(data, offset, *rest, kernel, num_filter, stride=(1, 1), dilate=(1, 1),
            pad=(0, 0), num_group=1, num_deformable_group=1, no_bias=False, **_):
        mask = rest[0] if modulated else None
        weight = rest[1 if modulated else 0]
        bias = None if no_bias else rest[-1]
        n, c, h, w = data.shape
        kh, kw = kernel
        ho, wo = offset.shape[2:]
        dg = num_deformable_group
        cd = c // dg
        cols = np.zeros((n, c, kh * kw, ho, wo))
        for b in range(n):
            for g in range(dg):
                img = data[b, g * cd:(g + 1) * cd]
                for i in range(kh):
                    for j in range(kw):
                        k = i * kw + j
                        for oy in range(ho):
                            for ox in range(wo):
                                hy = oy * stride[0] - pad[0]
                                wx = ox * stride[1] - pad[1]
                                y = hy + i * dilate[0] + offset[b, g * 2 * kh * kw + 2 * k, oy, ox]
                                x = wx + j * dilate[1] + offset[b, g * 2 * kh * kw + 2 * k + 1,
                                                                oy, ox]
                                if modulated:
                                    v = _sample_v2(img, y, x) * mask[b, g * kh * kw + k, oy, ox]
                                else:
                                    v = _sample_v1(img, y, x, hy, wx)
                                cols[b, g * cd:(g + 1) * cd, k, oy, ox] = v
        cg, fg = c // num_group, num_filter // num_group
        out = np.zeros((n, num_filter, ho, wo))
        for gi in range(num_group):
            wg = weight[gi * fg:(gi + 1) * fg].reshape(fg, -1)
            cg_cols = cols[:, gi * cg:(gi + 1) * cg].reshape(n, cg * kh * kw, ho * wo)
            out[:, gi * fg:(gi + 1) * fg] = np.einsum("fk,nkl->nfl", wg, cg_cols).reshape(
                n, fg, ho, wo)
        if bias is not None:
            out += bias[None, :, None, None]
        return out
    return ref


def _psroi_ref(data, rois, spatial_scale, output_dim, pooled_size, group_size=0):
    gs = group_size or pooled_size
    p = pooled_size
    n, c, h, w = data.shape
    out = np.zeros((len(rois), output_dim, p, p))
    rnd = lambda v: math.floor(abs(v) + 0.5) * (1 if v >= 0 else -1)
    for r, roi in enumerate(rois):
        b = int(roi[0])
        x1, y1 = rnd(roi[1]) * spatial_scale, rnd(roi[2]) * spatial_scale
        x2, y2 = (rnd(roi[3]) + 1) * spatial_scale, (rnd(roi[4]) + 1) * spatial_scale
        bh, bw = max(y2 - y1, 0.1) / p, max(x2 - x1, 0.1) / p
        for i in range(p):
            for j in range(p):
                hs = min(max(math.floor(i * bh + y1), 0), h)
                he = min(max(math.ceil((i + 1) * bh + y1), 0), h)
                ws = min(max(math.floor(j * bw + x1), 0), w)
                we = min(max(math.ceil((j + 1) * bw + x1), 0), w)
                if he <= hs or we <= ws:
                    continue
                gh, gw = min(i * gs // p, gs - 1), min(j * gs // p, gs - 1)
                for d in range(output_dim):
                    ch = (d * gs + gh) * gs + gw
                    out[r, d, i, j] = data[b, ch, hs:he, ws:we].mean()
    return out


def _dpsroi_ref(data, rois, *trans, spatial_scale, output_dim, group_size, pooled_size,
                part_size=0, sample_per_part=1, trans_std=0.0, no_trans=False):
    p, gs, sp = pooled_size, group_size, sample_per_part
    part = part_size or p
    n, c, h, w = data.shape
    out = np.zeros((len(rois), output_dim, p, p))
    classes = 1 if no_trans else trans[0].shape[1] // 2
    rnd = lambda v: math.floor(abs(v) + 0.5) * (1 if v >= 0 else -1)
    for r, roi in enumerate(rois):
        b = int(roi[0])
        x1 = rnd(roi[1]) * spatial_scale - 0.5
        y1 = rnd(roi[2]) * spatial_scale - 0.5
        rw = max((rnd(roi[3]) + 1) * spatial_scale - 0.5 - x1, 0.1)
        rh = max((rnd(roi[4]) + 1) * spatial_scale - 0.5 - y1, 0.1)
        bw, bh = rw / p, rh / p
        for d in range(output_dim):
            k = d // (output_dim // classes)
            for i in range(p):
                for j in range(p):
                    ph, pw = math.floor(i / p * part), math.floor(j / p * part)
                    tx = 0.0 if no_trans else trans[0][r, 2 * k, ph, pw] * trans_std
                    ty = 0.0 if no_trans else trans[0][r, 2 * k + 1, ph, pw] * trans_std
                    ws, hs = j * bw + x1 + tx * rw, i * bh + y1 + ty * rh
                    ch = (d * gs + min(i * gs // p, gs - 1)) * gs + min(j * gs // p, gs - 1)
                    vals = []
                    for ih in range(sp):
                        for iw in range(sp):
                            x, y = ws + iw * bw / sp, hs + ih * bh / sp
                            if x < -0.5 or x > w - 0.5 or y < -0.5 or y > h - 0.5:
                                continue
                            x, y = min(max(x, 0), w - 1), min(max(y, 0), h - 1)
                            x0, y0 = math.floor(x), math.floor(y)
                            x1_, y1_ = math.ceil(x), math.ceil(y)
                            fx, fy = x - x0, y - y0
                            img = data[b, ch]
                            vals.append((1 - fx) * (1 - fy) * img[y0, x0]
                                        + (1 - fx) * fy * img[y1_, x0]
                                        + fx * (1 - fy) * img[y0, x1_] + fx * fy * img[y1_, x1_])
                    out[r, d, i, j] = np.mean(vals) if vals else 0.0
    return out


def _conv_inputs(n, c, hw, f, kernel, ho_wo, dg=1, group=1, spread=1.7, modulated=False,
                 bias=True):
    kh, kw = kernel
    ins = [_rng.standard_normal((n, c) + hw),
           _rng.uniform(-spread, spread, (n, 2 * dg * kh * kw) + ho_wo)]
    if modulated:
        ins.append(_rng.uniform(0.1, 1.9, (n, dg * kh * kw) + ho_wo))
    ins.append(_rng.standard_normal((f, c // group, kh, kw)) * 0.5)
    if bias:
        ins.append(_rng.standard_normal(f))
    return ins


def _conv_samples(modulated):
    ref = _deform_ref(modulated)
    m = modulated
    return [
        Sample(_conv_inputs(2, 3, (5, 5), 4, (3, 3), (5, 5), modulated=m),
               {"kernel": (3, 3), "pad": (1, 1), "num_filter": 4}, ref=ref, name="pad1"),
        Sample(_conv_inputs(1, 4, (7, 6), 4, (2, 3), (3, 6), dg=2, group=2, modulated=m,
                            bias=False),
               {"kernel": (2, 3), "stride": (2, 1), "dilate": (2, 1), "pad": (0, 1),
                "num_filter": 4, "num_group": 2, "num_deformable_group": 2,
                "no_bias": True}, ref=ref, name="stride_dilate_groups"),
        Sample(_conv_inputs(2, 2, (4, 4), 2, (3, 3), (2, 2), spread=4.0, modulated=m),
               {"kernel": (3, 3), "num_filter": 2}, ref=ref, name="far_outside"),
        Sample([a.astype(np.float32) for a in _conv_inputs(1, 2, (5, 5), 2, (3, 3), (5, 5),
                                                            modulated=m)],
               {"kernel": (3, 3), "pad": (1, 1), "num_filter": 2}, ref=ref, grad=False,
               rtol=1e-5, atol=1e-5, name="float32"),
    ]


def _rois(k, n_img, size):
    xy = _rng.uniform(-0.1 * size, 0.7 * size, (k, 2))
    wh = _rng.uniform(0.2 * size, 0.8 * size, (k, 2))
    return np.concatenate([_rng.integers(0, n_img, (k, 1)), xy, xy + wh], axis=1)


SAMPLES = {
    "_contrib_DeformableConvolution": _conv_samples(False),
    "_contrib_ModulatedDeformableConvolution": _conv_samples(True),
    "_contrib_PSROIPooling": [
        Sample([_rng.standard_normal((2, 2 * 9, 6, 7)), _rois(4, 2, 7)],
               {"spatial_scale": 1.0, "output_dim": 2, "pooled_size": 3}, ref=_psroi_ref,
               grad=[0], name="scale1"),
        Sample([_rng.standard_normal((1, 3 * 4, 8, 8)), _rois(3, 1, 16)],
               {"spatial_scale": 0.5, "output_dim": 3, "pooled_size": 3, "group_size": 2},
               ref=_psroi_ref, grad=[0], name="group2_scale05"),
        Sample([_rng.standard_normal((1, 4, 5, 5)).astype(np.float32),
                _rois(2, 1, 5).astype(np.float32)],
               {"spatial_scale": 1.0, "output_dim": 1, "pooled_size": 2}, ref=_psroi_ref,
               grad=False, rtol=1e-5, atol=1e-6, name="float32"),
    ],
    "_contrib_DeformablePSROIPooling": [
        Sample([_rng.standard_normal((2, 2 * 9, 7, 8)), _rois(4, 2, 8)],
               {"spatial_scale": 1.0, "output_dim": 2, "pooled_size": 3, "group_size": 3,
                "sample_per_part": 2, "no_trans": True}, ref=_dpsroi_ref, grad=[0],
               name="no_trans"),
        # ROIs well inside the map and small shifts: no sample is clamped, so the trans
        # gradient (which MXNet computes ignoring the clamp) is the true derivative
        Sample([_rng.standard_normal((1, 4 * 4, 12, 12)),
                np.array([[0, 3.2, 2.9, 8.1, 7.8], [0, 2.6, 4.1, 7.2, 8.3]]),
                _rng.uniform(-1, 1, (2, 4, 2, 2))],
               {"spatial_scale": 1.0, "output_dim": 4, "pooled_size": 4, "group_size": 2,
                "part_size": 2, "sample_per_part": 2, "trans_std": 0.1}, ref=_dpsroi_ref,
               grad=[0, 2], name="trans_2class"),
        Sample([_rng.standard_normal((1, 9, 6, 6)).astype(np.float32),
                _rois(2, 1, 6).astype(np.float32),
                _rng.uniform(-1, 1, (2, 2, 3, 3)).astype(np.float32)],
               {"spatial_scale": 1.0, "output_dim": 1, "pooled_size": 3, "group_size": 3,
                "sample_per_part": 2, "trans_std": 0.2}, ref=_dpsroi_ref, grad=False,
               rtol=1e-5, atol=1e-5, name="float32"),
    ],
}
