"""Array queries and comparisons of ``mx.np``: ``shape``, ``size``, ``may_share_memory``,
``array_equal``, ``allclose``, ``isclose``."""
from __future__ import annotations

import builtins

import numpy as onp

from ._array import ndarray
from ._common import _arr
from ._elementwise import (absolute, isnan, less_equal, logical_and,  # noqa: F401
                           logical_or)
from ._reduce import all  # noqa: A004 - NumPy's name


def shape(a) -> tuple:
    return _arr(a).shape


def size(a, axis=None) -> int:
    a = _arr(a)
    return a.size if axis is None else a.shape[axis]


def ndim(a) -> int:
    return _arr(a).ndim


def may_share_memory(a, b, max_work=None) -> bool:
    return onp.may_share_memory(_arr(a)._data, _arr(b)._data)


shares_memory = may_share_memory


def array_equal(a1, a2, equal_nan=False) -> bool:
    a1, a2 = _arr(a1), _arr(a2, a1.context)
    return a1.shape == a2.shape and builtins.bool(all(a1 == a2))


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    return builtins.bool(all(isclose(a, b, rtol, atol, equal_nan)))


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False) -> ndarray:
    a = _arr(a)
    b = _arr(b, a.context)
    res = less_equal(absolute(a - b), atol + rtol * absolute(b))
    if equal_nan:
        res = logical_or(res, logical_and(isnan(a), isnan(b)))
    return res


__all__ = sorted(n for n, v in globals().items()
                 if not n.startswith("_") and callable(v) and getattr(v, "__module__", "")
                 == __name__)
