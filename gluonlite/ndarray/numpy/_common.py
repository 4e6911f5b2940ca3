"""Shared helpers of the ``mx.np`` function modules: operands as ``mx.np`` arrays, ``out=``,
axis attributes, scalars, NumPy ufunc keywords, dtype promotion."""
from __future__ import annotations

import numbers

import numpy as onp

from ...context import current_context
from ..ndarray import NDArray
from ._array import ndarray, array
from ._array import NpTypeError, NpIndexError


def _ctx_of(*xs):
    for x in xs:
        if isinstance(x, NDArray):
            return x.context
    return None


def _arr(x, ctx=None) -> ndarray:
    """An operand as an ``mx.np`` array (scalars as ``float32`` 0-d arrays)."""
    if isinstance(x, ndarray):
        return x
    if isinstance(x, NDArray):
        return x.as_np_ndarray()
    return array(x, ctx=ctx)


def _out(res, out):
    if out is None:
        return res
    out[...] = res
    return out


def _axis_attr(axis):
    if axis is None:
        return None
    if isinstance(axis, numbers.Integral):
        return (int(axis),)
    return tuple(int(a) for a in axis)


def _host_array(values, dtype, ctx) -> ndarray:
    ctx = ctx or current_context()
    return ndarray(ctx.xp.asarray(values.astype(dtype, copy=False)), ctx)


_PY_SCALARS = {int: True, float: False, bool: True}  # type -> is_int


def _is_scalar(x) -> bool:
    return isinstance(x, (numbers.Number, onp.generic)) and not isinstance(x, complex)


def _is_int(x) -> bool:
    is_int = _PY_SCALARS.get(type(x))
    if is_int is not None:
        return is_int
    return isinstance(x, (numbers.Integral, onp.integer, onp.bool_))


_UFUNC_DEFAULTS = {"where": True, "casting": "same_kind", "order": "K", "dtype": None,
                   "subok": True}


_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")


def _ufunc_kwargs(name: str, kwargs: dict) -> None:
    """MXNet's rule for NumPy's ufunc keywords: unknown ones and invalid ``dtype`` or
    ``casting`` values are a ``TypeError``; any other value than NumPy's default is not
    implemented."""
    for key, value in kwargs.items():
        if key not in _UFUNC_DEFAULTS:
            raise NpTypeError(f"{key} is an invalid keyword to function '{name}'")
        default = _UFUNC_DEFAULTS[key]
        if value is default or (not isinstance(value, type) and value == default
                                and key != "dtype"):
            continue
        if key == "casting" and value not in _CASTINGS:
            raise NpTypeError(f"{name}: casting must be one of {_CASTINGS}, got {value!r}")
        if key == "dtype":
            try:
                onp.dtype(value)
            except TypeError as err:
                raise NpTypeError(f"{name}: data type {value!r} not understood") from err
        raise NotImplementedError(f"{name}: {key}={value!r} is not supported")


def _recording(*xs) -> bool:
    from ._array import recording
    return recording(*xs)


def _promote_all(arrs):
    dt = arrs[0].dtype
    from ...ops.numpy_binary import np_result_dtype
    for x in arrs[1:]:
        dt = np_result_dtype(dt, x.dtype)
    return [x if x.dtype == dt else x.astype(dt) for x in arrs]


def _norm_axis(name, axis, ndim):
    if not -ndim <= axis < ndim:
        raise NpIndexError(f"{name}: axis {axis} is out of bounds for an array of dimension "
                           f"{ndim}")
    return axis % ndim


def _ints(v) -> tuple:
    """An int or a sequence of ints as a tuple."""
    return (int(v),) if isinstance(v, numbers.Integral) else tuple(int(d) for d in v)
