"""Reductions of ``mx.np``: ``sum``, ``mean``, ``std``, ``max``, ``argmax``, ``cumsum``,
``average``, ``percentile``, ..."""
from __future__ import annotations

import numpy as onp

from ._array import apply
from ._common import _arr, _axis_attr, _is_scalar, _out


def _reduce(op_name, a, axis, keepdims, dtype=None, out=None, **extra):
    a = _arr(a)
    res = apply(op_name, [a], axis=_axis_attr(axis), keepdims=keepdims,
                dtype=None if dtype is None else onp.dtype(dtype), **extra)
    return _out(res, out)


# MXNet's built-in reductions take ``keepdims`` (and ``initial``) before ``out``
# positionally (``gluonlite._numpy_op_doc`` holds their documented signatures)
def sum(a, axis=None, dtype=None, keepdims=False, initial=None, out=None,  # noqa: A001
        where=None):
    """Sum over ``axis`` (every axis when None)."""
    res = _reduce("_np_sum", a, axis, keepdims, dtype)
    return _out(res if initial is None else res + initial, out)


def prod(a, axis=None, dtype=None, keepdims=False, initial=None, out=None):
    res = _reduce("_np_prod", a, axis, keepdims, dtype)
    return _out(res if initial is None else res * initial, out)


product = prod


def mean(a, axis=None, dtype=None, out=None, keepdims=False):
    return _reduce("_npi_mean", a, axis, keepdims, dtype, out)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    return _reduce("_npi_std", a, axis, keepdims, dtype, out, ddof=ddof)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    return _reduce("_npi_var", a, axis, keepdims, dtype, out, ddof=ddof)


def max(a, axis=None, keepdims=False, out=None):  # noqa: A001
    return _out(apply("_np_max", [_arr(a)], axis=_axis_attr(axis), keepdims=keepdims), out)


def min(a, axis=None, keepdims=False, out=None):  # noqa: A001
    return _out(apply("_np_min", [_arr(a)], axis=_axis_attr(axis), keepdims=keepdims), out)


amax = max


amin = min


def ptp(a, axis=None, out=None, keepdims=False):
    return _out(max(a, axis, keepdims=keepdims) - min(a, axis, keepdims=keepdims), out)


def all(a, axis=None, keepdims=False, out=None):  # noqa: A001
    return _out(apply("_np_all", [_arr(a)], axis=_axis_attr(axis), keepdims=keepdims), out)


def any(a, axis=None, keepdims=False, out=None):  # noqa: A001
    return _out(apply("_np_any", [_arr(a)], axis=_axis_attr(axis), keepdims=keepdims), out)


def argmax(a, axis=None, out=None):
    return _out(apply("_npi_argmax", [_arr(a)], axis=axis), out)


def argmin(a, axis=None, out=None):
    return _out(apply("_npi_argmin", [_arr(a)], axis=axis), out)


def cumsum(a, axis=None, dtype=None, out=None):
    """Cumulative sum along ``axis`` (of the flattened array when None); ``bool`` counts
    as ``int64``."""
    a = _arr(a)
    if dtype is None and a.dtype == onp.bool_:
        dtype = onp.int64
    return _out(apply("_np_cumsum", [a], axis=axis, dtype=dtype), out)


def average(a, axis=None, weights=None, returned=False):
    """Mean, or weighted mean along ``axis``; with ``returned``, also the sum of the
    weights."""
    a = _arr(a)
    ins = [a] if weights is None else [a, _arr(weights, a.context)]
    res = apply("_npi_average", ins, axis=_axis_attr(axis), returned=bool(returned),
                weighted=weights is not None)
    return list(res) if returned else res  # MXNet gives a list


def percentile(a, q, axis=None, out=None, overwrite_input=None, interpolation="linear",
               keepdims=False):
    """The ``q``-th percentile along ``axis`` (no gradient)."""
    return _percentile("percentile", a, q, axis, interpolation, keepdims, out, 1)


def quantile(a, q, axis=None, out=None, overwrite_input=None, interpolation="linear",
             keepdims=False):
    """The ``q``-th quantile along ``axis`` (no gradient)."""
    return _percentile("quantile", a, q, axis, interpolation, keepdims, out, 100)


sometrue = any


def _percentile(name, a, q, axis, interpolation, keepdims, out, scale):
    a = _arr(a)
    if _is_scalar(q):
        res = apply("_npi_percentile", [a], axis=_axis_attr(axis),
                    interpolation=interpolation, keepdims=bool(keepdims),
                    q_scalar=float(q) * scale)
    else:
        qa = _arr(q, a.context)
        if scale != 1:
            qa = qa * scale
        res = apply("_npi_percentile", [a, qa], axis=_axis_attr(axis),
                    interpolation=interpolation, keepdims=bool(keepdims))
    return _out(res, out)


__all__ = sorted(n for n, v in globals().items()
                 if not n.startswith("_") and callable(v) and getattr(v, "__module__", "")
                 == __name__)
