"""Samples for the random samplers: property checks on ~10k draws (shape, dtype,
range, mean and spread within loose bounds)."""
import numpy as np

from ..harness import Sample

_BIG = (100, 100)


def _stats(shape, dtype, mean=None, std=None, low=None, high=None, integral=False,
           tol=0.1):
    """A ``check`` asserting the first output's shape, dtype and moments."""
    def check(outs, inputs):
        y = outs[0]
        assert y.shape == tuple(shape), f"shape {y.shape}, expected {shape}"
        assert y.dtype == np.dtype(dtype), f"dtype {y.dtype}, expected {dtype}"
        v = y.astype(np.float64)
        assert np.all(np.isfinite(v))
        if low is not None:
            assert v.min() >= low, f"min {v.min()} < {low}"
        if high is not None:
            assert v.max() < high, f"max {v.max()} >= {high}"
        if integral:
            assert np.all(v == np.round(v))
        if mean is not None:
            # 6 standard errors of the mean (or a relative tol when the std is not given)
            bound = 6 * std / np.sqrt(v.size) if std is not None else tol * max(1, abs(mean))
            assert abs(v.mean() - mean) <= bound, f"mean {v.mean()}, expected {mean}"
        if std is not None:
            assert abs(v.std() - std) <= tol * max(1.0, std), f"std {v.std()}"
    return check


def _per_row(means, dtype="float32", tol=0.1):
    """Check for ``_sample_*``: the draws of parameter row ``i`` average ``means[i]``."""
    def check(outs, inputs):
        y = outs[0]
        assert y.dtype == np.dtype(dtype)
        got = y.reshape(len(means), -1).astype(np.float64).mean(axis=1)
        np.testing.assert_allclose(got, means, rtol=tol, atol=tol)
    return check


def _shape_dtype(shape, dtype):
    return _stats(shape, dtype)


def _check_multinomial(probs, extra, get_prob=False):
    def check(outs, inputs):
        s = outs[0]
        assert s.shape == probs.shape[:-1] + extra and s.dtype == np.int32
        assert s.min() >= 0 and s.max() < probs.shape[-1]
        flat_p = probs.reshape(-1, probs.shape[-1])
        flat_s = s.reshape(flat_p.shape[0], -1)
        for row, p in enumerate(flat_p if extra else []):
            freq = np.bincount(flat_s[row], minlength=len(p)) / flat_s.shape[1]
            np.testing.assert_allclose(freq, p, atol=0.05)
        if get_prob:
            lp = outs[1].reshape(flat_s.shape)
            np.testing.assert_allclose(lp, np.log(np.take_along_axis(flat_p, flat_s, 1)),
                                       rtol=1e-6)
    return check


def _check_shuffle(outs, inputs):
    y, x = outs[0], inputs[0]
    assert y.shape == x.shape
    rows = sorted(map(tuple, y.reshape(len(y), -1).tolist()))
    assert rows == sorted(map(tuple, x.reshape(len(x), -1).tolist()))


_P = np.array([[0.1, 0.2, 0.7], [0.5, 0.5, 0.0]])
_NO = dict(grad=False)
SAMPLES = {
    "_random_uniform": [
        Sample([], dict(low=-1, high=3, shape=_BIG), check=_stats(_BIG, "float32", 1.0,
               4 / np.sqrt(12), -1, 3), **_NO),
        Sample([], dict(shape=(3, 4), dtype="float64"),
               check=_stats((3, 4), "float64", low=0, high=1), **_NO),
        Sample([], dict(shape=(5,), dtype="float16"), check=_shape_dtype((5,), "float16"),
               **_NO),
    ],
    "_random_normal": [
        Sample([], dict(loc=2, scale=0.5, shape=_BIG), check=_stats(_BIG, "float32", 2, 0.5),
               **_NO),
        Sample([], dict(shape=(2, 3), dtype="float64"), check=_shape_dtype((2, 3), "float64"),
               **_NO),
    ],
    "_random_gamma": [
        Sample([], dict(alpha=2, beta=3, shape=_BIG),
               check=_stats(_BIG, "float32", 6, np.sqrt(18), low=0), **_NO),
    ],
    "_random_exponential": [
        Sample([], dict(lam=4, shape=_BIG), check=_stats(_BIG, "float32", 0.25, 0.25, low=0),
               **_NO),
    ],
    "_random_poisson": [
        Sample([], dict(lam=3, shape=_BIG),
               check=_stats(_BIG, "float32", 3, np.sqrt(3), low=0, integral=True), **_NO),
    ],
    "_random_negative_binomial": [
        Sample([], dict(k=3, p=0.4, shape=_BIG),
               check=_stats(_BIG, "float32", 4.5, np.sqrt(11.25), low=0, integral=True),
               **_NO),
    ],
    "_random_generalized_negative_binomial": [
        Sample([], dict(mu=2, alpha=0.5, shape=_BIG),
               check=_stats(_BIG, "float32", 2, np.sqrt(4), low=0, integral=True), **_NO),
        Sample([], dict(mu=2, alpha=0, shape=_BIG, dtype="float64"),
               check=_stats(_BIG, "float64", 2, np.sqrt(2), low=0, integral=True), **_NO),
    ],
    "_random_randint": [
        Sample([], dict(low=-3, high=5, shape=_BIG),
               check=_stats(_BIG, "int32", 0.5, np.sqrt(63 / 12), -3, 5, True), **_NO),
        Sample([], dict(low=0, high=2, shape=(7,), dtype="int64"),
               check=_stats((7,), "int64", low=0, high=2), **_NO),
    ],
    "_random_uniform_like": [
        Sample([np.zeros(_BIG)], dict(low=1, high=2),
               check=_stats(_BIG, "float64", 1.5, 1 / np.sqrt(12), 1, 2), **_NO),
    ],
    "_random_normal_like": [
        Sample([np.zeros(_BIG, dtype=np.float32)], dict(loc=-1, scale=2),
               check=_stats(_BIG, "float32", -1, 2), **_NO),
    ],
    "_random_gamma_like": [
        Sample([np.zeros(_BIG)], dict(alpha=0.5), check=_stats(_BIG, "float64", 0.5,
               np.sqrt(0.5), low=0), **_NO),
    ],
    "_random_exponential_like": [
        Sample([np.zeros(_BIG)], check=_stats(_BIG, "float64", 1, 1, low=0), **_NO),
    ],
    "_random_poisson_like": [
        Sample([np.zeros(_BIG)], dict(lam=0.5),
               check=_stats(_BIG, "float64", 0.5, np.sqrt(0.5), low=0, integral=True), **_NO),
    ],
    "_random_negative_binomial_like": [
        Sample([np.zeros(_BIG)], dict(k=2, p=0.5),
               check=_stats(_BIG, "float64", 2, 2, low=0, integral=True), **_NO),
    ],
    "_random_generalized_negative_binomial_like": [
        Sample([np.zeros(_BIG)], dict(mu=3, alpha=0.2),
               check=_stats(_BIG, "float64", 3, np.sqrt(4.8), low=0, integral=True), **_NO),
    ],
    "_sample_uniform": [
        Sample([np.array([0.0, 10.0]), np.array([1.0, 12.0])], dict(shape=(5000,)),
               check=_per_row([0.5, 11.0]), **_NO),
        Sample([np.array([[0.0, 1.0], [2.0, 3.0]]), np.array([[1.0, 2.0], [3.0, 4.0]])],
               dict(shape=2, dtype="float64"), check=_shape_dtype((2, 2, 2), "float64"),
               **_NO),
    ],
    "_sample_normal": [
        Sample([np.array([0.0, 10.0]), np.array([1.0, 2.0])], dict(shape=(5000,)),
               check=_per_row([0.0, 10.0]), **_NO),
        Sample([np.array([0.0, 1.0]), np.array([1.0, 1.0])],
               check=_shape_dtype((2,), "float32"), **_NO),
    ],
    "_sample_gamma": [
        Sample([np.array([1.0, 4.0]), np.array([2.0, 0.5])], dict(shape=(5000,)),
               check=_per_row([2.0, 2.0]), **_NO),
    ],
    "_sample_exponential": [
        Sample([np.array([1.0, 0.1])], dict(shape=(5000,)), check=_per_row([1.0, 10.0]),
               **_NO),
    ],
    "_sample_poisson": [
        Sample([np.array([1.0, 20.0])], dict(shape=(5000,), dtype="float64"),
               check=_per_row([1.0, 20.0], "float64"), **_NO),
    ],
    "_sample_negative_binomial": [
        Sample([np.array([3.0, 1.0]), np.array([0.4, 0.9])], dict(shape=(5000,)),
               check=_per_row([4.5, 1 / 9]), **_NO),
    ],
    "_sample_generalized_negative_binomial": [
        Sample([np.array([2.0, 5.0]), np.array([0.5, 0.0])], dict(shape=(5000,)),
               check=_per_row([2.0, 5.0]), **_NO),
    ],
    "_sample_multinomial": [
        Sample([_P], dict(shape=(4000,)), check=_check_multinomial(_P, (4000,)), **_NO),
        Sample([_P[0]], dict(shape=(2, 2000), get_prob=True),
               check=_check_multinomial(_P[0], (2, 2000), True), **_NO),
        Sample([_P], check=_check_multinomial(_P, ()), **_NO),
    ],
    "_shuffle": [
        Sample([np.arange(24.0).reshape(6, 4)], check=_check_shuffle, **_NO),
        Sample([np.arange(10, dtype=np.int32)], check=_check_shuffle, **_NO),
    ],
}
