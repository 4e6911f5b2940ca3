"""Samples for ``math_extra.py`` and ``math_extra_count.py``: ``hard_sigmoid``, ``cumsum``
(``_np_cumsum``), ``diag``, ``khatri_rao``, ``moments``, ``_histogram``,
``_ravel_multi_index``, ``_unravel_index``, ``all_finite`` and ``multi_all_finite``.

Where NumPy has no function with MXNet's exact rule (C integer arithmetic, MXNet's
uniform bin edges), the expected values were read off MXNet 1.9.1.
"""
import functools

import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(2024)


def _x(*shape, dtype=np.float64):
    return _rng.standard_normal(shape).astype(dtype)


def _away(x, kinks, gap=0.05):
    """``x`` with values closer than ``gap`` to a kink moved off it (finite differences)."""
    x = x.copy()
    for k in kinks:
        near = np.abs(x - k) < gap
        x[near] = k + np.where(x[near] >= k, gap, -gap) * 2
    return x


# -- hard_sigmoid ------------------------------------------------------------------------
def _hs_ref(x, alpha=0.2, beta=0.5):
    """MXNet's rule: float32 ``alpha``/``beta``; float16 computed in float32 and rounded
    after the product and after the sum."""
    c = np.float32 if x.dtype == np.float16 else x.dtype.type
    prod = (x.astype(c) * c(np.float32(alpha))).astype(x.dtype)
    return np.clip((prod.astype(c) + c(np.float32(beta))).astype(x.dtype), 0, 1)


def _hs_x(*shape, alpha=0.2, beta=0.5, dtype=np.float64):
    x = _rng.uniform(-4, 4, shape)
    return _away(x, [-beta / alpha, (1 - beta) / alpha]).astype(dtype)


# -- cumsum ------------------------------------------------------------------------------
def _cumsum_ref(a, axis=None, dtype=None):
    dt = np.dtype(dtype) if dtype is not None else a.dtype
    src = a.reshape(-1) if axis is None else a
    return np.cumsum(src.astype(dt), axis=0 if axis is None else axis, dtype=dt)


# -- diag --------------------------------------------------------------------------------
def _diag_ref(x, k=0, axis1=0, axis2=1):
    if x.ndim == 1:
        return np.diag(x, k)
    return np.diagonal(x, k, axis1, axis2).copy()


# -- khatri_rao --------------------------------------------------------------------------
def _kr_ref(*mats, num_args):
    def kr(a, b):
        return np.einsum("ij,kj->ikj", a, b).reshape(-1, a.shape[1])
    return functools.reduce(kr, mats)


# -- moments -----------------------------------------------------------------------------
def _moments_ref(x, axes, keepdims=False):
    axes = tuple(a % x.ndim for a in axes)
    mean = np.mean(x, axis=axes, keepdims=keepdims)
    var = np.var(x, axis=axes, keepdims=keepdims)
    return [np.asarray(m).reshape(np.shape(m) or (1,)).astype(x.dtype) for m in (mean, var)]


def _moments_int_ref(x, axes, keepdims=False):
    """C integer arithmetic: truncated mean, variance from the truncated mean."""
    n = int(np.prod([x.shape[a] for a in axes]))
    s = x.astype(np.int64).sum(axis=axes, keepdims=True)
    mean = np.trunc(s / n).astype(np.int64)
    var = np.trunc(((x - mean) ** 2).sum(axis=axes, keepdims=True) / n).astype(np.int64)
    if not keepdims:
        mean, var = (np.squeeze(m, axis=axes).reshape(-1) for m in (mean, var))
    return [mean.astype(x.dtype), var.astype(x.dtype)]


# -- histogram ---------------------------------------------------------------------------
def _hist_ref(data, bins=None, bin_cnt=None, range=None):
    if bins is None:
        lo, hi = range
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        i = np.arange(bin_cnt + 1)
        bins = ((lo * (bin_cnt - i) + hi * i) / bin_cnt).astype(data.dtype)
    counts, _ = np.histogram(data.astype(np.float64), bins=bins.astype(np.float64))
    return [counts.astype(np.int64), bins.copy()]


_hist_data = np.array([[0, 1, 2, 2.5], [3, 4, 4.99, 5], [-0.5, 5.5, 0.2, 3.7]])
_hist_nan = np.array([np.nan, 1, np.inf, -np.inf, 4, 0.5, 2.5, 2.4, 3.9])


# -- ravel_multi_index / unravel_index ---------------------------------------------------
def _ravel_ref(data, shape):
    strides = np.cumprod((1,) + tuple(shape)[:0:-1])[::-1]
    return (np.trunc(data).astype(np.int64) * strides[:, None]).sum(axis=0).astype(data.dtype)


def _unravel_ref(data, shape):
    return np.stack(np.unravel_index(np.trunc(data).astype(np.int64), shape)).astype(data.dtype)


def _const(*values):
    return lambda *inputs, **attrs: [np.asarray(v) for v in values]


# -- all_finite --------------------------------------------------------------------------
def _finite_ref(*arrays, num_arrays=1, init_output=True):
    return np.array([float(all(np.isfinite(a).all() for a in arrays))], dtype=np.float32)


def _with(x, index, value):
    x = x.copy()
    x.reshape(-1)[index] = value
    return x


_F32_GRAD = dict(eps=1e-2, grad_rtol=1e-3, grad_atol=1e-3)

SAMPLES = {
    "hard_sigmoid": [
        Sample([_hs_x(3, 4)], ref=_hs_ref),
        Sample([_hs_x(2, 3, 4, alpha=0.7, beta=0.1)], dict(alpha=0.7, beta=0.1), ref=_hs_ref),
        Sample([_hs_x(2, 2, 2, 3, alpha=0.3, beta=0.6)], dict(alpha=0.3, beta=0.6),
               ref=_hs_ref),
        Sample([_hs_x(3, 5, dtype=np.float32)], ref=_hs_ref, rtol=1e-6, **_F32_GRAD),
        Sample([np.array([-3, -1, 0, 1, 1.5, 2.5], dtype=np.float16)], dict(alpha=0.3, beta=0.1),
               ref=_hs_ref, grad=False),
    ],
    "_np_cumsum": [
        Sample([_x(2, 3, 4)], ref=_cumsum_ref),
        Sample([_x(2, 3, 4)], dict(axis=1), ref=_cumsum_ref),
        Sample([_x(2, 3, 4)], dict(axis=-3), ref=_cumsum_ref),
        Sample([_x(2, 3, 2, 3)], dict(axis=-1), ref=_cumsum_ref),
        Sample([_x(2, 3, 2, 3)], dict(axis=2), ref=_cumsum_ref),
        Sample([_x(5)], dict(axis=0), ref=_cumsum_ref),
        Sample([_x(3, 4)], dict(axis=1, dtype="float32"), ref=_cumsum_ref, rtol=1e-5,
               atol=1e-6, **_F32_GRAD),
        Sample([_x(2, 3, 4, dtype=np.float32)], dict(axis=2), ref=_cumsum_ref, rtol=1e-5,
               **_F32_GRAD),
        Sample([_x(2, 3, 4, dtype=np.float32)], dict(dtype="float64"), ref=_cumsum_ref,
               rtol=1e-6, **_F32_GRAD),
        Sample([_rng.integers(-5, 5, (3, 4)).astype(np.int32)], dict(axis=0), ref=_cumsum_ref),
        Sample([np.array([100, 100, 100, -7], dtype=np.int8)], ref=_cumsum_ref),
        Sample([np.array([[1.7, 1.7, -1.7], [2.5, -0.5, 3.9]])], dict(axis=1, dtype="int32"),
               ref=lambda a, axis, dtype: np.array([[1, 2, 1], [2, 2, 5]], np.int32),
               grad=False),
        Sample([np.arange(6, dtype=np.int64).reshape(2, 3)], dict(dtype="float16"),
               ref=_cumsum_ref),
    ],
    "diag": [
        Sample([_x(4)], ref=_diag_ref),
        Sample([_x(3)], dict(k=2), ref=_diag_ref),
        Sample([_x(3)], dict(k=-1, axis1=5, axis2=7), ref=_diag_ref),
        Sample([_x(3, 4)], dict(k=1), ref=_diag_ref),
        Sample([_x(3, 4)], dict(k=-2), ref=_diag_ref),
        Sample([_x(3, 4)], dict(k=1, axis1=1, axis2=0), ref=_diag_ref),
        Sample([_x(3, 4)], dict(k=4), ref=_diag_ref),
        Sample([_x(2, 3, 4)], ref=_diag_ref),
        Sample([_x(2, 3, 4)], dict(k=-1, axis1=-1, axis2=0), ref=_diag_ref),
        Sample([_x(2, 3, 4)], dict(k=1, axis1=2, axis2=0), ref=_diag_ref),
        Sample([_x(2, 3, 4, 5)], dict(k=2, axis1=1, axis2=3), ref=_diag_ref),
        Sample([_x(2, 3, 4, 5)], dict(k=-1, axis1=-1, axis2=-3), ref=_diag_ref),
        Sample([_x(3, 4, 2, dtype=np.float32)], dict(axis1=0, axis2=1), ref=_diag_ref,
               **_F32_GRAD),
        Sample([np.array([1, -2, 3], dtype=np.int32)], dict(k=1), ref=_diag_ref),
    ],
    "khatri_rao": [
        Sample([_x(2, 3), _x(4, 3)], dict(num_args=2), ref=_kr_ref),
        Sample([_x(2, 2), _x(3, 2), _x(1, 2)], dict(num_args=3), ref=_kr_ref),
        Sample([_x(3, 4)], dict(num_args=1), ref=_kr_ref),
        Sample([_x(2, 3, dtype=np.float32), _x(3, 3, dtype=np.float32)], dict(num_args=2),
               ref=_kr_ref, rtol=1e-6),
    ],
    "moments": [
        Sample([_x(2, 3, 4)], dict(axes=(0, 2)), ref=_moments_ref),
        Sample([_x(2, 3, 4)], dict(axes=(-1,), keepdims=True), ref=_moments_ref),
        Sample([_x(2, 3, 2, 3)], dict(axes=(1, 3)), ref=_moments_ref),
        Sample([_x(2, 3, 2, 3)], dict(axes=(-2, 0), keepdims=True), ref=_moments_ref),
        Sample([_x(3, 4)], dict(axes=(0, 1)), ref=_moments_ref),
        Sample([_x(5)], dict(axes=(0,), keepdims=True), ref=_moments_ref),
        Sample([_x(3, 4, 5, dtype=np.float32)], dict(axes=(1,)), ref=_moments_ref, rtol=1e-5,
               atol=1e-6, **_F32_GRAD),
        Sample([np.array([[0, 1, 3], [0, -2, 3], [5, -2, 4]], dtype=np.int32)],
               dict(axes=(0,)), ref=_moments_int_ref),
        Sample([np.array([[0, 0, 5], [0, 0, -5]], dtype=np.int64)], dict(axes=(1,),
               keepdims=True), ref=_moments_int_ref),
    ],
    "_histogram": [
        Sample([_hist_data], dict(bin_cnt=5, range=(0, 5)), ref=_hist_ref),
        Sample([_hist_data.astype(np.float32)], dict(bin_cnt=7, range=(-1.3, 2.7)),
               ref=_hist_ref),
        Sample([_x(2, 3, 4)], dict(bin_cnt=4, range=(-1.0, 1.0)), ref=_hist_ref),
        Sample([np.array([[0, 1], [2, 2], [3, 4.]])], dict(bin_cnt=3, range=(2, 2)),
               ref=_const([0, 2, 0], [1.5, 1.5 + 1 / 3, 2.5 - 1 / 3, 2.5])),
        Sample([_hist_nan, np.array([0, 1, 2.5, 4])], ref=_hist_ref),
        Sample([_hist_nan.astype(np.float32).reshape(3, 3),
                np.array([-1, 0, 1, 1, 3], np.float32)],
               ref=_const([0, 1, 0, 3], np.array([-1, 0, 1, 1, 3], np.float32))),
        Sample([np.arange(6, dtype=np.int32)], dict(bin_cnt=3, range=(0, 5)),
               ref=_const(np.array([1, 2, 3]), np.array([0, 1, 3, 5], np.int32))),
        Sample([np.arange(6, dtype=np.int32)], dict(bin_cnt=3, range=(0.5, 3.5)),
               ref=_const(np.array([0, 1, 2]), np.array([0, 1, 2, 3], np.int32))),
    ],
    "_ravel_multi_index": [
        Sample([np.array([[3, 6, 6], [4, 5, 1]]) + 0.3], dict(shape=(7, 6)), ref=_ravel_ref),
        Sample([np.array([[1, 0], [2, 1], [3, 4]], dtype=np.int32)], dict(shape=(2, 3, 5)),
               ref=_ravel_ref),
        Sample([np.array([[3, 6, 6], [4, 5, 1]], dtype=np.int64)], dict(shape=(-1, 6)),
               ref=_ravel_ref),
        Sample([np.array([[-1.4, 1.7], [2.2, 2.6]], dtype=np.float32)], dict(shape=(3, 6)),
               ref=_const(np.array([-4, 8], np.float32))),
    ],
    "_unravel_index": [
        Sample([np.array([22.3, 41.2, 37.6])], dict(shape=(7, 6)), ref=_unravel_ref),
        Sample([np.array([[22, 41], [37, 3]], dtype=np.int32)], dict(shape=(7, 6)),
               ref=_unravel_ref),
        Sample([np.array([29, 7, 59], dtype=np.int64)], dict(shape=(2, 3, 5)),
               ref=_const(np.array([[1, 0, 3], [2, 1, 2], [4, 2, 4]]))),
        Sample([np.array([-1.4, -7.3, 47.2], dtype=np.float32)], dict(shape=(-1, 6)),
               ref=_const(np.array([[0, -1, 7], [-1, -1, 5]], np.float32))),
    ],
    "all_finite": [
        Sample([_x(3, 4)], ref=_finite_ref),
        Sample([_with(_x(2, 3, 4, dtype=np.float32), 7, np.inf)], ref=_finite_ref),
        Sample([_with(_x(2, 3, dtype=np.float16), 0, np.nan)], ref=_finite_ref),
        Sample([_with(_x(3, 2), 5, -np.inf)], dict(init_output=False), ref=_finite_ref),
    ],
    "multi_all_finite": [
        Sample([_x(3, 4), _x(2)], dict(num_arrays=2), ref=_finite_ref),
        Sample([_x(2, 2, dtype=np.float32), _x(3, dtype=np.float32),
                _with(_x(1, 4, dtype=np.float32), 2, np.nan)], dict(num_arrays=3),
               ref=_finite_ref),
        Sample([_x(2, 3, dtype=np.float32), _x(4)], dict(num_arrays=2), ref=_finite_ref),
        Sample([_with(_x(4), 0, np.inf)], ref=_finite_ref),
        Sample([_x(2), _with(_x(2, 2), 3, np.nan)], dict(num_arrays=2, init_output=False),
               ref=_finite_ref),
    ],
}
