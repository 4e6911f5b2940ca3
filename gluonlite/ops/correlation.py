"""``Correlation``: FlowNet's correlation layer, as MXNet 1.9 computes it.

Both inputs ``(N, C, H, W)`` are zero-padded by ``pad_size`` on each spatial side.
With ``k = kernel_size`` (odd), ``d = max_displacement``, ``r = d // stride2`` and
``g = 2 r + 1``, the output is ``(N, g * g, Ho, Wo)`` with
``Ho = ceil((H + 2 pad - 2 (d + (k - 1) / 2)) / stride1)`` (``Wo`` likewise).  Output
``(n, q, i, j)`` compares the ``k x k`` patch of ``data1`` whose top-left corner is
``(d + i * stride1, d + j * stride1)`` (padded coordinates) with the ``data2`` patch
displaced by ``((q // g - r) * stride2, (q % g - r) * stride2)`` rows and columns:
the sum over the patch and the channels of ``a * b`` (``is_multiply``) or ``|a - b|``,
divided by ``k * k * C``.  In backward ``|a - b|`` has slope ``+1`` where ``a >= b``
and ``-1`` elsewhere, as in MXNet.

The loop runs over the ``g * g`` displacements only; each step is a handful of
whole-array operations (a channel contraction, and for ``k > 1`` the patch sums
through the window helpers of :mod:`gluonlite.ops._window`).  MXNet's node has two
hidden outputs (the padded inputs, channel-last), counted in ``-symbol.json``.
float16 inputs are computed in float32.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .attrs import Attr
from .common import fail, put
from .registry import OpAttrs, OpDef, register
from ._window import col2im, im2col

_OP = "Correlation"


@dataclass(frozen=True)
class _Geometry:
    """Sizes of one Correlation call (see the module docstring)."""

    kernel: int
    disp: int
    stride1: int
    stride2: int
    pad: int
    radius: int      # displacements per side: max_displacement // stride2
    out_h: int
    out_w: int

    @property
    def grid(self) -> int:
        return 2 * self.radius + 1

    @property
    def span(self) -> tuple[int, int]:
        """Rows and columns of data1 the patches cover (padded coordinates)."""
        return ((self.out_h - 1) * self.stride1 + self.kernel,
                (self.out_w - 1) * self.stride1 + self.kernel)

    def shift(self, q: int) -> tuple[int, int]:
        """Row and column displacement of output channel ``q``."""
        return ((q // self.grid - self.radius) * self.stride2,
                (q % self.grid - self.radius) * self.stride2)


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _geometry(attrs: OpAttrs, shape1, shape2=None) -> _Geometry:
    k, d = int(attrs.kernel_size), int(attrs.max_displacement)
    s1, s2, p = int(attrs.stride1), int(attrs.stride2), int(attrs.pad_size)
    if k % 2 == 0:
        fail(_OP, f"kernel_size must be an odd number, got {k}", shape1, shape2)
    if s1 <= 0 or s2 <= 0:
        fail(_OP, f"stride1 and stride2 must be positive, got {s1} and {s2}", shape1, shape2)
    _, _, h, w = shape1
    border = d + (k - 1) // 2
    out_h = _ceil_div(h + 2 * p - 2 * border, s1) if h else 0
    out_w = _ceil_div(w + 2 * p - 2 * border, s1) if w else 0
    if (h and out_h < 1) or (w and out_w < 1):
        fail(_OP, f"the padded input ({h + 2 * p}, {w + 2 * p}) is too small for "
                  f"max_displacement {d} and kernel_size {k}", shape1, shape2)
    return _Geometry(k, d, s1, s2, p, d // s2, out_h, out_w)


def _infer_shape(attrs: OpAttrs, in_shapes: list):
    a, b = in_shapes
    for s in (a, b):
        if s is not None and len(s) != 4:
            fail(_OP, "data1 and data2 must be 4-D (N, C, H, W)", a, b)
    if a is not None and b is not None:
        if any(x and y and x != y for x, y in zip(a, b)):
            fail(_OP, "data1 and data2 must have the same shape", a, b)
        merged = tuple(x or y for x, y in zip(a, b))
    else:
        merged = a if a is not None else b
    if merged is None:
        return [None, None], [None]
    geo = _geometry(attrs, merged)
    return [merged, merged], [(merged[0], geo.grid ** 2, geo.out_h, geo.out_w)]


def _padded(xp, x, pad: int, dtype):
    """``x`` in ``dtype``, zero-padded by ``pad`` on both spatial sides (a fresh array)."""
    n, c, h, w = x.shape
    out = xp.zeros((n, c, h + 2 * pad, w + 2 * pad), dtype=dtype)
    out[:, :, pad:pad + h, pad:pad + w] = x
    return out


def _compute_dtype(dtype):
    return np.promote_types(dtype, np.float32)


def _regions(geo: _Geometry, q: int, strided: bool):
    """Index tuples of the data1 region and of the displaced data2 region.

    ``strided`` (kernel 1): only the rows and columns the outputs read.
    """
    rows, cols = geo.span
    dy, dx = geo.shift(q)
    step = geo.stride1 if strided else 1
    top = geo.disp
    a = (slice(None), slice(None), slice(top, top + rows, step), slice(top, top + cols, step))
    b = (slice(None), slice(None), slice(top + dy, top + dy + rows, step),
         slice(top + dx, top + dx + cols, step))
    return a, b


def _compare(xp, a, b, multiply: bool):
    """Per-pixel comparison summed over channels: ``(N, C, h, w)`` pairs -> ``(N, h, w)``."""
    if multiply:
        return xp.einsum("nchw,nchw->nhw", a, b)
    return xp.abs(a - b).sum(axis=1)


def _patch_sums(xp, maps, geo: _Geometry):
    """``k x k`` patch sums of ``(N, rows, cols)`` maps at stride ``stride1`` -> ``(N, Ho, Wo)``."""
    k, s = geo.kernel, geo.stride1
    col = im2col(xp, maps[:, None], (geo.out_h, geo.out_w), (k, k), (s, s), (1, 1),
                 role="corr_patch")
    return col.reshape(k * k, maps.shape[0], geo.out_h, geo.out_w).sum(axis=0)


def _patch_spread(xp, head, geo: _Geometry):
    """Adjoint of :func:`_patch_sums`: each output's value added over its patch."""
    k, s = geo.kernel, geo.stride1
    n = head.shape[0]
    cols = xp.ascontiguousarray(xp.broadcast_to(head[None, None, None], (1, k, k) + head.shape))
    rows, width = geo.span
    return col2im(xp, cols, (1, n, rows, width), (geo.out_h, geo.out_w), (k, k), (s, s),
                  (1, 1))[0]


def _forward(oc, attrs, inputs, out):
    xp = oc.xp
    data1, data2 = inputs
    _infer_shape(attrs, [data1.shape, data2.shape])
    geo = _geometry(attrs, data1.shape)
    cdt = _compute_dtype(data1.dtype)
    a = _padded(xp, data1, geo.pad, cdt)
    b = _padded(xp, data2, geo.pad, cdt)
    n, c = data1.shape[:2]
    result = xp.empty((n, geo.grid ** 2, geo.out_h, geo.out_w), dtype=cdt)
    strided = geo.kernel == 1
    for q in range(geo.grid ** 2):
        ia, ib = _regions(geo, q, strided)
        maps = _compare(xp, a[ia], b[ib], attrs.is_multiply)
        result[:, q] = maps if strided else _patch_sums(xp, maps, geo)
    result *= 1.0 / (geo.kernel * geo.kernel * c)
    return [put(out, 0, result.astype(data1.dtype, copy=False))]


def _backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    data1, data2 = inputs
    geo = _geometry(attrs, data1.shape)
    cdt = _compute_dtype(data1.dtype)
    a = _padded(xp, data1, geo.pad, cdt)
    b = _padded(xp, data2, geo.pad, cdt)
    n, c, h, w = data1.shape
    head = out_grads[0].astype(cdt, copy=False) * (1.0 / (geo.kernel * geo.kernel * c))
    da = xp.zeros_like(a)
    db = xp.zeros_like(b)
    strided = geo.kernel == 1
    for q in range(geo.grid ** 2):
        ia, ib = _regions(geo, q, strided)
        weight = head[:, q] if strided else _patch_spread(xp, head[:, q], geo)
        weight = weight[:, None]
        if attrs.is_multiply:
            da[ia] += weight * b[ib]
            db[ib] += weight * a[ia]
        else:
            signed = xp.where(a[ia] >= b[ib], weight, -weight)
            da[ia] += signed
            db[ib] -= signed
    p = geo.pad
    crop = (slice(None), slice(None), slice(p, p + h), slice(p, p + w))
    return [da[crop].astype(data1.dtype, copy=True), db[crop].astype(data2.dtype, copy=True)]


register(OpDef(
    _OP, _forward, backward=_backward,
    attrs={
        "kernel_size": Attr("int", 1),
        "max_displacement": Attr("int", 1),
        "stride1": Attr("int", 1),
        "stride2": Attr("int", 1),
        "pad_size": Attr("int", 0),
        "is_multiply": Attr("bool", True),
    },
    inputs=("data1", "data2"), infer_shape=_infer_shape, backward_uses=("inputs",),
    json_num_outputs=3,  # MXNet's node also outputs both padded inputs (channel-last)
    doc="FlowNet correlation of two feature maps over a neighbourhood of displacements."))
