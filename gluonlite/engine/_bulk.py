"""``mx.engine.set_bulk_size`` and ``mx.engine.bulk``: MXNet's engine bulking hint.

MXNet's asynchronous engine can bundle up to ``size`` consecutive imperative
operators into one scheduled task, which saves scheduling overhead; results are the
same with or without bulking.  gluonlite runs every imperative operator at once, in
order, so there is nothing to bundle: the bulk size is kept (and returned, as MXNet
does) but changes nothing.  Compiled graphs (the CachedOp) already run as one plan.
"""
from __future__ import annotations

import operator as _operator
import threading

from ..base import MXNetError

__all__ = ["set_bulk_size", "bulk"]

_lock = threading.Lock()
_size = 0  # MXNet's default: no imperative bulking


def set_bulk_size(size: int) -> int:
    """Set the maximum number of operators bundled into one bulk; returns the previous size.

    Parameters
    ----------
    size : int
        Maximum number of operators per bulk (0: no bulking).  It is a scheduling hint
        for MXNet's engine; gluonlite executes operators eagerly, so it has no effect
        on what is computed.

    Returns
    -------
    int
        The previous bulk size.
    """
    global _size
    size = _operator.index(size)  # TypeError for non-integers, as MXNet's ctypes call
    if size < 0:
        raise MXNetError(f"engine.set_bulk_size: the bulk size must be >= 0, got {size}")
    with _lock:
        prev, _size = _size, size
    return prev


class _BulkScope:
    """Sets the bulk size on entry and restores the previous one on exit."""

    def __init__(self, size: int):
        self._size = size
        self._old_size = None

    def __enter__(self) -> "_BulkScope":
        self._old_size = set_bulk_size(self._size)
        return self

    def __exit__(self, ptype, value, trace) -> None:
        set_bulk_size(self._old_size)


def bulk(size: int) -> _BulkScope:
    """A scope that sets the bulk size (see :func:`set_bulk_size`) while it is open::

        with mx.engine.bulk(10):
            x = mx.nd.zeros((1,))
            for i in range(100):
                x += 1
    """
    return _BulkScope(size)
