"""Samples for ``numpy_misc.py``: ``_npi_around`` (halves to even, negative decimals,
integers), ``_npi_tril`` (k above and below, batched, 1-D), ``_npi_pad`` (each mode;
gradients of the copying modes scatter back to the source), and the data-dependent
``_npi_unique``, ``_npx_nonzero``, ``_npi_bincount``."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(9)


def _x(*shape, dtype=np.float64):
    return _rng.uniform(-3, 3, shape).astype(dtype)


def _around_ref(x, decimals=0):
    return np.around(x, decimals)


def _tril_ref(x, k=0):
    return np.tril(x, k)


def _pad_ref(x, pad_width, mode="constant", constant_value=0.0, reflect_type="even"):
    width = np.asarray(pad_width).reshape(-1, 2)
    kwargs = {"constant_values": constant_value} if mode == "constant" else {}
    if mode in ("reflect", "symmetric"):
        kwargs["reflect_type"] = reflect_type
    return np.pad(x, width, mode=mode, **kwargs)


def _unique_ref(x, return_index=False, return_inverse=False, return_counts=False, axis=None):
    if x.ndim == 0:  # a 0-d input counts as 1-d
        x, axis = x.reshape(1), None
    res = np.unique(x, return_index=return_index, return_inverse=return_inverse,
                    return_counts=return_counts, axis=axis)
    if not isinstance(res, tuple):
        return res
    return [res[0]] + [r.astype(np.int64).reshape(-1) for r in res[1:]]


def _nonzero_ref(x):  # a 0-d input counts as 1-d
    return np.stack(np.nonzero(np.atleast_1d(x)), axis=1).astype(np.int64)


def _bincount_ref(x, *weights, minlength=0, has_weights=False):
    if has_weights:
        return np.bincount(x.reshape(-1), weights=weights[0].reshape(-1),
                           minlength=minlength).astype(weights[0].dtype)
    return np.bincount(x.reshape(-1), minlength=minlength).astype(np.int64)


_NO_FD = dict(grad=False)

SAMPLES = {
    "_npi_around": [
        Sample([np.array([0.5, 1.5, 2.5, -0.5, -1.5, 0.49, 2.51])], ref=_around_ref,
               grad=False),  # the halves sit on the jumps
        Sample([_x(2, 3, 4)], dict(decimals=2), ref=_around_ref),
        Sample([_x(3, 4) * 100], dict(decimals=-1), ref=_around_ref),
        Sample([_rng.integers(-50, 50, (3, 4)).astype(np.int32)], dict(decimals=-1),
               ref=_around_ref),
        Sample([_x(2, 3, dtype=np.float32)], dict(decimals=1), ref=_around_ref, rtol=1e-6),
    ],
    "_npi_tril": [
        Sample([_x(3, 3)], ref=_tril_ref),
        Sample([_x(3, 4)], dict(k=1), ref=_tril_ref),
        Sample([_x(4, 3)], dict(k=-1), ref=_tril_ref),
        Sample([_x(2, 3, 3)], dict(k=0), ref=_tril_ref),
        Sample([_x(2, 2, 3, 4)], dict(k=-2), ref=_tril_ref),
        Sample([_x(4)], ref=_tril_ref),
    ],
    "_npi_pad": [
        Sample([_x(2, 3)], dict(pad_width=(1, 1, 1, 1)), ref=_pad_ref),
        Sample([_x(2, 3)], dict(pad_width=(0, 1, 2, 0), constant_value=3.0), ref=_pad_ref),
        Sample([_x(2, 3, 4)], dict(pad_width=(1, 0, 0, 2, 1, 1), mode="edge"), ref=_pad_ref),
        Sample([_x(3, 4)], dict(pad_width=(2, 1, 1, 2), mode="reflect"), ref=_pad_ref),
        Sample([_x(3, 4)], dict(pad_width=(2, 1, 1, 2), mode="symmetric"), ref=_pad_ref),
        Sample([_x(2, 3, 2, 2)], dict(pad_width=(0, 0, 1, 1, 1, 0, 0, 1), mode="wrap"),
               ref=_pad_ref),
        Sample([_x(3, 4)], dict(pad_width=(1, 1, 2, 2), mode="maximum"), ref=_pad_ref, **_NO_FD),
        Sample([_x(3, 4)], dict(pad_width=(1, 1, 2, 2), mode="minimum"), ref=_pad_ref, **_NO_FD),
        Sample([_rng.integers(0, 9, (2, 3)).astype(np.int32)], dict(pad_width=(1, 0, 0, 1)),
               ref=_pad_ref),
    ],
    "_npi_unique": [
        Sample([np.array([3.0, 1, 3, 2, 1])], ref=_unique_ref),
        Sample([np.array([[1, 2], [1, 2], [3, 4]], dtype=np.int32)],
               dict(return_index=True, return_inverse=True, return_counts=True), ref=_unique_ref),
        Sample([np.array([[1, 2], [1, 2], [3, 4]], dtype=np.float32)], dict(axis=0),
               ref=_unique_ref),
        Sample([np.array(5.0)], dict(return_index=True, return_inverse=True,
                                     return_counts=True, axis=-1), ref=_unique_ref),
    ],
    "_npx_nonzero": [
        Sample([np.array([[0.0, 1.5, 0], [2, 0, -1]])], ref=_nonzero_ref),
        Sample([np.array([True, False, True])], ref=_nonzero_ref),
        Sample([_rng.integers(0, 2, (2, 3, 2)).astype(np.int64)], ref=_nonzero_ref),
        Sample([np.array(5.0)], ref=_nonzero_ref),
        Sample([np.array(0, dtype=np.int32)], ref=_nonzero_ref),
    ],
    "_npi_bincount": [
        Sample([np.array([0, 1, 1, 3, 7], dtype=np.int64)], ref=_bincount_ref),
        Sample([np.array([2, 2, 0], dtype=np.int32)], dict(minlength=5), ref=_bincount_ref),
        Sample([np.array([0, 1, 1, 3], dtype=np.int64), np.array([0.5, 1.0, 2.0, -1.0])],
               dict(has_weights=True), ref=_bincount_ref),
    ],
}
