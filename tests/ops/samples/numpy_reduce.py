"""Samples for ``numpy_reduce.py``: the reductions of ``mx.np`` (``_np_sum``, ``_npi_mean``,
``_np_max``, ``_np_min``, ``_np_prod``, ``_npi_std``, ``_npi_var``, ``_np_all``,
``_np_any``, ``_npi_argmax``, ``_npi_argmin``).

NumPy's results under MXNet 1.9's dtypes: integer sums and products keep the input
dtype (``bool`` gives ``int64``), integer means/std/var give ``float32``; ``axis=None``
reduces every axis to a 0-d result; every axis form (int, negative, tuple) on 3-D and
4-D inputs; float32 accumulation checked on a long axis.
"""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(5)


def _x(*shape, dtype=np.float64):
    return _rng.uniform(-2, 2, shape).astype(dtype)


def _distinct(*shape):
    """Values without ties, so max/min gradients are defined."""
    n = int(np.prod(shape))
    return (_rng.permutation(n).reshape(shape) * 0.37 - 3.0).astype(np.float64)


def _axis(axis):
    return None if axis is None else (axis if isinstance(axis, tuple) else (axis,))


def _reduce_ref(fn, float_out=False, bool_to=np.int64):
    def ref(x, axis=None, keepdims=False, dtype=None, ddof=None):
        kwargs = {} if ddof is None else {"ddof": ddof}
        odt = np.dtype(dtype) if dtype is not None else (
            x.dtype if x.dtype.kind == "f" or not float_out else np.dtype(np.float32))
        if dtype is None and x.dtype == np.bool_ and not float_out:
            odt = np.dtype(bool_to)
        y = fn(x.astype(np.float64) if float_out else x, axis=_axis(axis), keepdims=keepdims,
               **kwargs)
        return np.asarray(y).astype(odt)
    return ref


def _samples(fn, float_out=False, distinct=False):
    gen = _distinct if distinct else _x
    ref = _reduce_ref(fn, float_out)
    return [
        Sample([gen(2, 3, 4)], ref=ref),
        Sample([gen(2, 3, 4)], dict(axis=1), ref=ref),
        Sample([gen(2, 3, 4)], dict(axis=-1, keepdims=True), ref=ref),
        Sample([gen(2, 3, 2, 3)], dict(axis=(0, 2)), ref=ref),
        Sample([gen(2, 3, 2, 3)], dict(axis=-3), ref=ref),
        Sample([gen(5)], dict(axis=0), ref=ref),
        Sample([gen(2, 3)], dict(axis=()), ref=ref, grad=False),  # NumPy: no axis reduced
        Sample([gen(3, 1000).astype(np.float32)], dict(axis=1), ref=ref, rtol=1e-4,
               atol=1e-4, grad=False),
        Sample([_rng.integers(-3, 4, (3, 4)).astype(np.int32)], dict(axis=0), ref=ref),
        # float16 data and results accumulate in float32 (MXNet's acc type)
        Sample([gen(2, 1000).astype(np.float16)], dict(axis=1), ref=ref, rtol=2e-3,
               atol=2e-3, grad=False),
        Sample([gen(2, 1000).astype(np.float32)], dict(axis=1, dtype="float16"), ref=ref,
               rtol=2e-3, atol=2e-3, grad=False),
    ]


def _var(x, axis=None, keepdims=False, ddof=0):
    return np.var(x, axis=axis, keepdims=keepdims, ddof=ddof)


def _std(x, axis=None, keepdims=False, ddof=0):
    return np.std(x, axis=axis, keepdims=keepdims, ddof=ddof)


def _with_ddof(fn):
    samples = _samples(fn, float_out=True)
    ref = _reduce_ref(fn, float_out=True)
    samples.append(Sample([_x(4, 5)], dict(axis=1, ddof=1), ref=ref))
    samples.append(Sample([_x(2, 3, 4)], dict(ddof=2), ref=ref))
    return samples


def _sum_extra():
    ref = _reduce_ref(np.sum)
    return [Sample([_rng.integers(0, 2, (3, 4)).astype(np.bool_)], dict(axis=1), ref=ref),
            Sample([_x(2, 3)], dict(dtype="float32"), ref=ref, rtol=1e-6, grad=False)]


def _logical_ref(fn):
    def ref(x, axis=None, keepdims=False):
        return np.asarray(fn(x, axis=_axis(axis), keepdims=keepdims))
    return ref


def _logical(fn):
    ref = _logical_ref(fn)
    return [Sample([_rng.integers(0, 2, (2, 3, 4)).astype(np.float64)], ref=ref),
            Sample([_rng.integers(0, 2, (2, 3, 4)).astype(np.bool_)], dict(axis=1), ref=ref),
            Sample([_rng.integers(0, 3, (2, 3, 2, 2)).astype(np.int32)],
                   dict(axis=(1, 3), keepdims=True), ref=ref)]


def _arg_ref(fn):
    def ref(x, axis=None, keepdims=False):
        if axis is None:
            y = fn(x.reshape(-1))
            return np.asarray(y, dtype=np.int64).reshape((1,) * x.ndim if keepdims else ())
        return np.asarray(fn(x, axis=axis, keepdims=keepdims), dtype=np.int64)
    return ref


def _arg(fn):
    ref = _arg_ref(fn)
    return [Sample([_distinct(2, 3, 4)], ref=ref),
            Sample([_distinct(2, 3, 4)], dict(axis=1), ref=ref),
            Sample([_distinct(2, 3, 2, 3)], dict(axis=-1, keepdims=True), ref=ref),
            Sample([_rng.integers(-9, 9, (3, 4)).astype(np.int32)], dict(axis=0), ref=ref)]


SAMPLES = {
    "_np_sum": _samples(np.sum) + _sum_extra(),
    "_npi_mean": _samples(np.mean, float_out=True),
    "_np_max": _samples(np.max, distinct=True),
    "_np_min": _samples(np.min, distinct=True),
    "_np_prod": _samples(np.prod),
    "_npi_std": _with_ddof(_std),
    "_npi_var": _with_ddof(_var),
    "_np_all": _logical(np.all),
    "_np_any": _logical(np.any),
    "_npi_argmax": _arg(np.argmax),
    "_npi_argmin": _arg(np.argmin),
}
