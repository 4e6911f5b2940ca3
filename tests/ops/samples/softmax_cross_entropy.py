"""Samples for ``softmax_cross_entropy``."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(23)


def _ref(data, label):
    shifted = data - data.max(axis=1, keepdims=True)
    logp = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return np.array([-logp[np.arange(len(label)), label.astype(int)].sum()])


SAMPLES = {
    "softmax_cross_entropy": [
        Sample([_rng.standard_normal((4, 5)), np.array([0, 4, 2, 2.0])], ref=_ref, grad=[0],
               name="batch4"),
        Sample([_rng.standard_normal((3, 2)) * 20, np.array([1, 0, 1.0])], ref=_ref, grad=[0],
               name="large_logits"),
        Sample([_rng.standard_normal((2, 3)).astype(np.float32), np.array([2, 1], np.float32)],
               ref=_ref, grad=False, rtol=1e-5, name="float32"),
    ],
}
