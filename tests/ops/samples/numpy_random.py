"""Samples for ``numpy_random.py``: property checks on ~10k draws of each ``_npi_``
sampler (shape from ``size`` or from the parameters, dtype, range, mean and spread), with
parameters as attributes and as array inputs; ``_npi_choice`` (with and without
replacement, weighted); ``_npi_bernoulli`` (``prob`` and ``logit``).  The location
gradient of the location-scale samplers is exact (one per draw); the other
reparameterization gradients are checked with a fixed seed in
``tests/numpy/test_numpy_ops_symbolic.py``."""
import numpy as np

from ..harness import Sample
from .random_ops import _stats

_BIG = (100, 100)
_NO = dict(grad=False)


def _loc_grad(out_shape):
    def ref(loc, *rest, **attrs):
        n = int(np.prod(out_shape)) // max(loc.size, 1)
        return [np.full(loc.shape, float(n))]
    return ref


def _choice_check(n, shape, replace):
    def check(outs, inputs):
        y = outs[0]
        assert y.shape == tuple(shape) and y.dtype == np.int64
        assert y.min() >= 0 and y.max() < n
        if not replace:
            assert len(np.unique(y)) == y.size
    return check


def _weighted_check(p, count):
    def check(outs, inputs):
        y = outs[0]
        freq = np.bincount(y.reshape(-1), minlength=len(p)) / count
        np.testing.assert_allclose(freq, p, atol=0.03)
    return check


SAMPLES = {
    "_npi_uniform": [
        Sample([], dict(low=-1.0, high=3.0, size=_BIG),
               check=_stats(_BIG, "float32", 1.0, 4 / np.sqrt(12), -1.0, 3.0), **_NO),
        Sample([np.full((100, 1), 2.0), np.full((100,), 4.0)], dict(size=None),
               check=_stats((100, 100), "float32", 3.0, 2 / np.sqrt(12), 2.0, 4.0), **_NO),
    ],
    "_npi_normal": [
        Sample([], dict(loc=1.0, scale=2.0, size=_BIG, dtype=np.float64),
               check=_stats(_BIG, "float64", 1.0, 2.0), **_NO),
        Sample([np.full((100,), -1.0), np.full((1, 100), 0.5)], dict(size=_BIG),
               check=_stats(_BIG, "float32", -1.0, 0.5), grad=[0],
               grad_ref=_loc_grad(_BIG)),
    ],
    "_npi_normal_n": [
        Sample([np.zeros(4), np.ones(4)], dict(size=(2500,)),
               check=_stats((2500, 4), "float32", 0.0, 1.0), grad=[0],
               grad_ref=_loc_grad((2500, 4))),
    ],
    "_npi_uniform_n": [
        Sample([], dict(low=0.0, high=1.0, size=(100, 100)),
               check=_stats(_BIG, "float32", 0.5, 1 / np.sqrt(12), 0.0, 1.0), **_NO),
    ],
    "_npi_gamma": [
        Sample([], dict(shape=2.0, scale=3.0, size=_BIG),
               check=_stats(_BIG, "float32", 6.0, np.sqrt(2) * 3, 0.0), **_NO),
        Sample([np.full((100, 100), 4.0)], dict(scale=0.5),
               check=_stats(_BIG, "float32", 2.0, 1.0, 0.0), **_NO),
    ],
    "_npi_exponential": [
        Sample([], dict(scale=2.0, size=_BIG), check=_stats(_BIG, "float32", 2.0, 2.0, 0.0),
               **_NO),
        Sample([np.full((100, 100), 0.5)], {}, check=_stats(_BIG, "float32", 0.5, 0.5, 0.0),
               **_NO),
    ],
    "_npi_rayleigh": [
        Sample([], dict(scale=2.0, size=_BIG),
               check=_stats(_BIG, "float32", 2.0 * np.sqrt(np.pi / 2),
                            2.0 * np.sqrt((4 - np.pi) / 2), 0.0), **_NO),
    ],
    "_npi_weibull": [
        Sample([], dict(a=1.0, size=_BIG), check=_stats(_BIG, "float32", 1.0, 1.0, 0.0),
               **_NO),
        Sample([np.full((100, 100), 2.0)], {},
               check=_stats(_BIG, "float32", np.sqrt(np.pi) / 2, np.sqrt(1 - np.pi / 4),
                            0.0), **_NO),
    ],
    "_npi_pareto": [
        Sample([], dict(a=5.0, size=_BIG),
               check=_stats(_BIG, "float32", 0.25, np.sqrt(5 / 48) / 1.0 * 1.0, 0.0),
               **_NO),
    ],
    "_npi_powerd": [
        Sample([], dict(a=2.0, size=_BIG),
               check=_stats(_BIG, "float32", 2 / 3, np.sqrt(2 / 4 - 4 / 9), 0.0, 1.0000001),
               **_NO),
    ],
    "_npi_gumbel": [
        Sample([], dict(loc=1.0, scale=2.0, size=_BIG),
               check=_stats(_BIG, "float32", 1.0 + 2.0 * np.euler_gamma, 2.0 * np.pi /
                            np.sqrt(6)), **_NO),
        Sample([np.zeros((100, 100)), np.ones((100, 100))], {},
               check=_stats(_BIG, "float32", np.euler_gamma, np.pi / np.sqrt(6)), grad=[0],
               grad_ref=lambda loc, scale: [np.ones(loc.shape), np.zeros(scale.shape)][:1]),
    ],
    "_npi_logistic": [
        Sample([], dict(loc=-1.0, scale=0.5, size=_BIG),
               check=_stats(_BIG, "float32", -1.0, 0.5 * np.pi / np.sqrt(3)), **_NO),
    ],
    "_npi_bernoulli": [
        Sample([], dict(prob=0.3, size=_BIG, is_logit=False),
               check=_stats(_BIG, "float32", 0.3, np.sqrt(0.21), 0.0, 1.5), **_NO),
        Sample([np.zeros((100, 100))], dict(is_logit=True, dtype=np.float64),
               check=_stats(_BIG, "float64", 0.5, 0.5, 0.0, 1.5), **_NO),
    ],
    "_npi_choice": [
        Sample([], dict(a=10, size=(50,)), check=_choice_check(10, (50,), True), **_NO),
        Sample([], dict(a=10, size=(2, 5), replace=False),
               check=_choice_check(10, (2, 5), False), **_NO),
        Sample([np.array([0.1, 0.2, 0.7])], dict(a=3, size=(10000,), weighted=True),
               check=_weighted_check([0.1, 0.2, 0.7], 10000), **_NO),
        Sample([np.arange(6.0), np.full(6, 1 / 6)], dict(size=(4,), replace=False,
                                                         weighted=True),
               check=_choice_check(6, (4,), False), **_NO),
    ],
}
