"""Samples for elementwise unary operators."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(1)
_x = _rng.uniform(-2, 2, size=(3, 4))
_x[np.abs(_x) < 0.1] = 0.5  # keep away from kinks for finite differences
_pos = _rng.uniform(0.2, 3, size=(3, 4))

SAMPLES = {
    "relu": [Sample([_x], ref=lambda x: np.maximum(x, 0))],
    "sigmoid": [Sample([_x], ref=lambda x: 1 / (1 + np.exp(-x)))],
    "exp": [Sample([_x], ref=np.exp)],
    "log": [Sample([_pos], ref=np.log)],
    "sqrt": [Sample([_pos], ref=np.sqrt)],
    "square": [Sample([_x], ref=np.square)],
    "tanh": [Sample([_x], ref=np.tanh)],
    "negative": [Sample([_x], ref=np.negative)],
}
