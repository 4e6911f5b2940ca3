"""Samples for the reductions (``sum``, ``mean``, ``max``, ..., ``norm``, ``argmax``)."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(31)


def _x(*shape):
    return _rng.standard_normal(shape)


def _distinct(*shape):
    n = int(np.prod(shape))
    return (_rng.permutation(n).reshape(shape) * 0.37 + 0.1).astype(np.float64)


def _axes(x, axis, exclude):
    if axis is None or axis == ():
        return tuple(range(x.ndim))
    axis = (axis,) if isinstance(axis, int) else tuple(axis)
    axis = tuple(a % x.ndim for a in axis)
    if exclude:
        axis = tuple(i for i in range(x.ndim) if i not in axis)
    return axis


def _ref(fn):
    def ref(x, axis=None, keepdims=False, exclude=False):
        y = np.asarray(fn(x, axis=_axes(x, axis, exclude), keepdims=keepdims))
        return y.reshape(1) if y.ndim == 0 else y
    return ref


def _variants(fn, make=_x):
    r = _ref(fn)
    return [
        Sample([make(3, 4)], ref=r),
        Sample([make(2, 3, 4)], dict(axis=1), ref=r),
        Sample([make(2, 3, 4)], dict(axis=(0, 2), keepdims=True), ref=r),
        Sample([make(2, 3, 4)], dict(axis=-1, exclude=True), ref=r),
        Sample([make(4)], dict(axis=0), ref=r),
    ]


def _with_nan(*shape):
    x = _rng.uniform(0.5, 1.5, shape)
    x.reshape(-1)[::5] = np.nan
    return x


def _nan_samples(fn):
    r = _ref(fn)
    return [Sample([_with_nan(3, 4)], dict(axis=1), ref=r, grad=False),
            Sample([_with_nan(2, 3, 2)], ref=r, grad=False),
            Sample([_rng.uniform(0.5, 1.5, (3, 4))], dict(axis=0), ref=r)]


def _norm_ref(x, ord=2, axis=None, out_dtype=None, keepdims=False):
    axes = _axes(x, axis, False)
    if ord == 1:
        y = np.abs(x).sum(axis=axes, keepdims=keepdims)
    else:
        y = np.sqrt((x * x).sum(axis=axes, keepdims=keepdims))
    y = np.asarray(y).astype(out_dtype or x.dtype)
    return y.reshape(1) if y.ndim == 0 else y


def _arg_ref(fn):
    def ref(x, axis=None, keepdims=False):
        if axis is None:
            y = np.asarray(fn(x.reshape(-1))).reshape((1,) * x.ndim if keepdims else (1,))
        else:
            y = fn(x, axis=axis)
            if keepdims:
                y = np.expand_dims(y, axis)
        return y.astype(x.dtype)
    return ref


SAMPLES = {
    "sum": _variants(np.sum) + [
        Sample([np.arange(6, dtype=np.int32).reshape(2, 3)], dict(axis=1), ref=_ref(np.sum),
               name="int")],
    "mean": _variants(np.mean),
    "max": _variants(np.max, _distinct),
    "min": _variants(np.min, _distinct),
    "prod": _variants(np.prod, lambda *s: _rng.uniform(0.5, 1.5, s)),
    "nansum": _nan_samples(np.nansum),
    "nanprod": _nan_samples(np.nanprod),
    "norm": [
        Sample([_x(3, 4)], ref=_norm_ref),
        Sample([_x(2, 3, 4)], dict(axis=1, keepdims=True), ref=_norm_ref),
        Sample([_x(2, 3, 4)], dict(axis=(1, 2)), ref=_norm_ref),
        # three axes: MXNet's vector norm over all of them (was refused)
        Sample([_x(2, 3, 4)], dict(axis=(0, 1, 2)), ref=_norm_ref),
        Sample([_distinct(2, 3, 4)], dict(ord=1, axis=(0, 2), keepdims=True), ref=_norm_ref),
        Sample([_distinct(2, 3)], dict(ord=1, axis=0), ref=_norm_ref),
        Sample([_x(2, 3).astype(np.float32)], dict(out_dtype="float64"), ref=_norm_ref,
               grad=False, rtol=1e-5, name="out_dtype"),
    ],
    "argmax": [
        Sample([_distinct(3, 4)], dict(axis=1), ref=_arg_ref(np.argmax)),
        Sample([_distinct(3, 4)], ref=_arg_ref(np.argmax)),
        Sample([_distinct(2, 3, 4)], dict(axis=0, keepdims=True), ref=_arg_ref(np.argmax)),
        Sample([_distinct(2, 3)], dict(keepdims=True), ref=_arg_ref(np.argmax)),
    ],
    "argmin": [
        Sample([_distinct(3, 4)], dict(axis=-1), ref=_arg_ref(np.argmin)),
        Sample([_distinct(3, 4)], ref=_arg_ref(np.argmin)),
    ],
    "argmax_channel": [
        Sample([_distinct(3, 4)], ref=lambda x: np.argmax(x, -1).astype(x.dtype)),
        Sample([_distinct(2, 3, 4)], ref=lambda x: np.argmax(x, -1).astype(x.dtype)),
    ],
}
