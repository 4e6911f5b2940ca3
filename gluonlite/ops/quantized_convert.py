"""Conversions between float32 and INT8 (MXNet 1.9.1's ``_contrib_quantize``,
``_contrib_quantize_v2``, ``_contrib_quantize_asym``, ``_contrib_dequantize``,
``_contrib_requantize``) and the KL-divergence threshold of calibration
(``_contrib_calibrate_entropy``).

Every operator returns its data with the data's ``(min, max)`` range as ``(1,)`` float32
arrays (``quantize_asym``: its scale and shift), as MXNet's oneDNN CPU build does.  None
has a gradient: they serve inference only.
"""
from __future__ import annotations

import numpy as np

from . import _quantized_math as qm
from .attrs import Attr
from .common import fail, put
from .quantized_common import (CALIB_ATTRS, F32, NUMBERED_OUTS, OUT_TYPES, calib_range,
                               ranges_out, resolve_out_type, same_data_shape, typed,
                               unary_range_infer)
from .registry import OpDef, register


# -- quantize ---------------------------------------------------------------------------------
def _quantize_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    data, lo, hi = inputs[0], qm.scalar(xp, inputs[1]), qm.scalar(xp, inputs[2])
    real = qm.max_abs(lo, hi)
    x = data.astype(np.float32)
    if attrs.out_type == "int8":
        # MXNet's CPU build runs oneDNN's reorder: x * 127 / r rounded half to even and
        # saturated (100.5 gives 100); an empty range makes the scale infinite and every
        # value NaN, stored as 127 (a zero bias quantizes to 127s; its range, 0, still
        # makes it worth 0)
        if not real:
            return ranges_out(xp, out, xp.full(x.shape, 127, dtype=np.int8), -real, real)
        scale = qm.f32(127.0) / qm.f32(real)
        return ranges_out(xp, out, qm.saturate(xp, x * scale, "int8"), -real, real)
    scale = qm.f32(255.0) / qm.f32(real) if real else qm.f32(0.0)
    return ranges_out(xp, out, qm.saturate(xp, x * scale, "uint8"), lo, hi)


register(OpDef(
    "_contrib_quantize", _quantize_fwd, inputs=("data", "min_range", "max_range"),
    attrs={"out_type": Attr("str", "uint8", choices=("int8", "uint8"))},
    num_outputs=3, output_names=NUMBERED_OUTS, infer_shape=unary_range_infer,
    infer_shape_outputs=True,
    infer_type=typed(lambda a, t: np.dtype(a.out_type), np.float32), differentiable=False,
    doc="Quantize float32 ``data`` over the given range to int8 (symmetric, 127 levels) "
        "or uint8; returns the data and its range."))


# -- quantize_v2 ------------------------------------------------------------------------------
def _data_range(attrs, data) -> tuple:
    """The calibrated ``(min, max)`` when given, else the data's own (0, 0 when empty)."""
    calib = calib_range(attrs)
    if calib is not None:
        return calib
    if data.size:
        return float(data.min()), float(data.max())
    return 0.0, 0.0


def _quantize_v2_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    data = inputs[0]
    out_kind = resolve_out_type(attrs)
    lo, hi = _data_range(attrs, data)
    real = qm.max_abs(lo, hi)
    q = qm.onednn_quantize(xp, data, real, out_kind)
    if out_kind == "int8":
        lo, hi = -real, real
    return ranges_out(xp, out, q, lo, hi)


register(OpDef(
    "_contrib_quantize_v2", _quantize_v2_fwd, inputs=("data",),
    attrs={"out_type": Attr("str", "int8", choices=OUT_TYPES), **CALIB_ATTRS},
    num_outputs=3, output_names=NUMBERED_OUTS, infer_shape=unary_range_infer,
    infer_shape_outputs=True,
    infer_type=typed(lambda a, t: np.dtype(resolve_out_type(a)), np.float32),
    differentiable=False,
    doc="Quantize float32 ``data`` to int8/uint8 over its own range or the calibrated "
        "``[min_calib_range, max_calib_range]``; ``auto`` picks uint8 for a calibrated "
        "range starting at zero or above."))


# -- quantize_asym ----------------------------------------------------------------------------
def _quantize_asym_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    data = inputs[0]
    lo, hi = _data_range(attrs, data)
    scale, shift = qm.asym_params(lo, hi)
    return [put(out, 0, qm.asym_quantize(xp, data, scale, shift)),
            put(out, 1, xp.asarray([scale], dtype=np.float32)),
            put(out, 2, xp.asarray([shift], dtype=np.float32))]


register(OpDef(
    "_contrib_quantize_asym", _quantize_asym_fwd, inputs=("data",), attrs=dict(CALIB_ATTRS),
    num_outputs=3, output_names=("output", "scale", "shift"), infer_shape=unary_range_infer,
    infer_shape_outputs=True, infer_type=typed(lambda a, t: np.dtype(np.uint8), np.float32),
    differentiable=False,
    doc="Quantize float32 ``data`` to uint8 over its own range or the calibrated "
        "``[min_calib_range, max_calib_range]``, asymmetrically: ``q = x * scale + shift`` "
        "with ``scale = 255 / (max - min)`` and ``shift = 255 - max * scale``; returns "
        "the data, ``scale`` and ``shift``.  (MXNet 1.9.1's CPU kernel handles 3-D data "
        "only; here any shape.)"))


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
    infer_shape=lambda attrs, s, o=(None,): ([same_data_shape(s[0], o[0]), (1,), (1,)],
                                             [same_data_shape(s[0], o[0])]),
    infer_shape_outputs=True,
    infer_type=lambda op, attrs, t: ([t[0], F32, F32], [F32]), differentiable=False,
    doc="Float32 values of int8/uint8 (or int32) ``data`` quantized over a range."))


# -- requantize -------------------------------------------------------------------------------
def _requantize_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    data = inputs[0]
    if data.dtype != np.int32:
        fail("_contrib_requantize", f"data must be int32, not {data.dtype}", data.shape)
    in_range = qm.max_abs(qm.scalar(xp, inputs[1]), qm.scalar(xp, inputs[2]))
    real = data.astype(np.float32) * (qm.f32(in_range) / qm.f32(qm.INT32_MAX))
    out_kind = resolve_out_type(attrs)
    calib = calib_range(attrs)
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
    return ranges_out(xp, out, q, lo, hi)


register(OpDef(
    "_contrib_requantize", _requantize_fwd, inputs=("data", "min_range", "max_range"),
    attrs={"out_type": Attr("str", "int8", choices=OUT_TYPES), **CALIB_ATTRS},
    num_outputs=3, output_names=NUMBERED_OUTS, infer_shape=unary_range_infer,
    infer_shape_outputs=True,
    infer_type=typed(lambda a, t: np.dtype(resolve_out_type(a)), np.int32),
    differentiable=False,
    doc="Requantize an int32 accumulator to int8/uint8 over its actual or calibrated "
        "range."))


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
    infer_type=lambda op, attrs, t: ([F32, F32], [F32, F32]), differentiable=False,
    doc="The threshold minimizing the KL divergence between a histogram and its "
        "quantization into ``num_quantized_bins`` bins, and that divergence."))
