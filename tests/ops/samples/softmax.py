"""Samples for ``softmax``, ``log_softmax``, ``softmin`` and ``SoftmaxActivation``."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(15)


def _x(*shape):
    return _rng.standard_normal(shape)


def _softmax(x, axis=-1, temperature=None, **_):
    z = x / (temperature or 1.0)
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _softmax_ref(x, length=None, axis=-1, temperature=None, dtype=None, use_length=False):
    if not use_length:
        y = _softmax(x, axis, temperature)
    else:
        a = axis % x.ndim
        pos = np.arange(x.shape[a]).reshape([-1 if i == a else 1 for i in range(x.ndim)])
        mask = pos < np.expand_dims(length, a)
        e = np.where(mask, np.exp(x / (temperature or 1.0)), 0)
        s = e.sum(axis=a, keepdims=True)
        y = e / np.where(s == 0, 1, s)
    return y.astype(dtype or x.dtype)


def _log_softmax_ref(x, axis=-1, temperature=None, dtype=None, **_):
    return np.log(_softmax(x, axis, temperature)).astype(dtype or x.dtype)


def _softmin_ref(x, axis=-1, temperature=None, dtype=None, **_):
    return _softmax(-x, axis, temperature).astype(dtype or x.dtype)


def _sa_ref(x, mode="instance"):
    return _softmax(x, 1 if mode == "channel" else -1)


def _sa_instance_grad_ref(x, mode="instance"):
    """MXNet 1.9 reduces over axis 1 in SoftmaxActivation's backward (head = ones)."""
    y = _sa_ref(x, mode)
    return [y * (1 - y.sum(axis=1, keepdims=True))]


SAMPLES = {
    "softmax": [
        Sample([_x(3, 4)], ref=_softmax_ref),
        Sample([_x(2, 3, 4)], dict(axis=1, temperature=2.0), ref=_softmax_ref),
        Sample([_x(3, 5), np.array([2, 5, 0], dtype=np.int32)], dict(use_length=True),
               ref=_softmax_ref, name="length"),
        Sample([_x(4, 2, 3), np.array([[1, 4, 2], [3, 0, 4]], dtype=np.int64)],
               dict(use_length=True, axis=0, temperature=0.5), ref=_softmax_ref,
               infer_from=[0], name="length_axis0"),
        Sample([_x(2, 4).astype(np.float32)], dict(dtype="float64"), ref=_softmax_ref,
               rtol=1e-5, atol=1e-7, grad=False, name="dtype"),
    ],
    "log_softmax": [
        Sample([_x(3, 4)], ref=_log_softmax_ref),
        Sample([_x(2, 3, 4)], dict(axis=0, temperature=0.7), ref=_log_softmax_ref),
    ],
    "softmin": [
        Sample([_x(3, 4)], ref=_softmin_ref),
        Sample([_x(2, 3, 4)], dict(axis=1, temperature=3.0), ref=_softmin_ref),
    ],
    "SoftmaxActivation": [
        Sample([_x(3, 4)], ref=_sa_ref),
        Sample([_x(2, 3, 4)], dict(mode="channel"), ref=_sa_ref),
        Sample([_x(2, 3, 4)], ref=_sa_ref, grad_ref=_sa_instance_grad_ref,
               name="instance_3d"),
    ],
}
