"""Convolutions with large columns, one batch chunk at a time ("batch-first" layout).

At realistic sizes the whole-batch columns are far larger than any cache: for
64 -> 64 channels, 3x3, on ``(32, 64, 56, 56)`` they are ``(576, 100352)``
float32, 231 MB, written once and read by two GEMMs, so the convolution is
memory-bound.  Here the batch is cut into chunks whose columns
``(nb, C * prod(kernel), prod(out))`` take about ``_CHUNK_BYTES`` (a few MB:
they stay in the last-level cache between their copy and their GEMM), and each
chunk runs one stacked GEMM against the weight.  The columns hold the batch
axis first, so the forward GEMM writes ``(nb, F, *out)`` straight into the
output (no transpose) and the head gradient is used as it is.

Backward recomputes each chunk's columns (cheaper than keeping 231 MB alive) and
accumulates the weight gradient over chunks; when the whole batch is one chunk,
the forward may keep its columns as the call's saved state instead (``keep``).  For unit strides the data gradient
is itself a convolution: the head gradient, padded by ``dilate * (kernel - 1) -
pad``, convolved with the spatially flipped, transposed weight.  Its columns
copy (like the forward) instead of scatter-adding; other strides use one GEMM
to columns plus one scatter-add per kernel offset.

1x1 kernels with unit stride and no padding need no columns at all: the input
``(N, C, P)`` is the right operand as it is, and the whole batch is one chunk.

Measured on the case above (2 shared cores, quiet moments): forward + backward
about 215 -> 185 ms in one process (medians 230 -> 215 in fresh benchmark
processes); the three GEMMs alone take about 120 ms.  Caveat: with another
process busy on one core, OpenBLAS's two threads meet at every one of the ~100
per-item GEMM calls, and this path was then about 1.3x slower than the
whole-batch one (single-threaded BLAS: equal).  Running the whole-batch layouts
in chunks of a few batch items (fewer, wider GEMMs) measured only 3% faster than
one pass.  LeNet's small convolutions keep the whole-batch layouts
(``use_chunked``).
"""
from __future__ import annotations

import math

import numpy as np

from ._window import (kernel_offsets, matmul_scratch, pad_spatial, scratch, small_matmul,
                      spatial_slice)

# Columns of one chunk: about one item's columns at 64 channels, 3x3, 56x56
# (7.2 MB); measured per item: 0.25 ms to copy into cache vs 0.6 ms uncached.
_CHUNK_BYTES = 8 << 20
# Whole-batch columns below this stay with the whole-batch layouts (LeNet: 8 MB;
# measured equal at 58 MB, 1.07x faster at 115 MB, 1.1-1.2x at 231 MB).
_MIN_COL_BYTES = 32 << 20
# Plain 1x1 kernels: per-item GEMMs need this many output pixels (measured 1.2x
# slower than the whole-batch layout at 8x8, 1.1x faster at 12x12, 1.3x at 16x16).
_MIN_1X1_PIXELS = 128


def _is_plain_1x1(geo) -> bool:
    return (all(k == 1 for k in geo.kernel) and all(s == 1 for s in geo.stride)
            and not any(geo.pad))


def use_chunked(xp, x_shape, geo, osz, itemsize: int, batch_last: bool = False) -> bool:
    """Whether a convolution takes this path: a plain 1x1 kernel with enough output
    pixels, or large columns (unless the whole-batch layout would be ``batch_last``).

    NumPy only: on a GPU nothing is cache-bound the same way and the whole-batch
    layouts launch far fewer kernels (the path itself is xp-generic and tested on
    the simulated GPU).
    """
    if xp is not np:
        return False
    if _is_plain_1x1(geo):
        return math.prod(osz) >= _MIN_1X1_PIXELS
    if batch_last:
        return False
    col_bytes = x_shape[0] * x_shape[1] * math.prod(geo.kernel) * math.prod(osz) * itemsize
    return col_bytes >= _MIN_COL_BYTES


def use_batch_first(xp, x, w, groups: int, geo, osz) -> bool:
    """Small columns that still take this path (one chunk, the whole batch): one
    group, at least ``_MIN_1X1_PIXELS`` output pixels per item, and fewer column rows
    than twice the filters (otherwise the pixel-major layout, ``_conv_rows``, wins).

    Per-item GEMMs then write ``(N, F, *out)`` directly: the channel-first
    whole-batch GEMM ``(F, C*K) @ (C*K, N*P)`` plus its transpose of the output
    measured 390 us against 215 us on the tutorial's first convolution (1 -> 16
    channels, 3x3, 16x16, batch 64; one thread), its weight gradient 265 against
    245 us (90 us of which rebuilt the columns, now kept from the forward).
    """
    if xp is not np or groups != 1 or x.shape[0] == 0:
        return False
    k = math.prod(geo.kernel)
    return (k > 1 and math.prod(osz) >= _MIN_1X1_PIXELS
            and x.shape[1] * k < 2 * w.shape[0])


def chunk_items(n: int, item_bytes: int) -> int:
    """Batch items per chunk (at least 1) for columns of ``item_bytes`` per item:
    about ``_CHUNK_BYTES`` per chunk."""
    return max(1, min(n, _CHUNK_BYTES // max(item_bytes, 1)))


def _chunks(n: int, nb: int):
    return [slice(a, min(a + nb, n)) for a in range(0, n, nb)]


def batch_columns(xp, x, kernel, stride, dilate, pad, osz, role: str | None):
    """Columns ``(N, C * prod(kernel), prod(osz))`` of ``(N, C, *S)`` (a scratch buffer;
    a fresh array for ``role=None``).

    ``pad`` pads both sides of each spatial axis.  One strided copy per kernel
    offset; for a plain 1x1 kernel a view of ``x`` itself.
    """
    n, c = x.shape[:2]
    if all(k == 1 for k in kernel) and all(s == 1 for s in stride) and not any(pad):
        return x.reshape(n, c, math.prod(osz))
    xpad = pad_spatial(xp, x, pad, pad, role=(role or "keep") + "_pad")
    col = scratch(xp, (n, c) + tuple(kernel) + tuple(osz), x.dtype, role)
    for off in kernel_offsets(kernel):
        start = tuple(o * d for o, d in zip(off, dilate))
        col[(slice(None), slice(None)) + off] = xpad[spatial_slice(start, osz, stride)]
    return col.reshape(n, c * math.prod(kernel), math.prod(osz))


def _grouped(a, groups: int):
    """``(nb, R, P)`` -> ``(nb, groups, R / groups, P)`` (a view)."""
    return a.reshape(a.shape[0], groups, a.shape[1] // groups, a.shape[2])


def chunked_forward(xp, x, w, groups: int, geo, osz, bias=None, out=None, keep: bool = False):
    """Convolution ``(N, F, *osz)`` chunk by chunk, written into ``out`` when given.

    With ``keep`` returns ``(y, columns)``: the whole-batch columns (a fresh array) for
    :func:`chunked_backward` when the batch is one chunk, else ``None``.
    """
    n, c = x.shape[:2]
    f = w.shape[0]
    dtype = xp.result_type(x.dtype, w.dtype)
    y = out if out is not None and out.flags.c_contiguous else xp.empty((n, f) + osz, dtype)
    wm = w.reshape(groups, f // groups, -1)                          # (g, Fg, Cg*K)
    k = math.prod(geo.kernel)
    nb = n if _is_plain_1x1(geo) else chunk_items(n, c * k * math.prod(osz) * x.dtype.itemsize)
    y3 = y.reshape(n, groups, f // groups, math.prod(osz))
    b = None if bias is None else bias.reshape((1, f) + (1,) * len(osz))
    kept = None
    for s in _chunks(n, nb):
        if keep and nb == n and not _is_plain_1x1(geo):  # one chunk: keep its columns
            col = kept = batch_columns(xp, x, geo.kernel, geo.stride, geo.dilate, geo.pad,
                                       osz, None)
        else:
            col = batch_columns(xp, x[s], geo.kernel, geo.stride, geo.dilate, geo.pad, osz,
                                "ccol")
        small_matmul(xp, wm, _grouped(col, groups), y3[s])
        if b is not None:
            ys = y[s]
            ys += b  # while the chunk is still in cache
    if out is not None and y is not out:
        out[...] = y
        y = out
    return (y, kept) if keep else y


def _unit_stride_transpose(geo) -> bool:
    """Whether the data gradient is a convolution of the head gradient (see module doc)."""
    return all(s == 1 for s in geo.stride) and all(
        p <= d * (k - 1) for p, d, k in zip(geo.pad, geo.dilate, geo.kernel))


def _flipped_weight(xp, w, groups: int):
    """``(g, Cg, Fg * K)``: the weight for the data gradient as a convolution."""
    f, cg = w.shape[:2]
    nd = w.ndim - 2
    flip = (slice(None), slice(None)) + (slice(None, None, -1),) * nd
    wg = w[flip].reshape((groups, f // groups, cg) + tuple(w.shape[2:]))
    return xp.ascontiguousarray(wg.swapaxes(1, 2)).reshape(groups, cg, -1)


def _head_columns(xp, dy, geo, spatial):
    """Columns of the head gradient ``dy`` for the data gradient as a convolution."""
    back = tuple(d * (k - 1) - p for d, k, p in zip(geo.dilate, geo.kernel, geo.pad))
    return batch_columns(xp, dy, geo.kernel, (1,) * len(spatial), geo.dilate, back,
                         tuple(spatial), "cdy")


def _data_grad_conv(xp, col, wflip, groups, geo, dx):
    """``dx`` (a chunk of the data gradient): the head gradient's columns ``col``
    (``_head_columns``) times the flipped weight ``wflip``."""
    n, c = dx.shape[:2]
    xp.matmul(wflip, _grouped(col, groups), out=dx.reshape(n, groups, c // groups, -1))


def _data_grad_scatter(xp, dy, wt, groups, geo, dx):
    """``dx`` (a chunk) by one GEMM to columns and one scatter-add per kernel offset."""
    n, c = dx.shape[:2]
    osz = tuple(dy.shape[2:])
    dcol = matmul_scratch(xp, wt, _grouped(dy.reshape(n, dy.shape[1], -1), groups), "cdcol")
    dcol = dcol.reshape((n, c) + tuple(geo.kernel) + osz)
    padded = tuple(s + 2 * p for s, p in zip(dx.shape[2:], geo.pad))
    acc = scratch(xp, (n, c) + padded, dx.dtype, "cacc", zero=True)
    for off in kernel_offsets(geo.kernel):
        start = tuple(o * d for o, d in zip(off, geo.dilate))
        acc[spatial_slice(start, osz, geo.stride)] += dcol[(slice(None), slice(None)) + off]
    dx[...] = acc[spatial_slice(geo.pad, dx.shape[2:])]


def chunked_backward(xp, x, w, dy, groups: int, geo, need=(True, True, True), kept=None):
    """``[dx, dw, db]`` (``None`` where not needed) chunk by chunk.

    ``db`` is computed whenever ``need[2]`` (the caller drops it for ``no_bias``).
    ``kept``: the whole-batch columns ``chunked_forward`` kept, if any.
    """
    n, c = x.shape[:2]
    f = w.shape[0]
    osz = tuple(dy.shape[2:])
    plain = _is_plain_1x1(geo)
    k = math.prod(geo.kernel)
    item = max(c * math.prod(osz), f * math.prod(x.shape[2:])) * k * x.dtype.itemsize
    nb = n if plain else chunk_items(n, item)
    dx = xp.empty(x.shape, x.dtype) if need[0] else None
    dw = xp.zeros((groups, f // groups, w[0].size), w.dtype) if need[1] else None
    db = xp.zeros(f, dy.dtype) if need[2] else None
    conv_dx = plain or _unit_stride_transpose(geo)
    if need[0]:
        wd = (_flipped_weight(xp, w, groups) if conv_dx else
              w.reshape(groups, f // groups, -1).swapaxes(1, 2))    # (g, Cg*K, Fg)
    if plain or not need[1]:
        kept = None
    for s in _chunks(n, nb):
        dys = dy[s]
        if need[2]:
            db += bias_grad_nf(xp, dys)  # while the chunk is in cache
        if need[0] and conv_dx:  # both copies before both GEMMs: fewer hand-overs to BLAS
            dcol = _head_columns(xp, dys, geo, x.shape[2:])
        if need[1]:
            col = None if kept is None else kept[s]
            if col is None:
                col = batch_columns(xp, x[s], geo.kernel, geo.stride, geo.dilate, geo.pad, osz,
                                    "ccol")
            part = matmul_scratch(xp, _grouped(dys.reshape(dys.shape[0], f, -1), groups),
                                  _grouped(col, groups).swapaxes(2, 3), "cdw")
            dw += part.sum(axis=0)
        if need[0] and conv_dx:
            _data_grad_conv(xp, dcol, wd, groups, geo, dx[s])
        elif need[0]:
            _data_grad_scatter(xp, dys, wd, groups, geo, dx[s])
    return [dx, None if dw is None else dw.reshape(w.shape), db]


def bias_grad_nf(xp, dy):
    """Bias gradient ``(F,)``: sums of ``dy`` ``(N, F, *out)`` over all axes but 1.

    For BLAS dtypes a matrix-vector product with ones, then a sum over the batch.
    """
    n, f = dy.shape[:2]
    if dy.dtype.char not in "fd" or dy.size == 0:
        return dy.sum(axis=(0,) + tuple(range(2, dy.ndim)))
    rows = dy.reshape(n * f, -1)
    return xp.matmul(rows, xp.ones(rows.shape[1], rows.dtype)).reshape(n, f).sum(axis=0)
