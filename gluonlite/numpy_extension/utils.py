"""``mx.npx.save`` and ``mx.npx.load``: ``mx.np`` arrays in MXNet's ``.npz``-free binary
format (the format of ``mx.nd.save``), loaded back as ``mx.np`` arrays."""
from __future__ import annotations

from ..ndarray import NDArray
from ..ndarray.utils import save as _nd_save, load as _nd_load

__all__ = ["save", "load"]


def save(file: str, arr) -> None:
    """Save an ``mx.np`` array, a list of them or a dict ``{name: array}`` to ``file``."""
    if isinstance(arr, NDArray):
        arr = [arr]
    if isinstance(arr, dict):
        _nd_save(file, {k: _as_nd(v) for k, v in arr.items()})
    elif isinstance(arr, (list, tuple)):
        _nd_save(file, [_as_nd(v) for v in arr])
    else:
        raise TypeError(f"save: expected an ndarray, a list or a dict, got {type(arr).__name__}")


def _as_nd(v):
    if not isinstance(v, NDArray):
        raise TypeError(f"save: only mx.np.ndarray values can be saved, got {type(v).__name__}")
    return v.as_nd_ndarray() if v.ndim else v


def load(file: str):
    """Load a file written by :func:`save` (or ``mx.nd.save``): a list or a dict of
    ``mx.np`` arrays."""
    data = _nd_load(file)
    if isinstance(data, dict):
        return {k: v.as_np_ndarray() for k, v in data.items()}
    return [v.as_np_ndarray() for v in data]
