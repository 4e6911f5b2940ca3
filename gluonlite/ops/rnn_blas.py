"""One BLAS thread for the small per-step GEMMs of the fused ``RNN`` operator's loops.

A recurrence does one small GEMM per time step (``(N, R) @ (R, G*H)``, e.g. 20 x 200
x 800).  OpenBLAS splits such a GEMM over all its threads; that gains little on an idle
machine (about 1.5x at these sizes) but loses badly as soon as another process keeps a
core busy: every GEMM then waits for a descheduled worker thread, measured at 5-15 ms
instead of 0.1 ms on a 2-core machine, i.e. 30-100x slower over a sequence.  So the
time loops run their per-step GEMMs on the calling thread alone when they are small
(:data:`SMALL_GEMM` multiply-adds), through OpenBLAS's thread-local
``openblas_set_num_threads_local`` (OpenBLAS >= 0.3.27, what NumPy wheels ship), which
leaves other threads and the large GEMMs outside the loop (input projection, weight
gradients) multi-threaded.  With another BLAS (MKL, Accelerate), an older OpenBLAS or
on a GPU this is a no-op.
"""
from __future__ import annotations

import contextlib
import ctypes
import threading

import numpy as np

__all__ = ["SMALL_GEMM", "one_blas_thread"]

#: Per-step GEMMs below this many multiply-adds run on one BLAS thread.
SMALL_GEMM = 1 << 24

_lock = threading.Lock()
_setter: list = []          # [function or None] once looked up


def _find_setter():
    """``openblas_set_num_threads_local`` of the OpenBLAS NumPy loaded, or ``None``."""
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps
                     if "openblas" in line.lower() and ".so" in line}
    except OSError:
        return None
    for path in sorted(paths):
        try:
            fn = ctypes.CDLL(path).openblas_set_num_threads_local
        except (OSError, AttributeError):
            continue
        fn.restype = ctypes.c_int
        fn.argtypes = [ctypes.c_int]
        return fn
    return None


def _get_setter():
    if not _setter:
        with _lock:
            if not _setter:
                _setter.append(_find_setter())
    return _setter[0]


@contextlib.contextmanager
def one_blas_thread(xp, m: int, n: int, k: int):
    """Run the block's ``(m, k) @ (k, n)`` GEMMs on this thread's BLAS alone if small.

    Parameters
    ----------
    xp : module
        ``numpy`` or ``cupy`` (no-op for CuPy).
    m, n, k : int
        Shape of the per-step GEMMs in the block.
    """
    setter = _get_setter() if xp is np and m * n * k < SMALL_GEMM else None
    if setter is None:
        yield
        return
    previous = setter(1)
    try:
        yield
    finally:
        setter(previous)
