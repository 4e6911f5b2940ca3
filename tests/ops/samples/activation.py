"""Samples for ``Activation`` and ``LeakyReLU``."""
import math

import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(13)
_x = _rng.uniform(-2, 2, size=(2, 3, 4))
_x[np.abs(_x) < 0.1] = 0.4  # away from the kinks at 0
_SELU_A = 1.6732632423543772848170429916717
_SELU_L = 1.0507009873554804934193349852946
_erf = np.vectorize(math.erf)


def _f32(v):
    return float(np.float32(v))


def _act_ref(x, act_type):
    return {"relu": lambda: np.maximum(x, 0),
            "sigmoid": lambda: 1 / (1 + np.exp(-x)),
            "tanh": lambda: np.tanh(x),
            "softrelu": lambda: np.log1p(np.exp(x)),
            "softsign": lambda: x / (1 + np.abs(x))}[act_type]()


def _lrelu_ref(x, gamma=None, act_type="leaky", slope=0.25, lower_bound=0.125,
               upper_bound=0.334):
    if act_type == "leaky":
        return np.where(x > 0, x, _f32(slope) * x)
    if act_type == "prelu":
        # MXNet: gamma's axes lie on data axes 0 and 1, from the last ((C,) on the
        # channel axis, (N, C) on both)
        g = gamma.reshape(gamma.shape + (1,) * max(x.ndim - 2, 0)) if gamma.size > 1 else gamma
        return np.where(x > 0, x, g * x)
    if act_type == "rrelu":
        slope = (_f32(lower_bound) + _f32(upper_bound)) / 2
        return [np.where(x > 0, x, slope * x), np.zeros_like(x)]
    if act_type == "elu":
        return np.where(x > 0, x, _f32(slope) * np.expm1(x))
    if act_type == "selu":
        return _SELU_L * np.where(x > 0, x, _SELU_A * np.expm1(x))
    return 0.5 * x * (1 + _erf(x / np.sqrt(2)))


def _selu_grad_ref(x, act_type="selu"):
    """MXNet 1.9's selu gradient: lambda * (y + alpha) for x <= 0 (not the derivative)."""
    y = _lrelu_ref(x, act_type="selu")
    return [np.where(x > 0, _SELU_L, _SELU_L * (y + _SELU_A))]


def _check_rrelu_train(outs, inputs, lower=0.125, upper=0.334):
    y, mask = outs
    x = inputs[0]
    assert np.array_equal(y[x > 0], x[x > 0])
    slopes = y[x < 0] / x[x < 0]
    assert np.all(slopes >= _f32(lower) - 1e-12) and np.all(slopes <= _f32(upper) + 1e-12)
    np.testing.assert_allclose(mask[x < 0], slopes, rtol=1e-12)
    assert np.all((mask >= _f32(lower)) & (mask <= _f32(upper)))


SAMPLES = {
    "Activation": [Sample([_x], dict(act_type=a), ref=_act_ref)
                   for a in ("relu", "sigmoid", "tanh", "softrelu", "softsign")],
    "LeakyReLU": [
        Sample([_x], ref=_lrelu_ref, name="leaky_default"),
        Sample([_x], dict(act_type="leaky", slope=0.1), ref=_lrelu_ref),
        Sample([_x, _rng.uniform(0.1, 0.5, 3)], dict(act_type="prelu"), ref=_lrelu_ref,
               infer_from=[0]),
        Sample([_x[0], np.array([0.3])], dict(act_type="prelu"), ref=_lrelu_ref),
        Sample([_x, _rng.uniform(0.1, 0.5, (2, 3))], dict(act_type="prelu"), ref=_lrelu_ref,
               name="prelu_batch_channel_gamma"),
        Sample([_x[0, 0], _rng.uniform(0.1, 0.5, 4)], dict(act_type="prelu"), ref=_lrelu_ref,
               name="prelu_1d_elementwise_gamma"),
        Sample([_x], dict(act_type="rrelu"), ref=_lrelu_ref, name="rrelu_predict"),
        Sample([_x], dict(act_type="rrelu", lower_bound=0.2, upper_bound=0.5), train=True,
               check=lambda o, i: _check_rrelu_train(o, i, 0.2, 0.5), grad=False,
               name="rrelu_train"),
        Sample([_x], dict(act_type="elu", slope=0.7), ref=_lrelu_ref),
        Sample([_x], dict(act_type="selu"), ref=_lrelu_ref, grad_ref=_selu_grad_ref),
        Sample([_x], dict(act_type="gelu"), ref=_lrelu_ref, rtol=1e-6, atol=1e-7),
    ],
}
