"""Scales and kernels shared by the INT8 operators (the ``quantized_*`` modules).

MXNet 1.9.1's CPU build (oneDNN) uses two sets of constants, and so do we:

* the *level* of a quantized range, which gives the float range an int32 accumulator
  covers (``127`` for int8, ``255`` for uint8), and the scale of ``_contrib_quantize``'s
  int8 path and of ``_contrib_requantize``;
* the *oneDNN quantize scale* (``127.5`` for int8, ``255.5`` for uint8), used by
  ``_contrib_quantize_v2``, ``_contrib_dequantize`` and for the data of the quantized
  GEMM/convolution when their int8 bias is rescaled to int32.

Scales are computed in float32, like MXNet's kernels, and rounding is NumPy's
round-half-to-even (oneDNN's default).  Integer GEMMs run in float32 where no partial
sum can reach 2**24 (bounded from the operands' values), else in float64, which holds
every int8 x int8 sum of fewer than 2**37 terms exactly.
"""
from __future__ import annotations

import math

import numpy as np

from .common import to_host

INT32_MAX = 2147483647
LEVELS = {"int8": 127.0, "uint8": 255.0}
ONEDNN_SCALE = {"int8": 127.5, "uint8": 255.5}
LIMITS = {"int8": (-128, 127), "uint8": (0, 255)}


def kind(dtype) -> str:
    """``'int8'`` or ``'uint8'`` for a quantized array dtype (anything else: ``'int8'``)."""
    return "uint8" if np.dtype(dtype) == np.uint8 else "int8"


def scalar(xp, a) -> float:
    """The float value of a one-element range array."""
    return float(xp.asarray(a).reshape(-1)[0])


def max_abs(lo: float, hi: float) -> float:
    """``max(|lo|, |hi|)``, the symmetric range MXNet quantizes over."""
    return max(abs(float(lo)), abs(float(hi)))


def f32(v: float) -> np.float32:
    return np.float32(v)


def saturate(xp, values, out_kind: str):
    """Round half to even, clip to the range of ``out_kind`` and cast."""
    lo, hi = LIMITS[out_kind]
    return xp.clip(xp.rint(values), lo, hi).astype(out_kind)


def range_arrays(xp, lo: float, hi: float):
    """The two ``(1,)`` float32 arrays of a min/max output."""
    return xp.asarray([lo], dtype=np.float32), xp.asarray([hi], dtype=np.float32)


def onednn_quantize(xp, data, real_range: float, out_kind: str):
    """``x * (127.5 or 255.5) / real_range`` rounded and saturated (``quantize_v2``)."""
    scale = f32(ONEDNN_SCALE[out_kind]) / f32(real_range) if real_range else f32(0.0)
    return saturate(xp, data.astype(np.float32) * scale, out_kind)


def asym_params(lo: float, hi: float) -> tuple:
    """``(scale, shift)`` in float32 mapping ``[lo, hi]`` onto ``[0, 255]``:
    ``q = x * scale + shift``.  An empty range (``lo == hi``) gets scale 1, so that the
    constant maps to 255 and comes back exactly."""
    width = f32(hi) - f32(lo)
    scale = f32(255.0) / width if width > 0 else f32(1.0)
    return scale, f32(255.0) - f32(hi) * scale


def asym_quantize(xp, data, scale, shift):
    """uint8 ``x * scale + shift`` (float32, rounded half to even, saturated)."""
    return saturate(xp, data.astype(np.float32) * f32(scale) + f32(shift), "uint8")


def dequantize(xp, q, lo: float, hi: float, dtype=np.float32):
    """Float values of ``q`` quantized over ``[lo, hi]`` (symmetric oneDNN scale)."""
    k = kind(q.dtype)
    if dtype == np.float32:
        return q.astype(np.float32) * (f32(max_abs(lo, hi)) / f32(ONEDNN_SCALE[k]))
    return q.astype(dtype) * (max_abs(lo, hi) / ONEDNN_SCALE[k])


def int32_range(data_range: float, data_kind: str, weight_range: float) -> float:
    """The float value an int32 accumulator of ``data x weight`` covers at ``INT32_MAX``
    (MXNet's quantized convolution reports it with int8 levels even for uint8 data:
    callers pass ``data_kind='int8'`` there)."""
    return float(f32(data_range) * f32(weight_range) * f32(INT32_MAX)
                 / (f32(LEVELS[data_kind]) * f32(127.0)))


def bias_to_int32(xp, bias, data_range: float, data_kind: str, weight_range: float,
                  bias_range: float):
    """Rescale an int8 bias (range ``bias_range``) to the accumulator's int32 units."""
    if not data_range or not weight_range:  # an empty range: the accumulator covers 0
        return xp.zeros(bias.shape, dtype=np.int64)
    data_scale = f32(ONEDNN_SCALE[data_kind]) / f32(data_range)
    weight_scale = f32(127.0) / f32(weight_range)
    rescale = data_scale * weight_scale * f32(bias_range) / f32(127.0)
    return xp.trunc(bias.astype(np.float32) * rescale).astype(np.int64)  # C cast: truncates


def to_int32(xp, acc):
    """An exact float64/int64 accumulator as int32 (wrapping like a C int32 would not)."""
    return xp.clip(acc, -INT32_MAX - 1, INT32_MAX).astype(np.int32)


def exact_dtype(bound: float):
    """float32 when no partial sum can reach ``2**24`` in magnitude (every integer below
    is a float32, so a sum of integer products in any order is exact), else float64."""
    return np.float32 if bound < _F32_EXACT else np.float64


_F32_EXACT = float(1 << 24)


def channel_top(xp, x, axis: int) -> np.ndarray:
    """The largest magnitude of an integer array along every index of ``axis`` (over
    all other axes), as float64 on the host: what one input channel can contribute.
    Reduced over the contiguous trailing axes first (NumPy's fast path), then the
    leading ones."""
    axis %= x.ndim
    rows = x.reshape(math.prod(x.shape[:axis]), x.shape[axis], -1)

    def reduce(fn):
        return fn(fn(rows, axis=2), axis=0).astype(np.float64)
    hi = reduce(xp.max)
    if np.dtype(x.dtype).kind == "u":
        return to_host(hi)
    return to_host(xp.maximum(hi, -reduce(xp.min)))


def sum_bound(top: np.ndarray, abs_rows) -> float:
    """The largest magnitude any partial sum of a product can reach: per output row of
    ``abs_rows`` (``|weights|`` as ``(groups, outputs per group, inputs per group)``),
    the sum over its inputs of the weight times the largest magnitude that input takes
    (``top``, ``(groups * inputs per group,)``).  Every partial sum, in whatever order a
    GEMM adds, is a sub-sum of that."""
    if not abs_rows.size:
        return 0.0
    groups = abs_rows.shape[0]
    rows = to_host(abs_rows).astype(np.float64, copy=False)
    return float(np.matmul(rows, top.reshape(groups, -1, 1)).max())


class ChannelBound:
    """:func:`sum_bound` for one layer's weights and the data of each call, cheapest test
    first: the largest data magnitude times the largest row sum, then each input's
    magnitude times its largest weight, then the exact per-output sums (each an upper
    bound of the next); the first under ``2**24`` answers.

    Parameters
    ----------
    abs_rows : array
        ``|weights|`` as ``(groups, outputs per group, inputs per group)``.
    """

    def __init__(self, abs_rows):
        # float32 (exact: sums of at most 128 x kernel taps); float64 where multiplied
        self.rows = to_host(abs_rows).astype(np.float32, copy=False)
        self.groups = self.rows.shape[0]
        self.size = self.rows.size
        self.row_sum_max = float(self.rows.sum(axis=2, dtype=np.float64).max()) \
            if self.size else 0.0
        self.col_max = self.rows.max(axis=1).astype(np.float64) if self.size else None

    def bound(self, top: np.ndarray) -> float:
        """An upper bound of every partial sum for data with per-input magnitudes
        ``top``: under ``2**24`` whenever :func:`sum_bound` is."""
        if not self.size:
            return 0.0
        t = top.reshape(self.groups, -1)
        b = float(t.max()) * self.row_sum_max
        if b < _F32_EXACT:
            return b
        b = float((t * self.col_max).sum(axis=1).max())
        if b < _F32_EXACT:
            return b
        return float(np.matmul(self.rows.astype(np.float64), t[..., None]).max())


def conv_bound(xp, weight, groups: int, channel_last: bool = False) -> ChannelBound:
    """The :class:`ChannelBound` of a convolution's integer-valued weight: ``|weight|``
    summed over the kernel, per (output, input) channel of each group.  The weight is
    ``(O, I/g, *kernel)``, or ``(O, *kernel, I/g)`` with ``channel_last``."""
    n_out = weight.shape[0]
    w_abs = xp.abs(weight.astype(np.float32, copy=False))
    if not channel_last:  # a GEMV over the taps (NumPy sums a short last axis slowly)
        taps = math.prod(weight.shape[2:])
        rows = w_abs if taps == 1 else w_abs.reshape(-1, taps) @ xp.ones(taps, np.float32)
    else:
        rows = w_abs.reshape(n_out, -1, weight.shape[-1]).sum(axis=1)
    return ChannelBound(rows.reshape(groups, n_out // groups, -1))


def conv_exact_dtype(xp, data, bound: ChannelBound, channel_axis: int = 1):
    """float32 where a convolution of integer ``data`` with the weight of ``bound`` is
    exact in float32 (no output's partial sum can reach ``2**24``), else float64: per
    output channel, its weights' magnitudes summed over the kernel times the largest
    magnitude of each input channel of the data."""
    if not data.size or not bound.size:
        return np.float64
    return exact_dtype(bound.bound(channel_top(xp, data, channel_axis)))


def matmul_exact_dtype(xp, a, b, memo: dict | None = None):
    """:func:`exact_dtype` for ``a @ b`` (integer values, ``b`` of shape ``(..., K, N)``)
    from the largest magnitude of ``a`` per column ``k`` and ``|b|`` (kept in ``memo``,
    when given, for the next call with the same ``b``)."""
    if not a.size or not b.size:
        return np.float64
    top = channel_top(xp, a, -1)
    absb = None if memo is None else memo.get("abs_b")
    if absb is None:
        absb = xp.abs(b.astype(np.float32, copy=False)).reshape(-1, b.shape[-2], b.shape[-1])
        if memo is not None:
            memo["abs_b"] = absb
    weighted = xp.matmul(xp.asarray(top, dtype=np.float32), absb)
    # float32 rounding of that product is relative 2**-24 per term: a margin covers it
    return exact_dtype(float(to_host(weighted).max()) * (1 + b.shape[-2] * 2.0 ** -22))


def int_matmul(xp, a, b, memo: dict | None = None):
    """``a @ b`` of integer values, exactly, through float32 or float64 BLAS (``memo``:
    see :func:`matmul_exact_dtype`)."""
    dtype = matmul_exact_dtype(xp, a, b, memo)
    return xp.matmul(a.astype(dtype, copy=False), b.astype(dtype, copy=False))


def entropy_threshold(hist, edges, num_quantized_bins: int):
    """The KL-divergence calibration of TensorRT's INT8 recipe, as MXNet 1.9.1's
    ``_contrib_calibrate_entropy`` computes it.

    For each symmetric window of the histogram around its zero bin (at least
    ``num_quantized_bins`` wide), ``p`` is the window with the outliers folded into its
    end bins; ``q`` merges the window into ``num_quantized_bins`` bins and spreads each
    back evenly over its non-empty bins.  Both are smoothed (zeros become ``1e-4``) and
    the window with the smallest KL(p || q) wins.  Behaviours of MXNet's kernel kept
    here (found by probing it): the window's first bin counts in ``p`` but not in the
    merged ``q`` (nor among its non-empty bins), and all arithmetic is float32 with
    sums accumulated left to right (``cumsum``), which decides near-ties.

    Returns
    -------
    (threshold, divergence) : tuple of float
        The right edge of the window with the smallest divergence, and that divergence.
    """
    hist = np.asarray(hist, dtype=np.float32).astype(np.int64).astype(np.float64)
    edges = np.asarray(edges, dtype=np.float32)
    num_bins = hist.size
    zero_bin = num_bins // 2
    nq = num_quantized_bins
    cums = np.concatenate([[0.0], np.cumsum(hist)])
    total = cums[-1]
    widths = np.arange(nq // 2, zero_bin + 1)
    divergences = np.empty(widths.size, dtype=np.float32)
    for n, i in enumerate(widths):  # one candidate window per step, vectorized inside
        start, stop = zero_bin - i, zero_bin + i + 1
        merged_src = hist[start:stop].copy()
        p = merged_src.copy()
        p[0] = cums[start + 1]
        p[-1] += total - cums[stop]
        merged_src[0] = 0.0
        merged = merged_src.size // nq
        body = nq * merged
        sums = merged_src[:body].reshape(nq, merged).sum(axis=1)
        sums[-1] += merged_src[body:].sum()
        filled = merged_src != 0
        counts = filled[:body].reshape(nq, merged).sum(axis=1)
        counts[-1] += filled[body:].sum()
        per = np.divide(sums.astype(np.float32), counts.astype(np.float32),
                        out=np.zeros(nq, dtype=np.float32), where=counts > 0)
        q = np.concatenate([np.repeat(per, merged),
                            np.full(merged_src.size - body, per[-1], dtype=np.float32)])
        q[p == 0] = 0
        divergences[n] = _kl(_smooth(p.astype(np.float32)), _smooth(q))
    best = int(np.argmin(divergences))
    return float(edges[zero_bin + widths[best] + 1]), float(divergences[best])


def _smooth(p, eps: float = 0.0001):
    """Zeros of ``p`` become ``eps``, the mass taken evenly off the non-zero bins (float32);
    ``None`` for a distribution that is all zeros or too sparse to smooth."""
    zeros = p == 0
    n_zeros = int(zeros.sum())
    n_nonzeros = p.size - n_zeros
    if not n_nonzeros:
        return None
    eps = np.float32(eps)
    eps1 = eps * np.float32(n_zeros) / np.float32(n_nonzeros)
    if eps1 >= 1:
        return None
    return (p + np.where(zeros, eps, -eps1)).astype(np.float32)


def _kl(p, q) -> np.float32:
    """KL(p || q) of two smoothed float32 distributions, normalized and summed left to
    right in float32 (``inf`` when either could not be smoothed)."""
    if p is None or q is None:
        return np.float32(np.inf)
    p = p / np.cumsum(p)[-1]
    q = q / np.cumsum(q)[-1]
    ratio = np.log((p / q).astype(np.float64)).astype(np.float32)
    return np.cumsum(p * ratio)[-1]
