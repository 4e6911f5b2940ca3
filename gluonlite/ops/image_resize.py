"""``_image_resize`` (``nd.image.resize``): resize ``(H, W, C)`` or
``(N, H, W, C)`` images.

``size`` is ``(width, height)`` or one number: both edges, or with
``keep_ratio`` the short edge (the long edge becomes
``int(long * size / short)``).  ``interp`` follows OpenCV: 0 nearest neighbour
(``src = floor(dst * in / out)``), 1 bilinear (default; pixel centres at ``+0.5``,
borders replicated), 2 bicubic (a = -0.75), 3 area (cell averages when no axis grows,
else OpenCV's area-placed linear taps), 4 Lanczos-4.  The resampling is two matmuls with
interpolation matrices (one per axis), so backward is their transpose.  Integer
images are computed in float32 and rounded: OpenCV's fixed-point arithmetic can
differ from that by 1 on ``uint8`` images when upscaling.
"""
from __future__ import annotations

import functools

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


def _taps(m, rows, first, weights, n_in):
    """Add ``weights[:, k]`` at source ``first + k`` (clamped: borders replicate)."""
    for k in range(weights.shape[1]):
        np.add.at(m, (rows, np.clip(first + k, 0, n_in - 1)), weights[:, k])


def _cubic_weights(x):
    """OpenCV's bicubic kernel (a = -0.75) at offsets -1, 0, 1, 2 from ``floor(f)``."""
    a = -0.75
    w0 = ((a * (x + 1) - 5 * a) * (x + 1) + 8 * a) * (x + 1) - 4 * a
    w1 = ((a + 2) * x - (a + 3)) * x * x + 1
    w2 = ((a + 2) * (1 - x) - (a + 3)) * (1 - x) * (1 - x) + 1
    return np.stack([w0, w1, w2, 1 - w0 - w1 - w2], axis=1)


_S45 = 0.70710678118654752440084436210485
# OpenCV's table of (sin, cos) factors of the 8 Lanczos-4 taps
_LANCZOS_CS = np.array([[1, 0], [-_S45, -_S45], [0, 1], [_S45, -_S45], [-1, 0], [_S45, _S45],
                        [0, -1], [-_S45, _S45]])


def _lanczos4_weights(x):
    """OpenCV's Lanczos-4 kernel at offsets -3 .. 4 from ``floor(f)``, normalized."""
    y0 = -(x + 3) * np.pi / 4
    y = -(x[:, None] + 3 - np.arange(8)[None, :]) * np.pi / 4
    with np.errstate(divide="ignore", invalid="ignore"):  # rows on a pixel are replaced
        w = (_LANCZOS_CS[:, 0] * np.sin(y0)[:, None] + _LANCZOS_CS[:, 1] * np.cos(y0)[:, None]) \
            / (y * y)
        w = w / w.sum(axis=1, keepdims=True)
    exact = x < np.finfo(np.float32).eps  # on a source pixel: that pixel alone
    w[exact] = (np.arange(8) == 3).astype(float)
    return w


def _area_box(n_in, n_out):
    """Downscaling by area: each output averages the input cells it covers."""
    scale = n_in / n_out
    m = np.zeros((n_out, n_in))
    for d in range(n_out):  # n_out rows, a handful of cells each: built once per shape
        lo, hi = d * scale, min((d + 1) * scale, n_in)
        start, stop = int(np.floor(lo)), int(np.ceil(hi))
        cells = np.arange(start, stop)
        cover = np.minimum(cells + 1, hi) - np.maximum(cells, lo)
        m[d, cells] = cover / (hi - lo)
    return m


def _interp_matrix(n_in, n_out, interp, dtype, area_box=False):
    """(n_out, n_in) matrix mapping an axis of length ``n_in`` to ``n_out``."""
    # OpenCV's scale is 1 / (n_out / n_in), which can be one ulp below n_in / n_out: at
    # exact boundaries (48 -> 74, column 37) nearest picks the lower source pixel
    scale = 1.0 / (n_out / n_in)
    m = np.zeros((n_out, n_in), dtype=np.float64)
    rows = np.arange(n_out)
    if interp == 0:
        src = np.minimum(np.floor(rows * scale).astype(np.int64), n_in - 1)
        m[rows, src] = 1.0
        return m.astype(dtype)
    if interp == 3 and area_box:
        return _area_box(n_in, n_out).astype(dtype)
    if interp == 3:
        # OpenCV's area method when some axis grows: linear taps placed by cell overlap
        # (its offsets are doubles rounded to float, then floored)
        i0 = np.floor(rows * scale).astype(np.int64)
        a = ((rows + 1) - (i0 + 1) * (n_out / n_in)).astype(np.float32).astype(np.float64)
        a = np.where(a <= 0, 0.0, a - np.floor(a))
    else:
        f = ((rows + 0.5) * scale - 0.5).astype(np.float32).astype(np.float64)
        i0 = np.floor(f).astype(np.int64)
        a = f - i0
    if interp == 2:
        _taps(m, rows, i0 - 1, _cubic_weights(a), n_in)
        return m.astype(dtype)
    if interp == 4:
        _taps(m, rows, i0 - 3, _lanczos4_weights(a), n_in)
        return m.astype(dtype)
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
    if attrs.interp not in (0, 1, 2, 3, 4):
        fail(_OP, f"interp={attrs.interp} is not an OpenCV interpolation (0-4)", shape)
    oh, ow = _out_hw(attrs, h, w, shape)
    # OpenCV averages cells only when neither axis grows
    box = h >= oh and w >= ow
    return (xp.asarray(_interp_matrix(h, oh, attrs.interp, dtype, box)),
            xp.asarray(_interp_matrix(w, ow, attrs.interp, dtype, box)))


def _compute_dtype(dtype):
    return np.dtype(dtype) if np.dtype(dtype).kind == "f" else np.dtype(np.float32)


def _apply(xp, x, ry, rx):
    # (..., H, W, C) -> (..., oh, W, C) -> (..., oh, ow, C)
    y = xp.matmul(ry, x.reshape(x.shape[:-3] + (x.shape[-3], -1)))
    y = y.reshape(x.shape[:-3] + (ry.shape[0], x.shape[-2], x.shape[-1]))
    return xp.matmul(rx, y)


@functools.lru_cache(maxsize=256)
def _nonzero_taps(n_in: int, n_out: int, interp: int, dtype, box: bool):
    """``(index, weight)`` arrays (n_out, K): the nonzero entries of each row of the
    interpolation matrix (a few per output pixel: 2 for bilinear, 4 bicubic, ...)."""
    m = _interp_matrix(n_in, n_out, interp, dtype, box)
    k = max(int((m != 0).sum(axis=1).max()), 1)
    order = np.argsort(m == 0, axis=1, kind="stable")[:, :k]
    return order, np.take_along_axis(m, order, axis=1)


def _apply_taps(x, oh: int, ow: int, interp: int, cdt):
    """The same resampling as :func:`_apply` on the CPU, summing only the nonzero taps
    of each axis (the dense matmuls cost O(H*W) per output pixel)."""
    h, w = x.shape[-3], x.shape[-2]
    box = h >= oh and w >= ow
    lead = x.ndim - 3
    src = x.astype(cdt, copy=False)
    result = src
    for axis, (n_in, n_out) in ((lead, (h, oh)), (lead + 1, (w, ow))):
        index, weight = _nonzero_taps(n_in, n_out, interp, np.dtype(cdt), box)
        shape = [1] * result.ndim
        shape[axis] = n_out
        acc = np.take(result, index[:, 0], axis=axis)
        acc *= weight[:, 0].reshape(shape)
        for k in range(1, index.shape[1]):
            tap = np.take(result, index[:, k], axis=axis)
            tap *= weight[:, k].reshape(shape)
            acc += tap
        result = acc
    return result


def resize_numpy(img: np.ndarray, w: int, h: int, interp: int) -> np.ndarray:
    """A NumPy ``(..., H, W, C)`` image resized to ``(h, w)`` exactly as the operator
    does (OpenCV interpolation codes 0-4; integers rounded and clipped)."""
    cdt = _compute_dtype(img.dtype)
    y = _apply_taps(img, h, w, interp, cdt)
    if img.dtype.kind in "iu":
        info = np.iinfo(img.dtype)
        y = np.clip(np.rint(y), info.min, info.max)
    return y.astype(img.dtype, copy=False)


def _forward(oc, attrs, inputs, out):
    xp = oc.xp
    x = inputs[0]
    _check(x.shape)
    cdt = _compute_dtype(x.dtype)
    if attrs.interp not in (0, 1, 2, 3, 4):
        fail(_OP, f"interp={attrs.interp} is not an OpenCV interpolation (0-4)", x.shape)
    if xp is np:
        oh, ow = _out_hw(attrs, x.shape[-3], x.shape[-2], x.shape)
        y = _apply_taps(x, oh, ow, attrs.interp, cdt)
    else:
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
               doc="Resize (H, W, C) / (N, H, W, C) images (OpenCV's interpolations)."))
