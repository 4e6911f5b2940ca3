"""Samples for the optimizer update operators: NumPy references written from MXNet's
documented update formulas (the states are checked against MXNet itself in
``tests/training/test_optimizer_ops.py``)."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(11)


def _x(*shape, positive=False, dtype=np.float64):
    a = _rng.standard_normal(shape)
    return (np.abs(a) + 0.5 if positive else a).astype(dtype)


def _g(grad, rescale_grad=1.0, clip_gradient=-1.0, **_):
    g = grad * rescale_grad
    return np.clip(g, -clip_gradient, clip_gradient) if clip_gradient >= 0 else g


def _sgd(w, grad, lr, wd=0.0, **kw):
    return w - lr * (_g(grad, **kw) + wd * w)


def _sgd_mom(w, grad, mom, lr, momentum=0.0, wd=0.0, **kw):
    return w + momentum * mom - lr * (_g(grad, **kw) + wd * w)


def _nag(w, grad, mom, lr, momentum=0.0, wd=0.0, **kw):
    step = lr * (_g(grad, **kw) + wd * w)
    m = momentum * mom
    return w - m + (momentum + 1) * (m - step)  # the returned weight uses the old one


def _mp(rule):
    def ref(w, grad, *rest, **kw):
        return rule(rest[-1], grad, *rest[:-1], **kw).astype(w.dtype)
    return ref


def _adam(w, grad, mean, var, lr, beta1=0.9, beta2=0.999, epsilon=1e-8, wd=0.0,
          rescale_grad=1.0, clip_gradient=-1.0):
    g = _g(grad * rescale_grad + wd * w, 1.0, clip_gradient)
    m = beta1 * mean + (1 - beta1) * g
    v = beta2 * var + (1 - beta2) * g * g
    return w - lr * m / (np.sqrt(v) + epsilon)


def _rmsprop(w, grad, n, lr, gamma1=0.95, epsilon=1e-8, wd=0.0, rescale_grad=1.0,
             clip_gradient=-1.0, clip_weights=-1.0):
    g = _g(grad * rescale_grad + wd * w, 1.0, clip_gradient)
    n = gamma1 * n + (1 - gamma1) * g * g
    new = w - lr * g / np.sqrt(n + epsilon)
    return np.clip(new, -clip_weights, clip_weights) if clip_weights >= 0 else new


def _rmspropalex(w, grad, n, g_avg, delta, lr, gamma1=0.95, gamma2=0.9, epsilon=1e-8,
                 wd=0.0, rescale_grad=1.0, clip_gradient=-1.0, clip_weights=-1.0):
    g = _g(grad * rescale_grad + wd * w, 1.0, clip_gradient)
    n = gamma1 * n + (1 - gamma1) * g * g
    g_avg = gamma1 * g_avg + (1 - gamma1) * g
    delta = gamma2 * delta - lr * g / np.sqrt(n - g_avg ** 2 + epsilon)
    return w + delta


def _ftrl(w, grad, z, n, lr, lamda1=0.01, beta=1.0, wd=0.0, **kw):
    g = _g(grad, **kw)
    z = z + g - (np.sqrt(n + g * g) - np.sqrt(n)) * w / lr
    n = n + g * g
    return np.where(np.abs(z) > lamda1,
                    (np.sign(z) * lamda1 - z) / ((beta + np.sqrt(n)) / lr + wd), 0.0)


def _ftml(w, grad, d, v, z, lr, t, beta1=0.6, beta2=0.999, epsilon=1e-8, wd=0.0,
          rescale_grad=1.0, clip_grad=-1.0):
    g = _g(grad * rescale_grad + wd * w, 1.0, clip_grad)
    v = beta2 * v + (1 - beta2) * g * g
    d_t = (1 - beta1 ** t) / lr * (np.sqrt(v / (1 - beta2 ** t)) + epsilon)
    z = beta1 * z + (1 - beta1) * g - (d_t - beta1 * d) * w
    return -z / d_t


def _adagrad(w, grad, history, lr, epsilon=1e-7, **kw):
    g = _g(grad, **kw)
    return w - lr * g / np.sqrt(history + g * g + epsilon)


def _group_adagrad(w, grad, history, lr, epsilon=1e-5, **kw):
    g = _g(grad, **kw)
    h = history + np.mean(g * g, axis=1, keepdims=True)
    return w - lr * g / np.sqrt(h + epsilon)


def _signsgd(w, grad, lr, wd=0.0, **_):
    return (1 - lr * wd) * w - lr * np.sign(grad)


def _signum(w, grad, mom, lr, momentum=0.0, wd=0.0, wd_lh=0.0, **kw):
    m = momentum * mom - (1 - momentum) * (wd * w + _g(grad, **kw))
    return (1 - lr * wd_lh) * w + lr * np.sign(m)


def _multi(rule, per_weight):
    def ref(*inputs, lrs, wds, num_weights, **kw):
        outs = []
        for i in range(num_weights):
            group = inputs[i * per_weight:(i + 1) * per_weight]
            outs.append(rule(*group, lr=lrs[i], wd=wds[i], **kw))
        return outs
    return ref


def _preloaded(rule, per_weight):
    def ref(*inputs, num_weights, **kw):
        lrs, wds = inputs[-2], inputs[-1]
        return _multi(rule, per_weight)(*inputs[:-2], lrs=lrs, wds=wds,
                                        num_weights=num_weights, **kw)
    return ref


def _sum_sq(*arrays, num_arrays):
    return np.array([np.sum(np.square(a, dtype=np.float64)) for a in arrays], np.float32)


def _lars(lrs, w_sq, g_sq, wds, eta, eps, rescale_grad=1.0):
    wn, gn = np.sqrt(w_sq), np.sqrt(g_sq) * rescale_grad
    return np.where((wn > 0) & (gn > 0), lrs * eta * wn / (gn + wds * wn + eps), lrs)


def _lamb1(w, grad, mean, var, t, wd, beta1=0.9, beta2=0.999, epsilon=1e-6,
           bias_correction=True, **kw):
    g = _g(grad, **kw)
    m = beta1 * mean + (1 - beta1) * g
    v = beta2 * var + (1 - beta2) * g * g
    if bias_correction:
        m, v = m / (1 - beta1 ** t), v / (1 - beta2 ** t)
    return m / (np.sqrt(v) + epsilon) + wd * w


def _lamb2(w, g, r1, r2, lr, lower_bound=-1.0, upper_bound=-1.0):
    r = r1[0]
    if lower_bound >= 0:
        r = max(r, lower_bound)
    if upper_bound >= 0:
        r = min(r, upper_bound)
    ratio = 1.0 if r == 0 or r2[0] == 0 else r / r2[0]
    return w - lr * ratio * g


def _adamw(w, grad, mean, var, scale, lr, eta, beta1=0.9, beta2=0.999, epsilon=1e-8,
           wd=0.0, clip_gradient=-1.0):
    g = _g(grad * scale[0], 1.0, clip_gradient)
    m = beta1 * mean + (1 - beta1) * g
    v = beta2 * var + (1 - beta2) * g * g
    return w - eta * (lr * m / (np.sqrt(v) + epsilon) + wd * w)


def _mp_adamw(w, grad, mean, var, w32, scale, **kw):
    return _adamw(w32, grad.astype(np.float32), mean, var, scale, **kw).astype(w.dtype)


def _multi_adamw(rule, per_weight):
    """Reference of ``_multi_(mp_)adamw_update``: groups of ``per_weight`` inputs, then
    one rescale_grad array; per-weight lrs, wds and etas."""
    def ref(*inputs, lrs, wds, etas, num_weights, **kw):
        scale = inputs[-1]
        return [rule(*inputs[i * per_weight:(i + 1) * per_weight], scale, lr=lrs[i],
                     wd=wds[i], eta=etas[i], **kw) for i in range(num_weights)]
    return ref


def _half(*shape):
    return _x(*shape).astype(np.float16)


def _f32(*shape, positive=False):
    return _x(*shape, positive=positive).astype(np.float32)


_CLIP = dict(rescale_grad=0.5, clip_gradient=0.3)
SAMPLES = {
    "sgd_update": [
        Sample([_x(3, 4), _x(3, 4)], dict(lr=0.1, wd=0.01), ref=_sgd, name="2d"),
        Sample([_x(2, 3, 4), _x(2, 3, 4)], dict(lr=0.1, **_CLIP), ref=_sgd, name="3d_clip"),
    ],
    "sgd_mom_update": [
        Sample([_x(3, 4), _x(3, 4), _x(3, 4)], dict(lr=0.1, momentum=0.9, wd=0.01),
               ref=_sgd_mom, name="2d"),
        Sample([_x(2, 2, 3, 2), _x(2, 2, 3, 2), _x(2, 2, 3, 2)],
               dict(lr=0.05, momentum=0.5, **_CLIP), ref=_sgd_mom, name="4d_clip"),
    ],
    "nag_mom_update": [
        Sample([_x(3, 4), _x(3, 4), _x(3, 4)], dict(lr=0.1, momentum=0.9, wd=0.01),
               ref=_nag, name="2d"),
        Sample([_x(2, 3, 4), _x(2, 3, 4), _x(2, 3, 4)], dict(lr=0.1, momentum=0.5, **_CLIP),
               ref=_nag, name="3d_clip"),
    ],
    "mp_sgd_update": [
        Sample([_half(3, 4), _half(3, 4), _f32(3, 4)], dict(lr=0.1, wd=0.01),
               ref=_mp(_sgd), rtol=1e-3, atol=1e-3, name="float16"),
    ],
    "mp_sgd_mom_update": [
        Sample([_half(3, 4), _half(3, 4), _f32(3, 4), _f32(3, 4)],
               dict(lr=0.1, momentum=0.9, **_CLIP), ref=_mp(_sgd_mom), rtol=1e-3, atol=1e-3,
               name="float16"),
    ],
    "mp_nag_mom_update": [
        Sample([_half(3, 4), _half(3, 4), _f32(3, 4), _f32(3, 4)],
               dict(lr=0.1, momentum=0.9, wd=0.01), ref=_mp(_nag), rtol=1e-3, atol=1e-3,
               name="float16"),
    ],
    "adam_update": [
        Sample([_x(3, 4), _x(3, 4), _x(3, 4), _x(3, 4, positive=True)],
               dict(lr=0.01, beta1=0.8, wd=0.01), ref=_adam, name="2d"),
        Sample([_x(2, 3, 2), _x(2, 3, 2), _x(2, 3, 2), _x(2, 3, 2, positive=True)],
               dict(lr=0.01, epsilon=1e-4, **_CLIP), ref=_adam, name="3d_clip"),
    ],
    "rmsprop_update": [
        Sample([_x(3, 4), _x(3, 4), _x(3, 4, positive=True)], dict(lr=0.01, gamma1=0.9),
               ref=_rmsprop, name="2d"),
        Sample([_x(2, 3, 4), _x(2, 3, 4), _x(2, 3, 4, positive=True)],
               dict(lr=0.5, clip_weights=0.4, wd=0.1, **_CLIP), ref=_rmsprop,
               name="3d_clip_weights"),
    ],
    "rmspropalex_update": [
        Sample([_x(3, 4), _x(3, 4), _x(3, 4, positive=True) + 4, _x(3, 4), _x(3, 4)],
               dict(lr=0.01, gamma1=0.9, gamma2=0.8, wd=0.01), ref=_rmspropalex, name="2d"),
    ],
    "ftrl_update": [
        Sample([_x(3, 4), _x(3, 4), _x(3, 4), _x(3, 4, positive=True)],
               dict(lr=0.1, lamda1=0.05, wd=0.01), ref=_ftrl, name="2d"),
        Sample([_x(2, 3, 2), _x(2, 3, 2), _x(2, 3, 2), _x(2, 3, 2, positive=True)],
               dict(lr=0.1, lamda1=0.5, beta=2.0, **_CLIP), ref=_ftrl, name="3d_clip"),
    ],
    "_sparse_adagrad_update": [
        Sample([_x(3, 4), _x(3, 4), _x(3, 4, positive=True)], dict(lr=0.1, **_CLIP),
               ref=_adagrad, name="2d_clip"),
    ],
    "_contrib_group_adagrad_update": [
        Sample([_x(3, 4), _x(3, 4), _x(3, 1, positive=True)], dict(lr=0.1, epsilon=1e-3),
               ref=_group_adagrad, name="2d"),
    ],
    "ftml_update": [
        Sample([_x(3, 4), _x(3, 4), _x(3, 4, positive=True), _x(3, 4, positive=True),
                _x(3, 4)], dict(lr=0.1, t=3, wd=0.01, clip_grad=1.0), ref=_ftml, name="2d"),
    ],
    "signsgd_update": [
        Sample([_x(3, 4), _x(3, 4)], dict(lr=0.1, wd=0.01), ref=_signsgd, name="2d"),
    ],
    "signum_update": [
        Sample([_x(3, 4), _x(3, 4), _x(3, 4)], dict(lr=0.1, momentum=0.9, wd=0.01, wd_lh=0.1),
               ref=_signum, name="2d"),
    ],
    "multi_sgd_update": [
        Sample([_x(3, 4), _x(3, 4), _x(5), _x(5)],
               dict(lrs=(0.1, 0.2), wds=(0.01, 0.0), num_weights=2, **_CLIP),
               ref=_multi(_sgd, 2), name="two"),
    ],
    "multi_sgd_mom_update": [
        Sample([_x(3, 4), _x(3, 4), _x(3, 4), _x(5), _x(5), _x(5)],
               dict(lrs=(0.1, 0.2), wds=(0.01, 0.0), momentum=0.9, num_weights=2),
               ref=_multi(_sgd_mom, 3), name="two"),
    ],
    "multi_mp_sgd_update": [
        Sample([_half(3, 4), _half(3, 4), _f32(3, 4), _half(5), _half(5), _f32(5)],
               dict(lrs=(0.1, 0.2), wds=(0.01, 0.0), num_weights=2),
               ref=_multi(_mp(_sgd), 3), rtol=1e-3, atol=1e-3, name="two"),
    ],
    "multi_mp_sgd_mom_update": [
        Sample([_half(3, 4), _half(3, 4), _f32(3, 4), _f32(3, 4),
                _half(5), _half(5), _f32(5), _f32(5)],
               dict(lrs=(0.1, 0.2), wds=(0.01, 0.0), momentum=0.9, num_weights=2),
               ref=_multi(_mp(_sgd_mom), 4), rtol=1e-3, atol=1e-3, name="two"),
    ],
    "preloaded_multi_sgd_update": [
        Sample([_x(3, 4), _x(3, 4), _x(5), _x(5), np.array([0.1, 0.2]), np.array([0.01, 0.0])],
               dict(num_weights=2, **_CLIP), ref=_preloaded(_sgd, 2), name="two"),
    ],
    "preloaded_multi_sgd_mom_update": [
        Sample([_x(3, 4), _x(3, 4), _x(3, 4), _x(5), _x(5), _x(5), np.array([0.1, 0.2]),
                np.array([0.01, 0.0])], dict(momentum=0.9, num_weights=2),
               ref=_preloaded(_sgd_mom, 3), name="two"),
    ],
    "preloaded_multi_mp_sgd_update": [
        Sample([_half(3, 4), _half(3, 4), _f32(3, 4), np.array([0.1], np.float32),
                np.array([0.01], np.float32)], dict(num_weights=1),
               ref=_preloaded(_mp(_sgd), 3), rtol=1e-3, atol=1e-3, name="one"),
    ],
    "preloaded_multi_mp_sgd_mom_update": [
        Sample([_half(3, 4), _half(3, 4), _f32(3, 4), _f32(3, 4), np.array([0.1], np.float32),
                np.array([0.01], np.float32)], dict(num_weights=1, momentum=0.9),
               ref=_preloaded(_mp(_sgd_mom), 4), rtol=1e-3, atol=1e-3, name="one"),
    ],
    "multi_sum_sq": [
        Sample([_f32(3, 4), _f32(5), _f32(2, 2, 2)], dict(num_arrays=3), ref=_sum_sq,
               rtol=1e-5, name="three"),
    ],
    "multi_lars": [
        Sample([np.array([0.1, 0.2, 0.3]), np.array([4.0, 0.0, 9.0]), np.array([1.0, 2.0, 0.25]),
                np.array([0.01, 0.0, 0.1])], dict(eta=0.001, eps=1e-8, rescale_grad=0.5),
               ref=_lars, name="zero_norm"),
    ],
    "lamb_update_phase1": [
        Sample([_x(3, 4), _x(3, 4), _x(3, 4), _x(3, 4, positive=True)],
               dict(t=2, wd=0.01, rescale_grad=0.5), ref=_lamb1, name="bias_correction"),
        Sample([_x(2, 3, 2), _x(2, 3, 2), _x(2, 3, 2), _x(2, 3, 2, positive=True)],
               dict(t=1, wd=0.0, bias_correction=False, clip_gradient=0.5), ref=_lamb1,
               name="3d_plain"),
    ],
    "mp_lamb_update_phase1": [
        Sample([_half(3, 4), _half(3, 4), _f32(3, 4), _f32(3, 4, positive=True), _f32(3, 4)],
               dict(t=2, wd=0.01), ref=lambda w, g, m, v, w32, **kw: _lamb1(
                   w32, g.astype(np.float32), m, v, **kw), rtol=1e-3, atol=1e-3,
               name="float16"),
    ],
    "lamb_update_phase2": [
        Sample([_x(3, 4), _x(3, 4), np.array([2.0]), np.array([0.5])],
               dict(lr=0.1, lower_bound=0.1, upper_bound=1.5), ref=_lamb2, name="bounded"),
        Sample([_x(3, 4), _x(3, 4), np.array([0.0]), np.array([0.5])], dict(lr=0.1),
               ref=_lamb2, name="zero_norm"),
    ],
    "mp_lamb_update_phase2": [
        Sample([_half(3, 4), _f32(3, 4), np.array([2.0], np.float32),
                np.array([0.5], np.float32), _f32(3, 4)], dict(lr=0.1),
               ref=lambda w, g, r1, r2, w32, **kw: _lamb2(w32, g, r1, r2, **kw).astype(w.dtype),
               rtol=1e-3, atol=1e-3, name="float16"),
    ],
    "_adamw_update": [
        Sample([_x(3, 4), _x(3, 4), _x(3, 4), _x(3, 4, positive=True), np.array([0.5])],
               dict(lr=0.01, eta=0.5, wd=0.1, clip_gradient=2.0), ref=_adamw, name="2d"),
    ],
    "_mp_adamw_update": [
        Sample([_half(3, 4), _half(3, 4), _f32(3, 4), _f32(3, 4, positive=True), _f32(3, 4),
                np.array([0.5], np.float32)], dict(lr=0.01, eta=1.0, wd=0.01), ref=_mp_adamw,
               rtol=1e-3, atol=1e-3, name="float16"),
    ],
    "_multi_adamw_update": [
        Sample([_x(3, 4), _x(3, 4), _x(3, 4), _x(3, 4, positive=True),
                _x(5), _x(5), _x(5), _x(5, positive=True), np.array([0.5])],
               dict(lrs=(0.01, 0.02), wds=(0.1, 0.0), etas=(0.5, 1.0), clip_gradient=2.0,
                    num_weights=2), ref=_multi_adamw(_adamw, 4), name="two"),
    ],
    "_multi_mp_adamw_update": [
        Sample([_half(3, 4), _half(3, 4), _f32(3, 4), _f32(3, 4, positive=True), _f32(3, 4),
                _half(5), _half(5), _f32(5), _f32(5, positive=True), _f32(5),
                np.array([0.5], np.float32)],
               dict(lrs=(0.01, 0.02), wds=(0.01, 0.0), etas=(1.0, 0.5), num_weights=2),
               ref=_multi_adamw(_mp_adamw, 5), rtol=1e-3, atol=1e-3, name="two"),
    ],
}
