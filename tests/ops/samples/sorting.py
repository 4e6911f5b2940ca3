"""Samples for ``topk``, ``sort`` and ``argsort`` (distinct values: no ties)."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(53)


def _d(*shape):
    n = int(np.prod(shape))
    return _rng.permutation(n).reshape(shape) * 0.5 - 3.0


def _order(x, axis, ascend):
    if axis is None:
        x, axis = x.reshape(-1), 0
    return (np.argsort(x, axis=axis, kind="stable") if ascend
            else np.argsort(-x, axis=axis, kind="stable")), x, axis


def _topk_ref(x, axis=-1, k=1, ret_typ="indices", is_ascend=False, dtype="float32"):
    order, xs, ax = _order(x, axis, is_ascend)
    n = xs.shape[ax]
    k = n if k <= 0 else k
    idx = np.take(order, np.arange(k), axis=ax)
    vals = np.take_along_axis(xs, idx, axis=ax)
    if ret_typ == "mask":
        rank = np.argsort(order, axis=ax)
        return (rank < k).astype(x.dtype).reshape(x.shape)
    if ret_typ == "indices":
        return idx.astype(dtype)
    if ret_typ == "value":
        return vals
    return [vals, idx.astype(dtype)]


def _sort_ref(x, axis=-1, is_ascend=True):
    order, xs, ax = _order(x, axis, is_ascend)
    return np.take_along_axis(xs, order, axis=ax)


def _argsort_ref(x, axis=-1, is_ascend=True, dtype="float32"):
    return _order(x, axis, is_ascend)[0].astype(dtype)


SAMPLES = {
    "topk": [
        Sample([_d(3, 5)], dict(k=2), ref=_topk_ref),
        Sample([_d(3, 5)], dict(k=2, ret_typ="value"), ref=_topk_ref),
        Sample([_d(3, 4, 2)], dict(k=3, axis=1, ret_typ="both", is_ascend=True, dtype="int32"),
               ref=_topk_ref, grad=[0]),
        Sample([_d(3, 4)], dict(k=2, ret_typ="mask", axis=0), ref=_topk_ref),
        Sample([_d(2, 3)], dict(k=4, axis=None, ret_typ="value"), ref=_topk_ref),
        Sample([_d(2, 3)], dict(k=0, ret_typ="value"), ref=_topk_ref),
    ],
    "sort": [
        Sample([_d(3, 5)], ref=_sort_ref),
        Sample([_d(3, 4, 2)], dict(axis=1, is_ascend=False), ref=_sort_ref),
        Sample([_d(2, 3)], dict(axis=None), ref=_sort_ref),
    ],
    "argsort": [
        Sample([_d(3, 5)], ref=_argsort_ref),
        Sample([_d(3, 4)], dict(axis=0, is_ascend=False, dtype="int64"), ref=_argsort_ref),
        Sample([_d(2, 3)], dict(axis=None), ref=_argsort_ref),
    ],
}
