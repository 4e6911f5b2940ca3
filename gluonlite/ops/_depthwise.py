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

Large planes (more than ``_MAX_PIXELS`` outputs, or masks too large to cache) use
padded grids instead: the phases hold the zero-padded input, so a valid output's
tap reads stay inside its row and need no mask; the grid's extra columns and rows
(the padding, about 2-6% from 64x64 up) hold garbage outputs that are cropped (and
whose head gradient is zero).  The taps' weights are then one scalar per channel,
broadcast over each plane: on rows this long that costs nothing, and each tap's
operands are two streams instead of three.

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

from ._cpu_pool import run_halves
from ._window import kernel_offsets, scratch

# Masks tiled over the channels are cached up to this many elements per geometry.
_TILED_MASK_MAX = 1 << 18
# Compact grids serve up to this many output pixels per plane (and tiled masks up
# to ``_TILED_MASK_MAX``); larger geometries take the padded grids.  Measured with
# one BLAS thread, forward / backward in ms (general im2col + GEMM path, compact,
# padded): (32, 32, 28, 28) 5.1/30, 2.4/6.1, 3.8/10; (1, 512, 32, 32) 3.8/15,
# 6.9/12, 2.1/4.0; (1, 32, 256, 256) 14/26, 23/41, 6.0/14.
_MAX_PIXELS = 1024
# Tensors up to this many elements per phase run as one whole-batch block; larger
# ones in blocks of about ``_BLOCK`` elements (a few items, or a few channels of one
# item), so that a block's operands stay in cache across its ``2 K`` passes
# ((32, 32, 112, 112) float32: 65 ms in one block, against 31 ms for im2col + GEMM).
_WHOLE_MAX = 1 << 18
_BLOCK = 1 << 16
# Inputs of at least this many elements per phase are laid into the phases by two
# threads (NumPy's strided copies of ``x[..., a::s]`` run at ~1/4 of a plain copy's
# speed: 6 of the 11 ms of (1, 64, 256, 256) with stride 2)
_PARALLEL_COPY = 1 << 17


def use_depthwise(xp, x, w, groups: int, osz, bias=None) -> bool:
    """Whether a convolution takes this path: NumPy, one filter per channel and
    group, float32/float64 data, weight (and bias) of one dtype, a non-empty batch."""
    if xp is not np or x.dtype != w.dtype or x.dtype.char not in "fd":
        return False
    c = x.shape[1]
    if groups != c or w.shape[0] != c or w.shape[1] != 1 or x.size == 0:
        return False
    return bias is None or bias.dtype == x.dtype


class _Grid:
    """Grid, phases, tap shifts and masks of one depthwise geometry (immutable)."""

    def __init__(self, x_shape, kernel, stride, dilate, pad, osz, dtype):
        self.n, self.c = x_shape[:2]
        spatial = tuple(x_shape[2:])
        self.osz = tuple(osz)
        # large planes: the phases hold the zero-padded input, so no tap reads across
        # a row for a valid output and no masks are needed (see the module docstring)
        # (also when the compact grid's tiled masks would be too large to cache: their
        # weights, recomputed per call, would cost more than the padded grid's margins)
        taps_n, pixels = math.prod(kernel), math.prod(osz)
        self.padded = pixels > _MAX_PIXELS or taps_n * pixels * self.c > _TILED_MASK_MAX
        if self.padded:
            space, origin = tuple(s + 2 * p for s, p in zip(spatial, pad)), tuple(pad)
            pad = (0,) * len(pad)
        else:
            space, origin = spatial, (0,) * len(pad)
        taps, phases = [], {}
        for off in kernel_offsets(kernel):
            pos = [o * d - p for o, d, p in zip(off, dilate, pad)]
            phase = tuple(t % s for t, s in zip(pos, stride))
            shift = tuple(t // s for t, s in zip(pos, stride))
            taps.append((phases.setdefault(phase, len(phases)), shift))
        self.phases = list(phases)
        # phase a holds x[..., a::s]: size ceil((S - a) / s) per axis
        sizes = [tuple(-(-(n - a) // s) for n, a, s in zip(space, ph, stride))
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
        self.cover = len(self.phases) == math.prod(stride)
        self.segments = _segments(self.n, self.c, self.plane)
        self.seg_max = max(rows * length for _, rows, length, _, _ in self.segments)
        # per phase: its block on the grid that the input fills, and the input's slice
        self.blocks = [tuple(zip(*(_phase_axis(a, s, p, n) for a, s, p, n in
                                   zip(ph, stride, origin, spatial))))
                       for ph in self.phases]
        self.full = all(all(g.start == 0 and g.stop == n for g, n in zip(gsl, self.grid))
                        for gsl, _ in self.blocks)
        self.masks = self.tiled = None
        if self.padded:
            return
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
        if masks.size * self.c <= _TILED_MASK_MAX:
            tiled = np.tile(masks, (1, self.c))
            tiled.flags.writeable = False
            self.tiled = tiled

    def tap_weights(self, w):
        """Each tap's weights: ``(K, C * prod(G))``, per channel times the tap's mask,
        or on padded grids ``(K, C)`` (broadcast over each plane, ``weight``)."""
        wt = w.reshape(self.c, -1).T                                 # (K, C)
        if self.padded:
            return np.ascontiguousarray(wt)
        if self.tiled is not None:
            out = np.repeat(wt, self.plane, axis=1)
            return np.multiply(out, self.tiled, out=out)
        k = len(self.taps)
        return np.multiply(wt[:, :, None], self.masks[:, None, :]).reshape(k, -1)

    def weight(self, wk, k: int, lo: int, hi: int):
        """Tap ``k``'s weights (``tap_weights``) for the columns ``lo:hi`` of a block,
        shaped to multiply a block's ``planes`` view."""
        if self.padded:
            return wk[k, lo // self.plane:hi // self.plane, None]
        return wk[k, lo:hi]

    def planes(self, a):
        """A ``(rows, length)`` block as the tap weights multiply it: ``(rows,
        length / prod(G), prod(G))`` on padded grids, itself otherwise."""
        return a.reshape(a.shape[0], -1, self.plane) if self.padded else a

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


def _phase_axis(a: int, s: int, p: int, n: int):
    """One axis of a phase's block: the grid slice the input fills, the input's slice.

    Phase ``a`` holds positions ``a, a + s, ...`` of the input padded by ``p`` (0 on
    compact grids); input index ``i`` sits at padded position ``i + p``."""
    i0 = max(0, -(-(p - a) // s))
    x0 = a + s * i0 - p
    count = max(0, -(-(n - x0) // s))
    return slice(i0, i0 + count), slice(x0, None, s)


def _zero_borders(g, gsl) -> None:
    """Zero a phase grid ``(N, C, *G)`` outside its input block ``gsl``."""
    for j, sl in enumerate(gsl):
        lead = (slice(None),) * (2 + j)
        if sl.start:
            g[lead + (slice(0, sl.start),)] = 0
        if sl.stop < g.shape[2 + j]:
            g[lead + (slice(sl.stop, None),)] = 0


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
    # one item per phase and half of the channels: large inputs fill them on two threads
    parallel = grid.total >= _PARALLEL_COPY and grid.c >= 2
    halves = ([slice(0, grid.c // 2), slice(grid.c // 2, grid.c)] if parallel
              else [slice(None)])
    items = [(g, gsl, xsl, cs) for g, (gsl, xsl) in zip(grid.phase_grids(buf), grid.blocks)
             for cs in halves]

    def work(part) -> None:
        for g, gsl, xsl, cs in part:
            g = g[:, cs]
            if not grid.full:
                _zero_borders(g, gsl)
            g[(slice(None), slice(None)) + gsl] = x[(slice(None), cs) + xsl]

    if parallel:
        run_halves(work, items)
    else:  # small inputs: a thread hand-off would cost more than the copies
        work(items)
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
    """``acc`` (flat) = sum over taps of the tap's input slice times its weights.

    The blocks write disjoint parts of ``acc``: with several, two threads share them."""
    def work(segments) -> None:
        tmp = scratch(xp, (grid.seg_max,), acc.dtype, "dw_tmp")   # one per thread
        for seg in segments:
            a = block(acc, 0, seg)
            t = grid.planes(tmp[:a.size].reshape(a.shape))
            a = grid.planes(a)
            lo, hi = seg[3:]
            xp.multiply(grid.planes(grid.tap_view(xb, 0, seg)), grid.weight(wk, 0, lo, hi),
                        out=a)
            for k in range(1, len(grid.taps)):
                xp.multiply(grid.planes(grid.tap_view(xb, k, seg)),
                            grid.weight(wk, k, lo, hi), out=t)
                xp.add(a, t, out=a)

    run_halves(work, grid.segments)


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
    """``(C, K)``: per tap and channel, the masked head gradient times the tap's input
    (on padded grids the head gradient is zero off the valid outputs: no masks)."""
    xb = _phase_input(grid, x)
    k_taps = len(grid.taps)
    masks = None
    if not grid.padded:
        masks = grid.tiled if grid.tiled is not None else xp.tile(grid.masks, (1, grid.c))
    dwk = xp.zeros((k_taps, grid.c), x.dtype)
    for seg in grid.segments:
        d = block(dyg, 0, seg)
        t = tmp[:d.size].reshape(d.shape)
        lo, hi = seg[3:]
        c0, c1 = lo // grid.plane, hi // grid.plane
        planes = (d.shape[0], c1 - c0, grid.plane)
        for k in range(k_taps):
            dm = d if masks is None else xp.multiply(d, masks[k, lo:hi], out=t)
            dwk[k, c0:c1] += xp.einsum("ncp,ncp->c", dm.reshape(planes),
                                       grid.tap_view(xb, k, seg).reshape(planes))
    return xp.ascontiguousarray(dwk.T)


def _data_grad(xp, grid: _Grid, dyg, tmp, w, x_shape):
    """The transposed operation: every tap adds ``dy * masked w_tap`` at its shift."""
    acc = scratch(xp, (grid.size,), dyg.dtype, "dw_dx", zero=True)
    wk = grid.tap_weights(w)
    for seg in grid.segments:
        d = block(dyg, 0, seg)
        t = grid.planes(tmp[:d.size].reshape(d.shape))
        d = grid.planes(d)
        lo, hi = seg[3:]
        for k in range(len(grid.taps)):
            view = grid.planes(grid.tap_view(acc, k, seg))
            xp.multiply(d, grid.weight(wk, k, lo, hi), out=t)
            xp.add(view, t, out=view)
    m = grid.margin
    if grid.plain_in:
        return acc[m:m + grid.total].reshape(x_shape).copy()
    dx = (xp.empty if grid.cover else xp.zeros)(x_shape, dyg.dtype)
    for g, (gsl, xsl) in zip(grid.phase_grids(acc), grid.blocks):
        dx[(slice(None), slice(None)) + xsl] = g[(slice(None), slice(None)) + gsl]
    return dx
