"""ONNX conversions of layers: convolutions, dense, normalizations, pooling, embedding
and the softmax family (see :mod:`gluonlite.ops.onnx_export`)."""
from __future__ import annotations

import numpy as np

from .onnx_export import register, scalar


# -- layers -----------------------------------------------------------------------------
def _pads(pad, nd):
    pad = tuple(pad) or (0,) * nd
    return list(pad) + list(pad)


def _channel_first(n):
    if getattr(n.attrs, "layout", None) not in (None, "NCW", "NCHW", "NCDHW"):
        raise n.unsupported(f"layout={n.attrs.layout!r} (ONNX convolutions are channel-first)")


@register("Convolution")
def _convolution(b, n):
    _channel_first(n)
    a = n.attrs
    nd = len(a.kernel)
    b.node("Conv", n.inputs, outputs=n.outputs, kernel_shape=list(a.kernel),
           strides=list(a.stride or (1,) * nd), dilations=list(a.dilate or (1,) * nd),
           pads=_pads(a.pad, nd), group=int(a.num_group))


@register("Deconvolution")
def _deconvolution(b, n):
    _channel_first(n)
    a = n.attrs
    nd = len(a.kernel)
    stride = list(a.stride or (1,) * nd)
    dilate = list(a.dilate or (1,) * nd)
    begin, end, out_pad = [], [], []
    target = tuple(a.target_shape or ())
    for j in range(nd):
        full = (n.in_shapes[0][2 + j] - 1) * stride[j] + dilate[j] * (a.kernel[j] - 1) + 1
        if target and target[j] > 0:
            # MXNet pads ceil(total / 2) on both sides and takes the odd one back at the
            # end (``adj``): the begin side gets the larger half
            total = full - target[j]
            if total < 0:
                raise n.unsupported(f"target_shape {target} larger than the full output")
            begin.append((total + 1) // 2)
            end.append(total - (total + 1) // 2)
            out_pad.append(0)
        else:
            pad = (tuple(a.pad) or (0,) * nd)[j]
            begin.append(pad)
            end.append(pad)
            out_pad.append((tuple(a.adj) or (0,) * nd)[j])
    b.node("ConvTranspose", n.inputs, outputs=n.outputs, kernel_shape=list(a.kernel),
           strides=stride, dilations=dilate, pads=begin + end, group=int(a.num_group),
           output_padding=out_pad)


@register("FullyConnected")
def _fully_connected(b, n):
    x, w = n.inputs[0], n.inputs[1]
    bias = [] if n.attrs.no_bias else [n.inputs[2]]
    if n.attrs.flatten or len(n.in_shapes[0]) == 2:
        if len(n.in_shapes[0]) != 2:
            x = b.node("Flatten", [x], axis=1)[0]
        b.node("Gemm", [x, w] + bias, outputs=n.outputs, alpha=1.0, beta=1.0, transA=0,
               transB=1)
        return
    wt = b.node("Transpose", [w], perm=[1, 0])
    if not bias:
        b.node("MatMul", [x, wt[0]], outputs=n.outputs)
        return
    b.node("Add", [b.node("MatMul", [x, wt[0]])[0], bias[0]], outputs=n.outputs)


@register("BatchNorm")
def _batch_norm(b, n):
    a = n.attrs
    axis = a.axis % len(n.in_shapes[0])
    if axis != 1:
        raise n.unsupported(f"axis={a.axis} (ONNX normalizes axis 1)")
    gamma = n.inputs[1]
    if a.fix_gamma:
        gamma = b.const(np.ones(n.in_shapes[1], n.in_dtypes[1]), "gamma_fixed")
    b.node("BatchNormalization", [n.inputs[0], gamma] + list(n.inputs[2:5]),
           outputs=n.outputs[:1], epsilon=float(a.eps), momentum=float(a.momentum))


@register("InstanceNorm")
def _instance_norm(b, n):
    b.node("InstanceNormalization", n.inputs, outputs=n.outputs, epsilon=float(n.attrs.eps))


@register("LayerNorm")
def _layer_norm(b, n):
    """mean and variance over ``axis``, as opset 13 has no LayerNormalization."""
    a = n.attrs
    ndim = len(n.in_shapes[0])
    axis = a.axis % ndim
    dt = n.in_dtypes[0]
    x, gamma, beta = n.inputs[:3]
    mean = b.node("ReduceMean", [x], axes=[axis], keepdims=1)
    centered = b.node("Sub", [x, mean[0]])
    var = b.node("ReduceMean", [b.node("Mul", [centered[0], centered[0]])[0]], axes=[axis],
                 keepdims=1)
    std = b.node("Sqrt", [b.node("Add", [var[0], scalar(b, a.eps, dt)])[0]])
    normed = b.node("Div", [centered[0], std[0]])
    if axis != ndim - 1:  # gamma and beta run along ``axis``
        shape = [-1] + [1] * (ndim - 1 - axis)
        gamma = b.node("Reshape", [gamma, b.ints(shape, "shape")])[0]
        beta = b.node("Reshape", [beta, b.ints(shape, "shape")])[0]
    b.node("Add", [b.node("Mul", [normed[0], gamma])[0], beta], outputs=n.outputs[:1])


@register("L2Normalization")
def _l2_normalization(b, n):
    a = n.attrs
    ndim = len(n.in_shapes[0])
    axes = {"instance": list(range(1, ndim)), "channel": [1],
            "spatial": list(range(2, ndim))}[a.mode]
    x = n.inputs[0]
    dt = n.in_dtypes[0]
    sq = b.node("ReduceSum", [b.node("Mul", [x, x])[0], b.ints(axes, "axes")], keepdims=1)
    norm = b.node("Sqrt", [b.node("Add", [sq[0], scalar(b, a.eps, dt)])[0]])
    b.node("Div", [x, norm[0]], outputs=n.outputs)


@register("LRN")
def _lrn(b, n):
    a = n.attrs
    b.node("LRN", n.inputs, outputs=n.outputs[:1], size=int(a.nsize), alpha=float(a.alpha),
           beta=float(a.beta), bias=float(a.knorm))


@register("Embedding")
def _embedding(b, n):
    idx = b.node("Cast", n.inputs[:1], to=b.tensor_type(np.dtype(np.int64)))
    b.node("Gather", [n.inputs[1], idx[0]], outputs=n.outputs, axis=0)


# -- softmax ---------------------------------------------------------------------------
def _temperature(b, n, x):
    t = getattr(n.attrs, "temperature", None)
    if t is None or t == 1.0:
        return x
    return b.node("Div", [x, scalar(b, t, n.in_dtypes[0])])[0]


@register("softmax", "log_softmax")
def _softmax(b, n):
    kind = "Softmax" if n.op_name == "softmax" else "LogSoftmax"
    axis = int(n.attrs.axis)
    x = _temperature(b, n, n.inputs[0])
    cast = n.out_dtypes[0] != n.in_dtypes[0]   # ``dtype`` asks for another output dtype
    if getattr(n.attrs, "use_length", False):
        _softmax_length(b, n, kind, x, axis, cast)
        return
    if not cast:
        b.node(kind, [x], outputs=n.outputs, axis=axis)
        return
    out = b.node(kind, [x], axis=axis)
    b.node("Cast", out, outputs=n.outputs, to=b.tensor_type(n.out_dtypes[0]))


def _softmax_length(b, n, kind, x, axis, cast):
    """Softmax over the first ``length`` positions along ``axis``, 0 past them (and
    everywhere for a length of 0): the positions past the length are set to the lowest
    value before the softmax and to 0 after it."""
    dt = n.in_dtypes[0]
    ndim = len(n.in_shapes[0])
    axis %= ndim
    pos_shape = [1] * ndim
    pos_shape[axis] = -1
    steps = b.node("Gather", [b.node("Shape", n.inputs[:1])[0],
                              b.const(np.array(axis, np.int64), "axis")], axis=0)
    pos = b.node("Range", [b.const(np.array(0, np.int64), "start"), steps[0],
                           b.const(np.array(1, np.int64), "delta")])
    pos = b.node("Reshape", [pos[0], b.ints(pos_shape, "shape")])[0]
    length = b.node("Cast", [n.inputs[1]], to=b.tensor_type(np.dtype(np.int64)))
    length = b.node("Unsqueeze", [length[0], b.ints([axis], "axes")])
    inside = b.node("Less", [pos, length[0]])
    lowest = np.finfo(dt).min if dt.kind == "f" else np.iinfo(dt).min
    masked = b.node("Where", [inside[0], x, scalar(b, lowest, dt, "lowest")])
    soft = b.node(kind, masked, axis=axis)
    out_dt = n.out_dtypes[0]
    if cast:
        soft = b.node("Cast", soft, to=b.tensor_type(out_dt))
    b.node("Where", [inside[0], soft[0], scalar(b, 0, out_dt, "zero")], outputs=n.outputs)


@register("SoftmaxActivation")
def _softmax_activation(b, n):
    b.node("Softmax", n.inputs[:1], outputs=n.outputs,
           axis=1 if n.attrs.mode == "channel" else -1)


def _flat_softmax(b, n):
    """Softmax over everything but axis 0, in the input's shape."""
    flat = b.node("Flatten", n.inputs[:1], axis=1)
    soft = b.node("Softmax", flat, axis=1)
    b.node("Reshape", [soft[0], b.node("Shape", n.inputs[:1])[0]], outputs=n.outputs)


@register("SoftmaxOutput")
def _softmax_output(b, n):
    """The forward of MXNet's training output layer: a softmax (the label is unused)."""
    if n.attrs.multi_output:
        b.node("Softmax", n.inputs[:1], outputs=n.outputs, axis=1)
    elif len(n.in_shapes[0]) == 2:
        b.node("Softmax", n.inputs[:1], outputs=n.outputs, axis=1)
    else:
        _flat_softmax(b, n)


@register("LinearRegressionOutput", "MAERegressionOutput")
def _regression_output(b, n):
    b.node("Identity", n.inputs[:1], outputs=n.outputs)


@register("LogisticRegressionOutput")
def _logistic_output(b, n):
    b.node("Sigmoid", n.inputs[:1], outputs=n.outputs)


def _full_extra_pad(n, j, kernel, stride, pad):
    """End padding that makes ONNX's floor-mode pooling give MXNet's ``full``
    (ceil-mode) output length along spatial axis ``j``."""
    x, out = n.in_shapes[0][2 + j], n.out_shapes[0][2 + j]
    return max(0, (out - 1) * stride + kernel - (x + 2 * pad))


@register("Pooling")
def _pooling(b, n):
    """Max, average and Lp pooling.  MXNet's ``full`` convention is not ONNX's
    ``ceil_mode`` (which drops windows that start in the padding): where it adds
    windows, the input is padded explicitly (:func:`_full_pooling`)."""
    _channel_first(n)
    a = n.attrs
    nd = len(n.in_shapes[0]) - 2
    kind = a.pool_type
    if kind not in ("max", "avg", "lp"):
        raise n.unsupported(f"pool_type={kind!r}")
    if kind == "lp" and a.p_value != 2:
        _signed_lp(b, n)
        return
    if a.global_pool:
        op = {"max": "GlobalMaxPool", "avg": "GlobalAveragePool", "lp": "GlobalLpPool"}[kind]
        extra = {"p": int(a.p_value)} if kind == "lp" else {}
        b.node(op, n.inputs, outputs=n.outputs, **extra)
        return
    if a.pooling_convention == "same":
        raise n.unsupported("pooling_convention='same'")
    kernel = list(a.kernel)
    stride = list(a.stride or (1,) * nd)
    pad = list(a.pad or (0,) * nd)
    extra = [_full_extra_pad(n, j, kernel[j], stride[j], pad[j])
             if a.pooling_convention == "full" else 0 for j in range(nd)]
    include = True if a.count_include_pad is None else bool(a.count_include_pad)
    if not any(extra):
        attrs = dict(kernel_shape=kernel, strides=stride, pads=pad + pad)
        if kind == "max":
            b.node("MaxPool", n.inputs, outputs=n.outputs, **attrs)
        elif kind == "lp":
            b.node("LpPool", n.inputs, outputs=n.outputs, p=int(a.p_value), **attrs)
        else:
            b.node("AveragePool", n.inputs, outputs=n.outputs,
                   count_include_pad=int(include), **attrs)
        return
    _full_pooling(b, n, kind, kernel, stride, pad, extra, include)


def _signed_lp(b, n):
    """MXNet's Lp pooling for ``p`` 1 and 3: ``(sum x^p)^(1/p)`` of the values themselves
    (ONNX's LpPool takes ``|x|``): a sum pooling of ``x^p`` (an average pooling over the
    padded input times the kernel size), then the signed ``p``-th root."""
    a = n.attrs
    p = int(a.p_value)
    if p not in (1, 3):
        raise n.unsupported(f"p_value={p}")
    dt = n.in_dtypes[0]
    x = n.inputs[0]
    if p == 3:
        x = b.node("Mul", [b.node("Mul", [x, x])[0], x])[0]
    spatial = n.in_shapes[0][2:]
    if a.global_pool:
        total = b.node("ReduceSum", [x, b.ints(list(range(2, 2 + len(spatial))), "axes")],
                       keepdims=1)
    else:
        kernel = list(a.kernel)
        stride = list(a.stride or (1,) * len(kernel))
        pad = list(a.pad or (0,) * len(kernel))
        extra = [_full_extra_pad(n, j, kernel[j], stride[j], pad[j])
                 if a.pooling_convention == "full" else 0 for j in range(len(kernel))]
        padded = b.node("Pad", [x, b.ints([0, 0] + pad + [0, 0] + [q + e for q, e in
                                                                    zip(pad, extra)], "pads"),
                                scalar(b, 0, dt, "value")], mode="constant")
        mean = b.node("AveragePool", padded, kernel_shape=kernel, strides=stride,
                      pads=[0] * (2 * len(kernel)))
        total = b.node("Mul", [mean[0], scalar(b, float(np.prod(kernel)), dt)])
    if p == 1:
        b.node("Identity", total, outputs=n.outputs)
        return
    root = b.node("Pow", [b.node("Abs", total)[0], scalar(b, 1.0 / 3.0, dt)])
    b.node("Mul", [root[0], b.node("Sign", total)[0]], outputs=n.outputs)


def _full_pooling(b, n, kind, kernel, stride, pad, extra, include):
    """MXNet's ``full`` convention where its last windows reach past the padding: the
    input padded explicitly (the lowest value for max, zeros otherwise: a window wholly
    in the padding gives MXNet's lowest value, or 0), then pooled without padding; an
    average is rescaled from the whole kernel to what MXNet counts (the padding too with
    ``count_include_pad``, never the extra end)."""
    n.static("the end padding of the full pooling convention")
    nd = len(kernel)
    dt = n.in_dtypes[0]
    value = np.finfo(dt).min if kind == "max" and dt.kind == "f" else 0
    pads = [0, 0] + pad + [0, 0] + [p + e for p, e in zip(pad, extra)]
    padded = b.node("Pad", [n.inputs[0], b.ints(pads, "pads"), scalar(b, value, dt, "value")],
                    mode="constant")
    attrs = dict(kernel_shape=kernel, strides=stride, pads=[0] * (2 * nd))
    if kind == "max":
        b.node("MaxPool", padded, outputs=n.outputs, **attrs)
        return
    if kind == "lp":
        b.node("LpPool", padded, outputs=n.outputs, p=int(n.attrs.p_value), **attrs)
        return
    out = b.node("AveragePool", padded, count_include_pad=1, **attrs)
    factor = np.ones((1, 1) + tuple(n.out_shapes[0][2:]), np.float64)
    for j in range(nd):
        start = np.arange(n.out_shapes[0][2 + j]) * stride[j] - pad[j]   # input coordinates
        x = n.in_shapes[0][2 + j]
        if include:
            counted = np.minimum(start + kernel[j], x + pad[j]) - start
        else:
            counted = np.minimum(start + kernel[j], x) - np.maximum(start, 0)
        shape = [1] * (nd + 2)
        shape[2 + j] = -1
        factor = factor * (kernel[j] / np.maximum(counted, 1)).reshape(shape)
    b.node("Mul", [out[0], b.const(factor.astype(dt), "count")], outputs=n.outputs)


@register("_contrib_AdaptiveAvgPooling2D")
def _adaptive_avg_pool(b, n):
    size = tuple(n.out_shapes[0][2:])
    spatial = tuple(n.in_shapes[0][2:])
    if size == (1, 1):
        b.node("GlobalAveragePool", n.inputs, outputs=n.outputs)
        return
    if any(s % o for s, o in zip(spatial, size)):
        raise n.unsupported(f"output_size {size} that does not divide the input {spatial}")
    kernel = [s // o for s, o in zip(spatial, size)]
    b.node("AveragePool", n.inputs, outputs=n.outputs, kernel_shape=kernel, strides=kernel)


@register("_contrib_BilinearResize2D")
def _bilinear_resize(b, n):
    a = n.attrs
    if len(n.inputs) != 1:
        raise n.unsupported(f"mode={a.mode!r} with a second input")
    mode = "align_corners" if a.align_corners else "pytorch_half_pixel"
    n.static("the output size")
    b.node("Resize", [n.inputs[0], "", "", b.ints(n.out_shapes[0], "sizes")],
           outputs=n.outputs, mode="linear", coordinate_transformation_mode=mode)


def _roi_batch(b, n):
    """``(boxes, clamped batch index (int64), valid mask)`` of MXNet's ``(R, 5)`` rois:
    MXNet gives zeros for a box with a negative batch index, which ONNX refuses."""
    rois = n.inputs[1]
    col = b.node("Slice", [rois, b.ints([0], "starts"), b.ints([1], "ends"),
                           b.ints([1], "axes")])
    idx = b.node("Cast", [b.node("Squeeze", [col[0], b.ints([1], "axes")])[0]],
                 to=b.tensor_type(np.dtype(np.int64)))
    zero = b.const(np.array(0, np.int64), "zero")
    valid = b.node("GreaterOrEqual", [idx[0], zero])
    idx = b.node("Max", [idx[0], zero])
    boxes = b.node("Slice", [rois, b.ints([1], "starts"), b.ints([5], "ends"),
                             b.ints([1], "axes")])
    mask = b.node("Cast", valid, to=b.tensor_type(n.out_dtypes[0]))
    mask = b.node("Reshape", [mask[0], b.ints([-1, 1, 1, 1], "shape")])
    return boxes[0], idx[0], mask[0]


@register("ROIPooling")
def _roi_pooling(b, n):
    a = n.attrs
    boxes, idx, mask = _roi_batch(b, n)
    rois = b.node("Concat", [b.node("Cast", [b.node("Unsqueeze", [idx, b.ints([1], "axes")])[0]],
                                    to=b.tensor_type(n.in_dtypes[1]))[0], boxes], axis=1)
    pooled = b.node("MaxRoiPool", [n.inputs[0], rois[0]], pooled_shape=list(a.pooled_size),
                    spatial_scale=float(a.spatial_scale))
    b.node("Mul", [pooled[0], mask], outputs=n.outputs)


@register("_contrib_ROIAlign")
def _roi_align(b, n):
    a = n.attrs
    if a.position_sensitive or a.aligned:
        raise n.unsupported("position_sensitive or aligned ROIAlign")
    boxes, idx, mask = _roi_batch(b, n)
    ratio = int(a.sample_ratio) if a.sample_ratio > 0 else 0
    pooled = b.node("RoiAlign", [n.inputs[0], boxes, idx], mode="avg",
                    output_height=int(a.pooled_size[0]),
                    output_width=int(a.pooled_size[1]), sampling_ratio=ratio,
                    spatial_scale=float(a.spatial_scale))
    b.node("Mul", [pooled[0], mask], outputs=n.outputs)


@register("SequenceMask")
def _sequence_mask(b, n):
    a = n.attrs
    if not a.use_sequence_length:
        b.node("Identity", n.inputs[:1], outputs=n.outputs)
        return
    axis = a.axis % len(n.in_shapes[0])
    steps = n.in_shapes[0][axis]
    ndim = len(n.in_shapes[0])
    # positions along the time axis, against each batch item's length (the other of
    # axes 0 and 1 is the batch)
    pos_shape = [1] * ndim
    pos_shape[axis] = steps
    pos = b.const(np.arange(steps, dtype=n.in_dtypes[1]).reshape(pos_shape), "steps")
    len_shape = [1] * ndim
    len_shape[1 - axis] = -1
    lens = b.node("Reshape", [n.inputs[1], b.ints(len_shape, "shape")])
    keep = b.node("Less", [pos, lens[0]])
    fill = scalar(b, a.value, n.in_dtypes[0], "value")
    b.node("Where", [keep[0], n.inputs[0], fill], outputs=n.outputs)
