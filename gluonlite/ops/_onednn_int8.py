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
    w = xp.multiply(weight, alpha.reshape((-1,) + (1,) * (weight.ndim - 1)), dtype=F32)
    if bias is None:
        b = beta.astype(F32) - alpha * mean.astype(F32)
    else:
        b = beta.astype(F32) + alpha * (bias.astype(F32) - mean.astype(F32))
    return w, b


class PreparedWeights:
    """A quantized layer's float32 weight (a fused BatchNorm folded in) and bias, with
    what MXNet derives from them alone: the per-channel ranges, and the int8 levels of
    the last set of scales (MXNet's nodes quantize their weights once and again only
    when the weights or the data range change; the engine keeps this object while the
    weights are unchanged, see ``OpDef.prepare``).

    Parameters
    ----------
    weight : array
        ``(channels, ...)``, float32 (or castable).
    bias : array or None
    """

    def __init__(self, xp, weight, bias):
        self.weight = weight.astype(F32, copy=False)
        self.bias = None if bias is None else bias.astype(F32, copy=False)
        flat = self.weight.reshape(weight.shape[0], -1)
        self.c_min, self.c_max = to_host(flat.min(axis=1)), to_host(flat.max(axis=1))
        self.bias_host = None if bias is None else to_host(self.bias)
        self._levels_key = None
        self._levels = None

    def scales(self, data_scale: np.float32, channelwise: bool):
        """Per-channel scales (``channelwise``) or one scale, MXNet's
        ``GetWeightScales``, as a float32 NumPy array (a few numbers per layer, on the
        host, as MXNet computes them); also the weights' overall ``(min, max)`` (the
        int32 output range needs them)."""
        c_min, c_max = self.c_min, self.c_max
        total = (float(c_min.min()), float(c_max.max()))
        if not channelwise:
            return np.asarray([quantize_scale("int8", *total)], dtype=F32), total
        real = np.maximum(np.abs(c_min), np.abs(c_max))
        with np.errstate(divide="ignore"):
            scales = np.where(real > 0, F32(127.5) / real, F32(qm.INT32_MAX)).astype(F32)
            if self.bias_host is not None:  # keep the int32 bias under INT32_MAX / 2
                b = self.bias_host          # (oneDNN's limit)
                top = np.where(b > 0, F32(2147483648.0), F32(_INT32_MIN)).astype(F32)
                cap = ((top / F32(2)) / b) / F32(data_scale)
                scales = np.where(b != 0, np.minimum(scales, cap), scales).astype(F32)
        return scales, total

    def levels(self, xp, scales: np.ndarray) -> tuple:
        """``(levels, memo)``: the weight quantized with per-channel ``scales``
        (:func:`quantize_weight`) and a dict the caller may keep more of its own
        per-scales work in; both kept until other scales come."""
        key = scales.tobytes()
        if self._levels_key != key:
            self._levels = None
            shape = (-1,) + (1,) * (self.weight.ndim - 1)
            self._levels = (quantize_weight(xp, self.weight, scales.reshape(shape)), {})
            self._levels_key = key
        return self._levels


def weight_scales(xp, weight, bias, data_scale: np.float32, channelwise: bool):
    """:meth:`PreparedWeights.scales` of ``weight`` and ``bias`` prepared for one call."""
    return PreparedWeights(xp, weight, bias).scales(data_scale, channelwise)


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


def quantize_weight(xp, weight, scales):
    """The weight quantized to int8 levels by oneDNN's reorder (``weight * scales``
    rounded to nearest even, saturated), kept as float32: the integer values a float
    GEMM then multiplies exactly (see :func:`~._quantized_math.exact_dtype`).  One
    product, then rounding and clipping in place."""
    if isinstance(scales, np.ndarray):
        scales = xp.asarray(scales, dtype=F32)
    q = xp.multiply(weight, scales, dtype=F32)
    xp.rint(q, out=q)
    lo, hi = qm.LIMITS["int8"]
    return xp.clip(q, lo, hi, out=q)


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


class Residual:
    """The sum post-op ``y + residual * scale`` with one rounding of the sum, as oneDNN's
    kernel computes it (``vfmadd``): the product of an integer and a float32 is exact in
    float64, so one float64 add and a float32 cast round once (ties of the two roundings
    apart, which a calibrated int8 network does not reach).

    Called as a post-op ``y -> y``, in place."""

    def __init__(self, residual, scale):
        self.residual = residual
        self.factor = float(scale)

    def __call__(self, y):
        p = self.residual.astype(np.float64)
        p *= self.factor
        p += y
        y[...] = p
        return y


_ZEROS: dict = {}


def relu_in_place(xp, y):
    """``max(y, 0)`` in ``y``'s memory.  On NumPy against a shared zero array of ``y``'s
    shape: its ``maximum`` with a scalar runs ~5x slower than with an array."""
    if xp is not np:
        return xp.maximum(y, F32(0), out=y)
    zeros = _ZEROS.get(y.dtype)
    if zeros is None or zeros.size < y.size:
        zeros = np.zeros(max(y.size, 1 << 16), y.dtype)
        zeros.flags.writeable = False
        _ZEROS[y.dtype] = zeros
    return np.maximum(y, zeros[:y.size].reshape(y.shape), out=y)


def finish(xp, acc, bias_i32, scales, post, out_kind: str | None):
    """From the exact accumulator to the node's output: float32 accumulator plus bias,
    times the output scales, the post-ops in that domain, then rounded and saturated
    to ``out_kind`` (``None``: float32 output).

    ``acc`` has channels on axis 1 and is the caller's scratch (a float32 one becomes
    the result in place: each step is one pass over it); ``scales`` and ``bias_i32``
    are per channel (or one value); ``post`` is a sequence of ``f(y) -> y``, in order
    (each may work in ``y``'s memory)."""
    shape = (1, -1) + (1,) * (acc.ndim - 2)
    y = acc if acc.dtype == F32 else acc.astype(F32)
    bias = None if bias_i32 is None else bias_i32.astype(F32).reshape(shape)
    scales = None if scales is None else xp.asarray(scales, dtype=F32).reshape(shape)
    dest = y if out_kind is None else xp.empty(y.shape, np.dtype(out_kind))
    if bias is not None:
        xp.add(y, bias, out=y)
    if scales is not None:
        xp.multiply(y, scales, out=y)
    for f in post:
        y = f(y)
    _store(xp, y, dest, out_kind)
    return dest


def _store(xp, y, dest, out_kind: str | None) -> None:
    """``y`` (float32) into ``dest``: as it is (``None``), or rounded to nearest even and
    saturated to ``out_kind``."""
    if out_kind is None:
        if y is not dest:
            dest[...] = y
        return
    if y.dtype != F32:
        y = y.astype(F32)
    xp.rint(y, out=y)
    if out_kind == "int32":  # float32 cannot hold INT32_MAX: clip in float64
        dest[...] = xp.clip(y.astype(np.float64), _INT32_MIN, qm.INT32_MAX)
        return
    lo, hi = qm.LIMITS[out_kind]
    dest[...] = xp.clip(y, lo, hi, out=y)
