"""INT8 post-training quantization operators (MXNet 1.9.1's ``_contrib_quantize*`` family).

Each quantized operator takes int8/uint8 data plus ``(min, max)`` float32 ranges as
``(1,)`` arrays and returns its output with the output's range, as MXNet's oneDNN CPU
build does.  Scales and rounding rules are in :mod:`gluonlite.ops._quantized_math`;
the GEMM and convolution accumulate exactly (float64 BLAS on integer values) and give
int32.  None of these operators has a gradient: they serve inference only.
"""
from __future__ import annotations

import numpy as np

from . import _quantized_math as qm
from .attrs import Attr
from .common import fail, put
from .registry import OpDef, get_op, register

_OUT_TYPES = ("auto", "int8", "uint8")
_RANGE_OUTS = ("output", "min_output", "max_output")
_NUMBERED_OUTS = ("output0", "output1", "output2")


def _ranges_out(xp, out, value, lo, hi):
    lo_a, hi_a = qm.range_arrays(xp, lo, hi)
    return [put(out, 0, value), put(out, 1, lo_a), put(out, 2, hi_a)]


def _calib(attrs):
    lo, hi = attrs.min_calib_range, attrs.max_calib_range
    return None if lo is None or hi is None else (float(lo), float(hi))


def _resolve_out_type(attrs) -> str:
    """``auto`` means uint8 when a calibrated range starts at or above zero, else int8."""
    if attrs.out_type != "auto":
        return attrs.out_type
    calib = _calib(attrs)
    return "uint8" if calib is not None and calib[0] >= 0 else "int8"


def _scalar_shapes(n):
    return [(1,)] * n


def _unary_range_infer(attrs, in_shapes, out_shapes=(None,)):
    """Same shape in and out (either side gives it); ranges are ``(1,)``."""
    data = in_shapes[0] if in_shapes[0] is not None else out_shapes[0]
    return [data] + _scalar_shapes(len(in_shapes) - 1), [data, (1,), (1,)]


_F32 = np.dtype(np.float32)


def _typed(out_dtype_fn, data_dtype=None):
    """dtype inference of a ``(data, [min, max]) -> (data, min, max)`` operator: the
    ranges are float32, ``data`` is ``data_dtype`` when given (float32 for quantize)."""
    def infer(op, attrs, in_dtypes):
        ins = list(in_dtypes)
        if data_dtype is not None:
            ins[0] = np.dtype(data_dtype)
        ins[1:] = [_F32] * (len(ins) - 1)
        return ins, [out_dtype_fn(attrs, ins), _F32, _F32]
    return infer


_CALIB_ATTRS = {"min_calib_range": Attr("float", None, optional=True),
                "max_calib_range": Attr("float", None, optional=True)}


# -- quantize ---------------------------------------------------------------------------------
def _quantize_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    data, lo, hi = inputs[0], qm.scalar(xp, inputs[1]), qm.scalar(xp, inputs[2])
    real = qm.max_abs(lo, hi)
    x = data.astype(np.float32)
    if attrs.out_type == "int8":
        # MXNet's own kernel: sign(x) * min(|x| * 127 / r + 0.5, 127), truncated
        scale = qm.f32(127.0) / qm.f32(real) if real else qm.f32(0.0)
        q = (xp.sign(x) * xp.minimum(xp.floor(xp.abs(x) * scale + qm.f32(0.5)), 127))
        return _ranges_out(xp, out, q.astype(np.int8), -real, real)
    scale = qm.f32(255.0) / qm.f32(real) if real else qm.f32(0.0)
    return _ranges_out(xp, out, qm.saturate(xp, x * scale, "uint8"), lo, hi)


register(OpDef(
    "_contrib_quantize", _quantize_fwd, inputs=("data", "min_range", "max_range"),
    attrs={"out_type": Attr("str", "uint8", choices=("int8", "uint8"))},
    num_outputs=3, output_names=_NUMBERED_OUTS, infer_shape=_unary_range_infer,
    infer_shape_outputs=True,
    infer_type=_typed(lambda a, t: np.dtype(a.out_type), np.float32), differentiable=False,
    doc="Quantize float32 ``data`` over the given range to int8 (symmetric, 127 levels) "
        "or uint8; returns the data and its range."))


# -- quantize_v2 ------------------------------------------------------------------------------
def _quantize_v2_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    data = inputs[0]
    out_kind = _resolve_out_type(attrs)
    calib = _calib(attrs)
    if calib is not None:
        lo, hi = calib
    elif data.size:
        lo, hi = float(data.min()), float(data.max())
    else:
        lo = hi = 0.0
    real = qm.max_abs(lo, hi)
    q = qm.onednn_quantize(xp, data, real, out_kind)
    if out_kind == "int8":
        lo, hi = -real, real
    return _ranges_out(xp, out, q, lo, hi)


register(OpDef(
    "_contrib_quantize_v2", _quantize_v2_fwd, inputs=("data",),
    attrs={"out_type": Attr("str", "int8", choices=_OUT_TYPES), **_CALIB_ATTRS},
    num_outputs=3, output_names=_NUMBERED_OUTS, infer_shape=_unary_range_infer,
    infer_shape_outputs=True,
    infer_type=_typed(lambda a, t: np.dtype(_resolve_out_type(a)), np.float32),
    differentiable=False,
    doc="Quantize float32 ``data`` to int8/uint8 over its own range or the calibrated "
        "``[min_calib_range, max_calib_range]``; ``auto`` picks uint8 for a calibrated "
        "range starting at zero or above."))


# -- dequantize -------------------------------------------------------------------------------
def _dequantize_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    data = inputs[0]
    lo, hi = qm.scalar(xp, inputs[1]), qm.scalar(xp, inputs[2])
    if data.dtype == np.int32:
        scale = qm.f32(qm.max_abs(lo, hi)) / qm.f32(qm.INT32_MAX)
        value = data.astype(np.float32) * scale
    elif data.dtype in (np.int8, np.uint8):
        value = qm.dequantize(xp, data, lo, hi)
    else:
        fail("_contrib_dequantize", f"data must be int8, uint8 or int32, not {data.dtype}",
             data.shape)
    return [put(out, 0, value.astype(np.float32))]


register(OpDef(
    "_contrib_dequantize", _dequantize_fwd, inputs=("data", "min_range", "max_range"),
    attrs={"out_type": Attr("str", "float32", choices=("float32",))},
    infer_shape=lambda attrs, s, o=(None,): ([s[0] if s[0] is not None else o[0], (1,), (1,)],
                                             [s[0] if s[0] is not None else o[0]]),
    infer_shape_outputs=True,
    infer_type=lambda op, attrs, t: ([t[0], _F32, _F32], [_F32]), differentiable=False,
    doc="Float32 values of int8/uint8 (or int32) ``data`` quantized over a range."))


# -- requantize -------------------------------------------------------------------------------
def _requantize_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    data = inputs[0]
    if data.dtype != np.int32:
        fail("_contrib_requantize", f"data must be int32, not {data.dtype}", data.shape)
    in_range = qm.max_abs(qm.scalar(xp, inputs[1]), qm.scalar(xp, inputs[2]))
    real = data.astype(np.float32) * (qm.f32(in_range) / qm.f32(qm.INT32_MAX))
    out_kind = _resolve_out_type(attrs)
    calib = _calib(attrs)
    if calib is not None:
        lo, hi = calib
        rng = qm.max_abs(lo, hi)
    else:
        rng = float(xp.abs(real).max()) if real.size else 0.0
        lo, hi = (0.0 if out_kind == "uint8" else -rng), rng
    scale = qm.f32(qm.LEVELS[out_kind]) / qm.f32(rng) if rng else qm.f32(0.0)
    q = qm.saturate(xp, real * scale, out_kind)
    if out_kind == "int8":
        lo, hi = -rng, rng
    return _ranges_out(xp, out, q, lo, hi)


register(OpDef(
    "_contrib_requantize", _requantize_fwd, inputs=("data", "min_range", "max_range"),
    attrs={"out_type": Attr("str", "int8", choices=_OUT_TYPES), **_CALIB_ATTRS},
    num_outputs=3, output_names=_NUMBERED_OUTS, infer_shape=_unary_range_infer,
    infer_shape_outputs=True,
    infer_type=_typed(lambda a, t: np.dtype(_resolve_out_type(a)), np.int32),
    differentiable=False,
    doc="Requantize an int32 accumulator to int8/uint8 over its actual or calibrated "
        "range."))


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
    return _ranges_out(xp, out, qm.to_int32(xp, acc), -top, top)


def _qfc_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    data, weight, bias, d_rng, d_kind, w_rng, b_rng = _split_layer(
        xp, "_contrib_quantized_fully_connected", attrs, inputs)
    x = data.reshape(data.shape[0], -1) if attrs.flatten else data
    if x.shape[-1] != weight.shape[1]:
        fail("_contrib_quantized_fully_connected",
             f"data's last dimension {x.shape[-1]} does not match weight's {weight.shape[1]}",
             data.shape, weight.shape)
    acc = qm.int_matmul(xp, x, weight.T)
    return _finish_layer(xp, out, acc, bias, d_rng, d_kind, w_rng, b_rng)


def _qfc_infer(attrs, in_shapes, out_shapes=(None,)):
    fc = get_op("FullyConnected")
    fattrs = fc.parse_attrs({k: v for k, v in attrs._given.items()})
    n = 2 if attrs.no_bias else 3
    ins, outs = fc.infer_shape(fattrs, list(in_shapes[:n]), list(out_shapes[:1]))
    return list(ins) + _scalar_shapes(len(in_shapes) - n), [outs[0], (1,), (1,)]


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
    attrs={"num_hidden": Attr("int"), "no_bias": Attr("bool", False),
           "flatten": Attr("bool", True)},
    num_outputs=3, output_names=_RANGE_OUTS, infer_shape=_qfc_infer, infer_shape_outputs=True,
    infer_type=_layer_types, differentiable=False,
    doc="FullyConnected on int8/uint8 data and int8 weights with int32 accumulation; the "
        "int8 bias is rescaled to the accumulator's units."))


def _qconv_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    data, weight, bias, d_rng, d_kind, w_rng, b_rng = _split_layer(
        xp, "_contrib_quantized_conv", attrs, inputs)
    if data.ndim != 4 or attrs.layout not in (None, "NCHW"):
        fail("_contrib_quantized_conv", "supports 4-D NCHW data only", data.shape)
    conv = get_op("Convolution")
    given = dict(attrs._given)
    given["no_bias"] = True
    cattrs = conv.parse_attrs(given)
    acc = conv.forward(oc, cattrs, [data.astype(np.float64), weight.astype(np.float64)],
                       None)[0]
    return _finish_layer(xp, out, acc, bias, d_rng, d_kind, w_rng, b_rng, conv=True)


def _qconv_infer(attrs, in_shapes):
    conv = get_op("Convolution")
    cattrs = conv.parse_attrs(dict(attrs._given))
    n = 2 if attrs.no_bias else 3
    ins, outs = conv.infer_shape(cattrs, list(in_shapes[:n]))
    return list(ins) + _scalar_shapes(len(in_shapes) - n), [outs[0], (1,), (1,)]


def _conv_attrs() -> dict:
    from .convolution import conv_attrs
    return conv_attrs()


register(OpDef(
    "_contrib_quantized_conv", _qconv_fwd, inputs=_layer_inputs, attrs=_conv_attrs(),
    num_outputs=3, output_names=_RANGE_OUTS, infer_shape=_qconv_infer,
    infer_type=_layer_types, differentiable=False,
    doc="2-D convolution (NCHW) on int8/uint8 data and int8 weights with int32 "
        "accumulation."))


# -- pooling, flatten, activation --------------------------------------------------------------
_RANGE_IN = ("data", "min_data", "max_data")


def _passthrough_types(op, attrs, in_dtypes):
    """Quantized data keeps its dtype (the first known data input's); ranges are float32."""
    n_data = attrs.num_args if hasattr(attrs, "num_args") and op.name.endswith("concat") else 1
    data = next((d for d in in_dtypes[:n_data] if d is not None), None)
    ins = [data] * n_data + [_F32] * (len(in_dtypes) - n_data)
    return ins, [data, _F32, _F32]


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
    return _ranges_out(xp, out, value, qm.scalar(xp, inputs[1]), qm.scalar(xp, inputs[2]))


def _qpool_infer(attrs, in_shapes):
    pool = get_op("Pooling")
    ins, outs = pool.infer_shape(pool.parse_attrs(dict(attrs._given)), [in_shapes[0]])
    return [ins[0], (1,), (1,)], [outs[0], (1,), (1,)]


def _pool_attrs() -> dict:
    return {k: v for k, v in get_op("Pooling").attrs.items()}


register(OpDef(
    "_contrib_quantized_pooling", _qpool_fwd, inputs=_RANGE_IN, attrs=_pool_attrs(),
    num_outputs=3, output_names=_RANGE_OUTS, infer_shape=_qpool_infer,
    infer_type=_passthrough_types, differentiable=False,
    doc="Max or average pooling of int8/uint8 data (averages rounded half to even); the "
        "range passes through."))


def _qflatten_fwd(oc, attrs, inputs, out):
    data = inputs[0]
    flat = data.reshape(data.shape[0], -1).copy()  # an output never aliases an input
    return _ranges_out(oc.xp, out, flat,
                       qm.scalar(oc.xp, inputs[1]), qm.scalar(oc.xp, inputs[2]))


def _qflatten_infer(attrs, in_shapes):
    data = in_shapes[0]
    if data is None:
        return [None, (1,), (1,)], [None, (1,), (1,)]
    rest = int(np.prod(data[1:])) if all(data[1:]) else 0
    return [data, (1,), (1,)], [(data[0], rest), (1,), (1,)]


register(OpDef(
    "_contrib_quantized_flatten", _qflatten_fwd, inputs=_RANGE_IN, num_outputs=3,
    output_names=_RANGE_OUTS, infer_shape=_qflatten_infer, infer_type=_passthrough_types,
    differentiable=False, doc="Flatten quantized data to 2-D; the range passes through."))


def _qact_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    data = inputs[0]
    if attrs.act_type != "relu":
        fail("_contrib_quantized_act", f"act_type {attrs.act_type!r} is not supported "
             "(relu only)", data.shape)
    value = xp.maximum(data, data.dtype.type(0))
    return _ranges_out(xp, out, value, qm.scalar(xp, inputs[1]), qm.scalar(xp, inputs[2]))


register(OpDef(
    "_contrib_quantized_act", _qact_fwd, inputs=_RANGE_IN,
    attrs={"act_type": Attr("str", choices=("relu", "sigmoid", "softrelu", "softsign",
                                            "tanh"))},
    num_outputs=3, output_names=_RANGE_OUTS, infer_shape=_unary_range_infer,
    infer_type=_passthrough_types, differentiable=False,
    doc="ReLU of quantized data; the range passes through."))


# -- batch norm ---------------------------------------------------------------------------------
def _qbn_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    data, gamma, beta, mean, var = inputs[:5]
    if data.dtype not in (np.int8, np.uint8):
        fail("_contrib_quantized_batch_norm", f"expects int8/uint8 data, got {data.dtype}",
             data.shape)
    axis = attrs.axis % data.ndim
    if gamma.shape != (data.shape[axis],):
        fail("_contrib_quantized_batch_norm", f"gamma must have shape ({data.shape[axis]},)",
             data.shape, gamma.shape)
    bshape = [1] * data.ndim
    bshape[axis] = -1
    g = xp.ones_like(gamma) if attrs.fix_gamma else gamma
    scale = (g / xp.sqrt(var + np.float32(attrs.eps))).astype(np.float32)
    shift = (beta - mean * scale).astype(np.float32)
    x = qm.dequantize(xp, data, qm.scalar(xp, inputs[5]), qm.scalar(xp, inputs[6]))
    y = x * scale.reshape(bshape) + shift.reshape(bshape)
    calib = _calib(attrs)
    if calib is not None:
        rng = qm.max_abs(*calib)
    else:
        rng = float(xp.abs(y).max()) if y.size else 0.0
    return _ranges_out(xp, out, qm.onednn_quantize(xp, y, rng, "int8"), -rng, rng)


def _qbn_infer(attrs, in_shapes):
    data = in_shapes[0]
    if data is None:
        return list(in_shapes[:5]) + [(1,), (1,)], [None, (1,), (1,)]
    c = (data[attrs.axis % len(data)],)
    return [data, c, c, c, c, (1,), (1,)], [data, (1,), (1,)]


def _qbn_types(op, attrs, in_dtypes):
    return [in_dtypes[0]] + [_F32] * 6, [np.dtype(np.int8), _F32, _F32]


def _bn_attrs() -> dict:
    return {k: v for k, v in get_op("BatchNorm").attrs.items()}


register(OpDef(
    "_contrib_quantized_batch_norm", _qbn_fwd,
    inputs=("data", "gamma", "beta", "moving_mean", "moving_var", "min_data", "max_data"),
    aux=("moving_mean", "moving_var"), attrs=_bn_attrs(), num_outputs=3,
    output_names=_RANGE_OUTS, infer_shape=_qbn_infer, infer_type=_qbn_types,
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
    return _ranges_out(xp, out, xp.take(weight, idx, axis=0),
                       qm.scalar(xp, inputs[2]), qm.scalar(xp, inputs[3]))


def _qembed_infer(attrs, in_shapes):
    data = in_shapes[0]
    weight = (attrs.input_dim, attrs.output_dim)
    out = None if data is None else tuple(data) + (attrs.output_dim,)
    return [data, weight, (1,), (1,)], [out, (1,), (1,)]


def _qembed_types(op, attrs, in_dtypes):
    data = in_dtypes[0] if in_dtypes[0] is not None else _F32
    return [data, np.dtype(np.int8), _F32, _F32], [np.dtype(np.int8), _F32, _F32]


register(OpDef(
    "_contrib_quantized_embedding", _qembed_fwd,
    inputs=("data", "weight", "min_weight", "max_weight"),
    attrs={"input_dim": Attr("int"), "output_dim": Attr("int"),
           "dtype": Attr("dtype", np.dtype(np.float32)), "sparse_grad": Attr("bool", False)},
    num_outputs=3, output_names=_RANGE_OUTS, infer_shape=_qembed_infer,
    infer_type=_qembed_types, differentiable=False,
    doc="Rows of an int8 weight matrix picked by (clipped) indices; the weight's range "
        "passes through."))


# -- elementwise add, concat --------------------------------------------------------------------
def _qadd_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    lhs, rhs = inputs[0], inputs[1]
    if lhs.shape != rhs.shape:
        fail("_contrib_quantized_elemwise_add", "lhs and rhs must have one shape",
             lhs.shape, rhs.shape)
    r = [qm.scalar(xp, a) for a in inputs[2:6]]
    total = (qm.dequantize(xp, lhs, r[0], r[1], np.float64)
             + qm.dequantize(xp, rhs, r[2], r[3], np.float64))
    calib = _calib(attrs)
    if calib is None:
        top = qm.max_abs(r[0], r[1]) + qm.max_abs(r[2], r[3])
        scale = qm.INT32_MAX / top if top else 0.0
        value = qm.to_int32(xp, xp.rint(total * scale))
        return _ranges_out(xp, out, value, -top, top)
    out_kind = "uint8" if calib[0] >= 0 else "int8"
    rng = qm.max_abs(*calib)
    scale = qm.ONEDNN_SCALE[out_kind] / rng if rng else 0.0
    value = qm.saturate(xp, total * scale, out_kind)
    return _ranges_out(xp, out, value, *(calib if out_kind == "uint8" else (-rng, rng)))


def _qadd_infer(attrs, in_shapes):
    shape = in_shapes[0] if in_shapes[0] is not None else in_shapes[1]
    return [shape, shape, (1,), (1,), (1,), (1,)], [shape, (1,), (1,)]


def _qadd_types(op, attrs, in_dtypes):
    calib = _calib(attrs)
    if calib is None:
        dt = np.dtype(np.int32)
    else:
        dt = np.dtype(np.uint8 if calib[0] >= 0 else np.int8)
    return list(in_dtypes[:2]) + [_F32] * 4, [dt, _F32, _F32]


register(OpDef(
    "_contrib_quantized_elemwise_add", _qadd_fwd,
    inputs=("lhs", "rhs", "lhs_min", "lhs_max", "rhs_min", "rhs_max"), attrs=dict(_CALIB_ATTRS),
    num_outputs=3, output_names=_RANGE_OUTS, infer_shape=_qadd_infer, infer_type=_qadd_types,
    differentiable=False,
    doc="Sum of two quantized arrays: int32 over the sum of their ranges, or int8/uint8 "
        "over a calibrated range."))


def _qmul_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    lhs, rhs = inputs[0], inputs[1]
    if lhs.shape != rhs.shape:
        fail("_contrib_quantized_elemwise_mul", "lhs and rhs must have one shape",
             lhs.shape, rhs.shape)
    r = [qm.scalar(xp, a) for a in inputs[2:6]]
    l_rng, r_rng = qm.max_abs(r[0], r[1]), qm.max_abs(r[2], r[3])
    prod = lhs.astype(np.int32) * rhs.astype(np.int32)
    if attrs.enable_float_output:
        scale = (qm.f32(l_rng) / qm.f32(127.5)) * (qm.f32(r_rng) / qm.f32(127.5))
        return [put(out, 0, (prod.astype(np.float32) * scale).astype(np.float32))]
    calib = _calib(attrs)
    if calib is None:
        top = float(qm.f32(l_rng) * qm.f32(r_rng) * qm.f32(qm.INT32_MAX)
                    / (qm.f32(127.0) * qm.f32(127.0)))
        return _ranges_out(xp, out, prod, -top, top)
    # int8 over the calibrated range, truncated toward zero like MXNet's kernel (which
    # then wraps out-of-range values; here they saturate)
    rng = qm.max_abs(*calib)
    scale = (qm.f32(l_rng) / qm.f32(127.5)) * (qm.f32(r_rng) / qm.f32(127.5)) \
        * (qm.f32(127.5) / qm.f32(rng)) if rng else qm.f32(0.0)
    value = xp.clip(xp.trunc(prod.astype(np.float32) * scale), -128, 127).astype(np.int8)
    return _ranges_out(xp, out, value, *calib)


def _qmul_types(op, attrs, in_dtypes):
    ins = list(in_dtypes[:2]) + [_F32] * 4
    if attrs.enable_float_output:
        return ins, [_F32]
    dt = np.dtype(np.int32) if _calib(attrs) is None else np.dtype(np.int8)
    return ins, [dt, _F32, _F32]


def _qmul_infer(attrs, in_shapes):
    ins, outs = _qadd_infer(attrs, in_shapes)
    return ins, outs[:1] if attrs.enable_float_output else outs


register(OpDef(
    "_contrib_quantized_elemwise_mul", _qmul_fwd,
    inputs=("lhs", "rhs", "lhs_min", "lhs_max", "rhs_min", "rhs_max"),
    attrs={**_CALIB_ATTRS, "enable_float_output": Attr("bool", False)},
    num_outputs=lambda attrs: 1 if attrs.enable_float_output else 3,
    output_names=lambda attrs: ("output",) if attrs.enable_float_output else _RANGE_OUTS,
    infer_shape=_qmul_infer, infer_type=_qmul_types, differentiable=False,
    doc="Product of two int8 arrays: int32 (range scaled by both input ranges), int8 over "
        "a calibrated range, or float32 with ``enable_float_output``."))


def _qconcat_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    n = attrs.num_args
    datas = inputs[:n]
    los = [qm.scalar(xp, a) for a in inputs[n::2]]
    his = [qm.scalar(xp, a) for a in inputs[n + 1::2]]
    lo, hi = min(los), max(his)
    top = qm.max_abs(lo, hi)
    out_kind = qm.kind(datas[0].dtype)
    parts = []
    for d, a, b in zip(datas, los, his):  # one rescale per input array
        ratio = qm.f32(qm.max_abs(a, b)) / qm.f32(top) if top else qm.f32(0.0)
        parts.append(qm.saturate(xp, d.astype(np.float32) * ratio, out_kind))
    axis = attrs.dim % datas[0].ndim
    try:
        value = xp.concatenate(parts, axis=axis)
    except ValueError:
        fail("_contrib_quantized_concat", f"shapes do not match off dimension {attrs.dim}",
             *[d.shape for d in datas])
    return _ranges_out(xp, out, value, lo, hi)


def _qconcat_infer(attrs, in_shapes):
    n = attrs.num_args
    cattrs = get_op("Concat").parse_attrs({"num_args": n, "dim": attrs.dim})
    ins, outs = get_op("Concat").infer_shape(cattrs, list(in_shapes[:n]))
    return list(ins) + _scalar_shapes(2 * n), [outs[0], (1,), (1,)]


def _qconcat_inputs(attrs):
    n = attrs.num_args
    return tuple(f"arg{i}" for i in range(n)) + tuple(
        f"arg{i}_{m}" for i in range(n) for m in ("min", "max"))


register(OpDef(
    "_contrib_quantized_concat", _qconcat_fwd, inputs=_qconcat_inputs,
    attrs={"num_args": Attr("int"), "dim": Attr("int", 1)}, key_var_num_args="num_args",
    num_outputs=3, output_names=_RANGE_OUTS, infer_shape=_qconcat_infer,
    infer_type=_passthrough_types, differentiable=False,
    doc="Concatenate quantized arrays after rescaling each to the widest range. Inputs: "
        "the ``num_args`` arrays, then ``min, max`` of each."))


# -- calibration ---------------------------------------------------------------------------------
def _calibrate_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    hist, edges = inputs
    if edges.size != hist.size + 1 or hist.size % 2 != 1:
        fail("_contrib_calibrate_entropy", "needs an odd number of bins and one edge more "
             "than bins", hist.shape, edges.shape)
    hist_np = hist.get() if hasattr(hist, "get") else np.asarray(hist)
    edges_np = edges.get() if hasattr(edges, "get") else np.asarray(edges)
    th, div = qm.entropy_threshold(hist_np, edges_np, attrs.num_quantized_bins)
    return [put(out, 0, xp.asarray([th], dtype=np.float32)),
            put(out, 1, xp.asarray([div], dtype=np.float32))]


register(OpDef(
    "_contrib_calibrate_entropy", _calibrate_fwd, inputs=("hist", "hist_edges"),
    attrs={"num_quantized_bins": Attr("int", 255)}, num_outputs=2,
    output_names=("threshold", "divergence"),
    infer_shape=lambda attrs, s: (list(s), [(1,), (1,)]),
    infer_type=lambda op, attrs, t: ([_F32, _F32], [_F32, _F32]), differentiable=False,
    doc="The threshold minimizing the KL divergence between a histogram and its "
        "quantization into ``num_quantized_bins`` bins, and that divergence."))


# -- what the graph rewrite of ``mx.contrib.quantization`` knows about each operator -----------
class QuantizedForm:
    """How a float operator is replaced in a quantized graph.

    Attributes
    ----------
    quantized : str
        The quantized operator.
    role : str
        ``'layer'``: an int32 accumulator (weights and bias quantized offline, a
        ``requantize`` after it); ``'batch_norm'``: float parameters, an output calibrated
        on its own; ``'requantized'``: int32 result requantized (``elemwise_add``);
        ``'concat'``: a variable number of inputs; ``'plain'``: int8 in, int8 out.
    """

    __slots__ = ("quantized", "role", "_accepts")

    def __init__(self, quantized: str, role: str, accepts=None):
        self.quantized = quantized
        self.role = role
        self._accepts = accepts

    def accepts(self, attrs) -> bool:
        """Whether the quantized operator supports these attributes."""
        return self._accepts is None or self._accepts(attrs)


_FORMS = {
    "Convolution": QuantizedForm(
        "_contrib_quantized_conv", "layer",
        lambda a: len(a.kernel) == 2 and a.num_group == 1 and a.layout in (None, "NCHW")),
    "FullyConnected": QuantizedForm("_contrib_quantized_fully_connected", "layer"),
    "Pooling": QuantizedForm(
        "_contrib_quantized_pooling", "plain",
        lambda a: a.pool_type in ("max", "avg") and a.layout in (None, "NCHW")),
    "Flatten": QuantizedForm("_contrib_quantized_flatten", "plain"),
    "Activation": QuantizedForm("_contrib_quantized_act", "plain",
                                lambda a: a.act_type == "relu"),
    "elemwise_add": QuantizedForm("_contrib_quantized_elemwise_add", "requantized"),
    "Concat": QuantizedForm("_contrib_quantized_concat", "concat"),
    "BatchNorm": QuantizedForm("_contrib_quantized_batch_norm", "batch_norm",
                               lambda a: not a.output_mean_var),
}

# the operators the rewrite inserts
QUANTIZE = "_contrib_quantize_v2"
DEQUANTIZE = "_contrib_dequantize"
REQUANTIZE = "_contrib_requantize"


def quantized_form(op: OpDef, attrs) -> QuantizedForm | None:
    """The quantized form of a node of ``op`` with ``attrs``, or None when it stays float."""
    form = _FORMS.get(op.name)
    return form if form is not None and form.accepts(attrs) else None


def named_in(op: OpDef, names) -> bool:
    """Whether ``op`` is one of ``names`` (MXNet's canonical names or aliases), as users
    list operators to exclude from quantization."""
    names = set(names or ())
    return op.name in names or any(a in names for a in op.aliases)


def calibration_key(op: OpDef, node_name: str, input_name: str) -> str | None:
    """The entry whose recorded range calibrates a node of a quantized graph: a
    ``quantize_v2`` node its input, a ``requantize_<layer>`` / ``quantized_<bn>`` node the
    float layer's output (``<layer>_output``); None for other nodes."""
    if op.name == QUANTIZE:
        return input_name
    if op.name == REQUANTIZE and node_name.startswith("requantize_"):
        return node_name[len("requantize_"):] + "_output"
    if op.name == "_contrib_quantized_batch_norm" and node_name.startswith("quantized_"):
        return node_name[len("quantized_"):] + "_output"
    return None
