"""Samples for the ``random_pdf_*`` densities (references from ``math.lgamma``, written
out per distribution; parameters broadcast over extra sample dimensions; ``is_log``
both ways; float32 and float64) and the ``_sample_unique_zipfian`` sampler (property
and frequency checks)."""
import math

import numpy as np

from ..harness import Sample

_lgamma = np.vectorize(math.lgamma, otypes=[np.float64])
_R = np.random.default_rng(21)


def _u(low, high, *shape):
    return _R.uniform(low, high, size=shape)


def _ints(*shape):
    return _R.integers(0, 6, size=shape).astype(np.float64)


def _expand(p, ndim):
    return p.reshape(p.shape + (1,) * (ndim - p.ndim))


def _ref(logpdf):
    """``ref(sample, *params, is_log=False)`` from a log-density over broadcast arrays."""
    def ref(x, *params, is_log=False):
        x64 = x.astype(np.float64)
        ps = [_expand(p.astype(np.float64), x.ndim) for p in params]
        y = np.broadcast_to(logpdf(x64, *ps), x.shape)
        return (y if is_log else np.exp(y)).astype(x.dtype)
    return ref


def _nb(x, k, p):
    return (_lgamma(x + k) - _lgamma(x + 1) - _lgamma(k) + k * np.log(p)
            + x * np.log1p(-p))


_LOG = {
    "uniform": lambda x, lo, hi: -np.log(hi - lo) + 0 * x,
    "normal": lambda x, m, s: -0.5 * ((x - m) / s) ** 2 - np.log(s * np.sqrt(2 * np.pi)),
    "gamma": lambda x, a, b: a * np.log(b) + (a - 1) * np.log(x) - b * x - _lgamma(a),
    "exponential": lambda x, lam: np.log(lam) - lam * x,
    "poisson": lambda x, lam: x * np.log(lam) - lam - _lgamma(x + 1),
    "negative_binomial": _nb,
    "generalized_negative_binomial": lambda x, mu, a: _nb(x, 1 / a, 1 / (1 + mu * a)),
}


def _dirichlet_ref(x, alpha, is_log=False):
    x64 = x.astype(np.float64)
    extra = x.ndim - alpha.ndim
    a = alpha.astype(np.float64).reshape(alpha.shape[:-1] + (1,) * extra + alpha.shape[-1:])
    y = (_lgamma(a.sum(-1)) - _lgamma(a).sum(-1) + ((a - 1) * np.log(x64)).sum(-1))
    y = y if is_log else np.exp(y)
    return np.asarray(y).reshape(x.shape[:-1] or (1,)).astype(x.dtype)


def _params(dist, *shape):
    """Valid parameters of ``shape`` and a matching sample generator."""
    if dist == "uniform":
        lo = _u(-2, 0, *shape)
        return [lo, lo + _u(0.5, 3, *shape)], lambda *s: _u(-3, 3, *s)
    if dist == "normal":
        return [_u(-1, 1, *shape), _u(0.5, 2, *shape)], lambda *s: _R.normal(size=s)
    if dist == "gamma":
        return [_u(1, 3, *shape), _u(0.5, 2, *shape)], lambda *s: _u(0.3, 4, *s)
    if dist == "exponential":
        return [_u(0.5, 2, *shape)], lambda *s: _u(0, 3, *s)
    if dist == "poisson":
        return [_u(0.5, 4, *shape)], _ints
    if dist == "negative_binomial":
        return [_u(0.5, 4, *shape), _u(0.2, 0.8, *shape)], _ints
    return [_u(0.5, 4, *shape), _u(0.2, 1.5, *shape)], _ints


_DISCRETE = ("poisson", "negative_binomial", "generalized_negative_binomial")


def _pdf_samples(dist):
    ref = _ref(_LOG[dist])
    # discrete samples: MXNet's gradient for the sample is zero (not the slope of lgamma)
    params, draw = _params(dist, 2, 3)
    grad = tuple(range(1, 1 + len(params))) if dist in _DISCRETE else True
    out = []
    out.append(Sample([draw(2, 3)] + params, dict(is_log=False), ref=ref, grad=grad,
                      name="same shape"))
    params, draw = _params(dist, 2)
    out.append(Sample([draw(2, 3)] + params, dict(is_log=True), ref=ref, grad=grad,
                      name="broadcast over one extra axis"))
    params, draw = _params(dist, 2)
    out.append(Sample([draw(2, 2, 2)] + params, dict(is_log=False), ref=ref, grad=grad,
                      name="broadcast over two extra axes"))
    params, draw = _params(dist, 3)
    f32 = [a.astype(np.float32) for a in [draw(3, 4)] + params]
    for is_log in (False, True):
        out.append(Sample(f32, dict(is_log=is_log), ref=ref, grad=False, rtol=2e-5,
                          atol=1e-6, name="float32"))
    return out


def _dirichlet_samples():
    def simplex(*shape):
        x = _u(0.2, 1, *shape)
        return x / x.sum(-1, keepdims=True)
    return [
        Sample([simplex(2, 3), _u(0.5, 3, 3)], dict(is_log=False), ref=_dirichlet_ref,
               name="one alpha for every row"),
        Sample([simplex(2, 2, 3), _u(0.5, 3, 2, 3)], dict(is_log=True), ref=_dirichlet_ref,
               name="alpha per batch, broadcast over an extra axis"),
        Sample([simplex(3), _u(0.5, 3, 3)], dict(is_log=True), ref=_dirichlet_ref,
               name="one sample: output (1,)"),
        Sample([simplex(2, 3), _u(1.5, 3, 2, 3)], dict(is_log=False), ref=_dirichlet_ref,
               name="same shape"),
        Sample([a.astype(np.float32) for a in (simplex(4, 3), _u(0.5, 3, 3))],
               dict(is_log=True), ref=_dirichlet_ref, grad=False, rtol=2e-5, atol=1e-6,
               name="float32"),
    ]


def _zipf_check(range_max, batch, num):
    # MXNet's kernel draws round(exp(u log(range_max))) - 1 (measured in MXNet 1.9.1)
    c = np.arange(range_max)
    probs = np.log(np.minimum(c + 1.5, range_max) / np.maximum(c + 0.5, 1.0))
    probs /= np.log(range_max)

    def check(outs, inputs):
        samples, trials = outs
        assert samples.shape == (batch, num) and samples.dtype == np.int64
        assert trials.shape == (batch,) and trials.dtype == np.int64
        assert samples.min() >= 0 and samples.max() < range_max
        assert all(len(set(row)) == num for row in samples.tolist())
        assert np.all(trials >= num)
        if num == range_max or batch < 1000:
            return
        # the first draw of each row is the first class drawn: a Zipfian draw
        first = np.bincount(samples[:, 0], minlength=range_max) / batch
        bound = 5 * np.sqrt(probs / batch) + 1e-3
        assert np.all(np.abs(first - probs) <= bound), f"frequencies {first} vs {probs}"
    return check


SAMPLES = {f"_random_pdf_{d}": _pdf_samples(d) for d in _LOG}
SAMPLES["_random_pdf_dirichlet"] = _dirichlet_samples()
SAMPLES["_sample_unique_zipfian"] = [
    Sample([], dict(range_max=50, shape=(4000, 5)), check=_zipf_check(50, 4000, 5),
           grad=False),
    Sample([], dict(range_max=6, shape=(3, 6)), check=_zipf_check(6, 3, 6), grad=False),
    Sample([], dict(range_max="1000", shape="(2, 40)"), check=_zipf_check(1000, 2, 40),
           grad=False),
]
