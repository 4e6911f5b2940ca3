"""Resizing operators: ``UpSampling``, ``_contrib_BilinearResize2D`` and
``_contrib_AdaptiveAvgPooling2D``.

Bilinear resizing and adaptive average pooling are separable linear maps, so
each is written as two small interpolation matrices ``Ry`` ``(out_h, H)`` and
``Rx`` ``(out_w, W)``: ``out = Ry @ x @ Rx.T`` (two batched matmuls) and the
gradient is ``Ry.T @ dy @ Rx``.

``UpSampling`` with ``sample_type='nearest'`` repeats each pixel; several
inputs are each brought to ``scale`` times the first input's size and then
concatenated along channels (``multi_input_mode='concat'``) or added
(``'sum'``).  ``sample_type='bilinear'`` is MXNet's grouped ``Deconvolution``
with a learnable ``weight`` of shape ``(num_filter, 1, k, k)``,
``k = 2 * scale - scale % 2``, stride ``scale``, pad ``ceil((scale - 1) / 2)``.
"""
from __future__ import annotations

import math

import numpy as np

from .attrs import Attr
from .common import fail, merge_shapes, put
from .registry import OpDef, get_op, register


def _apply(xp, x, ry, rx):
    """``ry @ x @ rx.T`` over the last two axes, with ``ry``/``rx`` NumPy matrices."""
    ry = xp.asarray(ry.astype(x.dtype))
    rx = xp.asarray(rx.astype(x.dtype))
    return xp.matmul(xp.matmul(ry, x), rx.T)


def _check4d(op, x):
    if x.ndim != 4:
        fail(op, "data must be 4-D (N, C, H, W)", x.shape)


# -- BilinearResize2D ---------------------------------------------------------------------
_BIL = "_contrib_BilinearResize2D"


def _bilinear_matrix(n_in: int, n_out: int, align_corners: bool) -> np.ndarray:
    """Interpolation matrix ``(n_out, n_in)`` of 1-D linear resizing."""
    i = np.arange(n_out, dtype=np.float64)
    if align_corners:
        scale = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
        src = i * scale
    else:
        src = np.maximum((i + 0.5) * (n_in / n_out) - 0.5, 0.0)
    i0 = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    i1 = np.minimum(i0 + 1, n_in - 1)
    frac = src - i0
    m = np.zeros((n_out, n_in))
    np.add.at(m, (np.arange(n_out), i0), 1.0 - frac)
    np.add.at(m, (np.arange(n_out), i1), frac)
    return m


def _resize_len(mode: str, n: int, size: int, scale) -> int:
    if mode == "size":
        return int(n * scale) if scale is not None else size
    if mode == "odd_scale":
        if scale is None:
            fail(_BIL, "mode 'odd_scale' needs scale_height and scale_width")
        return int((n - 1) * scale + 1) if n % 2 else int(n * scale)
    if mode == "to_even_down":
        return n - n % 2
    if mode == "to_even_up":
        return n + n % 2
    if mode == "to_odd_down":
        return n - 1 + n % 2
    if mode == "to_odd_up":
        return n + 1 - n % 2
    fail(_BIL, f"unknown mode {mode}")


def _bil_out_hw(attrs, shape, like_shape=None):
    h, w = shape[2], shape[3]
    if attrs.mode == "like":
        if like_shape is None:
            return 0, 0
        return like_shape[2], like_shape[3]
    oh = _resize_len(attrs.mode, h, attrs.height, attrs.scale_height)
    ow = _resize_len(attrs.mode, w, attrs.width, attrs.scale_width)
    if oh <= 0 or ow <= 0:
        fail(_BIL, f"output size ({oh}, {ow}) must be positive", shape)
    return oh, ow


def _bil_mats(attrs, x_shape, like_shape):
    oh, ow = _bil_out_hw(attrs, x_shape, like_shape)
    return (_bilinear_matrix(x_shape[2], oh, attrs.align_corners),
            _bilinear_matrix(x_shape[3], ow, attrs.align_corners))


def _bil_forward(oc, attrs, inputs, out):
    x = inputs[0]
    _check4d(_BIL, x)
    like = inputs[1].shape if len(inputs) > 1 else None
    ry, rx = _bil_mats(attrs, x.shape, like)
    return [put(out, 0, _apply(oc.xp, x, ry, rx))]


def _bil_backward(oc, attrs, inputs, outputs, out_grads):
    x = inputs[0]
    like = inputs[1].shape if len(inputs) > 1 else None
    ry, rx = _bil_mats(attrs, x.shape, like)
    dx = _apply(oc.xp, out_grads[0].astype(x.dtype, copy=False), ry.T, rx.T)
    grads = [dx]
    if len(inputs) > 1:
        grads.append(oc.xp.zeros(inputs[1].shape, dtype=inputs[1].dtype))
    return grads


def _bil_infer(attrs, in_shapes):
    data = in_shapes[0]
    if data is None:
        return list(in_shapes), [None]
    if len(data) != 4:
        fail(_BIL, "data must be 4-D (N, C, H, W)", data)
    like = in_shapes[1] if len(in_shapes) > 1 else None
    if attrs.mode != "like" and not (data[2] and data[3]):
        return list(in_shapes), [tuple(data[:2]) + (0, 0)]
    oh, ow = _bil_out_hw(attrs, data, like)
    return list(in_shapes), [tuple(data[:2]) + (oh, ow)]


register(OpDef(
    _BIL, _bil_forward, backward=_bil_backward,
    attrs={"height": Attr("int", 1), "width": Attr("int", 1),
           "scale_height": Attr("float", None, optional=True),
           "scale_width": Attr("float", None, optional=True),
           "mode": Attr("str", "size", choices=("like", "odd_scale", "size", "to_even_down",
                                                "to_even_up", "to_odd_down", "to_odd_up")),
           "align_corners": Attr("bool", True)},
    inputs=lambda attrs: ("data", "like") if attrs.mode == "like" else ("data",),
    infer_shape=_bil_infer, backward_uses=("inputs",),
    doc="Bilinear resizing of NCHW data (MXNet ``contrib.BilinearResize2D``)."))


# -- AdaptiveAvgPooling2D -----------------------------------------------------------------
_ADA = "_contrib_AdaptiveAvgPooling2D"


def _ada_size(attrs):
    s = tuple(attrs.output_size)
    if len(s) == 0:
        return 1, 1
    if len(s) == 1:
        return s[0], s[0]
    if len(s) != 2:
        fail(_ADA, f"output_size must have 1 or 2 entries, got {s}")
    return s


def _avg_matrix(n_in: int, n_out: int) -> np.ndarray:
    """Averaging matrix ``(n_out, n_in)``: bin ``i`` is ``[floor(i n/o), ceil((i+1) n/o))``."""
    m = np.zeros((n_out, n_in))
    for i in range(n_out):  # loop over output bins of the small matrix only
        a = (i * n_in) // n_out
        b = -(-((i + 1) * n_in) // n_out)
        m[i, a:b] = 1.0 / (b - a)
    return m


def _ada_forward(oc, attrs, inputs, out):
    x = inputs[0]
    _check4d(_ADA, x)
    oh, ow = _ada_size(attrs)
    return [put(out, 0, _apply(oc.xp, x, _avg_matrix(x.shape[2], oh),
                               _avg_matrix(x.shape[3], ow)))]


def _ada_backward(oc, attrs, inputs, outputs, out_grads):
    x = inputs[0]
    oh, ow = _ada_size(attrs)
    ry, rx = _avg_matrix(x.shape[2], oh), _avg_matrix(x.shape[3], ow)
    return [_apply(oc.xp, out_grads[0].astype(x.dtype, copy=False), ry.T, rx.T)]


def _ada_infer(attrs, in_shapes):
    data = in_shapes[0]
    if data is None:
        return [None], [None]
    if len(data) != 4:
        fail(_ADA, "data must be 4-D (N, C, H, W)", data)
    return [data], [tuple(data[:2]) + tuple(_ada_size(attrs))]


register(OpDef(
    _ADA, _ada_forward, backward=_ada_backward, attrs={"output_size": Attr("shape", ())},
    infer_shape=_ada_infer, backward_uses=("inputs",),
    doc="Adaptive average pooling of NCHW data (MXNet ``contrib.AdaptiveAvgPooling2D``)."))


# -- UpSampling ---------------------------------------------------------------------------
_UP = "UpSampling"


def _up_inputs(attrs):
    if attrs.sample_type == "bilinear":
        return ("data", "weight")
    return tuple(f"arg{i}" for i in range(attrs.num_args))


def _bilinear_deconv_attrs(attrs, channels: int):
    s = attrs.scale
    k = 2 * s - s % 2
    p = int(math.ceil((s - 1) / 2.0))
    nf = attrs.num_filter or channels
    return get_op("Deconvolution").parse_attrs(dict(
        kernel=(k, k), stride=(s, s), pad=(p, p), num_filter=nf, num_group=nf,
        no_bias=True))


def _nearest_factors(shapes, scale):
    oh, ow = shapes[0][2] * scale, shapes[0][3] * scale
    factors = []
    for s in shapes:
        if oh % s[2] or ow % s[3]:
            fail(_UP, f"input of shape {tuple(s)} cannot be upsampled to ({oh}, {ow}) by an "
                      "integer factor", *shapes)
        factors.append((oh // s[2], ow // s[3]))
    return factors


def _repeat2d(xp, x, fy, fx):
    n, c, h, w = x.shape
    y = xp.broadcast_to(x[:, :, :, None, :, None], (n, c, h, fy, w, fx))
    return y.reshape(n, c, h * fy, w * fx)


def _up_forward(oc, attrs, inputs, out):
    xp = oc.xp
    if attrs.sample_type == "bilinear":
        x, w = inputs
        _check4d(_UP, x)
        dattrs = _bilinear_deconv_attrs(attrs, x.shape[1])
        return get_op("Deconvolution").forward(oc, dattrs, [x, w], out)
    for x in inputs:
        _check4d(_UP, x)
    factors = _nearest_factors([x.shape for x in inputs], attrs.scale)
    ups = [_repeat2d(xp, x, fy, fx) for x, (fy, fx) in zip(inputs, factors)]
    if len(ups) == 1:
        y = xp.ascontiguousarray(ups[0]) if out is None else ups[0]
    elif attrs.multi_input_mode == "sum":
        y = ups[0] + ups[1]
        for u in ups[2:]:
            y += u
    else:
        y = xp.concatenate(ups, axis=1)
    return [put(out, 0, y)]


def _up_backward(oc, attrs, inputs, outputs, out_grads):
    dy = out_grads[0]
    if attrs.sample_type == "bilinear":
        x, w = inputs
        dattrs = _bilinear_deconv_attrs(attrs, x.shape[1])
        return get_op("Deconvolution").backward(oc, dattrs, [x, w], outputs, out_grads)
    factors = _nearest_factors([x.shape for x in inputs], attrs.scale)
    grads = []
    c0 = 0
    for x, (fy, fx) in zip(inputs, factors):
        n, c, h, w = x.shape
        if attrs.multi_input_mode == "sum" and len(inputs) > 1:
            g = dy
        else:
            g = dy[:, c0:c0 + c]
            c0 += c
        grads.append(g.reshape(n, c, h, fy, w, fx).sum(axis=(3, 5)).astype(x.dtype,
                                                                         copy=False))
    return grads


def _up_infer(attrs, in_shapes):
    if attrs.sample_type == "bilinear":
        data, weight = in_shapes
        if data is None:
            return [data, weight], [None]
        nf = attrs.num_filter or data[1]
        k = 2 * attrs.scale - attrs.scale % 2
        weight = merge_shapes(_UP, "weight", (nf, 1, k, k), weight)
        return [data, weight], [(data[0], data[1], data[2] * attrs.scale,
                                 data[3] * attrs.scale)]
    if any(s is None for s in in_shapes):
        return list(in_shapes), [None]
    for s in in_shapes:
        if len(s) != 4:
            fail(_UP, "inputs must be 4-D (N, C, H, W)", *in_shapes)
    first = in_shapes[0]
    oh, ow = first[2] * attrs.scale, first[3] * attrs.scale
    if attrs.multi_input_mode == "sum":
        c = first[1]
    else:
        c = sum(s[1] for s in in_shapes)
    return list(in_shapes), [(first[0], c, oh, ow)]


register(OpDef(
    _UP, _up_forward, backward=_up_backward,
    attrs={"scale": Attr("int"), "num_filter": Attr("int", 0),
           "sample_type": Attr("str", choices=("bilinear", "nearest")),
           "multi_input_mode": Attr("str", "concat", choices=("concat", "sum")),
           "num_args": Attr("int", 1), "workspace": Attr("int", 512)},
    inputs=_up_inputs, key_var_num_args="num_args", infer_shape=_up_infer,
    backward_uses=("inputs",),
    doc="Nearest-neighbour or bilinear (deconvolution) upsampling (MXNet ``UpSampling``)."))
