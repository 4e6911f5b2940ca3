"""Layers over INT8 data (MXNet 1.9.1's ``_contrib_quantized_fully_connected``,
``_contrib_quantized_conv``, ``_contrib_quantized_pooling``, ``_contrib_quantized_flatten``,
``_contrib_quantized_act``, ``_contrib_quantized_batch_norm``,
``_contrib_quantized_embedding``).

Each takes int8/uint8 data plus ``(min, max)`` float32 ranges as ``(1,)`` arrays and
returns its output with the output's range.  The GEMM and the convolution accumulate
exactly (float BLAS on integer values: float32 where a bound from the values keeps every
partial sum under 2**24, else float64) and give int32.  Inference only.
"""
from __future__ import annotations

import numpy as np

from . import _quantized_math as qm
from .attrs import Attr
from .common import fail
from .quantized_common import (F32, RANGE_IN, RANGE_OUTS, calib_range, passthrough_types,
                               ranges_out, scalar_shapes, unary_range_infer)
from .registry import OpDef, get_op, register


# -- layers over int8: FullyConnected, Convolution ---------------------------------------------
def _layer_inputs(attrs):
    if attrs.no_bias:
        return ("data", "weight", "min_data", "max_data", "min_weight", "max_weight")
    return ("data", "weight", "bias", "min_data", "max_data", "min_weight", "max_weight",
            "min_bias", "max_bias")


def _split_layer(xp, op, attrs, inputs):
    """``(data, weight, bias or None, data_range, data_kind, weight_range, bias_range)``."""
    n = 2 if attrs.no_bias else 3
    data, weight = inputs[0], inputs[1]
    bias = None if attrs.no_bias else inputs[2]
    rng = [qm.scalar(xp, a) for a in inputs[n:]]
    if data.dtype not in (np.int8, np.uint8) or weight.dtype != np.int8:
        fail(op, f"expects int8/uint8 data and int8 weight, got {data.dtype} and "
                 f"{weight.dtype}", data.shape, weight.shape)
    if bias is not None and bias.dtype != np.int8:
        fail(op, f"expects an int8 bias, got {bias.dtype}", bias.shape)
    bias_range = qm.max_abs(rng[4], rng[5]) if bias is not None else 0.0
    return (data, weight, bias, qm.max_abs(rng[0], rng[1]), qm.kind(data.dtype),
            qm.max_abs(rng[2], rng[3]), bias_range)


def _finish_layer(xp, out, acc, bias, d_rng, d_kind, w_rng, b_rng, conv=False):
    """Add the bias and attach the int32 range.  MXNet's oneDNN quantized convolution adds
    its int8 bias unscaled and reports its range with int8 data levels; the fully
    connected layer rescales the bias (truncating) and uses the data's own levels."""
    acc = xp.rint(acc).astype(np.int64)
    if bias is not None:
        if conv:
            acc = acc + bias.astype(np.int64).reshape(1, -1, 1, 1)
        else:
            acc = acc + qm.bias_to_int32(xp, bias, d_rng, d_kind, w_rng, b_rng)
    top = qm.int32_range(d_rng, "int8" if conv else d_kind, w_rng)
    return ranges_out(xp, out, qm.to_int32(xp, acc), -top, top)


def _prepare_weight(oc, attrs, inputs):
    """The int8 weight as float32 values and a memo for the GEMM's bound (kept while
    the weight is unchanged: ``OpDef.prepare``)."""
    return inputs[1].astype(F32), {}


def _weight_position(attrs) -> tuple:
    return (1,)


def _qfc_fwd(oc, attrs, inputs, out, prepared=None):
    xp = oc.xp
    data, weight, bias, d_rng, d_kind, w_rng, b_rng = _split_layer(
        xp, "_contrib_quantized_fully_connected", attrs, inputs)
    x = data.reshape(data.shape[0], -1) if attrs.flatten else data
    if x.shape[-1] != weight.shape[1]:
        fail("_contrib_quantized_fully_connected",
             f"data's last dimension {x.shape[-1]} does not match weight's {weight.shape[1]}",
             data.shape, weight.shape)
    w_f, memo = prepared if prepared is not None else (weight, None)
    acc = qm.int_matmul(xp, x, w_f.T, memo)
    return _finish_layer(xp, out, acc, bias, d_rng, d_kind, w_rng, b_rng)


def _qfc_infer(attrs, in_shapes, out_shapes=(None,)):
    fc = get_op("FullyConnected")
    fattrs = fc.parse_attrs({k: v for k, v in attrs._given.items()})
    n = 2 if attrs.no_bias else 3
    ins, outs = fc.infer_shape(fattrs, list(in_shapes[:n]), list(out_shapes[:1]))
    return list(ins) + scalar_shapes(len(in_shapes) - n), [outs[0], (1,), (1,)]


def _layer_types(op, attrs, in_dtypes):
    ins = list(in_dtypes)
    ins[1] = np.dtype(np.int8)
    if not attrs.no_bias:
        ins[2] = np.dtype(np.int8)
    n = 2 if attrs.no_bias else 3
    ins[n:] = [np.dtype(np.float32)] * (len(ins) - n)
    return ins, [np.dtype(np.int32), np.dtype(np.float32), np.dtype(np.float32)]


register(OpDef(
    "_contrib_quantized_fully_connected", _qfc_fwd, inputs=_layer_inputs,
    prepare=_prepare_weight, prepared_inputs=_weight_position,
    attrs={"num_hidden": Attr("int"), "no_bias": Attr("bool", False),
           "flatten": Attr("bool", True)},
    num_outputs=3, output_names=RANGE_OUTS, infer_shape=_qfc_infer, infer_shape_outputs=True,
    infer_type=_layer_types, differentiable=False,
    doc="FullyConnected on int8/uint8 data and int8 weights with int32 accumulation; the "
        "int8 bias is rescaled to the accumulator's units."))


def _qconv_fwd(oc, attrs, inputs, out, prepared=None):
    xp = oc.xp
    data, weight, bias, d_rng, d_kind, w_rng, b_rng = _split_layer(
        xp, "_contrib_quantized_conv", attrs, inputs)
    if data.ndim != 4 or attrs.layout not in (None, "NCHW"):
        fail("_contrib_quantized_conv", "supports 4-D NCHW data only", data.shape)
    conv = get_op("Convolution")
    given = dict(attrs._given)
    given["no_bias"] = True
    given["cudnn_off"] = True   # exact integer sums: no FFT/Winograd algorithms
    cattrs = conv.parse_attrs(given)
    w_f, memo = prepared if prepared is not None else _prepare_weight(oc, attrs, inputs)
    if "bound" not in memo:
        memo["bound"] = qm.conv_bound(xp, w_f, int(cattrs.num_group))
    dtype = qm.conv_exact_dtype(xp, data, memo["bound"])
    acc = conv.forward(oc, cattrs, [data.astype(dtype), w_f.astype(dtype, copy=False)],
                       None)[0]
    return _finish_layer(xp, out, acc, bias, d_rng, d_kind, w_rng, b_rng, conv=True)


def _qconv_infer(attrs, in_shapes):
    conv = get_op("Convolution")
    cattrs = conv.parse_attrs(dict(attrs._given))
    n = 2 if attrs.no_bias else 3
    ins, outs = conv.infer_shape(cattrs, list(in_shapes[:n]))
    return list(ins) + scalar_shapes(len(in_shapes) - n), [outs[0], (1,), (1,)]


def _conv_attrs() -> dict:
    from .convolution import conv_attrs
    return conv_attrs()


register(OpDef(
    "_contrib_quantized_conv", _qconv_fwd, inputs=_layer_inputs, attrs=_conv_attrs(),
    prepare=_prepare_weight, prepared_inputs=_weight_position,
    num_outputs=3, output_names=RANGE_OUTS, infer_shape=_qconv_infer,
    infer_type=_layer_types, differentiable=False,
    doc="2-D convolution (NCHW) on int8/uint8 data and int8 weights with int32 "
        "accumulation."))


def _qpool_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    data = inputs[0]
    if attrs.pool_type not in ("max", "avg"):
        fail("_contrib_quantized_pooling", f"pool_type {attrs.pool_type!r} is not supported "
             "(max, avg)", data.shape)
    if data.dtype not in (np.int8, np.uint8):
        fail("_contrib_quantized_pooling", f"expects int8/uint8 data, got {data.dtype}",
             data.shape)
    pool = get_op("Pooling")
    res = pool.forward(oc, pool.parse_attrs(dict(attrs._given)),
                       [data.astype(np.float64)], None)[0]
    value = res.astype(data.dtype) if attrs.pool_type == "max" else \
        qm.saturate(xp, res, qm.kind(data.dtype))
    return ranges_out(xp, out, value, qm.scalar(xp, inputs[1]), qm.scalar(xp, inputs[2]))


def _qpool_infer(attrs, in_shapes):
    pool = get_op("Pooling")
    ins, outs = pool.infer_shape(pool.parse_attrs(dict(attrs._given)), [in_shapes[0]])
    return [ins[0], (1,), (1,)], [outs[0], (1,), (1,)]


def _pool_attrs() -> dict:
    return {k: v for k, v in get_op("Pooling").attrs.items()}


register(OpDef(
    "_contrib_quantized_pooling", _qpool_fwd, inputs=RANGE_IN, attrs=_pool_attrs(),
    num_outputs=3, output_names=RANGE_OUTS, infer_shape=_qpool_infer,
    infer_type=passthrough_types, differentiable=False,
    doc="Max or average pooling of int8/uint8 data (averages rounded half to even); the "
        "range passes through."))


def _qflatten_fwd(oc, attrs, inputs, out):
    data = inputs[0]
    flat = data.reshape(data.shape[0], -1).copy()  # an output never aliases an input
    return ranges_out(oc.xp, out, flat,
                       qm.scalar(oc.xp, inputs[1]), qm.scalar(oc.xp, inputs[2]))


def _qflatten_infer(attrs, in_shapes):
    data = in_shapes[0]
    if data is None:
        return [None, (1,), (1,)], [None, (1,), (1,)]
    rest = int(np.prod(data[1:])) if all(data[1:]) else 0
    return [data, (1,), (1,)], [(data[0], rest), (1,), (1,)]


register(OpDef(
    "_contrib_quantized_flatten", _qflatten_fwd, inputs=RANGE_IN, num_outputs=3,
    output_names=RANGE_OUTS, infer_shape=_qflatten_infer, infer_type=passthrough_types,
    differentiable=False, doc="Flatten quantized data to 2-D; the range passes through."))


def _qact_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    data = inputs[0]
    if attrs.act_type != "relu":
        fail("_contrib_quantized_act", f"act_type {attrs.act_type!r} is not supported "
             "(relu only)", data.shape)
    value = xp.maximum(data, data.dtype.type(0))
    return ranges_out(xp, out, value, qm.scalar(xp, inputs[1]), qm.scalar(xp, inputs[2]))


register(OpDef(
    "_contrib_quantized_act", _qact_fwd, inputs=RANGE_IN,
    attrs={"act_type": Attr("str", choices=("relu", "sigmoid", "softrelu", "softsign",
                                            "tanh"))},
    num_outputs=3, output_names=RANGE_OUTS, infer_shape=unary_range_infer,
    infer_type=passthrough_types, differentiable=False,
    doc="ReLU of quantized data; the range passes through.  The output keeps the data's "
        "type (MXNet 1.9.1 declares it int8 even for uint8 data, so that values above 127 "
        "read back negative, e.g. in SE-ResNeXt's residual relu; gluonlite keeps uint8)."))


# -- batch norm ---------------------------------------------------------------------------------
def _qbn_fwd(oc, attrs, inputs, out):
    """MXNet's oneDNN kernel: uint8 data first becomes int8 (scaled by 127.5/255.5), then
    one inference BatchNorm on the int8 values whose scale and shift fold in the data's
    and the calibrated output's ranges (``gamma / sqrt(var + eps) * data_range /
    out_range`` and ``(beta - mean * gamma / sqrt(var + eps)) * 127.5 / out_range``);
    oneDNN then normalizes with mean 0 and variance 1, dividing once more by
    ``sqrt(1 + eps)``.  The output range is the calibrated range itself."""
    xp = oc.xp
    op = "_contrib_quantized_batch_norm"
    data, gamma, beta, mean, var = inputs[:5]
    if data.dtype not in (np.int8, np.uint8):
        fail(op, f"expects int8/uint8 data, got {data.dtype}", data.shape)
    axis = attrs.axis % data.ndim
    if gamma.shape != (data.shape[axis],):
        fail(op, f"gamma must have shape ({data.shape[axis]},)", data.shape, gamma.shape)
    calib = calib_range(attrs)
    if calib is None:
        fail(op, "needs min_calib_range and max_calib_range (MXNet's quantized BatchNorm "
                 "does not support calib_mode=None)", data.shape)
    if data.dtype == np.uint8:
        data = qm.saturate(xp, data.astype(np.float32)
                           * (qm.f32(127.5) / qm.f32(255.5)), "int8")
    f32 = qm.f32
    d_range = f32(qm.max_abs(qm.scalar(xp, inputs[5]), qm.scalar(xp, inputs[6])))
    o_range = f32(qm.max_abs(*calib))
    g = xp.ones_like(gamma) if attrs.fix_gamma else gamma.astype(np.float32)
    invstd = (1.0 / xp.sqrt(var.astype(np.float64) + float(attrs.eps))).astype(np.float32)
    weight = g * invstd * d_range / o_range
    shift = (beta.astype(np.float32) - mean.astype(np.float32) * g * invstd) \
        * f32(127.5) / o_range
    scale = (weight / f32(np.sqrt(f32(1.0) + f32(attrs.eps)))).astype(np.float32)
    bshape = [1] * data.ndim
    bshape[axis] = -1
    y = data.astype(np.float32) * scale.reshape(bshape) + shift.reshape(bshape)
    return ranges_out(xp, out, qm.saturate(xp, y, "int8"), calib[0], calib[1])


def _qbn_infer(attrs, in_shapes):
    data = in_shapes[0]
    if data is None:
        return list(in_shapes[:5]) + [(1,), (1,)], [None, (1,), (1,)]
    c = (data[attrs.axis % len(data)],)
    return [data, c, c, c, c, (1,), (1,)], [data, (1,), (1,)]


def _qbn_types(op, attrs, in_dtypes):
    return [in_dtypes[0]] + [F32] * 6, [np.dtype(np.int8), F32, F32]


def _bn_attrs() -> dict:
    return {k: v for k, v in get_op("BatchNorm").attrs.items()}


register(OpDef(
    "_contrib_quantized_batch_norm", _qbn_fwd,
    inputs=("data", "gamma", "beta", "moving_mean", "moving_var", "min_data", "max_data"),
    aux=("moving_mean", "moving_var"), attrs=_bn_attrs(), num_outputs=3,
    output_names=RANGE_OUTS, infer_shape=_qbn_infer, infer_type=_qbn_types,
    input_init={"moving_mean": '["zero", {}]', "moving_var": '["one", {}]'},
    differentiable=False,
    doc="Inference BatchNorm (moving statistics) of int8/uint8 data, giving int8 over the "
        "calibrated range (or the output's own range without one)."))


# -- embedding ---------------------------------------------------------------------------------
def _qembed_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    data, weight = inputs[0], inputs[1]
    if weight.dtype != np.int8 or weight.shape != (attrs.input_dim, attrs.output_dim):
        fail("_contrib_quantized_embedding", f"weight must be int8 of shape "
             f"({attrs.input_dim}, {attrs.output_dim}), got {weight.dtype}", data.shape,
             weight.shape)
    idx = data if data.dtype.kind in "iu" else xp.trunc(data)
    idx = xp.clip(idx.astype(np.int64), 0, attrs.input_dim - 1)
    return ranges_out(xp, out, xp.take(weight, idx, axis=0),
                       qm.scalar(xp, inputs[2]), qm.scalar(xp, inputs[3]))


def _qembed_infer(attrs, in_shapes):
    data = in_shapes[0]
    weight = (attrs.input_dim, attrs.output_dim)
    out = None if data is None else tuple(data) + (attrs.output_dim,)
    return [data, weight, (1,), (1,)], [out, (1,), (1,)]


def _qembed_types(op, attrs, in_dtypes):
    data = in_dtypes[0] if in_dtypes[0] is not None else F32
    return [data, np.dtype(np.int8), F32, F32], [np.dtype(np.int8), F32, F32]


register(OpDef(
    "_contrib_quantized_embedding", _qembed_fwd,
    inputs=("data", "weight", "min_weight", "max_weight"),
    attrs={"input_dim": Attr("int"), "output_dim": Attr("int"),
           "dtype": Attr("dtype", np.dtype(np.float32)), "sparse_grad": Attr("bool", False)},
    num_outputs=3, output_names=RANGE_OUTS, infer_shape=_qembed_infer,
    infer_type=_qembed_types, differentiable=False,
    doc="Rows of an int8 weight matrix picked by (clipped) indices; the weight's range "
        "passes through."))
