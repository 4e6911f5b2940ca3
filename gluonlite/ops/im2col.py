"""``im2col`` and ``col2im``: MXNet 1.9's sliding-block operators.

``im2col(data, kernel, stride, dilate, pad)`` turns ``(N, C, *S)`` data (1 to 3
spatial axes) into columns ``(N, C * prod(kernel), prod(out))``, where ``out`` is
the spatial size a convolution with the same attributes would produce.  Row
``c * prod(kernel) + k`` holds channel ``c`` under kernel offset ``k`` (row-major
over the kernel axes), column ``p`` the output position (row-major).  Windows read
zeros in the padding.

``col2im(data, output_size, kernel, stride, dilate, pad)`` is its adjoint: it sums
columns ``(N, C * prod(kernel), prod(out))`` back into ``(N, C, *output_size)``
(overlapping windows add up, padding is dropped).  Each is the other's gradient.

Both are built on the window helpers of :mod:`gluonlite.ops._window` (one strided
copy or add per kernel offset on NumPy, one generated kernel on CuPy).
"""
from __future__ import annotations

import numpy as np

from .attrs import Attr
from .common import fail, put
from .registry import OpAttrs, OpDef, register
from ._window import col2im as _col2im, conv_out_size, im2col as _im2col, spatial_tuple

_IM2COL = "im2col"
_COL2IM = "col2im"


def _geometry(op: str, attrs: OpAttrs) -> tuple[tuple, tuple, tuple, tuple]:
    """``(kernel, stride, dilate, pad)`` as tuples of ``len(kernel)`` entries."""
    kernel = tuple(int(k) for k in attrs.kernel)
    nd = len(kernel)
    if not 1 <= nd <= 3:
        fail(op, f"kernel must have 1 to 3 entries (spatial axes), got {kernel}")
    if any(k <= 0 for k in kernel):
        fail(op, f"kernel entries must be positive, got {kernel}")
    stride = spatial_tuple(op, "stride", attrs.stride, nd, 1)
    dilate = spatial_tuple(op, "dilate", attrs.dilate, nd, 1)
    pad = spatial_tuple(op, "pad", attrs.pad, nd, 0)
    if any(s <= 0 for s in stride) or any(d <= 0 for d in dilate):
        fail(op, f"stride and dilate must be positive, got stride={stride}, dilate={dilate}")
    return kernel, stride, dilate, pad


def _out_sizes(op: str, spatial, kernel, stride, dilate, pad) -> tuple:
    """Spatial size of the block grid; a kernel extent past the padded input fails."""
    for s, k, d, p in zip(spatial, kernel, dilate, pad):
        if s and d * (k - 1) + 1 > s + 2 * p:
            fail(op, f"kernel {kernel} with dilate {dilate} does not fit the spatial size "
                     f"{tuple(spatial)} padded by {pad}")
    return tuple(conv_out_size(op, s, k, st, d, p)
                 for s, k, st, d, p in zip(spatial, kernel, stride, dilate, pad))


def _prod(values) -> int:
    return int(np.prod(values, dtype=np.int64)) if len(values) else 1


def _columns(xp, x, kernel, stride, dilate, pad, out_sizes):
    """Columns of ``x`` as ``(N, C * prod(kernel), prod(out))`` (a fresh array or a
    transposed view of one)."""
    n, c = x.shape[:2]
    col = _im2col(xp, x, out_sizes, kernel, stride, dilate, role=None, pad=pad)
    return col.reshape(c * _prod(kernel), n, _prod(out_sizes)).transpose(1, 0, 2)


def _image(xp, cols, n: int, c: int, spatial, kernel, stride, dilate, pad, out_sizes):
    """Columns ``(N, C * prod(kernel), prod(out))`` summed into ``(N, C, *spatial)``."""
    nd = len(kernel)
    dcol = cols.reshape((n, c) + tuple(kernel) + tuple(out_sizes))
    dcol = dcol.transpose((1,) + tuple(range(2, 2 + nd)) + (0,) + tuple(range(2 + nd, 2 + 2 * nd)))
    dcol = xp.ascontiguousarray(dcol)
    padded = tuple(s + 2 * p for s, p in zip(spatial, pad))
    img = _col2im(xp, dcol, (c, n) + padded, out_sizes, kernel, stride, dilate,
                  crop=(pad, tuple(spatial)))
    return img.swapaxes(0, 1)


# -- im2col ---------------------------------------------------------------------------
def _im2col_infer(attrs: OpAttrs, in_shapes: list):
    kernel, stride, dilate, pad = _geometry(_IM2COL, attrs)
    data = in_shapes[0]
    if data is None:
        return [None], [None]
    if len(data) != len(kernel) + 2:
        fail(_IM2COL, f"data must have {len(kernel) + 2} dimensions for a "
                      f"{len(kernel)}-D kernel {kernel}", data)
    spatial = tuple(data[2:])
    blocks = 0
    if all(spatial):
        blocks = _prod(_out_sizes(_IM2COL, spatial, kernel, stride, dilate, pad))
    return [tuple(data)], [(data[0], data[1] * _prod(kernel), blocks)]


def _im2col_forward(oc, attrs, inputs, out):
    xp = oc.xp
    x = inputs[0]
    _im2col_infer(attrs, [x.shape])
    kernel, stride, dilate, pad = _geometry(_IM2COL, attrs)
    out_sizes = _out_sizes(_IM2COL, x.shape[2:], kernel, stride, dilate, pad)
    cols = _columns(xp, x, kernel, stride, dilate, pad, out_sizes)
    if out is not None:
        return [put(out, 0, cols)]
    return [xp.ascontiguousarray(cols)]


def _im2col_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    x = inputs[0]
    kernel, stride, dilate, pad = _geometry(_IM2COL, attrs)
    out_sizes = _out_sizes(_IM2COL, x.shape[2:], kernel, stride, dilate, pad)
    img = _image(xp, out_grads[0], x.shape[0], x.shape[1], x.shape[2:], kernel, stride,
                 dilate, pad, out_sizes)
    return [img.astype(x.dtype, copy=True)]


_WINDOW_ATTRS = {
    "kernel": Attr("shape"),
    "stride": Attr("shape", ()),
    "dilate": Attr("shape", ()),
    "pad": Attr("shape", ()),
}

register(OpDef(
    _IM2COL, _im2col_forward, backward=_im2col_backward, attrs=dict(_WINDOW_ATTRS),
    inputs=("data",), infer_shape=_im2col_infer, backward_uses=("inputs",),
    doc="Sliding blocks of ``(N, C, *S)`` data as columns ``(N, C*prod(kernel), L)``."))


# -- col2im ---------------------------------------------------------------------------
def _col2im_infer(attrs: OpAttrs, in_shapes: list):
    kernel, stride, dilate, pad = _geometry(_COL2IM, attrs)
    size = tuple(int(s) for s in attrs.output_size)
    if len(size) != len(kernel):
        fail(_COL2IM, f"output_size {size} must have as many entries as kernel {kernel}")
    if any(s <= 0 for s in size):
        fail(_COL2IM, f"output_size entries must be positive, got {size}")
    blocks = _prod(_out_sizes(_COL2IM, size, kernel, stride, dilate, pad))
    block = _prod(kernel)
    data = in_shapes[0]
    if data is None:
        return [None], [None]
    if len(data) != 3:
        fail(_COL2IM, "data must be 3-D (N, C * prod(kernel), L)", data)
    if data[1] and data[1] % block:
        fail(_COL2IM, f"data's dimension 1 ({data[1]}) is not a multiple of "
                      f"prod(kernel) = {block} for kernel {kernel}", data)
    if data[2] and data[2] != blocks:
        fail(_COL2IM, f"data has {data[2]} blocks, but output_size {size} with kernel "
                      f"{kernel}, stride {stride}, dilate {dilate}, pad {pad} gives {blocks}",
             data)
    return [(data[0], data[1], blocks)], [(data[0], data[1] // block) + size]


def _col2im_forward(oc, attrs, inputs, out):
    xp = oc.xp
    cols = inputs[0]
    _col2im_infer(attrs, [cols.shape])
    kernel, stride, dilate, pad = _geometry(_COL2IM, attrs)
    size = tuple(int(s) for s in attrs.output_size)
    out_sizes = _out_sizes(_COL2IM, size, kernel, stride, dilate, pad)
    c = cols.shape[1] // _prod(kernel)
    img = _image(xp, cols, cols.shape[0], c, size, kernel, stride, dilate, pad, out_sizes)
    if out is not None:
        return [put(out, 0, img)]
    return [img.astype(cols.dtype, copy=True)]  # the image may live in a scratch buffer


def _col2im_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    cols = inputs[0]
    kernel, stride, dilate, pad = _geometry(_COL2IM, attrs)
    size = tuple(int(s) for s in attrs.output_size)
    out_sizes = _out_sizes(_COL2IM, size, kernel, stride, dilate, pad)
    grad = _columns(xp, out_grads[0], kernel, stride, dilate, pad, out_sizes)
    return [xp.ascontiguousarray(grad).astype(cols.dtype, copy=False)]


register(OpDef(
    _COL2IM, _col2im_forward, backward=_col2im_backward,
    attrs={"output_size": Attr("shape"), **_WINDOW_ATTRS},
    inputs=("data",), infer_shape=_col2im_infer, backward_uses=("inputs",),
    doc="Sum columns ``(N, C*prod(kernel), L)`` back into ``(N, C, *output_size)``."))
