"""Samples for ``numpy_insert_delete.py``: ``_npi_insert_scalar`` (values moved to the
axis, scalar ``val``, flattened), ``_npi_insert_slice``, ``_npi_insert_tensor`` (one and
several positions, unsorted, negative), ``_npi_delete`` (int, slice, positions input)
and ``_npi_repeats``.  Gradients scatter back onto the copied elements (broadcast values
summed)."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(29)


def _x(*shape):
    return _rng.uniform(-2, 2, shape)


def _axis(axis):
    return axis


def _ins_scalar(arr, values=None, int_ind=None, axis=None, val=None):
    return np.insert(arr, int_ind, val if values is None else values, axis=axis)


def _ins_slice(arr, values=None, start=None, stop=None, step=None, axis=None, val=None):
    return np.insert(arr, slice(start, stop, step), val if values is None else values,
                     axis=axis)


def _ins_tensor(arr, values, obj, axis=None):
    return np.insert(arr, obj.astype(np.int64), values, axis=axis)


def _delete(arr, obj=None, int_ind=None, start=None, stop=None, step=None, axis=None):
    if obj is not None:  # positions outside [0, n) are ignored, negative ones too (MXNet)
        n = arr.size if axis is None else arr.shape[axis]
        where = obj.astype(np.int64)
        where = where[(where >= 0) & (where < n)]
    elif int_ind is not None:
        where = int_ind
    else:
        where = slice(start, stop, step)
    return np.delete(arr, where, axis=axis)


def _repeats(a, repeats, axis=None):
    return np.repeat(a, repeats, axis=axis)


_POS = np.array([2, 0, -1], np.int64)
SAMPLES = {
    "_npi_insert_scalar": [
        Sample([_x(3, 2), _x(2, 3)], dict(int_ind=1, axis=1), ref=_ins_scalar),
        Sample([_x(3, 2), _x(2)], dict(int_ind=-2), ref=_ins_scalar),
        Sample([_x(3, 2), _x(1)], dict(int_ind=3, axis=0), ref=_ins_scalar),
        Sample([_x(3, 2)], dict(int_ind=0, axis=0, val=2.5), ref=_ins_scalar),
        Sample([_x(3, 2).astype(np.float32), _x(2)], dict(int_ind=1, axis=0),
               ref=_ins_scalar, grad=False),
    ],
    "_npi_insert_slice": [
        Sample([_x(3, 2), _x(3, 1)], dict(start=0, stop=3, step=1, axis=0), ref=_ins_slice),
        Sample([_x(3, 4), _x(3, 1)], dict(start=None, stop=None, step=-2, axis=1),
               ref=_ins_slice),
        Sample([_x(3, 2)], dict(start=1, stop=5, step=2, val=-1.0), ref=_ins_slice),
    ],
    "_npi_insert_tensor": [
        Sample([_x(3, 2), _x(3, 1), _POS], dict(axis=0), ref=_ins_tensor, grad=[0, 1]),
        Sample([_x(3, 2), _x(3, 2), np.array([1], np.int64)], dict(axis=1),
               ref=_ins_tensor, grad=[0, 1]),  # one position: values.shape[axis] wide
        Sample([_x(2, 3), _x(1), np.array([6, 0, 3], np.int64)], {}, ref=_ins_tensor,
               grad=[0, 1]),
    ],
    "_npi_delete": [
        Sample([_x(3, 4)], dict(int_ind=-1, axis=1), ref=_delete),
        Sample([_x(3, 4)], dict(start=0, stop=None, step=2), ref=_delete),
        Sample([_x(3, 4), np.array([2, 0, 2, 3], np.int64)], dict(axis=0), ref=_delete,
               grad=[0], infer_from=[0, 1]),
        Sample([_x(3, 4), np.array([-1, 1, 5, -4], np.int64)], dict(axis=1), ref=_delete,
               grad=[0], infer_from=[0, 1]),
        Sample([_x(0, 2)], dict(start=0, stop=1, step=1, axis=1), ref=_delete,
               grad=False),
    ],
    "_npi_repeats": [
        Sample([_x(3, 2)], dict(repeats=(1, 0, 2), axis=0), ref=_repeats),
        Sample([_x(3, 2)], dict(repeats=(2,), axis=1), ref=_repeats),
        Sample([_x(2, 2)], dict(repeats=(1, 2, 0, 1)), ref=_repeats),
    ],
}
