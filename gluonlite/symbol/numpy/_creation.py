"""``mx.sym.np``'s creation functions: ``zeros``/``ones``/``empty``/``full``,
``full_like``, ``arange``, ``linspace``/``logspace``, ``indices``, ``eye``/``identity``,
the ``hanning``/``hamming``/``blackman`` windows and ``diag_indices_from``."""
from __future__ import annotations

import numbers

import numpy as onp

from ..symbol import Symbol
from ._op import _DEFAULT_FLOAT, _ints, _sym
from ._symbol import _Symbol, apply
from ...ndarray.numpy._creation import _check_num


def full_like(a, fill_value, dtype=None, **kwargs) -> _Symbol:
    """``fill_value`` with the shape (and dtype, unless given) of ``a``."""
    return apply("_npi_full_like", [_sym(a)], fill_value=float(fill_value),
                 dtype=None if dtype is None else onp.dtype(dtype))


def _creation(op_name):
    def fn(shape, dtype=None, order="C", ctx=None, **kwargs):
        shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
        return apply(op_name, [], shape=shape, dtype=onp.dtype(dtype or _DEFAULT_FLOAT))
    return fn


zeros = _creation("_zeros")

ones = _creation("_ones")

empty = zeros


def full(shape, fill_value, dtype=None, order="C", ctx=None, out=None) -> _Symbol:
    """An array of ``shape`` filled with ``fill_value`` (a number, or a symbol broadcast
    to ``shape``)."""
    shape = _ints(shape)
    if isinstance(fill_value, Symbol):
        res = apply("_npi_broadcast_to", [_sym(fill_value)], shape=shape)
        return res if dtype is None else res.astype(dtype)
    return apply("_full", [], shape=shape, value=float(fill_value),
                 dtype=onp.dtype(dtype or _DEFAULT_FLOAT))


def arange(start, stop=None, step=1, dtype=None, ctx=None):
    step = 1 if step is None else step
    if stop is None:
        start, stop = 0, start
    return apply("_npi_arange", [], start=float(start), stop=float(stop), step=float(step),
                 dtype=onp.dtype(dtype or _DEFAULT_FLOAT))


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0, ctx=None):
    """``base ** linspace(start, stop, num)``."""
    num = _check_num("logspace", num)
    if axis != 0:
        raise NotImplementedError("mx.sym.np.logspace: only axis=0 is supported")
    return apply("_npi_logspace", [], start=float(start), stop=float(stop), num=int(num),
                 endpoint=bool(endpoint), base=float(base),
                 dtype=onp.dtype(dtype or _DEFAULT_FLOAT))


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0,
             ctx=None):
    """``num`` evenly spaced values from ``start`` to ``stop``; with ``retstep`` also the
    spacing (a Python number, NumPy's: MXNet 1.9.1 divides by ``num - 1`` even without
    ``endpoint``)."""
    num = _check_num("linspace", num)
    if axis != 0:  # as MXNet's
        raise NotImplementedError("mx.sym.np.linspace: only axis=0 is supported")
    out = apply("_linspace", [], start=float(start), stop=float(stop), num=int(num),
                endpoint=bool(endpoint), dtype=onp.dtype(dtype or _DEFAULT_FLOAT))
    if not retstep:
        return out
    div = int(num) - 1 if endpoint else int(num)
    return out, ((stop - start) / div if div > 0 else float("nan"))


def indices(dimensions, dtype=onp.int32, ctx=None) -> _Symbol:
    """The index grid of an array of shape ``dimensions``."""
    return apply("_npi_indices", [], dimensions=_ints(dimensions), dtype=onp.dtype(dtype))


def _def_window(fname):
    def fn(M, dtype=None, ctx=None):
        return apply(f"_npi_{fname}", [], M=int(M), dtype=onp.dtype(dtype or _DEFAULT_FLOAT))
    fn.__name__ = fname
    fn.__doc__ = f"NumPy ``{fname}`` window of ``M`` points."
    return fn


def diag_indices_from(arr) -> _Symbol:
    """The indices of the main diagonal, one row per axis (``int64``)."""
    return apply("_npi_diag_indices_from", [_sym(arr)])


hanning = _def_window("hanning")

hamming = _def_window("hamming")

blackman = _def_window("blackman")


def eye(N, M=None, k=0, dtype=None, ctx=None) -> _Symbol:  # noqa: N803 - NumPy's names
    """Ones on the ``k``-th diagonal of an ``N`` x ``M`` array (``M`` = ``N`` when None)."""
    attrs = {} if M is None else {"M": int(M)}
    return apply("_npi_eye", [], N=int(N), k=int(k),
                 dtype=onp.dtype(dtype or _DEFAULT_FLOAT), **attrs)


def identity(n, dtype=None, ctx=None) -> _Symbol:
    """The ``n`` x ``n`` identity."""
    return eye(n, dtype=dtype)


__all__ = sorted(n for n, v in globals().items()
                 if not n.startswith("_") and callable(v) and n not in ("apply", "numbers")
                 and getattr(v, "__module__", "") == __name__)
