"""Samples for ``numpy_shape_free.py``: ``_npi_where`` (condition, x and y broadcast each
way; mixed dtypes meet as in ``mx.np``), ``_np_reshape`` (``-1`` in each position) and
``_np_dot`` (every rank pairing NumPy's ``dot`` defines, scalars included)."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(17)


def _x(*shape, dtype=np.float64):
    return _rng.uniform(-1, 1, shape).astype(dtype)


def _mask(*shape):
    return (_rng.uniform(0, 1, shape) > 0.5).astype(np.float64)


def _where_ref(c, x, y):
    dt = x.dtype if x.dtype == y.dtype else (
        x.dtype if x.dtype.kind == "f" and y.dtype.kind != "f" else
        y.dtype if y.dtype.kind == "f" and x.dtype.kind != "f" else np.promote_types(x.dtype, y.dtype))
    return np.where(c != 0, x.astype(dt), y.astype(dt))


def _reshape_ref(x, newshape, order="C"):
    return x.reshape(newshape, order="F" if order == "F" else "C")


def _npx_reshape_ref(expected_shape):
    def ref(x, newshape, reverse=False, order="C"):
        return x.reshape(expected_shape)
    return ref


SAMPLES = {
    "_npi_where": [
        Sample([_mask(2, 3), _x(2, 3), _x(2, 3)], ref=_where_ref, grad=[1, 2]),
        Sample([_mask(2, 1), _x(1, 3), _x(2, 3)], ref=_where_ref, grad=[1, 2]),
        Sample([_mask(3), _x(2, 3), _x(1)], ref=_where_ref, grad=[1, 2]),
        Sample([_mask(2, 3, 4) > 0, _x(3, 4), _x(2, 1, 1)], ref=_where_ref, grad=[1, 2]),
        Sample([_mask(2, 2), _rng.integers(0, 5, (2, 2)).astype(np.int32),
                _x(2, 2, dtype=np.float32)], ref=_where_ref, grad=False),
    ],
    "_np_reshape": [
        Sample([_x(2, 3, 4)], dict(newshape=(6, 4)), ref=_reshape_ref),
        Sample([_x(2, 3, 4)], dict(newshape=(-1,)), ref=_reshape_ref),
        Sample([_x(2, 3, 4)], dict(newshape=(4, -1, 2)), ref=_reshape_ref),
        Sample([_x(2, 3, 2, 2)], dict(newshape=(2, 3, -1)), ref=_reshape_ref),
        Sample([_x(2, 3, 4)], dict(newshape=(4, -1), order="F"), ref=_reshape_ref),
        Sample([_x(2, 3, 2, 2)], dict(newshape=(3, 8), order="F"), ref=_reshape_ref),
        Sample([_x(2, 3, 4)], dict(newshape=(6, 4), order="A"), ref=_reshape_ref),
    ],
    "_npx_reshape": [  # MXNet 1.9.1's npx.reshape gives these shapes
        Sample([_x(2, 3, 4)], dict(newshape=(-2, -1)), ref=_npx_reshape_ref((2, 12))),
        Sample([_x(2, 3, 4)], dict(newshape=(-5, -2)), ref=_npx_reshape_ref((6, 4))),
        Sample([_x(2, 1, 4)], dict(newshape=(-2, -3, -2)), ref=_npx_reshape_ref((2, 4))),
        Sample([_x(2, 6, 4)], dict(newshape=(-2, -6, 2, -1, -4)),
               ref=_npx_reshape_ref((2, 2, 3, 4))),
        Sample([_x(2, 3, 4)], dict(newshape=(-4,)), ref=_npx_reshape_ref((2, 3, 4))),
        Sample([_x(2, 3, 4)], dict(newshape=(-1, -2), reverse=True), ref=_npx_reshape_ref((6, 4))),
        Sample([_x(2, 5, 6)], dict(newshape=(-4, -1, 3, -6), reverse=True),
               ref=_npx_reshape_ref((2, 5, 2, 3))),  # -6 takes the sizes before it
        Sample([_x(2, 3, 4)], dict(newshape=(-2, -5), reverse=True),
               ref=_npx_reshape_ref((2, 12))),
    ],
    "_np_dot": [
        Sample([_x(2, 3), _x(3, 4)], ref=np.dot),
        Sample([_x(3), _x(3)], ref=np.dot),
        Sample([_x(2, 3), _x(3)], ref=np.dot),
        Sample([_x(3), _x(3, 4)], ref=np.dot),
        Sample([_x(2, 3, 4), _x(4, 5)], ref=np.dot),
        Sample([_x(2, 3), _x(4, 3, 5)], ref=np.dot),
        Sample([_x(2, 2, 3), _x(2, 3, 2)], ref=np.dot),
        Sample([_x(2, 3, dtype=np.float32), _x(3, 4, dtype=np.float32)], ref=np.dot,
               rtol=1e-5, atol=1e-6, grad=False),
    ],
}
