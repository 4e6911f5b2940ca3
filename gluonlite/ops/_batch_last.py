"""The "batch-last" column layout for convolutions with many input rows per filter.

Data is transposed to ``(C, *padded, N)`` (the batch axis innermost) before the
windows are copied, so that for unit stride along the last spatial axis each
kernel offset copies runs of ``out[-1] * N`` contiguous elements (with the
usual ``(C, N, *padded)`` order a run is only ``out[-1]`` long: 8 elements on
LeNet's second convolution).  Columns are ``(C, *kernel, *out, N)``, i.e. the
``(C*K, P*N)`` right operand of one GEMM per group, whose result
``(F, P, N)`` needs one 2-D transpose back to ``(N, F, *out)``.

The data gradient is then one GEMM to columns plus one add per kernel offset
of the same long runs.  The price is the transposes of the output and of the
head gradient (one pass over ``N * F * P`` elements each), so the layout pays
when the columns are much larger than the output and their rows are short:
``use_batch_last``.  Measured on LeNet's second convolution (one core): im2col
1.2 -> 0.25 ms, data gradient 4.7 -> 2.9 ms, forward + backward 12 -> 9.4 ms.
"""
from __future__ import annotations

import math

from . import _gpu_window
from ._window import kernel_offsets, matmul_scratch, scratch, spatial_slice

# Columns must have at least this many rows per filter for the transposes of the
# output and head gradient to be repaid (LeNet: 25 / 20 loses, 500 / 50 wins) ...
_MIN_ROWS_PER_FILTER = 2
# ... and the channel-first copies must run over short rows: measured (one core)
# 0.75x the time at 8 outputs per row, 0.95x at 14, equal at 28, 1.03x at 112.
_MAX_ROW = 16


def use_batch_last(channels: int, filters: int, kernel, out_last: int) -> bool:
    """Whether the batch-last layout pays for a convolution (per group sizes).

    It needs a kernel larger than 1 (1x1 columns are a plain transpose, 1.3x
    faster channel-first), ``C * prod(kernel) >= 2 F`` and at most ``_MAX_ROW``
    outputs along the last axis.
    """
    rows = channels
    for k in kernel:
        rows *= k
    return (rows > channels and rows >= _MIN_ROWS_PER_FILTER * filters
            and out_last <= _MAX_ROW)


def inner_slice(start, size, step=None) -> tuple:
    """``spatial_slice`` for ``(C, *S, N)``: windows on the middle axes."""
    return (slice(None),) + spatial_slice(start, size, step)[2:] + (slice(None),)


def to_batch_last(xp, x, pad, role: str = "bl"):
    """``(N, C, *S)`` -> ``(C, *(S + 2 pad), N)`` zero-padded (a scratch buffer)."""
    n, c = x.shape[:2]
    spatial = tuple(x.shape[2:])
    shape = (c,) + tuple(s + 2 * p for s, p in zip(spatial, pad)) + (n,)
    buf = scratch(xp, shape, x.dtype, role, zero=any(pad))
    xt = x.transpose(tuple(range(1, x.ndim)) + (0,))
    if any(pad):
        buf[inner_slice(pad, spatial)] = xt
    else:
        buf[...] = xt
    return buf


def im2col_batch_last(xp, xt, out_sizes, kernel, stride, dilate, role: str = "col"):
    """Columns ``(C, *kernel, *out, N)`` of the padded batch-last ``(C, *S, N)`` input.

    One copy per kernel offset, into a scratch buffer for ``role``; on CuPy (float
    dtypes) one generated kernel (``_gpu_window``), a fresh array.
    """
    if _gpu_window.usable(xp, xt.dtype):
        return _gpu_window.im2col(xp, xt, out_sizes, kernel, stride, dilate,
                                  (0,) * len(kernel), batch_last=True)
    c, n = xt.shape[0], xt.shape[-1]
    col = scratch(xp, (c,) + tuple(kernel) + tuple(out_sizes) + (n,), xt.dtype, role)
    for off in kernel_offsets(kernel):
        start = tuple(o * d for o, d in zip(off, dilate))
        col[(slice(None),) + off] = xt[inner_slice(start, out_sizes, stride)]
    return col


def col2im_batch_last(xp, dcol, padded, out_sizes, kernel, stride, dilate):
    """Scatter-add columns ``(C, *kernel, *out, N)`` into a zero ``(C, *padded, N)``.

    One add per kernel offset; the result is a scratch buffer.  On CuPy (float
    dtypes) one generated kernel in gather form (``_gpu_window``), a fresh array.
    """
    c, n = dcol.shape[0], dcol.shape[-1]
    if _gpu_window.usable(xp, dcol.dtype):
        return _gpu_window.col2im(xp, dcol, n, out_sizes, kernel, stride, dilate,
                                  (0,) * len(kernel), padded, batch_last=True)
    dx = scratch(xp, (c,) + tuple(padded) + (n,), dcol.dtype, "col2im", zero=True)
    for off in kernel_offsets(kernel):
        start = tuple(o * d for o, d in zip(off, dilate))
        dx[inner_slice(start, out_sizes, stride)] += dcol[(slice(None),) + off]
    return dx


def head_grad_batch_last(xp, dy, groups: int):
    """``(N, F, *out)`` -> contiguous ``(groups, F / groups, P * N)`` (scratch)."""
    n, f = dy.shape[:2]
    buf = scratch(xp, dy.shape[1:] + (n,), dy.dtype, "cm")
    m = math.prod(dy.shape[1:])                   # F * P (explicit: -1 fails when empty)
    buf.reshape(m, n)[...] = dy.reshape(n, m).T
    return buf.reshape(groups, f // groups, math.prod(dy.shape[2:]) * n)


def from_batch_last(xp, y, out_shape, bias=None, out=None):
    """GEMM result ``(F, P * N)`` (any grouping of ``F``) -> ``(N, F, *out)`` plus ``bias``.

    ``y`` is viewed as ``(F * P, N)`` and transposed in one pass, the bias (shape
    ``(F,)``) added in the same pass.  Returns ``out`` when given, else a fresh array.
    """
    n, f = out_shape[:2]
    yt = y.reshape(math.prod(out_shape[1:]), n).T.reshape(out_shape)  # a view, no copy
    if bias is None:
        if out is None:
            return yt.copy()  # y lives in a scratch buffer
        out[...] = yt
        return out
    b = bias.reshape((1, f) + (1,) * (len(out_shape) - 2))
    if out is None:  # C order (a plain add would follow yt's transposed strides)
        out = xp.empty(out_shape, xp.result_type(y.dtype, bias.dtype))
    return xp.add(yt, b, out=out)


def conv_data_grad_batch_last(xp, dyt, w, n: int, padded, out_sizes, geo):
    """Data gradient ``(C, *padded, N)`` (scratch) from the batch-last head gradient.

    ``dyt`` is ``(g, F/g, P * N)`` (``head_grad_batch_last``): one GEMM to columns
    ``(C, *kernel, *out, N)`` and ``col2im_batch_last``.
    """
    g = dyt.shape[0]
    wm = w.reshape(g, w.shape[0] // g, -1).transpose(0, 2, 1)        # (g, Cg*K, Fg)
    dcol = matmul_scratch(xp, wm, dyt, "dcol")
    c = w.shape[1] * g
    dcol = dcol.reshape((c,) + tuple(geo.kernel) + tuple(out_sizes) + (n,))
    return col2im_batch_last(xp, dcol, padded, out_sizes, geo.kernel, geo.stride, geo.dilate)
