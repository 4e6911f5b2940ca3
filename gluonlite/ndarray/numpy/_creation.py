"""Creation functions of ``mx.np``: ``zeros_like``, ``arange``, ``linspace``, ``eye``, windows, ...
(``float32`` unless a dtype is given, as in MXNet)."""
from __future__ import annotations

import numpy as onp

from ._array import ndarray, apply, array, zeros, ones, _DEFAULT_FLOAT
from ._array import NpValueError
from ...base import MXNetError
from ._common import _arr, _host_array, _ints, _out


def zeros_like(a, dtype=None, order="C", ctx=None, out=None) -> ndarray:
    """Zeros with the shape (and dtype, unless given) of ``a``."""
    a = _arr(a)
    return _out(zeros(a.shape, dtype or a.dtype, ctx=ctx or a.context), out)


def ones_like(a, dtype=None, order="C", ctx=None, out=None) -> ndarray:
    """Ones with the shape (and dtype, unless given) of ``a``."""
    a = _arr(a)
    return _out(ones(a.shape, dtype or a.dtype, ctx=ctx or a.context), out)


def full_like(a, fill_value, dtype=None, order="C", ctx=None, out=None) -> ndarray:
    """``fill_value`` with the shape (and dtype, unless given) of ``a``."""
    a = _arr(a)
    return _out(apply("_npi_full_like", [a], fill_value=float(fill_value),
                      dtype=None if dtype is None else onp.dtype(dtype)), out)


def empty_like(prototype, dtype=None, order="C", subok=False, shape=None) -> ndarray:
    """An array like ``prototype`` (zeros here)."""
    p = _arr(prototype)
    return zeros(shape or p.shape, dtype or p.dtype, ctx=p.context)


def arange(start, stop=None, step=1, dtype=None, ctx=None) -> ndarray:
    """Evenly spaced values in ``[start, stop)`` (``float32`` unless ``dtype`` is given)."""
    step = 1 if step is None else step
    if stop is None:
        start, stop = 0, start
    if step == 0:
        raise NpValueError("arange: step must not be 0")
    return apply("_npi_arange", [], ctx=ctx, start=float(start), stop=float(stop),
                 step=float(step), dtype=onp.dtype(dtype or _DEFAULT_FLOAT))


def _check_num(fname: str, num) -> int:
    """``num`` of ``linspace``/``logspace``: an integer (not a float, even ``2.0``) that is
    not negative, or ``MXNetError`` as MXNet's ``_linspace`` parameter parser raises."""
    if isinstance(num, bool) or not isinstance(num, (int, onp.integer)):
        raise MXNetError(f"{fname}: invalid parameter format for num: expect int but "
                         f"value={num!r}")
    if num < 0:
        raise MXNetError(f"{fname}: number of samples should be non-negative, received {num}")
    return int(num)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, ctx=None):
    """``num`` evenly spaced values from ``start`` to ``stop`` (MXNet supports ``axis=0``
    only: other axes raise ``NotImplementedError``)."""
    num = _check_num("linspace", num)
    if axis != 0:
        raise NotImplementedError("linspace: the function only supports axis 0")
    vals, step = onp.linspace(start, stop, num, endpoint=endpoint, retstep=True, axis=axis)
    res = _host_array(vals, dtype or _DEFAULT_FLOAT, ctx)
    return (res, step) if retstep else res


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0, ctx=None):
    """``base ** linspace(start, stop, num)`` (``float32`` unless ``dtype`` is given)."""
    num = _check_num("logspace", num)
    if axis != 0:
        raise NotImplementedError("logspace: only axis=0 is supported")
    return apply("_npi_logspace", [], ctx=ctx, start=float(start), stop=float(stop),
                 num=int(num), endpoint=bool(endpoint), base=float(base),
                 dtype=onp.dtype(dtype or _DEFAULT_FLOAT))


def eye(N, M=None, k=0, dtype=None, ctx=None) -> ndarray:  # noqa: N803 - NumPy's names
    """Ones on the ``k``-th diagonal of an ``N`` x ``M`` array (``M`` = ``N`` when None)."""
    return apply("_npi_eye", [], ctx=ctx, N=int(N), M=None if M is None else int(M),
                 k=int(k), dtype=onp.dtype(dtype or _DEFAULT_FLOAT))


def identity(n, dtype=None, ctx=None) -> ndarray:
    """The ``n`` x ``n`` identity."""
    return eye(n, dtype=dtype, ctx=ctx)


def tri(N, M=None, k=0, dtype=None, ctx=None) -> ndarray:  # noqa: N803
    return _host_array(onp.tri(N, M, k), dtype or _DEFAULT_FLOAT, ctx)


def indices(dimensions, dtype=onp.int32, ctx=None) -> ndarray:
    """The index grid of an array of shape ``dimensions`` (``int32`` as in MXNet)."""
    return apply("_npi_indices", [], ctx=ctx, dimensions=_ints(dimensions),
                 dtype=onp.dtype(dtype))


def copy(a, out=None) -> ndarray:
    """A copy of ``a`` (written into ``out`` when given)."""
    return _out(_arr(a).copy(), out)


def asarray(a, dtype=None, ctx=None) -> ndarray:
    if isinstance(a, ndarray) and (dtype is None or a.dtype == onp.dtype(dtype)):
        return a
    return array(a, dtype=dtype, ctx=ctx)


def _window(name, M, dtype, ctx):
    return apply(f"_npi_{name}", [], ctx=ctx, M=int(M),
                 dtype=onp.dtype(dtype or _DEFAULT_FLOAT))


def hanning(M, dtype=None, ctx=None) -> ndarray:
    """The Hann window of ``M`` points (``float32`` unless ``dtype`` is given)."""
    return _window("hanning", M, dtype, ctx)


def hamming(M, dtype=None, ctx=None) -> ndarray:
    """The Hamming window of ``M`` points (``float32`` unless ``dtype`` is given)."""
    return _window("hamming", M, dtype, ctx)


def blackman(M, dtype=None, ctx=None) -> ndarray:
    """The Blackman window of ``M`` points (``float32`` unless ``dtype`` is given)."""
    return _window("blackman", M, dtype, ctx)


__all__ = sorted(n for n, v in globals().items()
                 if not n.startswith("_") and callable(v) and getattr(v, "__module__", "")
                 == __name__)
