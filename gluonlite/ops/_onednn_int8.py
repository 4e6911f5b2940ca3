"""The INT8 arithmetic of MXNet 1.9.1's fused oneDNN nodes (``_sg_mkldnn_conv``,
``_sg_mkldnn_fully_connected`` with ``quantized=True``), written so that the numbers
are MXNet's.

What MXNet's CPU build does, step by step (learnt from its sources and checked against
its outputs, ``tests/fixtures/gen_onednn_fused.py``):

* A fused BatchNorm is folded into the float32 weight and bias first:
  ``alpha = gamma / sqrt(var + eps)`` (in double, stored as float32),
  ``w' = w * alpha``, ``b' = beta + alpha * (b - mean)``.
* The data scale is ``255.5`` (uint8) or ``127.5`` (int8) over ``max(|min|, |max|)`` of
  the data's range (``INT32_MAX`` for an empty range).
* Weights are quantized per output channel when the node has a calibrated output
  range (else with one scale): ``127.5 / max|w_c|``, lowered where the int32 bias
  would pass ``INT32_MAX / 2``; the bias becomes int32 at ``weight scale x data
  scale``.  Rounding is oneDNN's reorder: to nearest even, saturated.
* The accumulator (exact int32) is converted to float32, the bias added, the output
  scale applied (``output scale / data scale / weight scale``), then the post-ops in
  that scaled domain (activation, the sum input times ``output scale / sum scale``,
  the post-sum activation), and the result rounded to nearest even and saturated to
  the output type: uint8 after relu-like activations, else int8; int32 without a
  calibrated range (then the output range is the int32 range of the product).  The
  residual sum is one fused multiply-add, as oneDNN's kernel computes it (a separate
  multiply and add is off by one level in about one output in 10^5).
"""
from __future__ import annotations

import numpy as np

from . import _quantized_math as qm
from .common import to_host

F32 = np.float32
_INT32_MIN = -2147483648


def quantize_scale(dtype_kind: str, lo: float, hi: float) -> np.float32:
    """MXNet's ``GetQuantizeScale``: ``127.5`` or ``255.5`` over the range's largest
    magnitude, ``INT32_MAX`` for an empty range."""
    real = F32(qm.max_abs(lo, hi))
    return F32(qm.ONEDNN_SCALE[dtype_kind]) / real if real else F32(qm.INT32_MAX)


def fold_batch_norm(xp, weight, bias, gamma, beta, mean, var, eps: float, fix_gamma: bool):
    """``(weight, bias)`` with an inference BatchNorm folded in (float32)."""
    g = xp.ones(gamma.shape, dtype=np.float64) if fix_gamma else gamma.astype(np.float64)
    alpha = (g / xp.sqrt(var.astype(np.float64) + float(eps))).astype(F32)
    w = weight.astype(F32) * alpha.reshape((-1,) + (1,) * (weight.ndim - 1))
    if bias is None:
        b = beta.astype(F32) - alpha * mean.astype(F32)
    else:
        b = beta.astype(F32) + alpha * (bias.astype(F32) - mean.astype(F32))
    return w, b


def weight_scales(xp, weight, bias, data_scale: np.float32, channelwise: bool):
    """Per-channel scales (``channelwise``) or one scale, MXNet's ``GetWeightScales``, as a
    float32 NumPy array (a few numbers per layer: computed on the host, as MXNet does);
    also the weights' overall ``(min, max)`` (the int32 output range needs them)."""
    flat = weight.reshape(weight.shape[0], -1).astype(F32)
    c_min, c_max = to_host(flat.min(axis=1)), to_host(flat.max(axis=1))
    total = (float(c_min.min()), float(c_max.max()))
    if not channelwise:
        return np.asarray([quantize_scale("int8", *total)], dtype=F32), total
    real = np.maximum(np.abs(c_min), np.abs(c_max))
    with np.errstate(divide="ignore"):
        scales = np.where(real > 0, F32(127.5) / real, F32(qm.INT32_MAX)).astype(F32)
        if bias is not None:  # keep the int32 bias under INT32_MAX / 2 (oneDNN's limit)
            b = to_host(bias).astype(F32)
            top = np.where(b > 0, F32(2147483648.0), F32(_INT32_MIN)).astype(F32)
            cap = ((top / F32(2)) / b) / F32(data_scale)
            scales = np.where(b != 0, np.minimum(scales, cap), scales).astype(F32)
    return scales, total


def reorder(xp, values, scales, kind: str):
    """oneDNN's scaled reorder: ``values * scales`` (float32) rounded to nearest even and
    saturated to ``kind`` (``'int8'`` or ``'int32'``)."""
    if isinstance(scales, np.ndarray):
        scales = xp.asarray(scales, dtype=F32)
    scaled = values.astype(F32) * scales
    if kind == "int32":
        return xp.clip(xp.rint(scaled.astype(np.float64)), _INT32_MIN,
                       qm.INT32_MAX).astype(np.int32)
    return qm.saturate(xp, scaled, kind)


def int32_product_range(first: tuple, second: tuple, uint8_data: bool) -> float:
    """The float value at ``INT32_MAX`` of an int32 product accumulator (the ``(-top,
    top)`` an uncalibrated node reports), as MXNet's ``QuantizationRangeForMultiplication``
    computes it: one quantized level of ``first`` is its range over 127, of ``second``
    over 255 when the data are uint8 (MXNet passes the weight first for a convolution
    and the data first for a fully connected layer, so the 255 falls on different
    operands), multiplied in float32."""
    a = F32(qm.max_abs(*first)) / F32(127)
    b = F32(qm.max_abs(*second)) / F32(255 if uint8_data else 127)
    return float(a * b * F32(qm.INT32_MAX))


def fused_multiply_add(prev, scale):
    """The sum post-op ``y + prev * scale`` with one rounding (oneDNN's ``vfmadd``): the
    float32 product is exact in float64, so one float64 add and a float32 cast round
    once (ties of the two roundings apart, which a calibrated int8 network does not
    reach).  ``prev`` is the residual as float64."""
    factor = float(scale)

    def run(y):
        return (y.astype(np.float64) + prev * factor).astype(F32)
    return run


def finish(xp, acc, bias_i32, scales, post, out_kind: str | None):
    """From the exact accumulator to the node's output: float32 accumulator plus bias,
    times the output scales, the post-ops ``post(y) -> y`` in that domain, then rounded
    and saturated to ``out_kind`` (``None``: float32 output).

    ``acc`` has channels on axis 1; ``scales`` and ``bias_i32`` are per channel (or one
    value)."""
    shape = (1, -1) + (1,) * (acc.ndim - 2)
    y = acc.astype(F32)
    if bias_i32 is not None:
        y = y + bias_i32.astype(F32).reshape(shape)
    if scales is not None:
        y = y * xp.asarray(scales, dtype=F32).reshape(shape)
    y = post(y).astype(F32)
    if out_kind is None:
        return y
    return reorder(xp, y, F32(1), out_kind)
