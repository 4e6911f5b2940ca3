"""Samples for ``Reshape``, ``Flatten``, ``transpose``, ``SwapAxis`` and the other
pure shape operators of ``gluonlite/ops/shape_ops.py``."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(41)


def _x(*shape):
    return _rng.standard_normal(shape)


def _to(shape):
    return lambda x, **_: x.reshape(shape)


def _d2s(x, block_size):
    n, c, h, w = x.shape
    b = block_size
    return x.reshape(n, b, b, c // b // b, h, w).transpose(0, 3, 4, 1, 5, 2).reshape(
        n, c // b // b, h * b, w * b)


def _s2d(x, block_size):
    n, c, h, w = x.shape
    b = block_size
    return x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4).reshape(
        n, c * b * b, h // b, w // b)


SAMPLES = {
    "Reshape": [
        Sample([_x(2, 3, 4)], dict(shape=(6, -1)), ref=_to((6, 4))),
        Sample([_x(2, 3, 4)], dict(shape=(0, -3)), ref=_to((2, 12))),
        Sample([_x(2, 3, 4)], dict(shape=(-4, 1, 2, -2)), ref=_to((1, 2, 3, 4))),
        Sample([_x(2, 3, 4)], dict(shape=(-1, 0), reverse=True), ref=_to((6, 4))),
        Sample([_x(2, 3, 4)], dict(target_shape=(0, 4)), ref=_to((6, 4)), name="legacy"),
    ],
    "Flatten": [Sample([_x(2, 3, 4)], ref=_to((2, 12))), Sample([_x(3)], ref=_to((3, 1)))],
    "expand_dims": [Sample([_x(2, 3)], dict(axis=1), ref=_to((2, 1, 3))),
                    Sample([_x(2, 3)], dict(axis=-1), ref=_to((2, 3, 1)))],
    "squeeze": [Sample([_x(1, 3, 1)], ref=_to((3,))),
                Sample([_x(1, 3, 1)], dict(axis=(2,)), ref=_to((1, 3))),
                Sample([_x(1, 1)], ref=_to((1,)))],
    "reshape_like": [
        Sample([_x(2, 3, 4), _x(6, 4)], ref=lambda a, b: a.reshape(6, 4), grad=[0]),
        Sample([_x(6, 4), _x(5, 2, 3)], dict(lhs_begin=0, lhs_end=1, rhs_begin=1),
               ref=lambda a, b, **_: a.reshape(2, 3, 4), grad=[0]),
    ],
    "transpose": [Sample([_x(2, 3, 4)], ref=lambda x: x.transpose()),
                  Sample([_x(2, 3, 4)], dict(axes=(1, 0, 2)),
                         ref=lambda x, axes: x.transpose(axes))],
    "SwapAxis": [Sample([_x(2, 3, 4)], dict(dim1=0, dim2=2), ref=lambda x, **_: x.swapaxes(0, 2)),
                 Sample([_x(2, 3)], ref=lambda x: x.copy())],
    "depth_to_space": [Sample([_x(1, 8, 2, 3)], dict(block_size=2), ref=_d2s)],
    "space_to_depth": [Sample([_x(2, 1, 4, 6)], dict(block_size=2), ref=_s2d)],
    "shape_array": [Sample([_x(2, 3, 4)], ref=lambda x: np.array(x.shape, np.int64))],
    "size_array": [Sample([_x(2, 3, 4)], ref=lambda x: np.array([x.size], np.int64))],
}
