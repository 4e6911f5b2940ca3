"""Samples for ``BatchNorm``."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(11)
_EPS = float(np.float32(1e-3))


def _inputs(shape, axis):
    c = shape[axis]
    return [_rng.standard_normal(shape) * 2 + 0.5, _rng.uniform(0.5, 1.5, c),
            _rng.standard_normal(c), _rng.standard_normal(c) * 0.1, _rng.uniform(0.5, 2, c)]


def _ref(train):
    def ref(x, gamma, beta, mm, mv, eps=_EPS, fix_gamma=True, use_global_stats=False,
            output_mean_var=False, axis=1, **_):
        c = axis % x.ndim
        red = tuple(i for i in range(x.ndim) if i != c)
        shape = [1] * x.ndim
        shape[c] = -1
        if train and not use_global_stats:
            mean, var = x.mean(axis=red), x.var(axis=red)
        else:
            mean, var = mm, mv
        inv = 1 / np.sqrt(var + eps)
        g = np.ones_like(gamma) if fix_gamma else gamma
        y = (x - mean.reshape(shape)) * (g * inv).reshape(shape) + beta.reshape(shape)
        return [y, mean, inv] if output_mean_var else y
    return ref


def _predict_grad_ref(x, gamma, beta, mm, mv, eps=_EPS, fix_gamma=True, axis=1, **_):
    """MXNet's CPU backward in predict mode: the batch formula with the moving stats."""
    c = axis % x.ndim
    red = tuple(i for i in range(x.ndim) if i != c)
    shape = [1] * x.ndim
    shape[c] = -1
    inv = (1 / np.sqrt(mv + eps)).reshape(shape)
    xhat = (x - mm.reshape(shape)) * inv
    dy = np.ones_like(x)
    g = 1.0 if fix_gamma else gamma.reshape(shape)
    dx = g * inv * (dy - dy.mean(axis=red, keepdims=True)
                    - xhat * (dy * xhat).mean(axis=red, keepdims=True))
    dgamma = np.zeros_like(gamma) if fix_gamma else (dy * xhat).sum(axis=red)
    return [dx, dgamma, dy.sum(axis=red)]


SAMPLES = {
    "BatchNorm": [
        Sample(_inputs((4, 3, 2), 1), dict(fix_gamma=False), ref=_ref(True), train=True,
               name="train"),
        Sample(_inputs((4, 3, 2), 1), dict(fix_gamma=True), ref=_ref(True), train=True,
               name="train_fix_gamma"),
        Sample(_inputs((3, 2, 4), -1), dict(fix_gamma=False, axis=-1, eps=1e-2, momentum=0.7),
               ref=_ref(True), train=True, name="train_axis_last"),
        Sample(_inputs((4, 3, 2), 1), dict(fix_gamma=False, use_global_stats=True),
               ref=_ref(True), train=True, name="train_global_stats"),
        Sample(_inputs((4, 3, 2), 1), dict(fix_gamma=False, output_mean_var=True),
               ref=_ref(True), train=True, grad=False, name="train_mean_var"),
        Sample(_inputs((4, 3, 2), 1), dict(fix_gamma=False), ref=_ref(False),
               grad_ref=_predict_grad_ref, name="predict"),
        Sample(_inputs((4, 3, 2), 1), dict(output_mean_var=True, cudnn_off=True),
               ref=_ref(False), grad=False, name="predict_mean_var"),
        Sample(_inputs((5, 3), 1), dict(fix_gamma=False), ref=_ref(True), train=True,
               infer_from=[0], name="2d_infer_params"),
        # inference fast path (x * scale + shift): 4-D, channel axis last, float32
        Sample(_inputs((5, 3, 4, 2), 1), dict(fix_gamma=False), ref=_ref(False),
               grad_ref=_predict_grad_ref, name="predict_4d"),
        Sample(_inputs((4, 2, 3), -1), dict(fix_gamma=False, axis=-1), ref=_ref(False),
               grad_ref=_predict_grad_ref, name="predict_axis_last"),
        Sample([a.astype(np.float32) for a in _inputs((4, 3, 5, 5), 1)],
               dict(fix_gamma=False, use_global_stats=True), ref=_ref(False), rtol=1e-5,
               atol=1e-6, grad=False, name="predict_f32_global_stats"),
    ],
}
