"""Strided-window helpers shared by convolution, deconvolution and pooling.

Everything works on channel-first data ``(N, C, *spatial)`` with 1 to 3
spatial dimensions, written once against ``xp`` (numpy or cupy).  Windows are
strided slices, one per kernel offset; the heavy lifting is one GEMM per group.

Column layouts (``C`` channels, ``K = prod(kernel)``, ``P = prod(out)``):

* ``im2col``: ``(C, *kernel, N, *out)``, i.e. the ``(C*K, N*P)`` right operand
  of one GEMM per group (the batch inside the GEMM: one large GEMM instead of
  ``N`` small ones measured about twice as fast);
* batch-last ``(C, *kernel, *out, N)``: see ``_batch_last``.

Measured on LeNet shapes (2 CPU cores): building columns with one strided copy
per kernel offset beat a single copy of a 6-D ``as_strided`` window view.  On
CuPy (float dtypes) ``im2col`` and ``col2im`` are instead one generated kernel
each (``_gpu_window``): a launch per kernel offset costs ~10 us of host time there.
"""
from __future__ import annotations

import threading

import numpy as np

from . import _gpu_window
from .common import fail
from .rnn_blas import SMALL_GEMM, one_blas_thread

# Scratch buffers for NumPy temporaries that never leave an operator (columns,
# widened head gradients).  Fresh large allocations cost page faults on every
# call (glibc returns big blocks to the OS); reusing a per-thread buffer per
# role made LeNet-sized convolutions several times faster.  CuPy has its own
# memory pool, so it always allocates.
_SCRATCH = threading.local()
_SCRATCH_MAX_BYTES = 128 << 20


def release_scratch() -> None:
    """Free this thread's scratch buffers."""
    _SCRATCH.__dict__.clear()


def scratch(xp, shape, dtype, role: str | None, zero: bool = False):
    """An uninitialized (or zeroed) temporary of ``shape`` for ``role``.

    The result is only valid until the next request for the same ``role`` in this
    thread: never return it (or a view of it) from an operator.  ``role=None`` gives a
    fresh array instead, which the caller owns (columns a forward keeps for its
    backward as per-call state).
    """
    dtype = np.dtype(dtype)
    if role is None:
        return xp.zeros(shape, dtype) if zero else xp.empty(shape, dtype)
    size = 1
    for d in shape:
        size *= d
    if xp is not np or size * dtype.itemsize > _SCRATCH_MAX_BYTES:
        return xp.zeros(shape, dtype) if zero else xp.empty(shape, dtype)
    bufs = getattr(_SCRATCH, "bufs", None)
    if bufs is None:
        bufs = _SCRATCH.bufs = {}
    key = (role, dtype)
    buf = bufs.get(key)
    if buf is None or buf.size < size:
        buf = bufs[key] = np.empty(max(size, 1), dtype)
    out = buf[:size].reshape(shape)
    if zero:
        out.fill(0)
    return out


def spatial_tuple(op: str, name: str, value, nd: int, default: int) -> tuple:
    """An attribute tuple of ``nd`` entries (``default`` when empty)."""
    if not value:
        return (default,) * nd
    value = tuple(default if v is None else int(v) for v in value)
    if len(value) != nd:
        fail(op, f"'{name}' must have {nd} entries (like kernel), got {value}")
    return value


def conv_out_size(op: str, size: int, k: int, s: int, d: int, p: int) -> int:
    """Output length of a convolution along one axis."""
    ext = d * (k - 1) + 1
    out = (size + 2 * p - ext) // s + 1
    if size and out <= 0:
        fail(op, f"kernel extent {ext} is larger than the padded input length {size + 2 * p}")
    return out


def pad_spatial(xp, x, lo, hi, value=0.0, role: str = "pad"):
    """Pad the spatial axes of ``x`` (``lo``/``hi`` per axis); no copy when all are 0.

    A padded copy is a scratch buffer (for ``role``).
    """
    if not any(lo) and not any(hi):
        return x
    shape = x.shape[:2] + tuple(s + a + b for s, a, b in zip(x.shape[2:], lo, hi))
    out = scratch(xp, shape, x.dtype, role)
    out.fill(value)
    out[spatial_slice(lo, x.shape[2:])] = x
    return out


def spatial_slice(start, size, step=None) -> tuple:
    """An index tuple ``[:, :, start:start+size*step:step, ...]``."""
    if step is None:
        step = (1,) * len(start)
    return (slice(None), slice(None)) + tuple(
        slice(a, a + (n - 1) * s + 1, s) for a, n, s in zip(start, size, step))


def kernel_offsets(kernel):
    """All kernel positions in row-major order (the order MXNet scans a window)."""
    offsets = [()]
    for k in kernel:
        offsets = [o + (i,) for o in offsets for i in range(k)]
    return offsets


def matmul_scratch(xp, a, b, role: str):
    """``a @ b`` (stacked) written into a scratch buffer for ``role``.

    Small products run on this thread's BLAS alone (``small_matmul``).
    """
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-1])
    out = scratch(xp, shape, np.result_type(a.dtype, b.dtype), role)
    return small_matmul(xp, a, b, out)


def small_matmul(xp, a, b, out):
    """``matmul(a, b, out=out)``; on one BLAS thread when it has fewer than
    ``rnn_blas.SMALL_GEMM`` multiply-adds in all.

    With a second process busy on a 2-core machine, OpenBLAS's split of a small
    GEMM waits for a descheduled worker: mobilenet0.25's first convolution (8192 x
    27 x 8) then took 6.5 ms instead of 0.1 ms (see ``rnn_blas``).
    """
    macs = out.size * a.shape[-1]
    if xp is not np or macs >= SMALL_GEMM:
        return xp.matmul(a, b, out=out)
    with one_blas_thread(xp, 1, macs, 1):
        return xp.matmul(a, b, out=out)


def im2col(xp, xpad, out_sizes, kernel, stride, dilate, role: str | None = "col",
           pad=None):
    """Columns ``(C, *kernel, N, *out)`` (contiguous) of the padded ``(N, C, *S)`` input.

    Row ``(c, k)`` holds, for every batch item and output position, the input
    value under kernel offset ``k`` of channel ``c``: reshaped to
    ``(C * prod(kernel), N * prod(out))`` it is the right operand of one GEMM.
    Built by one strided copy per kernel offset, into a scratch buffer (valid
    until the next ``im2col`` with the same ``role``; a fresh array for ``None``).

    With ``pad`` (per axis, both sides) ``xpad`` is the unpadded input and the
    windows read zeros outside it.  On CuPy (float dtypes) the columns are one
    generated kernel (``_gpu_window``) that reads the input in place, padding
    included, and always give a fresh array.
    """
    nd = len(kernel)
    if _gpu_window.usable(xp, xpad.dtype):
        return _gpu_window.im2col(xp, xpad, out_sizes, kernel, stride, dilate,
                                  (0,) * nd if pad is None else pad)
    if pad is not None:
        xpad = pad_spatial(xp, xpad, pad, pad)
    n, c = xpad.shape[:2]
    col = scratch(xp, (c,) + tuple(kernel) + (n,) + tuple(out_sizes), xpad.dtype, role)
    xt = xpad.swapaxes(0, 1)
    for off in kernel_offsets(kernel):
        start = tuple(o * d for o, d in zip(off, dilate))
        col[(slice(None),) + off] = xt[spatial_slice(start, out_sizes, stride)]
    return col


def col2im(xp, dcol, padded_cn, out_sizes, kernel, stride, dilate, crop=None):
    """Scatter-add columns ``(C, *kernel, N, *out)`` into a zero ``(C, N, *padded)`` array.

    One strided add per kernel offset (``prod(kernel)`` whole-batch operations),
    never a loop over pixels or batch items.  The result is a scratch buffer.
    ``crop``: ``(lo, sizes)`` returns only the block ``[lo, lo + sizes)`` of the
    spatial axes (a view on NumPy).

    On CuPy (float dtypes) it is one generated kernel in gather form
    (``_gpu_window.col2im``: each element sums the entries that read it, computing
    only the cropped block), a fresh array.
    """
    c, n = padded_cn[:2]
    padded = tuple(padded_cn[2:])
    if _gpu_window.usable(xp, dcol.dtype):
        lo, region = ((0,) * len(padded), padded) if crop is None else crop
        return _gpu_window.col2im(xp, dcol, n, out_sizes, kernel, stride, dilate, lo, region)
    dx = scratch(xp, padded_cn, dcol.dtype, "col2im", zero=True)
    for off in kernel_offsets(kernel):
        start = tuple(o * d for o, d in zip(off, dilate))
        dx[spatial_slice(start, out_sizes, stride)] += dcol[(slice(None),) + off]
    if crop is not None:
        return crop_spatial(dx, crop[0], crop[1])
    return dx


def to_channel_major(xp, x, groups: int, role: str = "cm"):
    """``(N, C, *S)`` -> contiguous ``(groups, C / groups, N * prod(S))`` (scratch)."""
    n, c = x.shape[:2]
    buf = scratch(xp, (c, n) + tuple(x.shape[2:]), x.dtype, role)
    buf[...] = x.swapaxes(0, 1)
    return buf.reshape(groups, c // groups, -1)


def from_channel_major(xp, y, n: int, spatial, out=None):
    """``(C, N * prod(S))``-ordered data -> ``(N, C, *S)`` (a fresh copy, or ``out``)."""
    y = y.reshape((-1, n) + tuple(spatial)).swapaxes(0, 1)
    if out is not None:
        out[...] = y
        return out
    return y.copy()  # always a fresh array: y may live in a scratch buffer


def crop_spatial(x, lo, sizes):
    """The ``[lo:lo+size]`` block of each spatial axis (a view)."""
    return x[spatial_slice(lo, sizes)]
