"""Deformable convolutions: ``_contrib_DeformableConvolution`` (v1, Dai et al. 2017) and
``_contrib_ModulatedDeformableConvolution`` (v2, Zhu et al. 2018), NCHW, 2-D kernels.

Every output position ``(ho, wo)`` reads kernel tap ``(i, j)`` of input channel ``c`` at
``(ho * stride_h - pad_h + i * dilate_h + dy, wo * stride_w - pad_w + j * dilate_w + dx)``,
where ``(dy, dx)`` come from ``offset`` (N, 2 * DG * kh * kw, Ho, Wo): for deformable
group ``g`` (the ``C / DG`` consecutive channels starting at ``g * C / DG``) and tap
``k = i * kw + j``, channel ``g * 2 * kh * kw + 2 * k`` holds ``dy`` and the next one
``dx``.  The value at a fractional position is bilinear, as MXNet samples it:

* v1: zero unless ``0 <= y < H`` and ``0 <= x < W``; a position in the last row or
  column (``y >= H - 1``) reads that row/column (no interpolation towards zero);
* v2: zero unless ``-1 < y < H`` and ``-1 < x < W``; corners outside the image count as
  zero; the sample is multiplied by ``mask`` (N, DG * kh * kw, Ho, Wo), channel
  ``g * kh * kw + k``.

The sampled columns of all taps are built at once: the four bilinear corners are four
row gathers (``take``) from the data in channel-last layout over an index grid
(n, Ho*Wo, DG, K); the columns then go through one batched GEMM per call (groups as
the batch).  Backward scatters the column gradient onto the data with one ``bincount``
per corner and gets the offset (and mask) gradients from per-corner channel sums.
Images are processed in chunks that bound the column memory (a loop over chunks of
the batch, never over pixels or taps).
"""
from __future__ import annotations

import numpy as np

from ..base import MXNetError
from .attrs import Attr
from .common import fail, merge_shapes, put
from .registry import OpDef, register

_DC = "_contrib_DeformableConvolution"
_MDC = "_contrib_ModulatedDeformableConvolution"
_CHUNK_ELEMS = 1 << 23  # column elements (n * Ho*Wo * C * K) per chunk of images


class _Geo:
    """Kernel geometry of one call (2-D only)."""

    __slots__ = ("kh", "kw", "sh", "sw", "dh", "dw", "ph", "pw", "group", "dgroup", "filters")

    def __init__(self, op: str, attrs):
        kernel = tuple(attrs.kernel)
        if len(kernel) != 2:
            fail(op, f"only 2-D kernels are supported, got kernel={kernel}")
        stride = tuple(attrs.stride) or (1, 1)
        dilate = tuple(attrs.dilate) or (1, 1)
        pad = tuple(attrs.pad) or (0, 0)
        for what, v in (("stride", stride), ("dilate", dilate), ("pad", pad)):
            if len(v) != 2:
                fail(op, f"{what} must have 2 entries like kernel={kernel}, got {v}")
        if min(kernel) < 1 or min(stride) < 1 or min(dilate) < 1 or min(pad) < 0:
            fail(op, f"invalid geometry kernel={kernel} stride={stride} dilate={dilate} "
                     f"pad={pad}")
        if attrs.layout not in (None, "NCHW"):
            fail(op, f"only layout NCHW is supported, got {attrs.layout}")
        self.kh, self.kw = kernel
        self.sh, self.sw = stride
        self.dh, self.dw = dilate
        self.ph, self.pw = pad
        self.group = int(attrs.num_group)
        self.dgroup = int(attrs.num_deformable_group)
        self.filters = int(attrs.num_filter)
        if self.group < 1 or self.dgroup < 1 or self.filters < 1:
            fail(op, f"num_filter ({self.filters}), num_group ({self.group}) and "
                     f"num_deformable_group ({self.dgroup}) must be positive")
        if self.filters % self.group:
            fail(op, f"num_filter ({self.filters}) must be divisible by num_group "
                     f"({self.group})")

    @property
    def taps(self) -> int:
        return self.kh * self.kw

    def out_size(self, op: str, h: int, w: int) -> tuple:
        """Output (Ho, Wo) of an (h, w) input; 0 stays unknown."""
        res = []
        for s, k, st, d, p in ((h, self.kh, self.sh, self.dh, self.ph),
                               (w, self.kw, self.sw, self.dw, self.pw)):
            if not s:
                res.append(0)
                continue
            span = d * (k - 1) + 1
            if s + 2 * p < span:
                fail(op, f"kernel span {span} (dilated) exceeds the padded input size "
                         f"{s + 2 * p}")
            res.append((s + 2 * p - span) // st + 1)
        return tuple(res)


def _attrs(modulated: bool) -> dict:
    a = {"kernel": Attr("shape"), "stride": Attr("shape", ()), "dilate": Attr("shape", ()),
         "pad": Attr("shape", ()), "num_filter": Attr("int"), "num_group": Attr("int", 1),
         "num_deformable_group": Attr("int", 1), "workspace": Attr("int", 1024),
         "no_bias": Attr("bool", False),
         "layout": Attr("str", None, optional=True, choices=(None, "NCDHW", "NCHW", "NCW"))}
    if modulated:
        a["im2col_step"] = Attr("int", 64)
    return a


def _input_names(modulated: bool):
    head = ("data", "offset", "mask") if modulated else ("data", "offset")

    def names(attrs):
        return head + (("weight",) if attrs.no_bias else ("weight", "bias"))
    return names


def _infer(op: str, modulated: bool):
    def infer(attrs, in_shapes):
        geo = _Geo(op, attrs)
        shapes = list(in_shapes)
        data = shapes[0]
        if data is not None and len(data) != 4:
            fail(op, "data must be 4-D (N, C, H, W)", *shapes)
        wi = 3 if modulated else 2
        weight = shapes[wi]
        c = data[1] if data is not None else 0
        if not c and weight is not None and len(weight) == 4 and weight[1]:
            c = weight[1] * geo.group
        if c and c % geo.group:
            fail(op, f"channels ({c}) must be divisible by num_group ({geo.group})", *shapes)
        if c and c % geo.dgroup:
            fail(op, f"channels ({c}) must be divisible by num_deformable_group "
                     f"({geo.dgroup})", *shapes)
        if modulated and geo.filters % geo.dgroup:
            fail(op, f"num_filter ({geo.filters}) must be divisible by num_deformable_group "
                     f"({geo.dgroup})", *shapes)
        n = data[0] if data is not None else 0
        if modulated and n:
            step = min(n, attrs.im2col_step)
            if step < 1 or n % step:
                fail(op, f"the batch size ({n}) must be smaller than or divisible by "
                         f"im2col_step ({attrs.im2col_step})", *shapes)
        ho, wo = geo.out_size(op, *(data[2:] if data is not None else (0, 0)))
        for idx in range(1, wi):
            s = shapes[idx]
            if s is not None and len(s) != 4:
                fail(op, f"{'offset' if idx == 1 else 'mask'} must be 4-D", *shapes)
            if s is not None:
                n = n or s[0]
                ho, wo = ho or s[2], wo or s[3]
        ins = [merge_shapes(op, "data", data, (n, c, 0, 0)) if data is not None else None]
        try:
            ins.append(merge_shapes(op, "offset", shapes[1],
                                    (n, 2 * geo.dgroup * geo.taps, ho, wo)))
            if modulated:
                ins.append(merge_shapes(op, "mask", shapes[2],
                                        (n, geo.dgroup * geo.taps, ho, wo)))
        except MXNetError:
            fail(op, f"offset must be (N, 2*num_deformable_group*kh*kw, Ho, Wo) = "
                     f"({n}, {2 * geo.dgroup * geo.taps}, {ho}, {wo})"
                     + (f" and mask (N, {geo.dgroup * geo.taps}, Ho, Wo)" if modulated else ""),
                 *shapes)
        ins.append(merge_shapes(op, "weight", weight,
                                (geo.filters, c // geo.group if c else 0, geo.kh, geo.kw)))
        if not attrs.no_bias:
            ins.append(merge_shapes(op, "bias", shapes[wi + 1] if len(shapes) > wi + 1
                                    else None, (geo.filters,)))
        if data is None:
            return ins, [None]
        return ins, [(ins[0][0], geo.filters, ho, wo)]
    return infer


def _acc(dtype) -> str:
    return "float64" if np.dtype(dtype) == np.float64 else "float32"


def _corners(xp, geo, modulated, offset, h, w, ho, wo, acc):
    """Bilinear corners of every sample of a chunk of images.

    Returns ``(rows, wts, valid, fy, fx)``: ``rows`` four int64 arrays (n, L, DG, K) of
    row numbers into the chunk's data in (n, DG, H*W, Cd) layout, ``wts`` the four
    bilinear weights (zero where the corner does not count), ``valid`` the four corner
    masks (as ``acc``), and the fractional parts ``fy``, ``fx``.
    """
    n = offset.shape[0]
    dg, taps = geo.dgroup, geo.taps
    off = offset.astype(acc, copy=False).reshape(n, dg, taps, 2, ho * wo)
    off = off.transpose(0, 4, 1, 2, 3)                                  # (n, L, DG, K, 2)
    ki = (xp.arange(geo.kh) * geo.dh).repeat(geo.kw)                    # (K,) tap rows
    kj = xp.tile(xp.arange(geo.kw) * geo.dw, geo.kh)                    # (K,) tap cols
    hin = (xp.arange(ho) * geo.sh - geo.ph).repeat(wo)                 # (L,)
    win = xp.tile(xp.arange(wo) * geo.sw - geo.pw, ho)                  # (L,)
    hin = hin[None, :, None, None]
    win = win[None, :, None, None]
    if not modulated:
        # MXNet v1 floors the position relative to the window origin (h_in, w_in)
        rel_y = ki.astype(acc) + off[..., 0]
        rel_x = kj.astype(acc) + off[..., 1]
        abs_y = (hin + ki).astype(acc) + off[..., 0]
        abs_x = (win + kj).astype(acc) + off[..., 1]
        inside = (abs_y >= 0) & (abs_x >= 0) & (abs_y < h) & (abs_x < w)
        fl_y = xp.floor(rel_y)
        fl_x = xp.floor(rel_x)
        fy = rel_y - fl_y
        fx = rel_x - fl_x
        y0 = fl_y.astype("int64") + hin
        x0 = fl_x.astype("int64") + win
        cy = y0 >= h - 1
        cx = x0 >= w - 1
        y0 = xp.where(cy, h - 1, y0)
        x0 = xp.where(cx, w - 1, x0)
        y1 = xp.where(cy, h - 1, y0 + 1)
        x1 = xp.where(cx, w - 1, x0 + 1)
        fy = xp.where(cy, 0, fy).astype(acc, copy=False)
        fx = xp.where(cx, 0, fx).astype(acc, copy=False)
        vy0 = vy1 = vx0 = vx1 = inside
    else:
        abs_y = (hin + ki).astype(acc) + off[..., 0]
        abs_x = (win + kj).astype(acc) + off[..., 1]
        inside = (abs_y > -1) & (abs_x > -1) & (abs_y < h) & (abs_x < w)
        fl_y = xp.floor(abs_y)
        fl_x = xp.floor(abs_x)
        fy = (abs_y - fl_y).astype(acc, copy=False)
        fx = (abs_x - fl_x).astype(acc, copy=False)
        y0 = fl_y.astype("int64")
        x0 = fl_x.astype("int64")
        y1 = y0 + 1
        x1 = x0 + 1
        vy0, vy1 = inside & (y0 >= 0), inside & (y1 <= h - 1)
        vx0, vx1 = inside & (x0 >= 0), inside & (x1 <= w - 1)
    base = ((xp.arange(n)[:, None, None, None] * dg + xp.arange(dg)[None, None, :, None])
            * (h * w))                                                   # (n, 1, DG, 1)
    gy, gx = 1 - fy, 1 - fx
    rows, wts, valid = [], [], []
    for yy, vy, wy in ((y0, vy0, gy), (y1, vy1, fy)):
        for xx, vx, wx in ((x0, vx0, gx), (x1, vx1, fx)):
            v = vy & vx
            rows.append(base + xp.where(v, yy * w + xx, 0))
            vf = v.astype(acc)
            valid.append(vf)
            wts.append(wy * wx * vf)
    return rows, wts, valid, fy, fx


def _channel_last(xp, data, dg, acc):
    """Data chunk (n, C, H, W) as rows (n * DG * H * W, C / DG)."""
    n, c, h, w = data.shape
    cd = c // dg
    t = data.astype(acc, copy=False).reshape(n, dg, cd, h * w).transpose(0, 1, 3, 2)
    return xp.ascontiguousarray(t).reshape(n * dg * h * w, cd)


def _columns(xp, rows_t, rows, wts, mask):
    """Sampled columns (n, L, DG, K, Cd) of a chunk (mask applied where given)."""
    col = None
    for r, wt in zip(rows, wts):
        if mask is not None:
            wt = wt * mask
        term = xp.take(rows_t, r, axis=0) * wt[..., None]
        col = term if col is None else col + term
    return col


def _gemm_layout(col, geo):
    """Columns (n, L, DG, K, Cd) as (G, n*L, Cg*K) in the weight's (c, i, j) order."""
    n, l, dg, k, cd = col.shape
    c = dg * cd
    flat = col.transpose(0, 1, 2, 4, 3).reshape(n * l, c * k)
    g = geo.group
    return flat.reshape(n * l, g, c // g * k).transpose(1, 0, 2)


def _unpack(modulated, attrs, inputs):
    if modulated:
        data, offset, mask, weight = inputs[:4]
        rest = inputs[4:]
    else:
        data, offset, weight = inputs[:3]
        mask = None
        rest = inputs[3:]
    bias = None if attrs.no_bias else rest[0]
    return data, offset, mask, weight, bias


def _check(op, modulated, attrs, inputs):
    geo = _Geo(op, attrs)
    shapes = [tuple(a.shape) for a in inputs]
    ins, outs = _infer(op, modulated)(attrs, shapes)
    if [tuple(s) for s in ins] != shapes:
        fail(op, f"input shapes do not match (expected {[tuple(s) for s in ins]})", *shapes)
    return geo, outs[0]


def _chunks(n, per_image):
    step = max(1, _CHUNK_ELEMS // max(1, per_image))
    return [(lo, min(n, lo + step)) for lo in range(0, n, step)]


def _mask_view(mask, lo, hi, geo, acc):
    if mask is None:
        return None
    m = mask[lo:hi].astype(acc, copy=False)
    n, _, ho, wo = m.shape
    return m.reshape(n, geo.dgroup, geo.taps, ho * wo).transpose(0, 3, 1, 2)


def _make_forward(op: str, modulated: bool):
    def forward(oc, attrs, inputs, out):
        xp = oc.xp
        data, offset, mask, weight, bias = _unpack(modulated, attrs, inputs)
        geo, oshape = _check(op, modulated, attrs, inputs)
        acc = _acc(data.dtype)
        n, c, h, w = data.shape
        _, f, ho, wo = oshape
        g = geo.group
        wmat = weight.astype(acc, copy=False).reshape(g, f // g, -1).transpose(0, 2, 1)
        result = xp.empty((n, ho * wo, f), dtype=acc)
        for lo, hi in _chunks(n, ho * wo * c * geo.taps):
            rows, wts, _, _, _ = _corners(xp, geo, modulated, offset[lo:hi], h, w, ho, wo, acc)
            col = _columns(xp, _channel_last(xp, data[lo:hi], geo.dgroup, acc), rows, wts,
                           _mask_view(mask, lo, hi, geo, acc))
            prod = xp.matmul(_gemm_layout(col, geo), wmat)                 # (G, nL, Fg)
            result[lo:hi] = prod.transpose(1, 0, 2).reshape(hi - lo, ho * wo, f)
        res = result.transpose(0, 2, 1).reshape(n, f, ho, wo)
        if bias is not None:
            res = res + bias.astype(acc, copy=False)[None, :, None, None]
        return [put(out, 0, res.astype(data.dtype, copy=False))]
    return forward


def _make_backward(op: str, modulated: bool):
    def backward(oc, attrs, inputs, outputs, out_grads, need=None):
        xp = oc.xp
        data, offset, mask, weight, bias = _unpack(modulated, attrs, inputs)
        geo, oshape = _check(op, modulated, attrs, inputs)
        need = list(need) if need is not None else [True] * len(inputs)
        acc = _acc(data.dtype)
        n, c, h, w = data.shape
        _, f, ho, wo = oshape
        g, dg, taps = geo.group, geo.dgroup, geo.taps
        cd = c // dg
        lsz = ho * wo
        head = out_grads[0].astype(acc, copy=False).reshape(n, f, lsz)
        wmat = weight.astype(acc, copy=False).reshape(g, f // g, -1)          # (G, Fg, CgK)
        want_data, want_off = need[0], need[1]
        want_mask = modulated and need[2]
        want_w = need[3 if modulated else 2]
        gdata = xp.zeros(n * c * h * w, dtype=acc) if want_data else None
        goff = xp.zeros((n, dg, taps, 2, lsz), dtype=acc) if want_off else None
        gmask = xp.zeros((n, dg, taps, lsz), dtype=acc) if want_mask else None
        gw = xp.zeros_like(wmat) if want_w else None
        for lo, hi in _chunks(n, lsz * c * taps):
            nb = hi - lo
            rows, wts, valid, fy, fx = _corners(xp, geo, modulated, offset[lo:hi], h, w,
                                                ho, wo, acc)
            mview = _mask_view(mask, lo, hi, geo, acc)
            rows_t = _channel_last(xp, data[lo:hi], dg, acc)
            go = head[lo:hi].transpose(0, 2, 1).reshape(nb * lsz, g, f // g).transpose(1, 0, 2)
            if want_data or want_off or want_mask:
                gcol = xp.matmul(go, wmat)                                    # (G, nL, CgK)
                gcol = gcol.transpose(1, 0, 2).reshape(nb, lsz, dg, cd, taps)
                gcol = xp.ascontiguousarray(gcol.transpose(0, 1, 2, 4, 3))    # (n,L,DG,K,Cd)
            col, sums = None, []
            if want_w or want_off or want_mask:
                # one gather per corner serves the columns (weight gradient) and the
                # per-corner channel sums (offset and mask gradients)
                for r, wt, v in zip(rows, wts, valid):
                    vals = xp.take(rows_t, r, axis=0)
                    if want_w:
                        term = vals * (wt if mview is None else wt * mview)[..., None]
                        col = term if col is None else col + term
                    if want_off or want_mask:
                        sums.append((vals * gcol).sum(axis=-1) * v)
                    del vals
            if want_w:
                gw += xp.matmul(go.transpose(0, 2, 1), _gemm_layout(col, geo))
                del col
            if want_data:
                chans = xp.arange(cd)
                part = xp.zeros(nb * c * h * w, dtype="float64")
                for r, wt in zip(rows, wts):
                    if mview is not None:
                        wt = wt * mview
                    idx = (r[..., None] * cd + chans).reshape(-1)
                    part += xp.bincount(idx, weights=(gcol * wt[..., None]).reshape(-1),
                                        minlength=nb * c * h * w)
                part = part.reshape(nb, dg, h * w, cd).transpose(0, 1, 3, 2)
                gdata[lo * c * h * w:hi * c * h * w] = part.reshape(-1)
            if want_off:
                s00, s01, s10, s11 = sums
                dy = (1 - fx) * (s10 - s00) + fx * (s11 - s01)
                dx = (1 - fy) * (s01 - s00) + fy * (s11 - s10)
                if mview is not None:
                    dy = dy * mview
                    dx = dx * mview
                goff[lo:hi, :, :, 0] = dy.transpose(0, 2, 3, 1)
                goff[lo:hi, :, :, 1] = dx.transpose(0, 2, 3, 1)
            if want_mask:
                s00, s01, s10, s11 = sums
                gy, gx = 1 - fy, 1 - fx
                gm = gy * gx * s00 + gy * fx * s01 + fy * gx * s10 + fy * fx * s11
                gmask[lo:hi] = gm.transpose(0, 2, 3, 1)
        grads = [gdata.reshape(data.shape).astype(data.dtype) if want_data else None,
                 goff.reshape(offset.shape).astype(offset.dtype) if want_off else None]
        if modulated:
            grads.append(gmask.reshape(mask.shape).astype(mask.dtype) if want_mask else None)
        grads.append(gw.reshape(weight.shape).astype(weight.dtype) if want_w else None)
        if bias is not None:
            want_b = need[len(grads)]
            grads.append(head.sum(axis=(0, 2)).astype(bias.dtype) if want_b else None)
        return grads
    return backward


register(OpDef(_DC, _make_forward(_DC, False), backward=_make_backward(_DC, False),
               attrs=_attrs(False), inputs=_input_names(False),
               infer_shape=_infer(_DC, False), backward_uses=("inputs",), backward_mask=True,
               doc="Deformable convolution v1 (bilinear sampling at learned offsets)."))

register(OpDef(_MDC, _make_forward(_MDC, True), backward=_make_backward(_MDC, True),
               attrs=_attrs(True), inputs=_input_names(True),
               infer_shape=_infer(_MDC, True), backward_uses=("inputs",), backward_mask=True,
               doc="Modulated deformable convolution v2 (offsets and a per-sample mask)."))
