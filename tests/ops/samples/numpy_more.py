"""Samples for ``numpy_more.py``, ``numpy_stats.py`` and ``numpy_create.py``: ``_npi_flip``
(every axis, some axes), ``_np_diag`` (both directions, offsets beyond the matrix),
``_npi_resize_fallback`` (growing, shrinking, empty),
``_npi_array_split``/``_npi_hsplit``/``_npi_dsplit`` (sections, points beyond the axis),
the predicates (NaN, infinities, integers), ``_npi_bitwise_not``, ``_npi_nan_to_num``
(defaults and given values, gradient only where finite), ``_npi_polyval``,
``_npi_average`` (weighted or not, full and 1-d weights, ``returned``),
``_npi_percentile`` (each interpolation, array and scalar q, keepdims), the creation
operators, ``_npi_diag_indices_from``, ``_npx_constraint_check`` and
``_npi_broadcast_to`` (NumPy's rule and MXNet's ``-2``)."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(29)


def _x(*shape, dtype=np.float64):
    return _rng.uniform(-2, 2, shape).astype(dtype)


def _flip_ref(x, axis=None):
    return np.flip(x, axis)


def _diag_ref(x, k=0):
    return np.diag(x, k)


def _resize_ref(x, new_shape):
    if x.size == 0:
        return np.zeros(new_shape, x.dtype)
    return np.resize(x, new_shape)


def _split_ref(fn_axis):
    def ref(x, indices=(), axis=1, squeeze_axis=False, sections=0):
        ax = fn_axis(x.ndim, axis)
        if sections > 0:
            return np.array_split(x, sections, axis=ax)
        return np.split(x, list(indices[1:]), axis=ax)
    return ref


def _special():
    return np.array([np.nan, np.inf, -np.inf, 0.0, -1.5, 2.0, np.nan, 3.0])


def _pred_ref(fn):
    return lambda x: fn(x)


def _nan_to_num_ref(x, copy=True, nan=0.0, posinf=None, neginf=None):
    return np.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)


def _polyval_ref(p, x):
    return np.polyval(p, x)


def _average_ref(a, *w, axis=None, returned=False, weighted=True):
    res = np.average(a, axis=axis if axis is None or len(axis) != 1 else axis[0],
                     weights=w[0] if weighted else None, returned=True)
    avg, scl = (np.asarray(r, dtype=a.dtype) for r in res)
    scl = np.broadcast_to(scl, avg.shape)
    if weighted and w[0].shape != a.shape:  # MXNet: the sum of 1-d weights, one number
        scl = np.asarray(w[0].sum(), dtype=a.dtype)
    return [avg, scl] if returned else avg


def _pct_ref(a, *q, axis=None, interpolation="linear", keepdims=False, q_scalar=None):
    qv = q_scalar if q_scalar is not None else q[0]
    # MXNet computes in (and returns) float64 for float64 data, float32 for any other
    dt = np.float64 if a.dtype == np.float64 else np.float32
    return np.asarray(np.percentile(a.astype(dt), qv, axis=axis, method=interpolation,
                                    keepdims=keepdims), dtype=dt)


def _logspace_ref(start, stop, num, endpoint=True, base=10.0, dtype=np.float32):
    return np.logspace(start, stop, num, endpoint=endpoint, base=base).astype(dtype)


def _indices_ref(dimensions, dtype=np.int32):
    return np.indices(dimensions).astype(dtype)


def _window_ref(fn):
    return lambda M, dtype=np.float32: fn(M).astype(dtype)


def _dif_ref(x):
    return np.stack(np.diag_indices_from(x)).astype(np.int64)


def _constraint_ref(x, msg="Constraint violated."):
    return np.array(True)


def _bma_ref(data, mask, *value, start_axis=0, value_attr=None):
    y = data.copy()
    y[(slice(None),) * start_axis + (mask != 0,)] = value[0] if value else value_attr
    return y


def _bcast_ref(x, shape):
    lead = len(shape) - x.ndim
    shape = tuple(x.shape[i - lead] if d == -2 else d for i, d in enumerate(shape))
    return np.broadcast_to(x, shape)


_NO_FD = dict(grad=False)

SAMPLES = {
    "_npi_flip": [
        Sample([_x(2, 3, 4)], {}, ref=_flip_ref),
        Sample([_x(2, 3, 4)], dict(axis=(0, -1)), ref=_flip_ref),
        Sample([_x(5)], dict(axis=(0,)), ref=_flip_ref),
    ],
    "_np_diag": [
        Sample([_x(3, 4)], {}, ref=_diag_ref),
        Sample([_x(3, 4)], dict(k=-2), ref=_diag_ref),
        Sample([_x(3, 4)], dict(k=6), ref=_diag_ref, grad=False),  # empty
        Sample([_x(3)], dict(k=1), ref=_diag_ref),
    ],
    "_npi_resize_fallback": [
        Sample([_x(2, 3)], dict(new_shape=(4, 4)), ref=_resize_ref),
        Sample([_x(2, 3)], dict(new_shape=(4,)), ref=_resize_ref),
        Sample([_x(3)], dict(new_shape=()), ref=_resize_ref),
    ],
    "_npi_array_split": [
        Sample([_x(7, 2)], dict(indices=(), sections=3, axis=0),
               ref=_split_ref(lambda n, a: a)),
        Sample([_x(2, 6)], dict(indices=(0, 2, 9), axis=1), ref=_split_ref(lambda n, a: a)),
    ],
    "_npi_hsplit": [
        Sample([_x(2, 6)], dict(indices=(), sections=3), ref=_split_ref(lambda n, a: 1)),
        Sample([_x(6)], dict(indices=(0, 1, 4)), ref=_split_ref(lambda n, a: 0)),
    ],
    "_npi_dsplit": [
        Sample([_x(2, 1, 4)], dict(indices=(), sections=2), ref=_split_ref(lambda n, a: 2)),
        Sample([_x(1, 2, 5)], dict(indices=(0, 3)), ref=_split_ref(lambda n, a: 2)),
    ],
    "_npi_isnan": [Sample([_special()], ref=_pred_ref(np.isnan), **_NO_FD),
                   Sample([np.arange(4, dtype=np.int32)], ref=_pred_ref(np.isnan), **_NO_FD)],
    "_npi_isinf": [Sample([_special()], ref=_pred_ref(np.isinf), **_NO_FD)],
    "_npi_isposinf": [Sample([_special()], ref=_pred_ref(np.isposinf), **_NO_FD)],
    "_npi_isneginf": [Sample([_special().astype(np.float32)], ref=_pred_ref(np.isneginf),
                             **_NO_FD)],
    "_npi_isfinite": [Sample([_special()], ref=_pred_ref(np.isfinite), **_NO_FD),
                      Sample([np.arange(4, dtype=np.int64)], ref=_pred_ref(np.isfinite),
                             **_NO_FD)],
    "_npi_bitwise_not": [
        Sample([_rng.integers(-50, 50, (3, 4)).astype(np.int32)], ref=np.invert, **_NO_FD),
        Sample([np.array([True, False])], ref=np.invert, **_NO_FD),
        Sample([_rng.integers(0, 255, (5,)).astype(np.uint8)], ref=np.invert, **_NO_FD),
    ],
    "_npi_nan_to_num": [
        Sample([_special()], ref=_nan_to_num_ref, grad=False),
        Sample([_special().astype(np.float32)], dict(nan=1.5, posinf=9.0, neginf=-9.0),
               ref=_nan_to_num_ref, grad=False),
        Sample([_x(3, 4)], ref=_nan_to_num_ref),
    ],
    "_npi_polyval": [
        Sample([_x(4), _x(3, 2)], ref=_polyval_ref),
        Sample([_x(1), _x(5)], ref=_polyval_ref),
        Sample([_x(3).astype(np.float32), _x(4)], ref=_polyval_ref, grad=[1]),
    ],
    "_npi_average": [
        Sample([_x(3, 4), _rng.uniform(0.5, 2, (3, 4))], dict(axis=(1,)), ref=_average_ref),
        Sample([_x(3, 4), _rng.uniform(0.5, 2, (3,))], dict(axis=(0,), returned=True),
               ref=_average_ref),
        Sample([_x(2, 3, 4), _rng.uniform(0.5, 2, (2, 3, 4))], {}, ref=_average_ref),
        Sample([_x(2, 3, 4)], dict(axis=(0, 2), weighted=False, returned=True),
               ref=_average_ref),
    ],
    "_npi_percentile": [
        Sample([_x(5, 4), np.array([10.0, 50.0, 95.0])], dict(axis=(0,)), ref=_pct_ref),
        Sample([_x(5, 4)], dict(q_scalar=30.0, interpolation="lower", keepdims=True,
                                axis=(1,)), ref=_pct_ref),
        Sample([_x(3, 4, 2)], dict(q_scalar=75.0, interpolation="nearest"), ref=_pct_ref),
        Sample([_x(6), np.array(40.0)], dict(interpolation="midpoint"), ref=_pct_ref),
        Sample([_x(6)], dict(q_scalar=40.0, interpolation="higher"), ref=_pct_ref),
        # integer and float16 data: float32 results, float16 midpoints not rounded
        Sample([np.arange(12, dtype=np.int32).reshape(3, 4)],
               dict(q_scalar=30.0, interpolation="linear", axis=(1,)), ref=_pct_ref),
        Sample([_x(3, 7, dtype=np.float16), np.array([20.0, 55.0], np.float32)],
               dict(axis=(1,), interpolation="midpoint"), ref=_pct_ref, grad=False),
    ],
    "_npi_logspace": [
        Sample([], dict(start=0.0, stop=3.0, num=4), ref=_logspace_ref),
        Sample([], dict(start=1.0, stop=-1.0, num=5, endpoint=False, base=2.0,
                        dtype=np.float64), ref=_logspace_ref),
    ],
    "_npi_indices": [
        Sample([], dict(dimensions=(2, 3)), ref=_indices_ref),
        Sample([], dict(dimensions=(3, 1, 2), dtype=np.float32), ref=_indices_ref),
    ],
    "_npi_hanning": [Sample([], dict(M=6), ref=_window_ref(np.hanning)),
                     Sample([], dict(M=1, dtype=np.float64), ref=_window_ref(np.hanning))],
    "_npi_hamming": [Sample([], dict(M=5), ref=_window_ref(np.hamming))],
    "_npi_blackman": [Sample([], dict(M=7, dtype=np.float64), ref=_window_ref(np.blackman))],
    "_npi_diag_indices_from": [Sample([_x(3, 3)], ref=_dif_ref, **_NO_FD),
                               Sample([_x(2, 2, 2)], ref=_dif_ref, **_NO_FD)],
    "_npx_constraint_check": [Sample([np.ones((2, 3), bool)], dict(msg="positive"),
                                     ref=_constraint_ref, **_NO_FD)],
    "_npi_broadcast_to": [
        Sample([_x(3, 1)], dict(shape=(2, 3, 4)), ref=_bcast_ref),
        Sample([_x()], dict(shape=(2, 3)), ref=_bcast_ref),
        Sample([_x(5)], dict(shape=(3, -2)), ref=_bcast_ref),
    ],
    "_npi_arange": [
        Sample([], dict(start=1.0, stop=-10.0, step=4.0), ref=lambda **k: np.zeros(0, np.float32)),
        Sample([], dict(start=0.5, stop=3.0, step=0.5, dtype=np.float64),
               ref=lambda start, stop, step, dtype: np.arange(start, stop, step)),
        Sample([], dict(start=5.0, dtype=np.int32), ref=lambda start, dtype: np.arange(5,
                                                                              dtype=dtype)),
    ],
    "_npi_eye": [
        Sample([], dict(N=3, M=4, k=-1), ref=lambda N, M, k: np.eye(N, M, k, np.float32)),
        Sample([], dict(N=0), ref=lambda N: np.eye(0, dtype=np.float32)),
        Sample([], dict(N=2, dtype=np.int64), ref=lambda N, dtype: np.eye(N, dtype=dtype)),
    ],
    "_npi_full_like": [
        Sample([_x(2, 3)], dict(fill_value=2.5), ref=lambda a, fill_value: np.full_like(
            a, fill_value)),
        Sample([_x(2, 3)], dict(fill_value=2.0, dtype=np.bool_),
               ref=lambda a, fill_value, dtype: np.full(a.shape, True)),
        Sample([_x(3).astype(np.int32)], dict(fill_value=-1.7),
               ref=lambda a, fill_value: np.full(a.shape, -1, np.int32)),
    ],
    "_npi_boolean_mask_assign_scalar": [
        Sample([_x(3, 4), (_rng.uniform(0, 1, (3, 4)) > 0.5).astype(np.float64)],
               dict(value=42.0), ref=lambda d, m, value: _bma_ref(d, m, value_attr=value),
               grad=[0]),
        Sample([_x(2, 3, 4), np.array([1.0, 0, 1])], dict(value=-1.0, start_axis=1),
               ref=lambda d, m, value, start_axis: _bma_ref(d, m, start_axis=start_axis,
                                                              value_attr=value), grad=[0]),
    ],
    "_npi_boolean_mask_assign_tensor": [
        Sample([_x(3, 4), np.array([1.0, 0, 1]), _x(2, 4)], {}, ref=_bma_ref, grad=[0, 2]),
        Sample([_x(2, 3, 4), np.array([[1.0, 0, 1, 1], [0, 0, 1, 0], [1, 0, 0, 0]]),
                _x(2, 1)], dict(start_axis=1), ref=_bma_ref, grad=[0, 2]),
    ],
}
