"""Samples for ``index_copy``, ``index_array`` and ``boolean_mask`` (``contrib_index.py``)."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(9)
_old = _rng.normal(size=(5, 3))
_new = _rng.normal(size=(3, 3))
_x3 = _rng.normal(size=(4, 2, 3))


def _index_copy_ref(old, index, new):
    out = old.copy()
    for i, j in enumerate(index.astype(np.int64)):
        if 0 <= j < old.shape[0]:
            out[j] = new[i]
    return out


def _index_array_ref(x, axes=None):
    grids = np.indices(x.shape)
    axes = range(x.ndim) if axes is None else [a % x.ndim for a in axes]
    return np.stack([grids[a] for a in axes], axis=-1).astype(np.int64)


def _mask_ref(data, index, axis=0):
    return np.take(data, np.nonzero(index)[0], axis=axis)


SAMPLES = {
    "_contrib_index_copy": [
        Sample([_old, np.array([0.0, 4.0, 2.0]), _new], ref=_index_copy_ref, grad=[0, 2]),
        Sample([_old, np.array([3.0, 7.0, 1.0]), _new], ref=_index_copy_ref, grad=[0, 2]),
        Sample([_x3, np.array([1, 3], dtype=np.int32), _x3[:2] * 2], ref=_index_copy_ref,
               grad=[0, 2]),
    ],
    "_contrib_index_array": [
        Sample([_old], ref=_index_array_ref),
        Sample([_x3], {"axes": (1, 0)}, ref=_index_array_ref),
        Sample([_x3], {"axes": (-1,)}, ref=_index_array_ref),
    ],
    "_contrib_boolean_mask": [
        Sample([_old, np.array([0.0, 1.0, 1.0, 0.0, 1.0])], ref=_mask_ref, grad=[0]),
        Sample([_x3, np.array([1.0, 0.0, 1.0])], {"axis": 2}, ref=_mask_ref, grad=[0]),
        Sample([_x3, np.array([0, 0, 0, 0], dtype=np.int32)], ref=_mask_ref, grad=[0]),
    ],
}
