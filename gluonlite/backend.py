"""Which array module serves a device, and GPU detection that never crashes.

``import cupy`` can succeed on a machine with no driver or GPU; only a later
runtime call fails there.  Everything here catches that and reports zero GPUs.
"""
from __future__ import annotations

import numpy as np

_cupy = None
_cupy_checked = False
_gpu_count: int | None = None


def cupy_module():
    """Return the ``cupy`` module, or ``None`` when it cannot be imported."""
    global _cupy, _cupy_checked
    if not _cupy_checked:
        _cupy_checked = True
        try:
            import cupy  # noqa: PLC0415 - optional dependency
            _cupy = cupy
        except Exception:  # ImportError, or a broken CUDA install
            _cupy = None
    return _cupy


def gpu_count() -> int:
    """Number of usable GPUs; 0 when CuPy, the driver or the device is missing."""
    global _gpu_count
    if _gpu_count is None:
        cp = cupy_module()
        n = 0
        if cp is not None:
            try:
                n = int(cp.cuda.runtime.getDeviceCount())
            except Exception:
                n = 0
        _gpu_count = n
    return _gpu_count


def is_cupy_array(a) -> bool:
    """True when ``a`` is a CuPy array (without importing CuPy needlessly)."""
    return _cupy is not None and isinstance(a, _cupy.ndarray)


def array_module(a):
    """The array module (numpy or cupy) that owns array ``a``."""
    if _cupy is not None and isinstance(a, _cupy.ndarray):
        return _cupy
    return np


def to_numpy(a) -> np.ndarray:
    """Copy an array of either module to host memory."""
    if _cupy is not None and isinstance(a, _cupy.ndarray):
        return _cupy.asnumpy(a)
    return np.asarray(a)
