"""Samples for ``LayerNorm``, ``GroupNorm``, ``InstanceNorm`` and ``L2Normalization``."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(12)


def _f32(v):
    return float(np.float32(v))


def _ln_ref(x, gamma, beta, axis=-1, eps=1e-5, output_mean_var=False):
    a = axis % x.ndim
    shape = [1] * x.ndim
    shape[a] = -1
    mean = x.mean(axis=a, keepdims=True)
    std = np.sqrt(x.var(axis=a, keepdims=True) + _f32(eps))
    y = (x - mean) / std * gamma.reshape(shape) + beta.reshape(shape)
    return [y, mean, std] if output_mean_var else y


def _gn_ref(x, gamma, beta, num_groups=1, eps=1e-5, output_mean_var=False):
    n, g = x.shape[0], num_groups
    xr = x.reshape(n, g, -1)
    mean = xr.mean(axis=2, keepdims=True)
    std = np.sqrt(xr.var(axis=2, keepdims=True) + _f32(eps))
    y = ((xr - mean) / std * gamma.reshape(1, g, 1) + beta.reshape(1, g, 1)).reshape(x.shape)
    return [y, mean.reshape(n, g), std.reshape(n, g)] if output_mean_var else y


def _in_ref(x, gamma, beta, eps=1e-3):
    n, c = x.shape[:2]
    xr = x.reshape(n, c, -1)
    y = (xr - xr.mean(axis=2, keepdims=True)) / np.sqrt(xr.var(axis=2, keepdims=True)
                                                         + _f32(eps))
    return (y * gamma.reshape(1, c, 1) + beta.reshape(1, c, 1)).reshape(x.shape)


def _l2_ref(x, eps=1e-10, mode="instance"):
    axes = {"instance": tuple(range(1, x.ndim)), "channel": (1,),
            "spatial": tuple(range(2, x.ndim))}[mode]
    return x / np.sqrt((x * x).sum(axis=axes, keepdims=True) + _f32(eps))


def _x(*shape):
    return _rng.standard_normal(shape)


def _g(n):
    return _rng.uniform(0.5, 1.5, n)


SAMPLES = {
    "LayerNorm": [
        Sample([_x(3, 4), _g(4), _x(4)], ref=_ln_ref),
        Sample([_x(2, 3, 4), _g(3), _x(3)], dict(axis=1, eps=1e-3), ref=_ln_ref,
               infer_from=[0]),
        Sample([_x(2, 3, 4), _g(4), _x(4)], dict(output_mean_var=True), ref=_ln_ref,
               grad=False, name="mean_var"),
    ],
    "GroupNorm": [
        Sample([_x(2, 4, 3), _g(2), _x(2)], dict(num_groups=2), ref=_gn_ref),
        Sample([_x(2, 3, 2, 2), _g(1), _x(1)], dict(eps=1e-2), ref=_gn_ref, infer_from=[0]),
        Sample([_x(2, 6, 2), _g(3), _x(3)], dict(num_groups=3, output_mean_var=True),
               ref=_gn_ref, grad=False, name="mean_var"),
    ],
    "InstanceNorm": [
        Sample([_x(2, 3, 4), _g(3), _x(3)], ref=_in_ref),
        Sample([_x(2, 2, 3, 2), _g(2), _x(2)], dict(eps=0.1), ref=_in_ref, infer_from=[0]),
    ],
    "L2Normalization": [
        Sample([_x(3, 4)], ref=_l2_ref),
        Sample([_x(2, 3, 4)], dict(mode="channel", eps=1e-3), ref=_l2_ref),
        Sample([_x(2, 3, 2, 2)], dict(mode="spatial"), ref=_l2_ref),
        Sample([_x(2, 3, 2)], dict(mode="instance"), ref=_l2_ref),
    ],
}
