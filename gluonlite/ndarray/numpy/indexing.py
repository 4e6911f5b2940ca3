"""``mx.np.ndarray`` indexing with NumPy's semantics: integers drop axes down to 0-d,
``None`` adds axes, boolean arrays select by mask, integer arrays gather.

A basic index whose result is a C-contiguous block of the source gives a view (as in
MXNet); others copy.  While autograd records, indexing is the registry's ``_index``
operator, so gradients flow to the source.
"""
from __future__ import annotations

import numpy as onp

from ...base import MXNetError
from ..indexing import _Key, _check_device_bounds, _drop_leading_ones
from ..ndarray import NDArray, _move
from ._array import ndarray, recording, NpIndexError

_BASIC = (int, slice, type(None), type(Ellipsis))


def _raw_key(x: ndarray, key):
    """The index with arrays as raw arrays of ``x``'s module (bools kept as masks)."""
    if isinstance(key, NDArray):
        data = _move(key._data, x.context)
        return data if data.dtype == onp.bool_ else data.astype(onp.int64, copy=False)
    if isinstance(key, tuple):
        return tuple(_raw_key(x, k) for k in key)
    if isinstance(key, list):
        arr = onp.asarray(key)
        if arr.dtype.kind not in "iub":
            raise MXNetError(f"index {key!r}: only integer and boolean lists index an array")
        return x.context.xp.asarray(arr if arr.dtype == onp.bool_ else arr.astype(onp.int64))
    if isinstance(key, onp.ndarray):
        return x.context.xp.asarray(key)
    if isinstance(key, (onp.integer, onp.bool_)):
        return key.item()
    return key


def _is_basic(raw) -> bool:
    parts = raw if isinstance(raw, tuple) else (raw,)
    return all(isinstance(p, _BASIC) and not isinstance(p, bool) for p in parts)


def getitem(x: ndarray, key) -> ndarray:
    """``x[key]`` with NumPy's semantics."""
    raw = _raw_key(x, key)
    _check_device_bounds(x, raw, key)
    if recording(x):
        op_key = _Key(raw)
        from ...ops.registry import get_op
        op = get_op("_index")
        from ..invoke import invoke
        return invoke(op, [x], op._parse({"key": op_key, "np_shape": True}), cls=ndarray)
    try:
        data = x._data[raw]
    except IndexError as err:
        raise NpIndexError(f"index {key!r} is invalid for an array of shape {x.shape}: "
                         f"{err}") from err
    if _is_basic(raw) and isinstance(data, type(x._data)) and data.flags.c_contiguous:
        return x._view(data)
    if not isinstance(data, type(x._data)):
        data = x.context.xp.asarray(data)
    return ndarray(data.copy() if _is_basic(raw) else data, x.context)


def setitem(x: ndarray, key, value) -> None:
    """``x[key] = value`` in place (values broadcast; bumps the storage version)."""
    if isinstance(value, NDArray) and recording(value):
        raise MXNetError("Inplace operations (+=, -=, x[:]=, etc) are not supported when "
                         "recording with autograd.")
    if isinstance(value, NDArray):
        v = _move(value._data, x.context)
    else:
        v = x.context.xp.asarray(value) if not onp.isscalar(value) else value
    raw = _raw_key(x, key)
    _check_device_bounds(x, raw, key)
    try:
        try:
            x._data[raw] = v
        except ValueError:
            x._data[raw] = _drop_leading_ones(v, x._data[raw].ndim)
    except (ValueError, IndexError, TypeError) as err:
        raise MXNetError(f"cannot assign a value of shape {tuple(getattr(v, 'shape', ()))} "
                         f"to index {key!r} of an array of shape {x.shape}: {err}") from err
    x._bump()


__all__ = ["getitem", "setitem"]

