"""MXNet 1.9.1's fused oneDNN self-attention nodes: ``_sg_mkldnn_selfatt_qk`` and
``_sg_mkldnn_selfatt_valatt``.

MXNet's CPU build turns ``interleaved_matmul_selfatt_qk``/``_valatt`` (every GluonNLP
BERT layer) into these nodes when a model is optimized for oneDNN or quantized; the
exported ``-symbol.json`` keeps them.  A float node (``quantized=False``) means its
subgraph, the original operator, and runs it.  A quantized node reads int8 projections
(and, for ``valatt``, the uint8 attention weights) with their ranges and gives int8
over the calibrated range, float32 (``enable_float_output``) or int32, as MXNet's
oneDNN matmul does: exact int32 products, times one output scale (which for ``qk``
also holds ``1 / sqrt(head_dim)``), rounded to nearest even and saturated.  Two
behaviours of MXNet's kernels are kept: an uncalibrated int32 ``qk`` reports the range
``(-0, 0)`` and still applies ``1 / sqrt(head_dim)``.  Inference only: the gradient of a
quantized node is zero (MXNet's).
"""
from __future__ import annotations

import numpy as np

from . import _onednn_int8 as q8
from . import _quantized_math as qm
from .attrs import Attr
from .common import fail
from .contrib_attention import _heads_to_seq, _split_heads
from .control_flow import _write
from .onednn_fused import (_backward, _FusedOpDef, _sub, fused_forward,
                           fused_infer_shape)
from .quantized_common import CALIB_ATTRS, F32
from .registry import register

__all__ = ["SG_SELFATT_QK", "SG_SELFATT_VALATT"]

f32 = np.float32
_QK = "_sg_mkldnn_selfatt_qk"
_VALATT = "_sg_mkldnn_selfatt_valatt"

_ATTRS = {"heads": Attr("int"), "quantized": Attr("bool", False),
          "enable_float_output": Attr("bool", False), **CALIB_ATTRS,
          "subgraphs": Attr("object", ())}


def _calibrated(attrs) -> bool:
    return attrs.min_calib_range is not None and attrs.max_calib_range is not None


def _n_outputs(attrs) -> int:
    return 3 if attrs.quantized and not attrs.enable_float_output else 1


def _output_names(attrs) -> tuple:
    return ("output", "min_output", "max_output") if _n_outputs(attrs) == 3 else ("output",)


def _out_kind(attrs) -> str | None:
    if attrs.enable_float_output:
        return None
    return "int8" if _calibrated(attrs) else "int32"


def _finish(oc, attrs, acc, oscale, lo: float, hi: float, out):
    """The output from the exact accumulator: times ``oscale`` in float32, rounded and
    saturated; without a scale (``None``: an uncalibrated int32 output) the exact sum."""
    if oscale is None:
        y = qm.to_int32(oc.xp, oc.xp.rint(acc))
    else:
        y = q8.finish(oc.xp, acc, None, None, [lambda v: v * f32(oscale)],
                      _out_kind(attrs))
    if attrs.enable_float_output:
        return _write([y], out)
    lo_a, hi_a = qm.range_arrays(oc.xp, lo, hi)
    return _write([y, lo_a, hi_a], out)


def _int8(op: str, a, what: str, kind: str = "int8"):
    if np.dtype(a.dtype) != np.dtype(kind):
        fail(op, f"quantized: expects {kind} {what}, got {a.dtype}", a.shape)


# -- qk ------------------------------------------------------------------------------------
def _quantized_qk(oc, attrs, inputs, out):
    qkv = inputs[0]
    _int8(_QK, qkv, "queries_keys_values")
    (q, k, _), d = _split_heads(_QK, qkv, attrs.heads, 3)
    acc = qm.int_matmul(oc.xp, q, k.transpose(0, 2, 1))
    d_scale = q8.quantize_scale("int8", qm.scalar(oc.xp, inputs[1]),
                                qm.scalar(oc.xp, inputs[2]))
    lo = hi = 0.0
    if _calibrated(attrs):
        lo, hi = float(attrs.min_calib_range), float(attrs.max_calib_range)
        oscale = q8.quantize_scale("int8", lo, hi) / (d_scale * d_scale)
    elif attrs.enable_float_output:
        oscale = f32(1.0) / (d_scale * d_scale)
    else:  # MXNet computes this range from zeros: (-0, 0)
        oscale, lo, hi = f32(1.0), -0.0, 0.0
    oscale = f32(oscale) / np.sqrt(f32(d))
    return _finish(oc, attrs, acc, oscale, lo, hi, out)


def _qk_inputs(attrs) -> tuple:
    return ("queries_keys_values",) + (("min_qkv", "max_qkv") if attrs.quantized else ())


# -- valatt --------------------------------------------------------------------------------
def _quantized_valatt(oc, attrs, inputs, out):
    xp = oc.xp
    qkv, att = inputs[0], inputs[1]
    _int8(_VALATT, qkv, "queries_keys_values")
    _int8(_VALATT, att, "attention", "uint8")
    (_, _, v), _ = _split_heads(_VALATT, qkv, attrs.heads, 3)
    if att.shape != (v.shape[0], v.shape[1], v.shape[1]):
        fail(_VALATT, f"attention must have shape {(v.shape[0], v.shape[1], v.shape[1])}",
             qkv.shape, att.shape)
    acc = _heads_to_seq(qm.int_matmul(xp, att, v), qkv.shape[1], attrs.heads)
    qkv_range = (qm.scalar(xp, inputs[2]), qm.scalar(xp, inputs[3]))
    att_range = (qm.scalar(xp, inputs[4]), qm.scalar(xp, inputs[5]))
    unit = q8.quantize_scale("int8", *qkv_range) * q8.quantize_scale("uint8", *att_range)
    if _calibrated(attrs):
        lo, hi = float(attrs.min_calib_range), float(attrs.max_calib_range)
        oscale = q8.quantize_scale("int8", lo, hi) / unit
    elif attrs.enable_float_output:
        lo = hi = 0.0
        oscale = f32(1.0) / unit
    else:
        hi = q8.int32_product_range(qkv_range, att_range, True)
        lo, oscale = -hi, None
    return _finish(oc, attrs, acc, oscale, lo, hi, out)


def _valatt_inputs(attrs) -> tuple:
    names = ("queries_keys_values", "attention")
    if attrs.quantized:
        names += ("min_qkv", "max_qkv", "min_attention", "max_attention")
    return names


# -- inference -------------------------------------------------------------------------------
def _infer_type(op: str, data_types: tuple):
    def infer(opdef, attrs, in_dtypes):
        if not attrs.quantized:
            s_in, s_out = _sub(attrs, op).infer_type(list(in_dtypes))
            return list(s_in), list(s_out)
        n = len(data_types)
        ins = [np.dtype(t) for t in data_types] + [F32] * (len(in_dtypes) - n)
        kind = _out_kind(attrs)
        outs = [F32] if kind is None else [np.dtype(kind), F32, F32]
        return ins, outs
    return infer


_COMMON = dict(saved_state=True, capturable=False, backward_uses=("inputs",),
               backward_mask=True, num_subgraphs=1, attrs=_ATTRS,
               num_outputs=_n_outputs, output_names=_output_names)

SG_SELFATT_QK = _FusedOpDef(
    _QK, fused_forward(_QK, _quantized_qk), backward=_backward(_QK), inputs=_qk_inputs,
    infer_shape=fused_infer_shape(_QK, _n_outputs), infer_type=_infer_type(_QK, ("int8",)),
    doc="Self-attention query-key products (``interleaved_matmul_selfatt_qk``) as MXNet's "
        "oneDNN backend fuses them, float32 or INT8.", **_COMMON)

SG_SELFATT_VALATT = _FusedOpDef(
    _VALATT, fused_forward(_VALATT, _quantized_valatt), backward=_backward(_VALATT),
    inputs=_valatt_inputs, infer_shape=fused_infer_shape(_VALATT, _n_outputs),
    infer_type=_infer_type(_VALATT, ("int8", "uint8")),
    doc="Self-attention weighted values (``interleaved_matmul_selfatt_valatt``) as MXNet's "
        "oneDNN backend fuses them, float32 or INT8.", **_COMMON)
register(SG_SELFATT_QK)
register(SG_SELFATT_VALATT)
