"""``_image_resize`` (``nd.image.resize``): resize ``(H, W, C)`` or
``(N, H, W, C)`` images.

``size`` is ``(width, height)`` or one number: both edges, or with
``keep_ratio`` the short edge (the long edge becomes
``int(long * size / short)``).  ``interp=1`` (default) is OpenCV's bilinear
resampling (pixel centres at ``+0.5``, borders replicated), ``interp=0`` its
nearest neighbour (``src = floor(dst * in / out)``); the other OpenCV methods
(area, cubic, Lanczos) are not supported.  The resampling is two matmuls with
interpolation matrices (one per axis), so backward is their transpose.  Integer
images are computed in float32 and rounded: OpenCV's fixed-point arithmetic can
differ from that by 1 on ``uint8`` images when upscaling.
"""
from __future__ import annotations

import numpy as np

from .attrs import Attr
from .common import fail, put
from .registry import OpDef, register

_OP = "_image_resize"


def _check(shape):
    if len(shape) not in (3, 4):
        fail(_OP, "input image must have shape (H, W, C) or (N, H, W, C)", shape)


def _out_hw(attrs, h, w, shape):
    size = tuple(attrs.size)
    if len(size) not in (1, 2):
        fail(_OP, f"size must have 1 or 2 elements, got {list(size)}", shape)
    if any(s is None or s <= 0 for s in size):
        fail(_OP, f"size must be positive, got {list(size)}", shape)
    if len(size) == 2:
        return size[1], size[0]
    s = size[0]
    if not attrs.keep_ratio:
        return s, s
    if h <= w:
        return s, int(w * s / h)
    return int(h * s / w), s


def _interp_matrix(n_in, n_out, interp, dtype):
    """(n_out, n_in) matrix mapping an axis of length ``n_in`` to ``n_out``."""
    scale = n_in / n_out
    m = np.zeros((n_out, n_in), dtype=np.float64)
    rows = np.arange(n_out)
    if interp == 0:
        src = np.minimum(np.floor(rows * scale).astype(np.int64), n_in - 1)
        m[rows, src] = 1.0
        return m.astype(dtype)
    f = (rows + 0.5) * scale - 0.5
    i0 = np.floor(f).astype(np.int64)
    a = f - i0
    a = np.where(i0 < 0, 0.0, a)
    i0 = np.maximum(i0, 0)
    a = np.where(i0 >= n_in - 1, 0.0, a)
    i0 = np.minimum(i0, n_in - 1)
    i1 = np.minimum(i0 + 1, n_in - 1)
    np.add.at(m, (rows, i0), 1.0 - a)
    np.add.at(m, (rows, i1), a)
    return m.astype(dtype)


def _matrices(xp, attrs, shape, dtype):
    h, w = shape[-3], shape[-2]
    if attrs.interp not in (0, 1):
        fail(_OP, f"interp={attrs.interp} is not supported (0: nearest, 1: bilinear)", shape)
    oh, ow = _out_hw(attrs, h, w, shape)
    return (xp.asarray(_interp_matrix(h, oh, attrs.interp, dtype)),
            xp.asarray(_interp_matrix(w, ow, attrs.interp, dtype)))


def _compute_dtype(dtype):
    return np.dtype(dtype) if np.dtype(dtype).kind == "f" else np.dtype(np.float32)


def _apply(xp, x, ry, rx):
    # (..., H, W, C) -> (..., oh, W, C) -> (..., oh, ow, C)
    y = xp.matmul(ry, x.reshape(x.shape[:-3] + (x.shape[-3], -1)))
    y = y.reshape(x.shape[:-3] + (ry.shape[0], x.shape[-2], x.shape[-1]))
    return xp.matmul(rx, y)


def _forward(oc, attrs, inputs, out):
    xp = oc.xp
    x = inputs[0]
    _check(x.shape)
    cdt = _compute_dtype(x.dtype)
    ry, rx = _matrices(xp, attrs, x.shape, cdt)
    y = _apply(xp, x.astype(cdt, copy=False), ry, rx)
    if x.dtype.kind in "iu":
        info = np.iinfo(x.dtype)
        y = xp.clip(xp.rint(y), info.min, info.max)
    return [put(out, 0, y.astype(x.dtype, copy=False))]


def _backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    x = inputs[0]
    if x.dtype.kind != "f":
        return [None]
    ry, rx = _matrices(xp, attrs, x.shape, x.dtype)
    return [_apply(xp, out_grads[0], ry.T, rx.T)]


def _infer(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [s], [None]
    _check(s)
    h, w = s[-3], s[-2]
    if not h or not w:
        return [s], [None]
    oh, ow = _out_hw(attrs, h, w, s)
    return [s], [tuple(s[:-3]) + (oh, ow, s[-1])]


register(OpDef(_OP, _forward, backward=_backward,
               attrs={"size": Attr("shape", ()), "keep_ratio": Attr("bool", False),
                      "interp": Attr("int", 1)},
               infer_shape=_infer, backward_uses=("inputs",),
               doc="Resize (H, W, C) / (N, H, W, C) images (bilinear or nearest)."))
