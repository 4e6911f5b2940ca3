"""Testing helpers with MXNet 1.9's ``mxnet.test_utils`` names, signatures and defaults.

Inputs may be NDArrays, NumPy arrays or Python numbers.  The gradient checkers accept,
besides a Symbol, any Python callable over NDArrays: its gradient (through
``gluonlite.autograd``) is compared with central finite differences.
"""
from __future__ import annotations

import contextlib
import functools
import os
import sys
from typing import Callable

import numpy as np

from ..base import MXNetError  # noqa: F401 - in the star-import, as MXNet's
from ..context import Context, current_context, num_gpus

__all__ = [
    "default_context", "set_default_context", "default_dtype", "default_rtols", "default_atols",
    "default_numeric_eps", "effective_dtype", "get_tolerance", "get_tols", "get_rtol",
    "get_atol", "get_etol", "checkShapes", "almost_equal", "assert_almost_equal",
    "assert_almost_equal_with_err", "assert_almost_equal_ignore_nan", "assert_allclose",
    "same", "same_array", "assert_exception", "environment", "set_env_var", "np_reduce",
    "collapse_sum_like", "assign_each", "assign_each2", "compare_ndarray_tuple", "list_gpus", "retry", "discard_stderr",
    "is_cd_run", "has_tvm_ops", "is_op_runnable",
]


# ----------------------------------------------------------------------------- defaults
def default_context() -> Context:
    """The context tests run on (the current default context)."""
    return current_context()


def set_default_context(ctx: Context) -> None:
    """Make ``ctx`` the default context (of this thread)."""
    Context._default.value = ctx


def default_dtype():
    """The default dtype of test data: ``numpy.float32``."""
    return np.float32


def default_rtols() -> dict:
    """Default relative tolerance per dtype."""
    return {np.dtype(np.float16): 1e-2, np.dtype(np.float32): 1e-4, np.dtype(np.float64): 1e-5,
            np.dtype(np.bool_): 0, np.dtype(np.int8): 0, np.dtype(np.uint8): 0,
            np.dtype(np.int32): 0, np.dtype(np.uint32): 0, np.dtype(np.int64): 0,
            np.dtype(np.uint64): 0}


def default_atols() -> dict:
    """Default absolute tolerance per dtype."""
    return {np.dtype(np.float16): 1e-1, np.dtype(np.float32): 1e-3, np.dtype(np.float64): 1e-20,
            np.dtype(np.bool_): 0, np.dtype(np.int8): 0, np.dtype(np.uint8): 0,
            np.dtype(np.int32): 0, np.dtype(np.uint32): 0, np.dtype(np.int64): 0,
            np.dtype(np.uint64): 0}


def default_numeric_eps() -> dict:
    """Default finite-difference step per floating dtype."""
    return {np.dtype(np.float16): 1.0 / 2 ** 6, np.dtype(np.float32): 1.0 / 2 ** 9,
            np.dtype(np.float64): 1.0 / 2 ** 14}


def _lookup(table: dict, dtype):
    dt = np.dtype(dtype)
    if dt in table:
        return table[dt]
    if dt.kind in "iub":
        return 0
    raise KeyError(dt)


def effective_dtype(dat) -> np.dtype:
    """The dtype whose precision ``dat`` was computed in (its dtype)."""
    if hasattr(dat, "dtype"):
        return np.dtype(dat.dtype)
    return np.asarray(dat).dtype


def get_tolerance(dat, tol, default_tol: dict):
    """``tol`` if given, else ``default_tol`` looked up by the dtype of ``dat``."""
    if tol is not None:
        return tol
    return _lookup(default_tol, effective_dtype(dat))


def get_tols(x, y, rtol, atol):
    """(rtol, atol) for comparing ``x`` with ``y``: the looser default of the two dtypes."""
    if not hasattr(x, "dtype") and not hasattr(y, "dtype"):
        x = np.float64(x)
    rtol = rtol if rtol is not None else max(
        get_tolerance(v, None, default_rtols()) for v in (x, y) if hasattr(v, "dtype"))
    atol = atol if atol is not None else max(
        get_tolerance(v, None, default_atols()) for v in (x, y) if hasattr(v, "dtype"))
    return rtol, atol


def get_rtol(rtol=None, dtype=np.dtype(np.float64)):
    """``rtol`` if given, else the default relative tolerance of ``dtype``."""
    return _lookup(default_rtols(), dtype) if rtol is None else rtol


def get_atol(atol=None, dtype=np.dtype(np.float64)):
    """``atol`` if given, else the default absolute tolerance of ``dtype``."""
    return _lookup(default_atols(), dtype) if atol is None else atol


def get_etol(etol=None):
    """``etol`` (allowed fraction of mismatching elements) if given, else 0."""
    return 0 if etol is None else etol


# ----------------------------------------------------------------------------- comparisons
def _np(x):
    """NDArray -> NumPy array; anything else unchanged."""
    if hasattr(x, "asnumpy"):
        return x.asnumpy()
    return x


def checkShapes(a, b) -> None:
    """Raise AssertionError unless ``a`` and ``b`` have the same shape."""
    if np.shape(a) != np.shape(b):
        msg = np.testing.build_err_msg(
            [a, b], err_msg=f"a.shape = {np.shape(a)} and b.shape = {np.shape(b)} are not equal",
            names=["ACTUAL", "DESIRED"])
        raise AssertionError(msg)


def almost_equal(a, b, rtol=None, atol=None, equal_nan=False, use_broadcast=True) -> bool:
    """Whether ``a`` and ``b`` are element-wise close (float64 default tolerances)."""
    a, b = _np(a), _np(b)
    if not use_broadcast:
        checkShapes(a, b)
    return bool(np.allclose(a, b, rtol=get_rtol(rtol), atol=get_atol(atol), equal_nan=equal_nan))


def _errors(a, b, rtol, atol, equal_nan):
    a64 = np.asarray(a, dtype=np.float64)
    b64 = np.asarray(b, dtype=np.float64)
    a64, b64 = np.broadcast_arrays(a64, b64)
    denom = atol + rtol * np.abs(b64)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        err = np.abs(a64 - b64) / np.where(denom == 0, 1e-20, denom)
    err = np.where(np.isinf(a64) & (a64 == b64), 0.0, err)
    if equal_nan:
        err = np.where(np.isnan(a64) & np.isnan(b64), 0.0, err)
    return a64, b64, err


def _fail(a, b, rtol, atol, names, equal_nan, mismatches, extra=""):
    a64, b64, err = _errors(a, b, rtol, atol, equal_nan)
    close = np.isclose(a64, b64, rtol=rtol, atol=atol, equal_nan=equal_nan)
    bad = np.flatnonzero(~close.reshape(-1))
    order_key = np.where(np.isnan(err.reshape(-1)[bad]), np.inf, err.reshape(-1)[bad])
    bad = bad[np.argsort(-order_key, kind="stable")]
    size = err.size

    def where(i):
        idx = np.unravel_index(i, err.shape)
        idx = tuple(int(j) for j in idx)
        return (f"{idx}, {names[0]}={a64[idx]:.8f}, {names[1]}={b64[idx]:.8f}", idx)

    lines = [f"\n*** Maximum errors for vector of size {size}:  rtol={rtol}, atol={atol}\n"]
    for k, i in enumerate(bad[:mismatches[1]]):
        lines.append(f"{k + 1:3d}: Error {err.reshape(-1)[i]:f}  Location of error: {where(i)[0]}")
    print("\n".join(lines))
    top = bad[0] if bad.size else int(np.nanargmax(err.reshape(-1)))
    msg = np.testing.build_err_msg(
        [a, b],
        err_msg=(f"Error {err.reshape(-1)[top]:f} exceeds tolerance rtol={rtol:e}, atol={atol:e} "
                 f"(mismatch {100.0 * bad.size / max(size, 1):f}%{extra}).\n"
                 f"Location of maximum error: {where(top)[0]}"),
        names=["ACTUAL", "DESIRED"])
    raise AssertionError(msg)


def assert_almost_equal(a, b, rtol=None, atol=None, names=("a", "b"), equal_nan=False,
                        use_broadcast=True, mismatches=(10, 10)) -> None:
    """Assert that ``a`` and ``b`` are element-wise close.

    Tolerances default to the looser of the two dtypes' defaults (float16: 1e-2/1e-1,
    float32: 1e-4/1e-3, float64: 1e-5/1e-20, integers and bool: exact).  On failure the
    largest ``mismatches[1]`` errors are printed and an AssertionError describes the worst.
    """
    a, b = _np(a), _np(b)
    rtol, atol = get_tols(a, b, rtol, atol)
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray) \
            and a.dtype == np.bool_ and b.dtype == np.bool_:
        np.testing.assert_equal(a, b)
        return
    if not use_broadcast:
        checkShapes(a, b)
    if np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan):
        return
    _fail(a, b, rtol, atol, names, equal_nan, mismatches)


def assert_almost_equal_with_err(a, b, rtol=None, atol=None, etol=None, names=("a", "b"),
                                 equal_nan=False, mismatches=(10, 10)) -> None:
    """Like :func:`assert_almost_equal`, but a fraction ``etol`` of elements may mismatch."""
    etol = get_etol(etol)
    if etol <= 0:
        assert_almost_equal(a, b, rtol, atol, names, equal_nan, mismatches=mismatches)
        return
    a, b = _np(a), _np(b)
    rtol, atol = get_tols(a, b, rtol, atol)
    close = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    frac = 1.0 - float(np.mean(close)) if np.size(close) else 0.0
    if frac <= etol:
        return
    _fail(a, b, rtol, atol, names, equal_nan, mismatches, extra=f" > etol {etol}")


def assert_almost_equal_ignore_nan(a, b, rtol=None, atol=None, names=("a", "b")) -> None:
    """:func:`assert_almost_equal` after zeroing the positions where either side is NaN."""
    a = np.copy(_np(a))
    b = np.copy(_np(b))
    nan_mask = np.logical_or(np.isnan(a), np.isnan(b))
    a[nan_mask] = 0
    b[nan_mask] = 0
    assert_almost_equal(a, b, rtol, atol, names)


def assert_allclose(a, b, rtol=1e-07, atol=0, equal_nan=True) -> None:
    """NumPy-style ``assert_allclose`` (strict defaults, NaNs equal) with MXNet's report."""
    assert_almost_equal(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


def same(a, b) -> bool:
    """Whether ``a`` and ``b`` have the same shape and elements (NaN != NaN)."""
    return bool(np.array_equal(_np(a), _np(b)))


def same_array(array1, array2) -> bool:
    """Whether two NDArrays share memory (a write to one shows in the other)."""
    d1 = getattr(array1, "_data", array1)
    d2 = getattr(array2, "_data", array2)
    if array1.shape != array2.shape:
        return False
    return bool(np.shares_memory(d1, d2)) if isinstance(d1, np.ndarray) else d1 is d2


def compare_ndarray_tuple(t1, t2, rtol=None, atol=None) -> None:
    """Assert that two (nested) tuples of arrays are close; ``None`` entries are skipped."""
    if t1 is None or t2 is None:
        return
    if isinstance(t1, tuple):
        for s1, s2 in zip(t1, t2):
            compare_ndarray_tuple(s1, s2, rtol, atol)
    else:
        assert_almost_equal(t1, t2, rtol=rtol, atol=atol)


def assert_exception(f: Callable, exception_type, *args, **kwargs) -> None:
    """Assert that ``f(*args, **kwargs)`` raises ``exception_type``."""
    try:
        f(*args, **kwargs)
    except exception_type:
        return
    raise AssertionError(f"{getattr(f, '__name__', f)} did not raise "
                         f"{getattr(exception_type, '__name__', exception_type)}")


# ----------------------------------------------------------------------------- environment
@contextlib.contextmanager
def environment(*args):
    """Temporarily set environment variables.

    ``environment(name, value)`` or ``environment({name: value, ...})``; a value of ``None``
    unsets the variable.  The previous values are restored on exit.
    """
    if len(args) == 1 and isinstance(args[0], dict):
        new = dict(args[0])
    elif len(args) == 2:
        new = {args[0]: args[1]}
    else:
        raise AssertionError("Expecting one dict arg or two args: env var name and value")
    old = {k: os.environ.get(k) for k in new}

    def apply(values):
        for k, v in values.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = str(v)

    apply(new)
    try:
        yield
    finally:
        apply(old)


def set_env_var(key: str, val, default_val: str = "") -> str:
    """Set an environment variable; return its previous value (``default_val`` if unset)."""
    prev = os.environ.get(key, default_val)
    os.environ[key] = str(val)
    return prev


@contextlib.contextmanager
def discard_stderr():
    """Discard everything written to file descriptor 2 inside the block."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 2)
            yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)


def retry(n: int):
    """Decorator: rerun a flaky test up to ``n`` times on AssertionError."""
    if n <= 0:
        raise ValueError("retry(n) needs n > 0")

    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            for i in range(n):
                try:
                    return fn(*args, **kwargs)
                except AssertionError:
                    if i == n - 1:
                        raise
        return wrapper
    return deco


def list_gpus() -> range:
    """Ids of the usable GPUs."""
    return range(num_gpus())


def is_cd_run() -> bool:
    """Whether this is MXNet's continuous-delivery run (never)."""
    return False


def has_tvm_ops() -> bool:
    """Whether TVM operators are built in (never)."""
    return False


def is_op_runnable() -> bool:
    """Whether operators can run in this configuration (always)."""
    return True


def np_reduce(dat, axis, keepdims, numpy_reduce_func):
    """Reduce ``dat`` over ``axis`` (int, sequence or None) one axis at a time."""
    if isinstance(axis, int):
        axis = [axis]
    else:
        axis = list(axis) if axis is not None else list(range(len(dat.shape)))
    axis = sorted({a % dat.ndim for a in axis}) if dat.ndim else []
    ret = dat
    for i in reversed(axis):
        ret = numpy_reduce_func(ret, axis=i)
    if keepdims:
        shape = list(dat.shape)
        for i in axis:
            shape[i] = 1
        ret = np.asarray(ret).reshape(shape)
    return ret


def collapse_sum_like(a, shape):
    """Sum ``a`` over the axes along which ``shape`` was broadcast to ``a.shape``."""
    a = np.asarray(_np(a))
    shape = tuple(shape)
    lead = a.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape)
                                      if s == 1 and a.shape[lead + i] != 1)
    return a.sum(axis=axes, keepdims=True).reshape(shape)


def assign_each(the_input, function):
    """``function`` applied to each element: a new float64 array of the same shape
    (a copy of the input when ``function`` is None), as MXNet's helper returns."""
    if function is None:
        return np.array(_np(the_input))
    return np.vectorize(function, otypes=[np.float64])(np.asarray(_np(the_input)))


def assign_each2(input1, input2, function):
    """``function(x, y)`` applied to each pair of elements (float64; a copy of
    ``input1`` when ``function`` is None)."""
    if function is None:
        return np.array(_np(input1))
    return np.vectorize(function, otypes=[np.float64])(np.asarray(_np(input1)),
                                                       np.asarray(_np(input2)))
