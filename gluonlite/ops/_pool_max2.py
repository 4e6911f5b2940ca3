"""Max pooling with 2x2 windows and stride 2 on the CPU: whole-array passes only.

The common case (every CNN's ``MaxPool2D(2)``) written so that NumPy works on
contiguous memory.  NumPy's ufuncs are ~5x slower on strided views than on
contiguous arrays (no SIMD, per-row overhead on short rows: ``maximum`` over the
stride-2 view of a ``(64, 16, 16, 16)`` float32 array 100 us, over contiguous
halves 18 us), so:

* forward: ``h = maximum(x[:-1], x[1:])`` over the flat input holds every
  horizontal pair's maximum at its even positions and ``v = maximum(h[:-W],
  h[W:])`` every window's maximum at the top-left position of the window; one
  strided copy picks those out.  Each window's maximum is the same value as the
  row-major scan's (the NaN propagation of ``maximum`` too);
* backward: the output and the head gradient are upsampled to input
  resolution (each element doubled along the row by widening it into an unsigned
  integer of twice the size and multiplying by ``0x..01..01``, then rows
  repeated); ``x == y_up`` marks the maxima.  Where some window has several (ties:
  more marks than windows, e.g. the zeros after a ReLU; or NaN windows, which have
  none) the first maximum of each window in row-major order (MXNet's choice) is
  kept by two integer tricks on that mask: viewed as ``uint16`` each horizontal
  pair ``(a, b)`` is ``a | b << 8``, and ``p & -p`` keeps its lowest set byte; a
  bottom pair is then cleared wherever the top pair above it is not zero (one
  flat shifted pass, with a cached top/bottom row pattern so that the pass does
  not touch the next window row).  The gradient is the upsampled head gradient
  times that mask.  NaN windows get no gradient (nothing equals NaN), as in the
  general scan.

Measured (float32, 2 cores) forward / backward, with ties: ``(64, 16, 16, 16)``
105 / 295 us against 185 / 560 us for the per-offset scan on strided views;
``(64, 32, 8, 8)`` 75 / 135 against 140 / 370 us.  Without ties (the general code
then had a fast path too) LeNet's ``(64, 20, 24, 24)``: 275 / 670 against
415 / 700 us.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ._window import scratch

_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_PATTERNS: dict = {}
_MAX_PATTERNS = 8


def use_max2(xp, plan, x) -> bool:
    """Whether this max pooling is a plain 2x2 / stride 2 one on NumPy floats."""
    return (xp is np and plan.nd == 2 and plan.kernel == (2, 2) and plan.stride == (2, 2)
            and not any(plan.lo) and not any(plan.hi) and x.dtype.kind == "f"
            and x.size > 0)


def _window_part(x, ho: int, wo: int):
    """``x`` cropped to whole windows, C-contiguous (a view when it already is)."""
    if x.shape[2] != 2 * ho or x.shape[3] != 2 * wo:
        x = x[:, :, :2 * ho, :2 * wo]
    return np.ascontiguousarray(x)


def max2_forward(x, plan, out=None):
    """``(N, C, H // 2, W // 2)`` maxima, written into ``out`` when given."""
    n, c = x.shape[:2]
    ho, wo = plan.out
    xc = _window_part(x, ho, wo)
    w2 = 2 * wo
    flat = xc.reshape(-1)
    size = flat.size
    h = scratch(np, (size - 1,), x.dtype, "pool2_h")
    np.maximum(flat[:-1], flat[1:], out=h)
    v = scratch(np, (size - 1 - w2,), x.dtype, "pool2_v")
    np.maximum(h[:-w2], h[w2:], out=v)
    rows = n * c * ho
    step = x.dtype.itemsize
    tops = as_strided(v, (rows, wo), (2 * w2 * step, 2 * step), writeable=False)
    shape = (n, c, ho, wo)
    if out is not None and out.flags.c_contiguous:
        out.reshape(rows, wo)[...] = tops
        return out
    y = np.empty(shape, x.dtype)
    y.reshape(rows, wo)[...] = tops
    if out is not None:
        out[...] = y
        return out
    return y


def _upsample2(a, rows: int, wo: int, role: str):
    """``(rows, wo)`` -> ``(rows, 2, 2 * wo)``: each element twice, then each row twice.

    Widening first (on the smaller array) measured faster than repeating rows first:
    ``(7680, 12)`` float32 150 against 215 us.
    """
    size = a.dtype.itemsize
    a = np.ascontiguousarray(a)
    if 2 * size in _UINT:
        wide = scratch(np, (rows, wo), _UINT[2 * size], role)
        wide[...] = a.view(_UINT[size])
        np.multiply(wide, _UINT[2 * size](1 + (1 << (8 * size))), out=wide)
        pairs = wide.view(a.dtype)
    else:
        pairs = np.repeat(a, 2, axis=1)
    return np.repeat(pairs.reshape(rows, 1, 2 * wo), 2, axis=1)


def _bottom_rows(rows: int, wo: int):
    """Flat bool pattern of ``(rows, 2, wo)``: True on the second (bottom) row."""
    key = (rows, wo)
    pat = _PATTERNS.get(key)
    if pat is None:
        if len(_PATTERNS) >= _MAX_PATTERNS:
            _PATTERNS.clear()
        pat = np.zeros((rows, 2, wo), bool)
        pat[:, 1] = True
        pat = _PATTERNS[key] = pat.reshape(-1)
    return pat


def max2_backward(x, y, dy, plan):
    """Gradient of ``x`` (a fresh array): ``dy`` to the first maximum of each window."""
    n, c = x.shape[:2]
    ho, wo = plan.out
    rows = n * c * ho
    xc = _window_part(x, ho, wo)
    hit = scratch(np, (rows, 2, 2 * wo), bool, "pool2_hit")
    y_up = _upsample2(y.reshape(rows, wo), rows, wo, "pool2_y")    # a fresh array
    np.equal(xc.reshape(rows, 2, 2 * wo), y_up, out=hit)
    # every window without NaN has at least one hit: as many hits as windows means
    # no ties; otherwise (ties, e.g. the zeros after a ReLU) keep the first maximum
    if int(np.count_nonzero(hit)) != y.size or bool(np.isnan(y.sum())):
        pairs = hit.view(np.uint16).reshape(-1)            # one word per horizontal pair
        np.bitwise_and(pairs, np.negative(pairs), out=pairs)  # first of each pair
        # a bottom pair counts only where the pair above it (wo words back) has none;
        # the pattern keeps the pass from clearing top pairs after a bottom one
        free = pairs[:-wo] == 0
        np.bitwise_or(free, _bottom_rows(rows, wo)[:-wo], out=free)
        np.multiply(pairs[wo:], free, out=pairs[wo:])
    dx = _upsample2(dy.reshape(rows, wo), rows, wo, "pool2_dy")    # a fresh array
    y_up[...] = hit                                    # y_up is dead: the mask as floats
    np.multiply(dx, y_up, out=dx)
    dx = dx.reshape(n, c, 2 * ho, 2 * wo)
    if dx.shape == x.shape:
        return dx
    full = np.zeros(x.shape, x.dtype)
    full[:, :, :2 * ho, :2 * wo] = dx
    return full
