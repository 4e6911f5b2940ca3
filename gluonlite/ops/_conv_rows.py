"""The pixel-major ("rows") column layout for CPU convolutions with many input rows.

The columns are ``(N * prod(out), prod(kernel) * C)``: one row per output pixel,
its window ordered ``(*kernel, C)``, i.e. the im2col of the channel-last input
(what oneDNN calls NHWC).  The input is copied once into a zero-padded
channel-last scratch ``(N, *padded, C)``; then the whole window tensor
``(N, *out, *kernel, C)`` is a single ``as_strided`` view of it, copied into the
columns in one pass whose contiguous runs are ``kernel[-1] * C`` long (the last
kernel axis and the channels are adjacent in memory for dilation 1).

GEMM shapes then suit OpenBLAS's kernels: measured (float32, 32 x 144 x 4096,
the tutorial's second convolution) on the 2-core VM with two threads, forward
``cols @ W.T`` into ``(N*P, F)`` 220 us against 320 us for ``W @ cols`` over
channel-first columns, the weight gradient ``cols.T @ dy`` into ``(K*C, F)`` 230
against 440 us (300 us into ``(F, K*C)``), the data-gradient GEMMs 270 against
340 us (one thread: 430 / 450 / 500 against 640 / 720 / 660 us).

* forward: one GEMM, then one transposing pass ``(N, P, F) -> (N, F, P)`` that
  also adds the bias;
* backward: the head gradient made pixel-major ``(N*P, F)`` once (one transposing
  copy) serves the bias gradient (``ones @ dy``), the weight gradient (with the
  columns the forward kept as the call's saved state, ``OpDef.saved_state``;
  rebuilt without them) and the data gradient;
* data gradient: one batched GEMM per kernel offset ``(K, N*P, C) = dy @
  W[:, :, k]`` and one add per kernel offset into the padded channel-last
  gradient.  Each add is over ``(N, *out, C)`` blocks whose last output axis and
  channels are contiguous on both sides (runs of ``out[-1] * C`` for unit
  stride); with the offset-interleaved ``(N*P, K*C)`` columns of a single GEMM
  the runs are only ``C`` long: 810 us against 200 us for these adds at the
  sizes above.  (Laying the head gradient out as wide as the padded input, so
  that the adds run over whole padded rows, measured slower: NumPy's ufuncs on
  any non-contiguous view, even with rows of 1000+ elements, run 3-4x slower than
  on contiguous memory, and the GEMMs grow with the padding.)

Used for ``groups == 1``, float32/float64 data and weight of one dtype, when the
columns have at least ``_MIN_ROWS_PER_FILTER`` times as many rows as there are
filters (the transposes of the output and head gradient are then repaid) and at
least as many output pixels as filters (the weight's transpose is repaid): see
``use_rows``.  NumPy only (``as_strided``; the GPU keeps its own layouts).
"""
from __future__ import annotations

import math

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ._window import matmul_scratch, scratch

# Column rows (C * prod(kernel)) per filter needed for the layout to pay (see
# module doc); the tutorial's second convolution has 144 / 32.
_MIN_ROWS_PER_FILTER = 2
# Whole-batch columns above this go to the chunked path (``_chunked``).
_MAX_COL_BYTES = 32 << 20


def use_rows(xp, x, w, groups: int, geo, osz) -> bool:
    """Whether a convolution takes the pixel-major layout (module doc)."""
    if xp is not np or groups != 1 or x.dtype != w.dtype or x.dtype.char not in "fd":
        return False
    k = math.prod(geo.kernel)
    c, f = x.shape[1], w.shape[0]
    if k == 1 or c * k < _MIN_ROWS_PER_FILTER * f or x.shape[0] == 0:
        return False
    if x.shape[0] * math.prod(osz) < f:
        # fewer output pixels than filters: the weight's per-call transpose to
        # (F, *kernel, C) costs more than the columns it saves (ResNet's last stage at
        # batch 1, 49 pixels x 512 filters: 3.0 against 1.8 ms channel-first)
        return False
    return x.shape[0] * c * k * math.prod(osz) * x.dtype.itemsize < _MAX_COL_BYTES


def _padded_channel_last(xp, x, pad, role: str):
    """``(N, C, *S)`` -> zero-padded ``(N, *(S + 2 pad), C)`` (a scratch buffer)."""
    n, c = x.shape[:2]
    spatial = tuple(x.shape[2:])
    buf = scratch(xp, (n,) + tuple(s + 2 * p for s, p in zip(spatial, pad)) + (c,), x.dtype,
                  role, zero=any(pad))
    inner = (slice(None),) + tuple(slice(p, p + s) for p, s in zip(pad, spatial))
    buf[inner] = xp.moveaxis(x, 1, -1)
    return buf


def _rows(xp, x, geo, osz, role: str | None):
    """Columns ``(N * prod(out), prod(kernel) * C)`` of ``x`` (a scratch buffer; a fresh
    array for ``role=None``)."""
    n, c = x.shape[:2]
    xh = _padded_channel_last(xp, x, geo.pad, "rows_x")
    st = xh.strides
    sp = st[1:-1]
    window = as_strided(xh, (n,) + tuple(osz) + tuple(geo.kernel) + (c,),
                        (st[0],) + tuple(s * t for s, t in zip(sp, geo.stride))
                        + tuple(s * d for s, d in zip(sp, geo.dilate)) + (st[-1],),
                        writeable=False)
    cols = scratch(xp, window.shape, x.dtype, role)
    cols[...] = window
    return cols.reshape(n * math.prod(osz), math.prod(geo.kernel) * c)


def _weight_rows(xp, w):
    """``(F, C, *kernel)`` -> ``(F, prod(kernel) * C)`` in the columns' order."""
    return xp.ascontiguousarray(xp.moveaxis(w, 1, -1)).reshape(w.shape[0], -1)


def rows_forward(xp, x, w, geo, osz, bias=None, out=None, keep: bool = False):
    """Convolution ``(N, F, *osz)`` plus ``bias``, written into ``out`` when given.

    With ``keep`` returns ``(y, columns)``: the columns (a fresh array) for
    :func:`rows_backward` of the same call.
    """
    n, f = x.shape[0], w.shape[0]
    p = math.prod(osz)
    cols = _rows(xp, x, geo, osz, None if keep else "col")
    yt = matmul_scratch(xp, cols, _weight_rows(xp, w).T, "rows_y")        # (N*P, F)
    y = yt.reshape(n, p, f).transpose(0, 2, 1)                            # (N, F, P) view
    shape = (n, f) + tuple(osz)
    dest = out if out is not None and out.flags.c_contiguous else xp.empty(shape, x.dtype)
    d3 = dest.reshape(n, f, p)
    if bias is not None:
        xp.add(y, bias.reshape(1, f, 1), out=d3)
    else:
        d3[...] = y
    if out is not None and dest is not out:
        out[...] = dest
        dest = out
    return (dest, cols) if keep else dest


def rows_backward(xp, x, w, dy, geo, need=(True, True, True), cols=None):
    """``[dx, dw, db]`` (``None`` where not needed) of a convolution in this layout;
    ``cols``: the columns :func:`rows_forward` kept, if any."""
    n, c = x.shape[:2]
    f = w.shape[0]
    osz = tuple(dy.shape[2:])
    p = math.prod(osz)
    kernel = tuple(geo.kernel)
    dyt = scratch(xp, (n, p, f), dy.dtype, "rows_dyt")                      # pixel-major
    dyt[...] = dy.reshape(n, f, p).swapaxes(1, 2)
    dyt = dyt.reshape(n * p, f)
    dx = dw = db = None
    if need[2]:
        db = xp.matmul(xp.ones(n * p, dyt.dtype), dyt)
    if need[1]:
        if cols is None:
            cols = _rows(xp, x, geo, osz, "col")
        # (K*C, F) rather than (F, K*C): 230 against 300 us with two threads
        dwt = xp.matmul(cols.T, dyt).reshape(kernel + (c, f))
        nd = len(kernel)
        dw = xp.ascontiguousarray(dwt.transpose((nd + 1, nd) + tuple(range(nd))))
    if need[0]:
        dx = _data_grad(xp, dyt, w, x.shape, geo, osz)
    return [dx, dw, db]


def _offsets(kernel):
    offsets = [()]
    for kk in kernel:
        offsets = [o + (i,) for o in offsets for i in range(kk)]
    return offsets


def _weight_by_offset(xp, w):
    """``(F, C, *kernel)`` -> ``(K, F, C)``: one ``(F, C)`` matrix per kernel offset."""
    f, c = w.shape[:2]
    return xp.ascontiguousarray(xp.moveaxis(w.reshape(f, c, -1), 2, 0))


def _data_grad(xp, dyt, w, x_shape, geo, osz):
    """Data gradient: one GEMM per kernel offset ``(K, N*P, C)``, one add per offset."""
    n, c = x_shape[:2]
    kernel = tuple(geo.kernel)
    dcol = matmul_scratch(xp, dyt, _weight_by_offset(xp, w), "rows_dcol")  # (K, N*P, C)
    dcol = dcol.reshape((len(dcol), n) + osz + (c,))
    padded = tuple(s + 2 * q for s, q in zip(x_shape[2:], geo.pad))
    acc = scratch(xp, (n,) + padded + (c,), dcol.dtype, "rows_dx", zero=True)
    for i, off in enumerate(_offsets(kernel)):
        win = (slice(None),) + tuple(
            slice(o * d, o * d + (m - 1) * s + 1, s)
            for o, d, m, s in zip(off, geo.dilate, osz, geo.stride))
        acc[win] += dcol[i]
    inner = (slice(None),) + tuple(slice(q, q + s) for q, s in zip(geo.pad, x_shape[2:]))
    return xp.ascontiguousarray(xp.moveaxis(acc[inner], -1, 1))

