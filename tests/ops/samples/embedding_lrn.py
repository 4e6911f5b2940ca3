"""Samples for ``Embedding`` and ``LRN``."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(47)


def _x(*shape):
    return _rng.standard_normal(shape)


def emb_ref(data, weight, input_dim=0, output_dim=0, **_):
    idx = np.clip(np.trunc(data).astype(np.int64), 0, input_dim - 1)
    return weight[idx]


def lrn_ref(x, alpha=1e-4, beta=0.75, knorm=2.0, nsize=1):
    half = (nsize - 1) // 2
    c = x.shape[1]
    s = np.zeros_like(x)
    for i in range(c):
        s[:, i] = (x[:, max(0, i - half):i + half + 1] ** 2).sum(axis=1)
    return x / (knorm + alpha / nsize * s) ** beta


SAMPLES = {
    "Embedding": [
        Sample([np.array([[0., 2.], [3., 1.]]), _x(4, 3)], dict(input_dim=4, output_dim=3),
               ref=emb_ref, grad=[1], infer_from=[0]),
        Sample([np.array([-2., 0.6, 5., 2.9, 2.]), _x(4, 2)], dict(input_dim=4, output_dim=2),
               ref=emb_ref, grad=[1], name="clip_trunc"),
        Sample([np.array([1, 3, 3], dtype=np.int32), _x(4, 2)],
               dict(input_dim=4, output_dim=2, dtype="float64"), ref=emb_ref, grad=[1],
               name="int_indices"),
    ],
    "LRN": [
        Sample([_x(2, 5, 2, 2)], dict(nsize=3, alpha=0.3, beta=0.6, knorm=1.5), ref=lrn_ref),
        Sample([_x(1, 6, 3)], dict(nsize=4, alpha=0.5, knorm=1.0), ref=lrn_ref,
               name="even_nsize"),
        Sample([_x(1, 3, 2, 2)], dict(nsize=5), ref=lrn_ref, name="defaults"),
    ],
}
