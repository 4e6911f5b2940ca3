"""NDArray "handles" for code written against MXNet 1.x's C API conventions.

MXNet 1.9 hands a calibration collector's ``collect(name, arr)`` a C handle, which the
collector turns back into an array with ``NDArray(ctypes.cast(arr, NDArrayHandle))``
(GluonNLP's ``BertLayerCollector`` does).  gluonlite has no C library; :func:`lend`
gives such code handles (``ctypes.c_void_p``) that stand for live NDArrays for the
duration of a ``with`` block, and ``NDArray(handle)`` resolves them (:func:`resolve`).
"""
from __future__ import annotations

import contextlib
import ctypes
import itertools

from ..base import MXNetError

__all__ = ["lend", "resolve"]

_LENT: dict = {}
_NEXT = itertools.count(1)


@contextlib.contextmanager
def lend(arrays: list):
    """Handles for ``arrays``, valid inside the ``with`` block."""
    keys = [next(_NEXT) for _ in arrays]
    _LENT.update(zip(keys, arrays))
    try:
        yield [ctypes.c_void_p(k) for k in keys]
    finally:
        for k in keys:
            _LENT.pop(k, None)


def resolve(handle):
    """The NDArray a lent handle stands for."""
    key = handle.value if isinstance(handle, ctypes.c_void_p) else handle
    try:
        return _LENT[key]
    except KeyError:
        raise MXNetError(f"NDArray: handle {key} is not a live array (gluonlite has no C "
                         "library; only handles it lent, e.g. to a calibration "
                         "collector, can be turned back into arrays)") from None
