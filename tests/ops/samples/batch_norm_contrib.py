"""Samples for ``_contrib_BatchNormWithReLU`` and ``_contrib_SyncBatchNorm`` (ndev=1)."""
import numpy as np

from ..harness import Sample
from .batch_norm import _inputs, _ref

_rng = np.random.default_rng(12)


def _relu_ref(train):
    bn = _ref(train)

    def ref(*inputs, **attrs):
        out = bn(*inputs, **attrs)
        if isinstance(out, list):
            return [np.maximum(out[0], 0)] + out[1:]
        return np.maximum(out, 0)
    return ref


def _sync_ref(train):
    bn = _ref(train)

    def ref(*inputs, ndev=1, key="", **attrs):
        out = bn(*inputs, axis=1, **attrs)
        if isinstance(out, list):
            # MXNet's SyncBatchNorm outputs the batch mean and (biased) variance, not
            # BatchNorm's inverse deviation; zeros when the moving statistics normalize
            x, mean = inputs[0], out[1]
            if train and not attrs.get("use_global_stats", False):
                var = x.var(axis=tuple(i for i in range(x.ndim) if i != 1))
                return [out[0], mean, var]
            return [out[0], np.zeros_like(mean), np.zeros_like(mean)]
        return out
    return ref


def _away_from_kink(inputs):
    """Shift beta so that no output sits at ReLU's kink (finite differences)."""
    x, gamma, beta, mm, mv = inputs
    return [x, gamma, beta + 0.05, mm, mv]


SAMPLES = {
    "_contrib_BatchNormWithReLU": [
        Sample(_away_from_kink(_inputs((4, 3, 2), 1)), dict(fix_gamma=False),
               ref=_relu_ref(True), train=True, name="train"),
        Sample(_away_from_kink(_inputs((3, 2, 4), -1)),
               dict(fix_gamma=True, axis=-1, eps=1e-2, momentum=0.7),
               ref=_relu_ref(True), train=True, name="train_axis_last_fix_gamma"),
        Sample(_inputs((4, 3, 2), 1), dict(fix_gamma=False, output_mean_var=True),
               ref=_relu_ref(True), train=True, grad=False, name="train_mean_var"),
        Sample(_inputs((4, 3, 2), 1), dict(fix_gamma=False, use_global_stats=True),
               ref=_relu_ref(False), grad=False, name="global_stats"),
    ],
    "_contrib_SyncBatchNorm": [
        Sample(_inputs((4, 3, 2), 1), dict(fix_gamma=False, key="bn0_"), ref=_sync_ref(True),
               train=True, name="train"),
        Sample(_inputs((4, 3, 2), 1), dict(fix_gamma=True, key="bn0_", ndev=1, eps=1e-2),
               ref=_sync_ref(True), train=True, name="train_fix_gamma"),
        Sample(_inputs((4, 3, 2), 1), dict(fix_gamma=False, key="bn1_", use_global_stats=True),
               ref=_sync_ref(True), train=True, name="train_global_stats"),
        Sample(_inputs((4, 3, 2), 1), dict(fix_gamma=False, key="bn2_", output_mean_var=True),
               ref=_sync_ref(True), train=True, grad=False, name="train_mean_var"),
        Sample(_inputs((4, 3, 2), 1), dict(fix_gamma=False, key="bn3_", output_mean_var=True),
               ref=_sync_ref(False), grad=False, name="predict_mean_var"),
    ],
}
