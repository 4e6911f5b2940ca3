"""Elementwise operators over INT8 data (MXNet 1.9.1's
``_contrib_quantized_elemwise_add``, ``_contrib_quantized_elemwise_mul``,
``_contrib_quantized_concat``).  Inference only.
"""
from __future__ import annotations

import numpy as np

from . import _quantized_math as qm
from .attrs import Attr
from .common import fail, put
from .quantized_common import (CALIB_ATTRS, F32, RANGE_OUTS, calib_range, passthrough_types,
                               ranges_out, scalar_shapes)
from .registry import OpDef, get_op, register


# -- elementwise add, mul, concat ----------------------------------------------------------------
def _qadd_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    lhs, rhs = inputs[0], inputs[1]
    if lhs.shape != rhs.shape:
        fail("_contrib_quantized_elemwise_add", "lhs and rhs must have one shape",
             lhs.shape, rhs.shape)
    r = [qm.scalar(xp, a) for a in inputs[2:6]]
    total = (qm.dequantize(xp, lhs, r[0], r[1], np.float64)
             + qm.dequantize(xp, rhs, r[2], r[3], np.float64))
    calib = calib_range(attrs)
    if calib is None:
        top = qm.max_abs(r[0], r[1]) + qm.max_abs(r[2], r[3])
        scale = qm.INT32_MAX / top if top else 0.0
        value = qm.to_int32(xp, xp.rint(total * scale))
        return ranges_out(xp, out, value, -top, top)
    out_kind = "uint8" if calib[0] >= 0 else "int8"
    rng = qm.max_abs(*calib)
    scale = qm.ONEDNN_SCALE[out_kind] / rng if rng else 0.0
    value = qm.saturate(xp, total * scale, out_kind)
    return ranges_out(xp, out, value, *(calib if out_kind == "uint8" else (-rng, rng)))


def _qadd_infer(attrs, in_shapes):
    shape = in_shapes[0] if in_shapes[0] is not None else in_shapes[1]
    return [shape, shape, (1,), (1,), (1,), (1,)], [shape, (1,), (1,)]


def _qadd_types(op, attrs, in_dtypes):
    calib = calib_range(attrs)
    if calib is None:
        dt = np.dtype(np.int32)
    else:
        dt = np.dtype(np.uint8 if calib[0] >= 0 else np.int8)
    return list(in_dtypes[:2]) + [F32] * 4, [dt, F32, F32]


register(OpDef(
    "_contrib_quantized_elemwise_add", _qadd_fwd,
    inputs=("lhs", "rhs", "lhs_min", "lhs_max", "rhs_min", "rhs_max"), attrs=dict(CALIB_ATTRS),
    num_outputs=3, output_names=RANGE_OUTS, infer_shape=_qadd_infer, infer_type=_qadd_types,
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
    calib = calib_range(attrs)
    if calib is None:
        top = float(qm.f32(l_rng) * qm.f32(r_rng) * qm.f32(qm.INT32_MAX)
                    / (qm.f32(127.0) * qm.f32(127.0)))
        return ranges_out(xp, out, prod, -top, top)
    # int8 over the calibrated range, truncated toward zero like MXNet's kernel (which
    # then wraps out-of-range values; here they saturate)
    rng = qm.max_abs(*calib)
    scale = (qm.f32(l_rng) / qm.f32(127.5)) * (qm.f32(r_rng) / qm.f32(127.5)) \
        * (qm.f32(127.5) / qm.f32(rng)) if rng else qm.f32(0.0)
    value = xp.clip(xp.trunc(prod.astype(np.float32) * scale), -128, 127).astype(np.int8)
    return ranges_out(xp, out, value, *calib)


def _qmul_types(op, attrs, in_dtypes):
    ins = list(in_dtypes[:2]) + [F32] * 4
    if attrs.enable_float_output:
        return ins, [F32]
    dt = np.dtype(np.int32) if calib_range(attrs) is None else np.dtype(np.int8)
    return ins, [dt, F32, F32]


def _qmul_infer(attrs, in_shapes):
    ins, outs = _qadd_infer(attrs, in_shapes)
    return ins, outs[:1] if attrs.enable_float_output else outs


register(OpDef(
    "_contrib_quantized_elemwise_mul", _qmul_fwd,
    inputs=("lhs", "rhs", "lhs_min", "lhs_max", "rhs_min", "rhs_max"),
    attrs={**CALIB_ATTRS, "enable_float_output": Attr("bool", False)},
    num_outputs=lambda attrs: 1 if attrs.enable_float_output else 3,
    output_names=lambda attrs: ("output",) if attrs.enable_float_output else RANGE_OUTS,
    infer_shape=_qmul_infer, infer_type=_qmul_types, differentiable=False,
    doc="Product of two int8 arrays: int32 (range scaled by both input ranges), int8 over "
        "a calibrated range, or float32 with ``enable_float_output``."))


def _qconcat_fwd(oc, attrs, inputs, out):
    """MXNet's oneDNN kernel: the output range is ``[min(0, mins), max(0, maxes)]`` and
    its type int8 when any input is int8 (else uint8); an input whose scale
    (``127.5`` or ``255.5`` over its range) differs from the output's is rescaled into
    the output type (rounded to nearest even, saturated), one reorder per input."""
    xp = oc.xp
    n = attrs.num_args
    datas = inputs[:n]
    los = [qm.scalar(xp, a) for a in inputs[n::2]]
    his = [qm.scalar(xp, a) for a in inputs[n + 1::2]]
    lo, hi = min([0.0] + los), max([0.0] + his)
    out_kind = _concat_kind([d.dtype for d in datas])
    out_scale = _onednn_scale(out_kind, lo, hi)
    parts = []
    for d, a, b in zip(datas, los, his):
        scale = _onednn_scale(qm.kind(d.dtype), a, b)
        if scale == out_scale and qm.kind(d.dtype) == out_kind:
            parts.append(d)
        else:
            parts.append(qm.saturate(xp, d.astype(np.float32) * (out_scale / scale),
                                     out_kind))
    axis = attrs.dim % datas[0].ndim
    try:
        value = xp.concatenate(parts, axis=axis)
    except ValueError:
        fail("_contrib_quantized_concat", f"shapes do not match off dimension {attrs.dim}",
             *[d.shape for d in datas])
    return ranges_out(xp, out, value, lo, hi)


def _onednn_scale(kind: str, lo: float, hi: float):
    top = qm.f32(qm.max_abs(lo, hi))
    return qm.f32(qm.ONEDNN_SCALE[kind]) / top if top else qm.f32(np.inf)


def _concat_kind(dtypes) -> str:
    """int8 when any input is int8, else uint8 (MXNet's ``QuantizedConcatType``)."""
    return "int8" if any(d is not None and np.dtype(d) == np.int8 for d in dtypes) \
        else "uint8"


def _qconcat_types(op, attrs, in_dtypes):
    n = attrs.num_args
    kind = _concat_kind(in_dtypes[:n])
    ins = [d if d is not None and np.dtype(d) == np.int8 else np.dtype(np.uint8)
           for d in in_dtypes[:n]]
    return ins + [F32] * (len(in_dtypes) - n), [np.dtype(kind), F32, F32]


def _qconcat_infer(attrs, in_shapes):
    n = attrs.num_args
    cattrs = get_op("Concat").parse_attrs({"num_args": n, "dim": attrs.dim})
    ins, outs = get_op("Concat").infer_shape(cattrs, list(in_shapes[:n]))
    return list(ins) + scalar_shapes(2 * n), [outs[0], (1,), (1,)]


def _qconcat_inputs(attrs):
    n = attrs.num_args
    return tuple(f"arg{i}" for i in range(n)) + tuple(
        f"arg{i}_{m}" for i in range(n) for m in ("min", "max"))


register(OpDef(
    "_contrib_quantized_concat", _qconcat_fwd, inputs=_qconcat_inputs,
    attrs={"num_args": Attr("int"), "dim": Attr("int", 1)}, key_var_num_args="num_args",
    num_outputs=3, output_names=RANGE_OUTS, infer_shape=_qconcat_infer,
    infer_type=_qconcat_types, differentiable=False,
    doc="Concatenate quantized arrays after rescaling each to the widest range. Inputs: "
        "the ``num_args`` arrays, then ``min, max`` of each."))
