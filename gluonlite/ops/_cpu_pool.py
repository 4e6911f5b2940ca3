"""A small pool of worker threads for splitting NumPy work on the CPU.

NumPy releases the GIL inside its loops, so two threads running ufuncs over disjoint
blocks use two cores.  Operators that cut their work into independent blocks (the
blocked optimizer rules, the depthwise convolution's forward) hand the second half to
the pool and run the first half on the calling thread.  Scratch buffers from
``_window.scratch`` are per thread, so each half requests its own.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Sequence

__all__ = ["THREADS", "executor", "run_halves"]

THREADS = min(2, os.cpu_count() or 1)
_pool = None


def executor() -> ThreadPoolExecutor:
    """The process-wide pool (created on first use)."""
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(THREADS, thread_name_prefix="gluonlite-cpu")
    return _pool


def run_halves(work: Callable[[Sequence], None], items: Sequence) -> None:
    """``work(items)`` split in two halves, the second on the pool, the first here.

    ``work`` must write only to places no other item touches.  With one core, or
    fewer than two items, it runs once on all items here.
    """
    if THREADS < 2 or len(items) < 2:
        work(items)
        return
    half = len(items) // 2
    second = executor().submit(work, items[half:])
    try:
        work(items[:half])
    finally:
        second.result()
