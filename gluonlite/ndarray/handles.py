"""NDArray "handles" for code written against MXNet 1.x's C API conventions.

MXNet 1.9 hands a calibration collector's ``collect(name, arr)`` and an executor's
monitor callback a C handle, which they turn back into an array with
``NDArray(ctypes.cast(arr, NDArrayHandle))`` (GluonNLP's ``BertLayerCollector``, MXNet's
own tests).  gluonlite has no C library; :func:`lend` gives such code handles
(``ctypes.c_void_p``) that stand for live NDArrays for the duration of a ``with`` block,
an NDArray passed where a handle is expected (``ctypes.cast(array, NDArrayHandle)``)
gives one that stands for it while it lives (:func:`handle_of`), and ``NDArray(handle)``
resolves both (:func:`resolve`).
"""
from __future__ import annotations

import contextlib
import ctypes
import itertools
import weakref

from ..base import MXNetError

__all__ = ["lend", "handle_of", "resolve"]

_LENT: dict = {}
_NEXT = itertools.count(1)
_LIVE = weakref.WeakValueDictionary()  # id(array) -> array, while it lives


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


def handle_of(array) -> ctypes.c_void_p:
    """A handle that stands for ``array`` while it lives (``NDArray._as_parameter_``, what
    ``ctypes.cast(array, NDArrayHandle)`` reads)."""
    _LIVE[id(array)] = array
    return ctypes.c_void_p(id(array))


def resolve(handle):
    """The NDArray a lent handle, or a handle of a live array, stands for."""
    key = handle.value if isinstance(handle, ctypes.c_void_p) else handle
    try:
        return _LENT[key] if key in _LENT else _LIVE[key]
    except KeyError:
        raise MXNetError(f"NDArray: handle {key} is not a live array (gluonlite has no C "
                         "library; only handles it lent, e.g. to a calibration "
                         "collector, can be turned back into arrays)") from None
