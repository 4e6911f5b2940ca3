"""Depthwise convolutions on the CPU as multiply-adds over shifted flat views.

A depthwise convolution (``num_group == channels == num_filter``) has one
``prod(kernel)``-tap filter per channel: as a GEMM per group it is ``C`` tiny
products (``(1, K) @ (K, N * P)``) whose per-call overhead dominates, after an
im2col whose copies run over rows only ``out[-1]`` long (mobilenet0.25 at 64x64,
batch 8: about 1.6 ms per call for its 13 depthwise layers).  Here the forward
is ``2 K - 1`` whole-batch ufunc calls over contiguous operands.

Layout.  Each input phase (see strides below) lies on a grid ``G`` (per axis
the larger of the output size and the phase's size), flattened per
``(N, C)`` plane, the whole batch one flat buffer with a zero margin at both
ends.  A kernel offset becomes a flat shift ``s_k`` on that grid, so the tap's
input for every output position is one contiguous slice ``buf[M + s_k : ...]``
of the whole batch.  Reads that leave the tap's valid region (the zero padding,
the previous or next row or plane) are cancelled by a 0/1 mask folded into the
tap's weights, which are expanded to ``(C * prod(G),)``: each tap is then one
``multiply`` and one ``add`` over same-shape contiguous ``(N, C * prod(G))``
arrays, the fastest form for NumPy (one pass over (8, 128, 4, 4) float32 took
3.9 us against 6.7 us with a broadcast ``(C, 1)`` weight; the copies of a padded
layout run over rows ``out[-1]`` long and cost as much as all taps together at
4x4).  When the output grid is the input grid (stride 1, "same" padding) the
accumulator is the output itself: no padding copy, no crop.

Strides use a phase split (space-to-depth): phase ``a`` holds ``x[..., a::s]``;
kernel offset ``i`` reads phase ``(i * dilate - pad) % s`` at grid shift ``(i *
dilate - pad) // s``, so every tap is again a unit-stride shift.

Gradients: the data gradient is the transposed operation (each tap adds the
head gradient times its masked weights into the phase buffers at its shift),
the weight gradient one ``einsum`` per tap of the masked head gradient with the
tap's input slice.  Per-geometry constants (tap shifts, masks) are cached by
value (shapes, kernel, stride, dilate, pad, dtype).

Caveat: a masked read multiplies a neighbouring input by 0, so an ``inf`` or
``nan`` input also turns the outputs whose masked reads reach it into ``nan``
(outputs whose window contains it are ``inf``/``nan`` with any layout).
NumPy only; the GPU keeps its layouts.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from ._window import kernel_offsets, scratch

# Masks tiled over the channels are cached up to this many elements per geometry
# (beyond, they are broadcast at each call).
_TILED_MASK_MAX = 1 << 18
# Larger output planes keep the im2col + GEMM path, whose copies then run over long
# rows: measured forward (float32) 1.2-2x faster here up to 32x32 outputs, about
# equal at 28x28 with stride 2 ((32, 64, 56, 56)), 2x slower at 112x112.
_MAX_PIXELS = 1024
# Tensors up to this many elements per phase run as one whole-batch block; larger
# ones in blocks of about ``_BLOCK`` elements (a few items, or a few channels of one
# item), so that a block's operands stay in cache across its ``2 K`` passes
# ((32, 32, 112, 112) float32: 65 ms in one block, against 31 ms for im2col + GEMM).
_WHOLE_MAX = 1 << 18
_BLOCK = 1 << 16


def use_depthwise(xp, x, w, groups: int, osz, bias=None) -> bool:
    """Whether a convolution takes this path: NumPy, one filter per channel and
    group, float32/float64 data, weight (and bias) of one dtype, a non-empty batch,
    at most ``_MAX_PIXELS`` output pixels per plane."""
    if xp is not np or x.dtype != w.dtype or x.dtype.char not in "fd":
        return False
    c = x.shape[1]
    if groups != c or w.shape[0] != c or w.shape[1] != 1 or x.size == 0:
        return False
    if bias is not None and bias.dtype != x.dtype:
        return False
    return math.prod(osz) <= _MAX_PIXELS


class _Grid:
    """Grid, phases, tap shifts and masks of one depthwise geometry (immutable)."""

    def __init__(self, x_shape, kernel, stride, dilate, pad, osz, dtype):
        self.n, self.c = x_shape[:2]
        spatial = tuple(x_shape[2:])
        self.osz = tuple(osz)
        taps, phases = [], {}
        for off in kernel_offsets(kernel):
            pos = [o * d - p for o, d, p in zip(off, dilate, pad)]
            phase = tuple(t % s for t, s in zip(pos, stride))
            shift = tuple(t // s for t, s in zip(pos, stride))
            taps.append((phases.setdefault(phase, len(phases)), shift))
        self.phases = list(phases)
        # phase a holds x[..., a::s]: size ceil((S - a) / s) per axis
        sizes = [tuple(-(-(n - a) // s) for n, a, s in zip(spatial, ph, stride))
                 for ph in self.phases]
        self.grid = tuple(max([o] + [sz[j] for sz in sizes]) for j, o in enumerate(osz))
        self.plane = math.prod(self.grid)
        self.total = self.n * self.c * self.plane
        gstride = [1] * len(self.grid)
        for j in range(len(self.grid) - 2, -1, -1):
            gstride[j] = gstride[j + 1] * self.grid[j + 1]
        flat = [(ph, sum(s * g for s, g in zip(sh, gstride))) for ph, sh in taps]
        self.margin = max(abs(s) for _, s in flat)
        self.taps = [self.margin + ph * self.total + s for ph, s in flat]
        self.size = len(self.phases) * self.total + 2 * self.margin
        # phase buffers are the input itself (a plain copy) for stride 1 on the input grid
        self.plain_in = self.grid == spatial and len(self.phases) == 1 and all(
            s == 1 for s in stride)
        self.plain_out = self.grid == self.osz
        self.full = all(sz == self.grid for sz in sizes)
        self.cover = len(self.phases) == math.prod(stride)
        self.segments = _segments(self.n, self.c, self.plane)
        self.seg_max = max(rows * length for _, rows, length, _, _ in self.segments)
        self.blocks = [(tuple(slice(0, n) for n in sz),
                        tuple(slice(a, None, s) for a, s in zip(ph, stride)))
                       for ph, sz in zip(self.phases, sizes)]
        # mask[k, q]: output q (on the grid) is valid and its tap-k read lies in the phase
        idx = np.indices(self.grid).reshape(len(self.grid), -1)
        masks = np.empty((len(taps), self.plane), dtype)
        for k, (ph, sh) in enumerate(taps):
            ok = np.ones(self.plane, bool)
            for j in range(len(self.grid)):
                pos = idx[j] + sh[j]
                ok &= (idx[j] < self.osz[j]) & (pos >= 0) & (pos < sizes[ph][j])
            masks[k] = ok
        masks.flags.writeable = False
        self.masks = masks
        tiled = None
        if masks.size * self.c <= _TILED_MASK_MAX:
            tiled = np.tile(masks, (1, self.c))
            tiled.flags.writeable = False
        self.tiled = tiled

    def tap_weights(self, w):
        """``(K, C * prod(G))``: each tap's per-channel weights times its mask."""
        wt = w.reshape(self.c, -1).T                                 # (K, C)
        if self.tiled is not None:
            out = np.repeat(wt, self.plane, axis=1)
            return np.multiply(out, self.tiled, out=out)
        k = len(self.taps)
        return np.multiply(wt[:, :, None], self.masks[:, None, :]).reshape(k, -1)

    def tap_view(self, buf, k: int, seg=None):
        """``(N, C * prod(G))`` slice of a phase buffer read (or written) by tap ``k``
        (or its rows ``(n, c0 * prod(G))`` to ``c1`` of block ``seg``)."""
        start = self.taps[k]
        if seg is None:
            return buf[start:start + self.total].reshape(self.n, self.c * self.plane)
        return block(buf, start, seg)

    def phase_grids(self, buf):
        """The ``(N, C, *G)`` grid of each phase in a phase buffer (views)."""
        shape = (self.n, self.c) + self.grid
        m = self.margin
        return [buf[m + i * self.total:m + (i + 1) * self.total].reshape(shape)
                for i in range(len(self.phases))]

    def valid(self, a):
        """The ``(N, C, *osz)`` block of an ``(N, C * prod(G))`` array (a view)."""
        a = a.reshape((self.n, self.c) + self.grid)
        if self.plain_out:
            return a
        return a[(slice(None), slice(None)) + tuple(slice(0, o) for o in self.osz)]


def _segments(n: int, c: int, plane: int):
    """Blocks ``(offset, rows, row_len, lo, hi)`` covering ``(N, C * plane)``: ``rows``
    rows of ``row_len`` elements from flat ``offset``; ``lo:hi`` slices a
    ``(C * plane,)`` per-channel vector (the tap weights) to the block's columns."""
    row = c * plane
    if n * row <= _WHOLE_MAX:
        return [(0, n, row, 0, row)]
    if row <= _BLOCK:
        nb = max(1, _BLOCK // row)
        return [(i * row, min(nb, n - i), row, 0, row) for i in range(0, n, nb)]
    cb = max(1, _BLOCK // plane) * plane
    return [(i * row + lo, 1, min(cb, row - lo), lo, min(lo + cb, row))
            for i in range(n) for lo in range(0, row, cb)]


def block(buf, start: int, seg):
    """Block ``seg`` (``_segments``) of a flat buffer whose data begin at ``start``."""
    off, rows, length = seg[:3]
    begin = start + off
    return buf[begin:begin + rows * length].reshape(rows, length)


@functools.lru_cache(maxsize=64)
def _grid(x_shape, kernel, stride, dilate, pad, osz, dtype) -> _Grid:
    return _Grid(x_shape, kernel, stride, dilate, pad, osz, np.dtype(dtype))


def _geometry_grid(x, geo, osz) -> _Grid:
    return _grid(tuple(x.shape), tuple(geo.kernel), tuple(geo.stride), tuple(geo.dilate),
                 tuple(geo.pad), tuple(osz), x.dtype.str)


def _phase_input(grid: _Grid, x):
    """The input's phases in one flat scratch buffer with zero margins."""
    buf = scratch(np, (grid.size,), x.dtype, "dw_x")
    m = grid.margin
    if m:
        buf[:m] = 0
        buf[grid.size - m:] = 0
    if grid.plain_in:
        buf[m:m + grid.total].reshape(x.shape)[...] = x
        return buf
    grids = grid.phase_grids(buf)
    if not grid.full:
        buf[m:grid.size - m] = 0
    for g, (gsl, xsl) in zip(grids, grid.blocks):
        g[(slice(None), slice(None)) + gsl] = x[(slice(None), slice(None)) + xsl]
    return buf


def depthwise_forward(xp, x, w, geo, osz, bias=None, out=None):
    """Depthwise convolution ``(N, C, *osz)`` (plus ``bias``), into ``out`` when given."""
    grid = _geometry_grid(x, geo, osz)
    xb = _phase_input(grid, x)
    wk = grid.tap_weights(w)
    shape = (grid.n, grid.c) + grid.osz
    direct = (grid.plain_out and bias is None and
              (out is None or (out.flags.c_contiguous and out.dtype == x.dtype)))
    if direct:  # accumulate straight into the output
        if out is None:
            out = xp.empty(shape, x.dtype)
        acc = out.reshape(grid.n, -1)
    else:
        acc = scratch(xp, (grid.n, grid.c * grid.plane), x.dtype, "dw_acc")
    _taps_forward(xp, grid, xb, wk, acc.reshape(-1))
    if direct:
        return out
    if out is None:
        out = xp.empty(shape, x.dtype)
    y = grid.valid(acc)
    if bias is not None:
        xp.add(y, bias.reshape((1, grid.c) + (1,) * len(osz)), out=out)
    else:
        out[...] = y
    return out


def _taps_forward(xp, grid: _Grid, xb, wk, acc) -> None:
    """``acc`` (flat) = sum over taps of the tap's input slice times its weights."""
    tmp = scratch(xp, (grid.seg_max,), acc.dtype, "dw_tmp")
    for seg in grid.segments:
        a = block(acc, 0, seg)
        t = tmp[:a.size].reshape(a.shape)
        lo, hi = seg[3:]
        xp.multiply(grid.tap_view(xb, 0, seg), wk[0, lo:hi], out=a)
        for k in range(1, len(grid.taps)):
            xp.multiply(grid.tap_view(xb, k, seg), wk[k, lo:hi], out=t)
            xp.add(a, t, out=a)


def _head_grid(xp, grid: _Grid, dy):
    """``dy`` on the output grid (zero off the valid block): ``(N, C * prod(G))``."""
    if grid.plain_out:
        return xp.ascontiguousarray(dy).reshape(grid.n, -1)
    dyg = scratch(xp, (grid.n, grid.c * grid.plane), dy.dtype, "dw_dy", zero=True)
    grid.valid(dyg)[...] = dy
    return dyg


def depthwise_backward(xp, x, w, dy, geo, need=(True, True, True)):
    """``[dx, dw, db]`` (``None`` where not needed) of a depthwise convolution."""
    osz = tuple(dy.shape[2:])
    if dy.dtype != x.dtype:
        dy = dy.astype(x.dtype)
    grid = _geometry_grid(x, geo, osz)
    dx = dw = db = None
    if need[2]:
        db = xp.einsum("ncp->c", dy.reshape(grid.n, grid.c, -1))
    if not (need[0] or need[1]):
        return [dx, dw, db]
    dyg = _head_grid(xp, grid, dy).reshape(-1)
    tmp = scratch(xp, (grid.seg_max,), dyg.dtype, "dw_tmp")
    if need[1]:
        dw = _weight_grad(xp, grid, dyg, tmp, x).reshape(w.shape)
    if need[0]:
        dx = _data_grad(xp, grid, dyg, tmp, w, x.shape)
    return [dx, dw, db]


def _weight_grad(xp, grid: _Grid, dyg, tmp, x):
    """``(C, K)``: per tap and channel, the masked head gradient times the tap's input."""
    xb = _phase_input(grid, x)
    k_taps = len(grid.taps)
    masks = grid.tiled if grid.tiled is not None else \
        xp.tile(grid.masks, (1, grid.c))
    dwk = xp.zeros((k_taps, grid.c), x.dtype)
    for seg in grid.segments:
        d = block(dyg, 0, seg)
        t = tmp[:d.size].reshape(d.shape)
        lo, hi = seg[3:]
        c0, c1 = lo // grid.plane, hi // grid.plane
        planes = (d.shape[0], c1 - c0, grid.plane)
        for k in range(k_taps):
            xp.multiply(d, masks[k, lo:hi], out=t)
            dwk[k, c0:c1] += xp.einsum("ncp,ncp->c", t.reshape(planes),
                                       grid.tap_view(xb, k, seg).reshape(planes))
    return xp.ascontiguousarray(dwk.T)


def _data_grad(xp, grid: _Grid, dyg, tmp, w, x_shape):
    """The transposed operation: every tap adds ``dy * masked w_tap`` at its shift."""
    acc = scratch(xp, (grid.size,), dyg.dtype, "dw_dx", zero=True)
    wk = grid.tap_weights(w)
    for seg in grid.segments:
        d = block(dyg, 0, seg)
        t = tmp[:d.size].reshape(d.shape)
        lo, hi = seg[3:]
        for k in range(len(grid.taps)):
            view = grid.tap_view(acc, k, seg)
            xp.multiply(d, wk[k, lo:hi], out=t)
            xp.add(view, t, out=view)
    m = grid.margin
    if grid.plain_in:
        return acc[m:m + grid.total].reshape(x_shape).copy()
    dx = (xp.empty if grid.cover else xp.zeros)(x_shape, dyg.dtype)
    for g, (gsl, xsl) in zip(grid.phase_grids(acc), grid.blocks):
        dx[(slice(None), slice(None)) + xsl] = g[(slice(None), slice(None)) + gsl]
    return dx
