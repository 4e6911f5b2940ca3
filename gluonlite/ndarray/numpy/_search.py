"""Sorting, searching and counting in ``mx.np``: ``sort``, ``unique``, ``nonzero``,
``bincount``, ``histogram``, ``unravel_index``, ..."""
from __future__ import annotations

import numbers

import numpy as onp

from ..ndarray import NDArray
from ._array import ndarray, apply
from ._array import NpValueError, NpTypeError
from ._common import _arr, _host_array, _ints
from ._manip import ravel, reshape
from ._reduce import sum  # noqa: A004 - NumPy's name


def sort(a, axis=-1, kind=None, order=None) -> ndarray:
    """Sorted along ``axis`` (the flattened array when None)."""
    a = _arr(a)
    if axis is None:
        a, axis = ravel(a), 0
    return apply("sort", [a], axis=axis, is_ascend=True)


def argsort(a, axis=-1, kind=None, order=None) -> ndarray:
    a = _arr(a)
    if axis is None:
        a, axis = ravel(a), 0
    return apply("argsort", [a], axis=axis, is_ascend=True, dtype=onp.int64)


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None):
    res = apply("_npi_unique", [_arr(ar)], return_index=return_index,
                return_inverse=return_inverse, return_counts=return_counts, axis=axis)
    return tuple(res) if isinstance(res, list) else res


def nonzero(a):
    """Indices of the nonzero elements, one ``int64`` array per axis (a 0-d array counts
    as 1-d, MXNet's rule)."""
    a = _arr(a)
    if a.ndim == 0:
        a = reshape(a, (1,))
    idx = apply("_npx_nonzero", [a])
    return tuple(idx[:, i] for i in range(a.ndim))


def argwhere(a) -> ndarray:
    return apply("_npx_nonzero", [_arr(a)])


def flatnonzero(a) -> ndarray:
    return nonzero(ravel(_arr(a)))[0]


def count_nonzero(a, axis=None, keepdims=False):
    res = sum(_arr(a) != 0, axis=axis, keepdims=keepdims)
    return int(res.item()) if axis is None and not keepdims else res


def bincount(x, weights=None, minlength=0) -> ndarray:
    x = _arr(x)
    if weights is None:
        return apply("_npi_bincount", [x], minlength=minlength)
    return apply("_npi_bincount", [x, _arr(weights, x.context)], minlength=minlength,
                 has_weights=True)


def histogram(a, bins=10, range=None, normed=None, weights=None, density=None):  # noqa: A002
    """Counts (``int64``) and bin edges (the input's dtype) over ``range``."""
    a = _arr(a)
    if isinstance(bins, numbers.Integral):
        if range is None:
            raise NotImplementedError("histogram: automatic range is not supported; "
                                      "pass range=(lo, hi)")
        counts, edges = apply("_histogram", [ravel(a)], bin_cnt=int(bins), range=tuple(range))
    else:
        counts, edges = apply("_histogram", [ravel(a), _arr(bins, a.context)])
    return [counts.astype(onp.int64), edges]


def interp(x, xp, fp, left=None, right=None, period=None) -> ndarray:
    """Piecewise-linear interpolation (``float64`` as MXNet gives it; no gradient)."""
    ref = _arr(x) if isinstance(x, NDArray) else _arr(xp)
    host = [v.asnumpy() if isinstance(v, NDArray) else v for v in (x, xp, fp)]
    res = onp.asarray(onp.interp(*host, left=left, right=right, period=period),
                      dtype=onp.float64)
    return _host_array(res, onp.float64, ref.context)


def unravel_index(indices, shape, order: str = "C"):
    """The coordinates of flat ``indices`` in an array of ``shape`` (a tuple of ``int64``
    arrays, MXNet's result type); ``order='F'`` reads the flat index in Fortran order."""
    if order not in ("C", "F"):
        raise NpValueError(f"unravel_index: order must be 'C' or 'F', got {order!r}")
    shape = _ints(shape)
    if order == "F":
        return unravel_index(indices, shape[::-1])[::-1]
    idx = _arr(indices)
    if idx.dtype.kind == "f":
        raise NpTypeError(f"unravel_index: only int indices permitted, got {idx.dtype}")
    total = int(onp.prod(shape)) if len(shape) else 1
    if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= total):
        raise NpValueError(f"unravel_index: index out of bounds for an array of shape "
                           f"{shape}")
    coords = apply("_unravel_index", [idx.astype(onp.int64, copy=False)], shape=shape)
    return tuple(coords[i] for i in range(len(shape)))


def diag_indices_from(arr):
    """The indices of the main diagonal of an n-d array with equal axes."""
    a = _arr(arr)
    if a.ndim < 2 or len(set(a.shape)) != 1:
        raise NpValueError(f"diag_indices_from: needs an array of at least 2 dimensions, "
                           f"all of equal length, got shape {a.shape}")
    idx = apply("_npi_diag_indices_from", [a])
    return tuple(idx[i] for i in range(a.ndim))


__all__ = sorted(n for n, v in globals().items()
                 if not n.startswith("_") and callable(v) and getattr(v, "__module__", "")
                 == __name__)
