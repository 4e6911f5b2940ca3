"""ONNX neural-network operators (convolution, pooling, normalization, dense layers,
activations, softmax) as gluonlite symbols.

Each translation takes ``(attrs, inputs, proto_obj)`` and returns ``(op, attrs,
inputs)`` (see ``import_onnx.GraphProto._convert_operator``).
"""
from __future__ import annotations

import math

import numpy as np

from .... import symbol
from ....base import MXNetError
from . import _translation_utils as tu

# -- shared geometry --------------------------------------------------------------------


def _weight_shape(proto_obj, weight, op: str) -> tuple:
    if weight.name in proto_obj._params:
        return tuple(proto_obj._params[weight.name].shape)
    return tu.input_shape(proto_obj, weight, op)


def _window_pads(attrs, data, kernel, strides, dilations, proto_obj, op: str):
    """``(begins, ends)`` from ``pads`` or ``auto_pad``."""
    auto_pad = attrs.get("auto_pad", "NOTSET")
    ndim = len(kernel)
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        shape = tu.input_shape(proto_obj, data, op)[2:]
        begins, ends = [], []
        for size, k, s, d in zip(shape, kernel, strides, dilations):
            total = max((math.ceil(size / s) - 1) * s + (k - 1) * d + 1 - size, 0)
            small = total // 2
            begins.append(small if auto_pad == "SAME_UPPER" else total - small)
            ends.append(total - begins[-1])
        return tuple(begins), tuple(ends)
    if auto_pad == "VALID":
        return (0,) * ndim, (0,) * ndim
    return tu.split_pads(attrs.get("pads"), ndim)


def _explicit_pad(data, begins, ends, mode: str, value: float = 0.0):
    pad_width = (0, 0, 0, 0) + tu.pads_to_mxnet(tuple(begins) + tuple(ends))
    return symbol.pad(data, mode=mode, pad_width=pad_width, constant_value=value)


# -- convolution ---------------------------------------------------------------------------


def conv(attrs, inputs, proto_obj):
    """``Conv``: ``Convolution``; asymmetric padding goes to a ``pad`` before it."""
    data, weight = inputs[0], inputs[1]
    bias = inputs[2] if len(inputs) > 2 else None
    wshape = _weight_shape(proto_obj, weight, "Conv")
    kernel = tuple(attrs.get("kernel_shape") or wshape[2:])
    ndim = len(kernel)
    strides = tuple(attrs.get("strides") or (1,) * ndim)
    dilations = tuple(attrs.get("dilations") or (1,) * ndim)
    begins, ends = _window_pads(attrs, data, kernel, strides, dilations, proto_obj, "Conv")
    if begins != ends:
        data = _explicit_pad(data, begins, ends, "constant")
        begins = (0,) * ndim
    args = [data, weight] + ([bias] if bias is not None else [])
    out = symbol.Convolution(*args, kernel=kernel, stride=strides, dilate=dilations,
                             pad=begins, num_filter=wshape[0],
                             num_group=int(attrs.get("group", 1)), no_bias=bias is None)
    return out, attrs, inputs


def deconv(attrs, inputs, proto_obj):
    """``ConvTranspose``: ``Deconvolution``; asymmetric padding crops its output."""
    data, weight = inputs[0], inputs[1]
    bias = inputs[2] if len(inputs) > 2 else None
    wshape = _weight_shape(proto_obj, weight, "ConvTranspose")
    kernel = tuple(attrs.get("kernel_shape") or wshape[2:])
    ndim = len(kernel)
    group = int(attrs.get("group", 1))
    if attrs.get("auto_pad", "NOTSET") not in ("NOTSET", "VALID"):
        raise tu.UnsupportedOnnxError("ONNX import: operator ConvTranspose with auto_pad "
                                      f"{attrs['auto_pad']} is not supported")
    begins, ends = tu.split_pads(attrs.get("pads"), ndim)
    kwargs = dict(kernel=kernel, stride=tuple(attrs.get("strides") or (1,) * ndim),
                  dilate=tuple(attrs.get("dilations") or (1,) * ndim),
                  num_filter=wshape[1] * group, num_group=group, no_bias=bias is None,
                  adj=tuple(attrs.get("output_padding") or (0,) * ndim))
    if "output_shape" in attrs:
        kwargs["target_shape"] = tuple(attrs["output_shape"])[-ndim:]
    symmetric = begins == ends
    kwargs["pad"] = begins if symmetric else (0,) * ndim
    args = [data, weight] + ([bias] if bias is not None else [])
    out = symbol.Deconvolution(*args, **kwargs)
    if not symmetric:
        out = symbol.slice(out, begin=(None, None) + tuple(begins),
                           end=(None, None) + tuple(-e if e else None for e in ends))
    return out, attrs, inputs


# -- pooling -------------------------------------------------------------------------------


def _pool(pool_type: str, onnx_name: str):
    def translate(attrs, inputs, proto_obj):
        kernel = tuple(attrs["kernel_shape"])
        ndim = len(kernel)
        strides = tuple(attrs.get("strides") or (1,) * ndim)
        if any(int(d) != 1 for d in attrs.get("dilations") or ()):
            raise tu.UnsupportedOnnxError(f"ONNX import: operator {onnx_name} with "
                                          "dilations is not supported")
        begins, ends = _window_pads(attrs, inputs[0], kernel, strides, (1,) * ndim,
                                    proto_obj, onnx_name)
        data = inputs[0]
        if begins != ends:
            mode = "edge" if pool_type == "max" else "constant"
            data = _explicit_pad(data, begins, ends, mode)
            begins = (0,) * ndim
        kwargs = dict(kernel=kernel, stride=strides, pad=begins, pool_type=pool_type,
                      pooling_convention="full" if int(attrs.get("ceil_mode", 0))
                      else "valid")
        if pool_type == "avg":
            kwargs["count_include_pad"] = bool(int(attrs.get("count_include_pad", 0)))
        if pool_type == "lp":
            kwargs["p_value"] = int(attrs.get("p", 2))
        return symbol.Pooling(data, **kwargs), attrs, inputs
    translate.__name__ = f"{pool_type}_pooling"
    translate.__doc__ = f"``{onnx_name}`` as ``Pooling(pool_type='{pool_type}')``."
    return translate


max_pooling = _pool("max", "MaxPool")
avg_pooling = _pool("avg", "AveragePool")
lp_pooling = _pool("lp", "LpPool")


def _global_pool(pool_type: str, onnx_name: str):
    def translate(attrs, inputs, proto_obj):
        shape = tu.input_shape(proto_obj, inputs[0], onnx_name, required=False)
        ndim = len(shape) - 2 if shape else 2
        new_attrs = {"global_pool": True, "kernel": (1,) * ndim, "pool_type": pool_type}
        if pool_type == "lp":
            new_attrs["p_value"] = int(attrs.get("p", 2))
        return "Pooling", new_attrs, inputs[:1]
    translate.__name__ = f"global_{pool_type}pooling"
    translate.__doc__ = f"``{onnx_name}`` as a global ``Pooling``."
    return translate


global_maxpooling = _global_pool("max", "GlobalMaxPool")
global_avgpooling = _global_pool("avg", "GlobalAveragePool")
global_lppooling = _global_pool("lp", "GlobalLpPool")


def max_roi_pooling(attrs, inputs, proto_obj):
    """``MaxRoiPool`` as ``ROIPooling``."""
    return "ROIPooling", {"pooled_size": tuple(attrs["pooled_shape"]),
                          "spatial_scale": float(attrs.get("spatial_scale", 1.0))}, inputs


def upsample(attrs, inputs, proto_obj):
    """``Upsample``/``Resize`` in ``nearest`` mode by one integer factor on the spatial
    axes, as ``UpSampling``."""
    mode = attrs.get("mode", "nearest")
    if mode != "nearest":
        raise tu.UnsupportedOnnxError(f"ONNX import: Resize/Upsample mode '{mode}' is not "
                                      "supported (only 'nearest')")
    scales = None
    if "scales" in attrs:
        scales = tuple(float(s) for s in attrs["scales"])
    elif len(inputs) == 2 and inputs[1] is not None:  # Upsample-9
        scales = tuple(float(s) for s in tu.const_value(proto_obj, inputs[1], "scales",
                                                        "Upsample").ravel())
    elif len(inputs) > 2:  # Resize-11+: X, roi, scales, sizes
        if inputs[2] is not None and np.asarray(proto_obj._consts.get(
                inputs[2].name, np.zeros(0))).size:
            scales = tuple(float(s) for s in tu.const_value(
                proto_obj, inputs[2], "scales", "Resize").ravel())
        elif len(inputs) > 3 and inputs[3] is not None:
            sizes = tu.const_ints(proto_obj, inputs[3], "sizes", "Resize")
            shape = tu.input_shape(proto_obj, inputs[0], "Resize")
            scales = tuple(o / i for o, i in zip(sizes, shape))
    if scales is None or len(scales) < 3:
        raise tu.UnsupportedOnnxError("ONNX import: Resize/Upsample needs constant scales "
                                      "or sizes")
    spatial = set(scales[2:])
    if scales[:2] != (1.0, 1.0) or len(spatial) != 1 or not float(next(iter(spatial))
                                                                    ).is_integer():
        raise tu.UnsupportedOnnxError(f"ONNX import: Resize/Upsample scales {scales} are "
                                      "not one integer factor on the spatial axes")
    return "UpSampling", {"scale": int(next(iter(spatial))), "sample_type": "nearest",
                          "num_args": 1}, inputs[:1]


# -- normalization ---------------------------------------------------------------------------


def batch_norm(attrs, inputs, proto_obj):
    """``BatchNormalization``: ``BatchNorm`` with the running statistics as auxiliary
    states, gamma not fixed."""
    eps = float(attrs.get("epsilon", 1e-5))
    new_attrs = {"eps": eps, "momentum": float(attrs.get("momentum", 0.9)),
                 "fix_gamma": not bool(int(attrs.get("is_test", 1))),
                 "cudnn_off": eps < 1e-5}
    return "BatchNorm", new_attrs, inputs[:5]


def instance_norm(attrs, inputs, proto_obj):
    """``InstanceNormalization`` as ``InstanceNorm``."""
    return "InstanceNorm", {"eps": float(attrs.get("epsilon", 1e-5))}, inputs


def local_response_norm(attrs, inputs, proto_obj):
    """``LRN``: the same formula as MXNet's (alpha divided by size)."""
    return "LRN", {"alpha": float(attrs.get("alpha", 1e-4)),
                   "beta": float(attrs.get("beta", 0.75)),
                   "knorm": float(attrs.get("bias", 1.0)), "nsize": int(attrs["size"])}, inputs


def lpnormalization(attrs, inputs, proto_obj):
    """``LpNormalization``: the input divided by its ``p``-norm along ``axis``."""
    norm = symbol.norm(inputs[0], ord=int(attrs.get("p", 2)), axis=int(attrs.get("axis", -1)),
                       keepdims=True)
    return symbol.broadcast_div(inputs[0], norm), attrs, inputs


# -- dense layers ----------------------------------------------------------------------------


def linalg_gemm(attrs, inputs, proto_obj):
    """``Gemm``: ``FullyConnected`` for the dense-layer form (``transB=1``, unit
    scales, 1-D bias), else ``linalg_gemm2`` plus the scaled ``C``."""
    a, b = inputs[0], inputs[1]
    c = inputs[2] if len(inputs) > 2 else None
    alpha, beta = float(attrs.get("alpha", 1.0)), float(attrs.get("beta", 1.0))
    trans_a, trans_b = int(attrs.get("transA", 0)), int(attrs.get("transB", 0))
    wshape = _weight_shape(proto_obj, b, "Gemm")
    cshape = None if c is None else tu.input_shape(proto_obj, c, "Gemm", required=False)
    if not trans_a and trans_b and alpha == 1.0 and (c is None or (
            beta == 1.0 and cshape is not None and tuple(cshape) == (wshape[0],))):
        args = [a, b] + ([c] if c is not None else [])
        return "FullyConnected", {"num_hidden": wshape[0], "no_bias": c is None,
                                  "flatten": True}, args
    out = symbol.linalg_gemm2(a, b, transpose_a=bool(trans_a), transpose_b=bool(trans_b),
                              alpha=alpha)
    if c is not None:
        out = symbol.broadcast_add(out, c * beta if beta != 1.0 else c)
    return out, attrs, inputs


def fully_connected(attrs, inputs, proto_obj):
    """Caffe2's ``FC`` as ``FullyConnected``."""
    wshape = _weight_shape(proto_obj, inputs[1], "FC")
    return "FullyConnected", {"num_hidden": wshape[0], "no_bias": len(inputs) < 3}, inputs


def _batched_gemm(a, b, a_shape, b_shape):
    batch = np.broadcast_shapes(tuple(a_shape[:-2]), tuple(b_shape[:-2]))
    if tuple(a_shape[:-2]) != batch:
        a = symbol.broadcast_to(symbol.reshape(a, shape=(1,) * (len(batch) + 2 - len(a_shape))
                                               + tuple(a_shape)),
                                shape=tuple(batch) + tuple(a_shape[-2:]))
    if tuple(b_shape[:-2]) != batch:
        b = symbol.broadcast_to(symbol.reshape(b, shape=(1,) * (len(batch) + 2 - len(b_shape))
                                               + tuple(b_shape)),
                                shape=tuple(batch) + tuple(b_shape[-2:]))
    return symbol.linalg_gemm2(a, b)


def matrix_multiplication(attrs, inputs, proto_obj):
    """``MatMul`` with NumPy's rules (1-D operands, broadcast batch axes)."""
    a, b = inputs
    a_shape = tu.input_shape(proto_obj, a, "MatMul", required=False)
    b_shape = tu.input_shape(proto_obj, b, "MatMul", required=False)
    if a_shape is None or b_shape is None:
        return "linalg_gemm2", {}, inputs
    squeeze = []
    if len(a_shape) == 1:
        a, a_shape = symbol.expand_dims(a, axis=0), (1,) + tuple(a_shape)
        squeeze.append(-2)
    if len(b_shape) == 1:
        b, b_shape = symbol.expand_dims(b, axis=1), tuple(b_shape) + (1,)
        squeeze.append(-1)
    if len(b_shape) == 2:
        out = symbol.dot(a, b)
    else:
        out = _batched_gemm(a, b, a_shape, b_shape)
    for axis in sorted(squeeze):
        out = symbol.squeeze(out, axis=axis)
    return out, attrs, inputs


# -- activations -----------------------------------------------------------------------------


def leaky_relu(attrs, inputs, proto_obj):
    """``LeakyRelu``: ``LeakyReLU`` with ``slope`` = alpha (0.01)."""
    return "LeakyReLU", {"act_type": "leaky", "slope": float(attrs.get("alpha", 0.01))}, inputs


def _elu(attrs, inputs, proto_obj):
    """``Elu``: ``LeakyReLU(act_type='elu')`` with ``slope`` = alpha (1.0)."""
    return "LeakyReLU", {"act_type": "elu", "slope": float(attrs.get("alpha", 1.0))}, inputs


_SELU_ALPHA, _SELU_GAMMA = 1.67326319217681884765625, 1.05070102214813232421875


def _selu(attrs, inputs, proto_obj):
    """``Selu``: MXNet's ``selu`` for the standard constants, else gamma * elu(alpha)."""
    alpha = float(attrs.get("alpha", _SELU_ALPHA))
    gamma = float(attrs.get("gamma", _SELU_GAMMA))
    if abs(alpha - _SELU_ALPHA) < 1e-6 and abs(gamma - _SELU_GAMMA) < 1e-6:
        return "LeakyReLU", {"act_type": "selu"}, inputs
    return symbol.LeakyReLU(inputs[0], act_type="elu", slope=alpha) * gamma, attrs, inputs


def _prelu(attrs, inputs, proto_obj):
    """``PRelu``: ``LeakyReLU(act_type='prelu')`` for a per-channel or single slope,
    else max(x, 0) + slope * min(x, 0) with broadcasting."""
    data, slope = inputs
    x_shape = tu.input_shape(proto_obj, data, "PRelu", required=False)
    s_shape = tu.input_shape(proto_obj, slope, "PRelu", required=False)
    if s_shape is not None and int(np.prod(s_shape)) == 1:
        return "LeakyReLU", {"act_type": "prelu"}, [data, symbol.reshape(slope, shape=(1,))]
    if x_shape is not None and s_shape is not None and len(x_shape) >= 2 and \
            len(s_shape) == len(x_shape) - 1 and s_shape[0] == x_shape[1] and \
            all(d == 1 for d in s_shape[1:]):
        return "LeakyReLU", {"act_type": "prelu"}, [data, symbol.reshape(slope, shape=(-1,))]
    negative = symbol.broadcast_mul(slope, -symbol.relu(-data))
    return symbol.broadcast_add(symbol.relu(data), negative), attrs, inputs


def hardsigmoid(attrs, inputs, proto_obj):
    """``HardSigmoid`` as ``hard_sigmoid`` (alpha 0.2, beta 0.5)."""
    return "hard_sigmoid", {"alpha": float(attrs.get("alpha", 0.2)),
                            "beta": float(attrs.get("beta", 0.5))}, inputs


def hardswish(attrs, inputs, proto_obj):
    """``HardSwish``: x * hard_sigmoid(x, 1/6, 0.5)."""
    gate = symbol.hard_sigmoid(inputs[0], alpha=1.0 / 6, beta=0.5)
    return symbol.broadcast_mul(inputs[0], gate), attrs, inputs


def softplus(attrs, inputs, proto_obj):
    """``Softplus`` as ``Activation(act_type='softrelu')``."""
    return "Activation", {"act_type": "softrelu"}, inputs


def thresholded_relu(attrs, inputs, proto_obj):
    """``ThresholdedRelu``: x where x > alpha (1.0), else 0."""
    x = inputs[0]
    return x * (x > float(attrs.get("alpha", 1.0))), attrs, inputs


def gelu(attrs, inputs, proto_obj):
    """``Gelu`` (opset 20) with ``approximate='none'`` as ``LeakyReLU(act_type='gelu')``."""
    if attrs.get("approximate", "none") != "none":
        raise tu.UnsupportedOnnxError("ONNX import: Gelu with approximate='tanh' is not "
                                      "supported")
    return "LeakyReLU", {"act_type": "gelu"}, inputs


# -- softmax family --------------------------------------------------------------------------


def _softmax_like(op: str, onnx_name: str):
    def translate(attrs, inputs, proto_obj):
        data = inputs[0]
        if proto_obj.opset_version >= 13:
            return op, {"axis": int(attrs.get("axis", -1))}, [data]
        axis = int(attrs.get("axis", 1))
        shape = tu.input_shape(proto_obj, data, onnx_name, required=False)
        if shape is None or tu.normalize_axis(axis, len(shape)) == len(shape) - 1:
            return op, {"axis": axis if shape is not None else -1}, [data]
        axis = tu.normalize_axis(axis, len(shape))
        flat = symbol.reshape(data, shape=(int(np.prod(shape[:axis])), -1))
        out = symbol.reshape(getattr(symbol, op)(flat, axis=-1), shape=tuple(shape))
        return out, attrs, inputs
    translate.__name__ = op
    translate.__doc__ = (f"``{onnx_name}``: along ``axis`` (opset 13+), else on the input "
                         "seen as 2-D at ``axis`` (opset < 13).")
    return translate


softmax = _softmax_like("softmax", "Softmax")
log_softmax = _softmax_like("log_softmax", "LogSoftmax")


def hardmax(attrs, inputs, proto_obj):
    """``Hardmax``: one-hot of the argmax along ``axis`` (2-D coercion below opset 13)."""
    data = inputs[0]
    shape = tu.input_shape(proto_obj, data, "Hardmax")
    ndim = len(shape)
    if proto_obj.opset_version >= 13:
        axis = tu.normalize_axis(attrs.get("axis", -1), ndim)
        perm = [d for d in range(ndim) if d != axis] + [axis]
        moved = symbol.transpose(data, axes=tuple(perm)) if axis != ndim - 1 else data
        hot = symbol.one_hot(symbol.argmax(moved, axis=-1), depth=shape[axis])
        if axis != ndim - 1:
            hot = symbol.transpose(hot, axes=tuple(int(i) for i in np.argsort(perm)))
        return hot, attrs, inputs
    axis = tu.normalize_axis(attrs.get("axis", 1), ndim)
    flat = symbol.reshape(data, shape=(int(np.prod(shape[:axis])), -1))
    hot = symbol.one_hot(symbol.argmax(flat, axis=-1), depth=int(np.prod(shape[axis:])))
    return symbol.reshape(hot, shape=tuple(shape)), attrs, inputs


def dropout(attrs, inputs, proto_obj):
    """``Dropout``: MXNet's ``Dropout`` (the identity outside training), ratio from the
    attribute or (opset 12+) a constant input."""
    ratio = float(attrs.get("ratio", 0.5))
    if proto_obj.opset_version >= 12 and len(inputs) > 1 and inputs[1] is not None:
        ratio = tu.const_scalar(proto_obj, inputs[1], "ratio", "Dropout")
    if not 0.0 <= ratio < 1.0:
        raise MXNetError(f"ONNX import: Dropout ratio {ratio} is outside [0, 1)")
    return "Dropout", {"p": ratio, "mode": "training"}, inputs[:1]
