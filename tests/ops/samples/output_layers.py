"""Samples for the loss output layers (backward ignores the head gradient: ``grad_ref``)."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(16)


def _f32(v):
    return float(np.float32(v))


def _softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _view(x, multi_output, preserve_shape):
    if multi_output:
        return x.reshape(x.shape[0], x.shape[1], -1)
    if preserve_shape:
        return x.reshape(-1, x.shape[-1], 1)
    return x.reshape(x.shape[0], -1, 1)


def _so_ref(x, label, multi_output=False, preserve_shape=False, **_):
    return _softmax(_view(x, multi_output, preserve_shape), 1).reshape(x.shape)


def _so_grad_ref(x, label, grad_scale=1.0, ignore_label=-1.0, multi_output=False,
                 use_ignore=False, preserve_shape=False, normalization="null",
                 out_grad=False, smooth_alpha=0.0):
    v = _view(x, multi_output, preserve_shape)
    n, c, s = v.shape
    p = _softmax(v, 1)
    if multi_output or preserve_shape:
        lab = label.reshape(n, s)
    else:
        lab = label.reshape(-1)[:n].reshape(n, 1)
    onehot = (np.arange(c).reshape(1, c, 1) == lab[:, None, :]).astype(float)
    a = _f32(smooth_alpha)
    target = onehot if multi_output else onehot * (1 - a) + (1 - onehot) * a / (c - 1)
    grad = p - target
    valid = lab != ignore_label
    if use_ignore:
        grad = grad * valid[:, None, :]
    norm = {"null": s if multi_output else 1, "batch": n * s,
            "valid": max(int(valid.sum()), 1)}[normalization]
    grad = grad * _f32(np.float32(grad_scale) / np.float32(norm))
    if out_grad:
        grad = grad * p
    return [grad.reshape(x.shape), np.zeros_like(label)]


def _reg_grad(kind):
    def grad_ref(x, label, grad_scale=1.0):
        y = 1 / (1 + np.exp(-x)) if kind == "logistic" else x
        diff = y - label.reshape(x.shape)
        if kind == "mae":
            diff = np.sign(diff)
        scale = _f32(np.float32(grad_scale) / np.float32(x.size // x.shape[0]))
        return [diff * scale, np.zeros_like(label)]
    return grad_ref


def _makeloss_grad(x, grad_scale=1.0, valid_thresh=0.0, normalization="null"):
    norm = {"null": 1, "batch": x.size // x.shape[-1],
            "valid": max(int((x > _f32(valid_thresh)).sum()), 1)}[normalization]
    return [np.full(x.shape, _f32(np.float32(grad_scale) / np.float32(norm)))]


def _x(*shape):
    return _rng.standard_normal(shape)


def _labels(high, *shape):
    return _rng.integers(0, high, size=shape).astype(np.float64)


_lab5 = np.array([0, 3, 1, 1, 2], dtype=np.float64)
_so = [
    (dict(), _x(5, 4), _lab5),
    (dict(normalization="batch", grad_scale=2.0), _x(5, 4), _lab5),
    (dict(normalization="valid", use_ignore=True, ignore_label=1), _x(5, 4), _lab5),
    (dict(normalization="valid", ignore_label=3), _x(5, 4), _lab5),
    (dict(smooth_alpha=0.3, use_ignore=True, ignore_label=0), _x(5, 4), _lab5),
    (dict(out_grad=True, grad_scale=0.5), _x(5, 4), _lab5),
    (dict(multi_output=True), _x(2, 3, 2, 2), _labels(3, 2, 4)),
    (dict(multi_output=True, normalization="batch", smooth_alpha=0.2), _x(2, 3, 4),
     _labels(3, 2, 4)),
    (dict(multi_output=True, normalization="valid", use_ignore=True, ignore_label=2),
     _x(2, 3, 4), _labels(3, 2, 4)),
    (dict(preserve_shape=True, normalization="batch"), _x(2, 3, 4), _labels(4, 2, 3)),
    (dict(preserve_shape=True, normalization="valid", smooth_alpha=0.1), _x(2, 3, 4),
     _labels(4, 2, 3)),
    (dict(), _x(2, 3, 2), np.array([[1, 0, 4], [2, 0, 1.]])),
]

def _probs(*shape):
    p = np.abs(_rng.standard_normal(shape)) + 0.1
    return p / p.sum(-1, keepdims=True)


def _so_soft_grad_ref(x, label, grad_scale=1.0, preserve_shape=False, **_):
    """Probability labels (the data's shape): (softmax - label) * grad_scale, no
    normalization (MXNet 1.9.1, checked: normalization, ignore_label and smoothing
    change nothing)."""
    v = _view(x, False, preserve_shape)
    grad = (_softmax(v, 1) - label.reshape(v.shape)) * _f32(grad_scale)
    return [grad.reshape(x.shape), np.zeros_like(label)]


_so_soft = [
    (dict(normalization="batch", grad_scale=2.0, use_ignore=True, ignore_label=0),
     _x(3, 4), _probs(3, 4)),
    (dict(preserve_shape=True, smooth_alpha=0.2), _x(2, 3, 4), _probs(2, 3, 4)),
    (dict(), _x(2, 3, 4), _probs(2, 3, 4) / 3),   # the (N, 12) view: 12 probabilities
    (dict(), _x(3, 1), np.ones((3, 1))),          # one class: a zero gradient
]

SAMPLES = {
    "SoftmaxOutput": [Sample([x, lab], attrs, ref=_so_ref, grad_ref=_so_grad_ref,
                             infer_from=[0])
                      for attrs, x, lab in _so] +
                     [Sample([x, lab], attrs, ref=_so_ref, grad_ref=_so_soft_grad_ref,
                             name="soft_labels")
                      for attrs, x, lab in _so_soft],
    "LinearRegressionOutput": [
        Sample([_x(3, 4), _x(3, 4)], ref=lambda x, l, **_: x, grad_ref=_reg_grad("linear")),
        Sample([_x(4, 1), _x(4)], dict(grad_scale=3.0), ref=lambda x, l, **_: x,
               grad_ref=_reg_grad("linear")),
        Sample([_x(2, 3, 2), _x(2, 3, 2)], ref=lambda x, l, **_: x,
               grad_ref=_reg_grad("linear"), infer_from=[0]),
    ],
    "LogisticRegressionOutput": [
        Sample([_x(3, 4), _rng.uniform(0, 1, (3, 4))], dict(grad_scale=2.0),
               ref=lambda x, l, **_: 1 / (1 + np.exp(-x)), grad_ref=_reg_grad("logistic")),
    ],
    "MAERegressionOutput": [
        Sample([_x(3, 4), _x(3, 4)], dict(grad_scale=0.5), ref=lambda x, l, **_: x,
               grad_ref=_reg_grad("mae")),
    ],
    "MakeLoss": [
        Sample([_x(3, 4)], ref=lambda x, **_: x, grad_ref=_makeloss_grad),
        Sample([_x(2, 3, 4)], dict(normalization="batch", grad_scale=2.0),
               ref=lambda x, **_: x, grad_ref=_makeloss_grad),
        Sample([_x(3, 4)], dict(normalization="valid", valid_thresh=0.3),
               ref=lambda x, **_: x, grad_ref=_makeloss_grad),
    ],
    "make_loss": [
        Sample([_x(3, 4)], ref=lambda x: x, grad_ref=lambda x: [np.ones_like(x)]),
    ],
}
