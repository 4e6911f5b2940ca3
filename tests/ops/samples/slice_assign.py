"""Samples for ``_slice_assign``, ``_slice_assign_scalar``, ``fill_element_0index`` and
``_onehot_encode``."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(61)


def _x(*shape):
    return _rng.standard_normal(shape)


def _key(begin, end, step=()):
    step = step or (None,) * len(begin)
    return tuple(slice(b, e, s) for b, e, s in zip(begin, end, step))


def _assign_ref(lhs, rhs, begin, end, step=()):
    y = lhs.copy()
    y[_key(begin, end, step)] = rhs
    return y


def _assign_scalar_ref(data, begin, end, step=(), scalar=0.0):
    y = data.copy()
    y[_key(begin, end, step)] = scalar
    return y


def _fill_ref(lhs, mhs, rhs):
    y = lhs.copy()
    for i, c in enumerate(rhs.astype(np.int64)):
        if 0 <= c < lhs.shape[1]:
            y[i, c] = mhs[i]
    return y


def _onehot_ref(lhs, rhs):
    return (lhs.astype(np.int64)[:, None] == np.arange(rhs.shape[1])).astype(rhs.dtype)


SAMPLES = {
    "_slice_assign": [
        Sample([_x(2, 3, 4), _x(2, 1, 3)], dict(begin=(0, 0, 0), end=(2, 1, 3)),
               ref=_assign_ref, name="crop"),
        Sample([_x(2, 3), _x(2, 1)], dict(begin=(None, 2), end=(None, None), step=(-1, 1)),
               ref=_assign_ref, name="negative_step_none"),
        Sample([_x(5, 2), _x(2, 2)], dict(begin=(1,), end=(5,), step=(2,)),
               ref=_assign_ref, name="strided_first_axis"),
    ],
    "_slice_assign_scalar": [
        Sample([_x(2, 3, 4)], dict(begin=(0, 0, 0), end=(2, 1, 3), scalar=5.0),
               ref=_assign_scalar_ref, name="crop"),
        Sample([_x(2, 3)], dict(begin=(None, 1), end=(None, None), step=(1, 2), scalar=3),
               ref=_assign_scalar_ref, name="step"),
    ],
    "fill_element_0index": [
        Sample([_x(3, 4), np.array([7.0, 8.0, 9.0]), np.array([1.0, 0.0, 3.0])],
               ref=_fill_ref, name="rows"),
        Sample([_x(3, 4).astype(np.float32), np.array([7, 8, 9], dtype=np.float32),
                np.array([1, 0, 5], dtype=np.float32)], ref=_fill_ref,
               name="outside_index_left"),
    ],
    "_onehot_encode": [
        Sample([np.array([1.0, 0.0, 5.0]), np.zeros((3, 4))], ref=_onehot_ref,
               name="outside_index_zero_row"),
        Sample([np.array([2, 2], dtype=np.float32), _x(2, 3).astype(np.float32)],
               ref=_onehot_ref, name="float32"),
    ],
}
