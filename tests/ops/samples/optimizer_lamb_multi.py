"""Samples for ``_multi_lamb_update`` and ``_multi_mp_lamb_update``: NumPy references
from the ``lamb_update_phase1``/``phase2`` formulas per tensor (MXNet 1.9.1 cannot run
these two operators: their shape inference fails, see ``gen_contrib_extra.py``)."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(37)


def _x(*shape, dtype=np.float64, positive=False):
    a = _rng.standard_normal(shape)
    return (np.abs(a) * 0.1 if positive else a).astype(dtype)


def _lamb_one(w_low, w, grad, mean, var, lr, wd, t, beta1=0.9, beta2=0.999, epsilon=1e-6,
              rescale_grad=1.0, clip_gradient=-1.0, bias_correction=True, lower_bound=-1.0,
              upper_bound=-1.0):
    g = grad.astype(np.float64) * rescale_grad
    if clip_gradient >= 0:
        g = np.clip(g, -clip_gradient, clip_gradient)
    m = beta1 * mean + (1 - beta1) * g
    v = beta2 * var + (1 - beta2) * g * g
    if bias_correction:
        m, v = m / (1 - beta1 ** t), v / (1 - beta2 ** t)
    d = m / (np.sqrt(v) + epsilon) + wd * w
    r1 = np.sqrt(np.sum(w_low.astype(np.float64) ** 2))
    r2 = np.sqrt(np.sum(d ** 2))
    if lower_bound >= 0:
        r1 = max(r1, lower_bound)
    if upper_bound >= 0:
        r1 = min(r1, upper_bound)
    ratio = 1.0 if r1 == 0 or r2 == 0 else r1 / r2
    return (w - lr * ratio * d).astype(w_low.dtype)


def _multi(mixed):
    per = 5 if mixed else 4

    def ref(*inputs, learning_rates, wds, step_count, num_tensors, **kw):
        outs = []
        for i in range(num_tensors):
            group = inputs[i * per:(i + 1) * per]
            master = group[4] if mixed else group[0]
            outs.append(_lamb_one(group[0], master.astype(np.float64), *group[1:4],
                                  lr=learning_rates[i], wd=wds[i], t=step_count[i], **kw))
        return outs
    return ref


def _group(shape, dtype=np.float64, mixed=False):
    w = _x(*shape, dtype=np.float32 if mixed else dtype)
    g = [w.astype(np.float16) if mixed else w, _x(*shape, dtype=np.float16 if mixed else dtype),
         _x(*shape, dtype=np.float32 if mixed else dtype),
         _x(*shape, dtype=np.float32 if mixed else dtype, positive=True)]
    return g + [w.copy()] if mixed else g


SAMPLES = {
    "_multi_lamb_update": [
        Sample(_group((3, 4)) + _group((5,)),
               dict(num_tensors=2, learning_rates=(0.1, 0.05), wds=(0.01, 0.0),
                    step_count=(1, 3), rescale_grad=0.5, clip_gradient=0.8),
               ref=_multi(False), rtol=1e-6, atol=1e-7, name="clip_rescale"),
        Sample(_group((2, 3, 2), dtype=np.float32),
               dict(num_tensors=1, learning_rates=(0.2,), wds=(0.1,), step_count=(2,),
                    bias_correction=False, lower_bound=0.5, upper_bound=1.5, beta1=0.8),
               ref=_multi(False), rtol=1e-5, atol=1e-6, name="bounds_float32"),
    ],
    "_multi_mp_lamb_update": [
        Sample(_group((3, 4), mixed=True) + _group((6,), mixed=True),
               dict(num_tensors=2, learning_rates=(0.1, 0.05), wds=(0.01, 0.02),
                    step_count=(1, 4)),
               ref=_multi(True), rtol=1e-3, atol=1e-3, name="float16"),
    ],
}
