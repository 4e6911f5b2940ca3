"""Samples for the internal ``_index`` operator (recorded ``NDArray.__getitem__``)."""
import numpy as np

from gluonlite.ndarray.indexing import _Key

from ..harness import Sample

_rng = np.random.default_rng(59)


def _x(*shape):
    return _rng.standard_normal(shape)


def _ref(x, key):
    y = x[key.key]
    return y.reshape(1) if np.ndim(y) == 0 else y


SAMPLES = {
    "_index": [
        Sample([_x(4, 5)], dict(key=_Key((slice(1, 3), slice(None, None, -2)))), ref=_ref),
        Sample([_x(4, 5)], dict(key=_Key((1, 2))), ref=_ref, name="scalar"),
        Sample([_x(4, 5)], dict(key=_Key(np.array([0, 2, 2, 3]))), ref=_ref, name="repeat"),
        Sample([_x(3, 4, 2)], dict(key=_Key((Ellipsis, np.array([1, 0]), None))), ref=_ref),
        Sample([_x(3, 4)], dict(key=_Key((np.array([[0, 1], [2, 2]]), np.array([3, 3])))),
               ref=_ref),
    ],
}
