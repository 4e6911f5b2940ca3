"""Samples for ``take``, ``pick``, ``batch_take``, ``one_hot``, ``gather_nd``,
``scatter_nd`` and ``_scatter_set_nd``."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(21)


def _x(*shape):
    return _rng.standard_normal(shape)


def _fix(idx, n, mode):
    i = np.asarray(idx).astype(np.int64)
    if mode == "clip":
        return np.clip(i, 0, n - 1)
    if mode == "wrap":
        return i % n
    return i


def _take_ref(a, indices, axis=0, mode="clip"):
    return np.take(a, _fix(indices, a.shape[axis], mode), axis=axis)


def _pick_ref(data, index, axis=-1, keepdims=False, mode="clip"):
    ax = axis % data.ndim
    i = _fix(index, data.shape[ax], mode).reshape(
        data.shape[:ax] + (1,) + data.shape[ax + 1:])
    y = np.take_along_axis(data, i, axis=ax)
    return y if keepdims else np.squeeze(y, axis=ax).reshape(
        data.shape[:ax] + data.shape[ax + 1:] or (1,))


def _batch_take_ref(a, indices):
    rows = a.reshape(-1, a.shape[-1])
    i = np.clip(indices.astype(np.int64).reshape(-1), 0, rows.shape[1] - 1)
    return rows[np.arange(rows.shape[0]), i].reshape(indices.shape)


def _one_hot_ref(indices, depth, on_value=1.0, off_value=0.0, dtype="float32"):
    i = indices.astype(np.int64)
    return np.where(i[..., None] == np.arange(depth), on_value, off_value).astype(dtype)


def _gather_nd_ref(data, indices):
    i = indices.astype(np.int64)
    return data[tuple(i)]


def _scatter_nd_ref(data, indices, shape):
    y = np.zeros(shape, dtype=data.dtype)
    y[tuple(indices.astype(np.int64))] = data
    return y


def _scatter_set_nd_ref(lhs, rhs, indices, shape):
    y = lhs.copy()
    y[tuple(indices.astype(np.int64))] = rhs
    return y


_I32 = np.int32
SAMPLES = {
    "take": [
        Sample([_x(4, 3), np.array([0, 3, 1, 1], dtype=_I32)], ref=_take_ref, name="rows"),
        Sample([_x(2, 5, 3), np.array([[4, 0], [-1, 9]], dtype=np.int64)],
               dict(axis=1, mode="wrap"), ref=_take_ref, name="wrap_axis1"),
        Sample([_x(3, 4), np.array([-2.0, 0.7, 2.9, 7.5])], dict(axis=-1), ref=_take_ref,
               grad=[0], name="float_indices_clip"),
        Sample([_x(5), np.array([4, 0, 2], dtype=_I32)], dict(mode="raise"), ref=_take_ref,
               name="raise_in_range"),
        Sample([_x(3, 2).astype(np.float32), np.array([2, 0], dtype=_I32)], ref=_take_ref,
               grad=False, name="float32"),
    ],
    "pick": [
        Sample([_x(3, 4), np.array([0, 3, 1], dtype=_I32)], ref=_pick_ref, name="last_axis"),
        Sample([_x(3, 4), np.array([[0.0, 5.0, -1.0, 2.0]])], dict(axis=0, keepdims=True),
               ref=_pick_ref, grad=[0], name="keepdims_clip"),
        Sample([_x(2, 3, 4), np.array([[5, -1, 2, 0], [1, 2, 3, 4]], dtype=np.int64)],
               dict(axis=1, mode="wrap"), ref=_pick_ref, name="wrap_axis1"),
        Sample([_x(4), np.array([2], dtype=_I32)], dict(axis=0), ref=_pick_ref, name="1d"),
        # the index may lack the picked axis even with keepdims (SoftmaxCELoss does this)
        Sample([_x(4, 5), np.array([0, 4, 2, 1], dtype=_I32)], dict(keepdims=True),
               ref=_pick_ref, name="keepdims_index_without_axis"),
        Sample([_x(2, 3, 4), np.array([[2, 0, 1, 1], [0, 0, 2, 1]], dtype=_I32)],
               dict(axis=1, keepdims=True), ref=_pick_ref, name="keepdims_3d_axis1"),
        Sample([_x(4, 5), np.array([[0], [4], [2], [1]], dtype=_I32)], ref=_pick_ref,
               name="index_with_unit_axis"),
    ],
    "batch_take": [
        Sample([_x(3, 4), np.array([0, 5, -1], dtype=_I32)], ref=_batch_take_ref,
               name="clip"),
        Sample([_x(2, 3, 4), np.array([[0, 3, 1], [2, 2, 9]], dtype=_I32)],
               ref=_batch_take_ref, name="3d"),
    ],
    "one_hot": [
        Sample([np.array([1, -1, 3, 5, 2], dtype=_I32)], dict(depth=4), ref=_one_hot_ref,
               name="default"),
        Sample([np.array([[1.0, 0.0], [2.7, 3.0]])],
               dict(depth=3, on_value=5, off_value=-1, dtype="int32"), ref=_one_hot_ref,
               name="values_int32"),
        Sample([np.array([0, 2], dtype=np.int64)], dict(depth=3, dtype="float64"),
               ref=_one_hot_ref, name="float64"),
    ],
    "gather_nd": [
        Sample([_x(2, 3, 4), np.array([[1, 0, -1], [2, 1, -3]], dtype=_I32)],
               ref=_gather_nd_ref, name="partial"),
        Sample([_x(3, 4), np.array([[0, 2, 2], [1, 3, 3]], dtype=np.int64)],
               ref=_gather_nd_ref, name="full_repeated"),
        Sample([_x(3, 4), np.array([[[1.0], [2.0]]])], ref=_gather_nd_ref, grad=[0],
               name="float_indices"),
    ],
    "scatter_nd": [
        Sample([_x(3), np.array([[0, 1, 1], [1, 0, 2]], dtype=_I32)], dict(shape=(2, 3)),
               ref=_scatter_nd_ref, name="elements"),
        Sample([_x(2, 4), np.array([[2.0, 0.0]])], dict(shape=(3, 4)), ref=_scatter_nd_ref,
               grad=[0], name="rows"),
    ],
    "_scatter_set_nd": [
        Sample([_x(2, 3), _x(2), np.array([[0, 1], [2, 0]], dtype=_I32)], dict(shape=(2, 3)),
               ref=_scatter_set_nd_ref, name="elements"),
        Sample([_x(3, 2), _x(1, 2), np.array([[1]], dtype=np.int64)], dict(shape=(3, 2)),
               ref=_scatter_set_nd_ref, name="row"),
    ],
}
