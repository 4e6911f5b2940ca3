"""Samples for ``numpy_norm.py``: ``_npi_norm`` vector orders (2, 1, inf, -inf, 0, 3,
-3.2) over one axis, matrix orders ('fro', 'nuc', 1, -1, 2, -2, inf, -inf) over two,
the flattened 2-norm, ``keepdims``; float16 reduces in float32."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(31)


def _x(*shape):
    return _rng.uniform(-2, 2, shape)


def _ref(x, ord=2.0, axis=None, keepdims=False, flag=-1):
    o = {-2: None, 1: "fro", 2: "nuc"}.get(flag, ord)
    if axis is not None:
        axis = axis[0] if len(axis) == 1 else tuple(axis)
    res = np.linalg.norm(x.astype(np.float64), ord=o, axis=axis, keepdims=keepdims)
    return np.asarray(res).astype(x.dtype)


def _s(x, **attrs):
    return Sample([x], dict(attrs), ref=_ref)


SAMPLES = {
    "_npi_norm": [
        _s(_x(2, 3, 4), flag=-2),
        _s(_x(2, 3, 4), flag=-2, axis=(1,), keepdims=True),
        _s(_x(2, 3, 4), ord=1.0, axis=(2,)),
        _s(_x(2, 3, 4), ord=np.inf, axis=(0,)),
        _s(_x(2, 3, 4), ord=-np.inf, axis=(-1,)),
        _s(_x(2, 3, 4), ord=3.0, axis=(1,)),
        _s(_x(2, 3, 4), ord=-3.2, axis=(1,)),
        Sample([_x(2, 3)], dict(ord=0.0, axis=(1,)), ref=_ref, grad=False),
        _s(_x(2, 3, 4), flag=1, axis=(0, 2)),
        _s(_x(2, 3, 4), flag=2, axis=(2, 0), keepdims=True),
        _s(_x(2, 3, 4), ord=1.0, axis=(1, 2)),
        _s(_x(2, 3, 4), ord=-1.0, axis=(0, 1)),
        _s(_x(2, 3, 4), ord=np.inf, axis=(2, 1)),
        _s(_x(2, 3, 4), ord=-np.inf, axis=(0, 2), keepdims=True),
        _s(_x(2, 3, 4), ord=2.0, axis=(1, 2)),
        _s(_x(3, 3, 2), ord=-2.0, axis=(0, 1)),
        _s(_x(2, 3), ord=-1.0),
        Sample([_x(4, 5).astype(np.float16)], dict(flag=-2), ref=_ref, rtol=2e-3,
               atol=1e-3, grad=False),
    ],
}
