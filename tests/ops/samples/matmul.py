"""Samples for ``dot``, ``batch_dot`` and ``FullyConnected``."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(43)


def _x(*shape):
    return _rng.standard_normal(shape)


def dot_ref(a, b, transpose_a=False, transpose_b=False, **_):
    ax = 0 if transpose_a else a.ndim - 1
    bx = b.ndim - 1 if transpose_b else 0
    y = np.tensordot(a, b, axes=([ax], [bx]))
    return y.reshape(1) if y.ndim == 0 else y


def batch_dot_ref(a, b, transpose_a=False, transpose_b=False, **_):
    if transpose_a:
        a = np.swapaxes(a, -1, -2)
    if transpose_b:
        b = np.swapaxes(b, -1, -2)
    return a @ b


def fc_ref(x, w, b=None, num_hidden=0, no_bias=False, flatten=True):
    x2 = x.reshape(x.shape[0], -1) if flatten else x
    y = x2 @ w.T
    return y if no_bias else y + b.reshape(-1)


SAMPLES = {
    "dot": [
        Sample([_x(3, 4), _x(4, 2)], ref=dot_ref),
        Sample([_x(4, 3), _x(4, 2)], dict(transpose_a=True), ref=dot_ref, name="ta"),
        Sample([_x(3, 4), _x(2, 4)], dict(transpose_b=True), ref=dot_ref, name="tb"),
        Sample([_x(4, 3), _x(2, 4)], dict(transpose_a=True, transpose_b=True), ref=dot_ref,
               name="tab"),
        Sample([_x(2, 3, 4), _x(4, 2, 2)], ref=dot_ref, name="nd"),
        Sample([_x(3, 2, 2), _x(3, 5)], dict(transpose_a=True), ref=dot_ref, name="nd_ta"),
        Sample([_x(2, 3), _x(2, 2, 3)], dict(transpose_b=True), ref=dot_ref, name="nd_tb"),
        Sample([_x(4), _x(4)], ref=dot_ref, name="vec"),
        Sample([_x(4), _x(4, 3)], ref=dot_ref, name="vec_mat"),
    ],
    "batch_dot": [
        Sample([_x(2, 3, 4), _x(2, 4, 2)], ref=batch_dot_ref),
        Sample([_x(2, 4, 3), _x(2, 2, 4)], dict(transpose_a=True, transpose_b=True),
               ref=batch_dot_ref, name="tt"),
        Sample([_x(2, 2, 3, 4), _x(2, 2, 2, 4)], dict(transpose_b=True), ref=batch_dot_ref,
               name="4d"),
    ],
    "FullyConnected": [
        Sample([_x(3, 4), _x(5, 4), _x(5)], dict(num_hidden=5), ref=fc_ref),
        Sample([_x(2, 3, 2), _x(4, 6), _x(4)], dict(num_hidden=4), ref=fc_ref,
               infer_from=[0], name="flatten_infer"),
        Sample([_x(2, 3, 2), _x(4, 2)], dict(num_hidden=4, flatten=False, no_bias=True),
               ref=fc_ref, infer_from=[0], name="no_flatten"),
        # MXNet's shape rule also takes a (num_hidden, 1) bias
        Sample([_x(3, 4), _x(5, 4), _x(5, 1)], dict(num_hidden=5), ref=fc_ref,
               name="column_bias"),
    ],
}
