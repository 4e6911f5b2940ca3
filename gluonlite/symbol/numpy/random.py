"""``mx.sym.np.random``: MXNet's samplers on symbols.  Each sampler is the operator that
``mx.np.random`` runs (``_npi_normal``, ``_npi_gamma``, ...): a parameter given as a symbol
is an input of the node, a number an attribute; ``size`` gives the output shape (else the
parameters' broadcast shape)."""
from __future__ import annotations

import numbers

import numpy as onp

from ..symbol import Symbol
from ._symbol import _Symbol, apply

__all__ = ["uniform", "normal", "randint", "gamma", "exponential", "rayleigh", "weibull",
           "pareto", "power", "gumbel", "logistic", "lognormal", "beta", "chisquare",
           "bernoulli", "choice", "multivariate_normal"]


def _size(size):
    if size is None:
        return None
    return (size,) if isinstance(size, numbers.Integral) else tuple(size)


def _dist(dist: str, params: dict, size, dtype=None) -> _Symbol:
    inputs, attrs = [], {}
    for name, v in params.items():
        if isinstance(v, Symbol):
            inputs.append(_Symbol(v._heads))
            attrs[name] = "None"  # the parameter is the input
        else:
            attrs[name] = float(v)
    attrs["size"] = _size(size)
    if dtype is not None:
        attrs["dtype"] = onp.dtype(dtype)
    return apply(f"_npi_{dist}", inputs, **attrs)


def uniform(low=0.0, high=1.0, size=None, dtype=None, ctx=None, out=None) -> _Symbol:
    """Draws from the uniform distribution on ``[low, high)``."""
    return _dist("uniform", {"low": low, "high": high}, size, dtype)


def normal(loc=0.0, scale=1.0, size=None, dtype=None, ctx=None, out=None) -> _Symbol:
    """Draws from the normal distribution."""
    return _dist("normal", {"loc": loc, "scale": scale}, size, dtype)


def gamma(shape=1.0, scale=1.0, size=None, dtype=None, ctx=None, out=None) -> _Symbol:
    """Draws from the gamma distribution."""
    return _dist("gamma", {"shape": shape, "scale": scale}, size, dtype)


def exponential(scale=1.0, size=None, ctx=None, out=None) -> _Symbol:
    """Draws from the exponential distribution with mean ``scale``."""
    return _dist("exponential", {"scale": scale}, size)


def rayleigh(scale=1.0, size=None, ctx=None, out=None) -> _Symbol:
    """Draws from the Rayleigh distribution."""
    return _dist("rayleigh", {"scale": scale}, size)


def weibull(a, size=None, ctx=None, out=None) -> _Symbol:
    """Draws from the Weibull distribution with shape ``a``."""
    return _dist("weibull", {"a": a}, size)


def pareto(a, size=None, ctx=None, out=None) -> _Symbol:
    """Draws from the Pareto II (Lomax) distribution with shape ``a``."""
    return _dist("pareto", {"a": a}, size)


def power(a, size=None, ctx=None, out=None) -> _Symbol:
    """Draws from the power distribution with exponent ``a - 1``."""
    return _dist("powerd", {"a": a}, size)


def gumbel(loc=0.0, scale=1.0, size=None, ctx=None, out=None) -> _Symbol:
    """Draws from the Gumbel distribution."""
    return _dist("gumbel", {"loc": loc, "scale": scale}, size)


def logistic(loc=0.0, scale=1.0, size=None, ctx=None, out=None) -> _Symbol:
    """Draws from the logistic distribution."""
    return _dist("logistic", {"loc": loc, "scale": scale}, size)


def lognormal(mean=0.0, sigma=1.0, size=None, dtype=None, ctx=None, out=None) -> _Symbol:
    """``exp`` of draws from the normal distribution."""
    return apply("exp", [normal(mean, sigma, size, dtype)])


def beta(a, b, size=None, dtype=None, ctx=None) -> _Symbol:
    """Draws from the beta distribution, as ``x / (x + y)`` of two gamma draws."""
    x = gamma(a, 1.0, size, dtype)
    y = gamma(b, 1.0, size, dtype)
    return x / (x + y)


def chisquare(df, size=None, dtype=None, ctx=None) -> _Symbol:
    """Draws from the chi-square distribution with ``df`` degrees of freedom."""
    return gamma(df / 2.0, 2.0, size, dtype)


def bernoulli(prob=None, logit=None, size=None, dtype=None, ctx=None, out=None) -> _Symbol:
    """Ones with probability ``prob`` (or ``sigmoid(logit)``), zeros otherwise."""
    if (prob is None) == (logit is None):
        raise ValueError("bernoulli: give exactly one of prob and logit")
    is_logit = logit is not None
    p = logit if is_logit else prob
    attrs = {"is_logit": is_logit, "dtype": onp.dtype(dtype or onp.float32),
             "size": _size(size)}
    key = "logit" if is_logit else "prob"
    if isinstance(p, Symbol):
        return apply("_npi_bernoulli", [_Symbol(p._heads)], **{key: "None"}, **attrs)
    return apply("_npi_bernoulli", [], **{key: float(p)}, **attrs)


def randint(low, high=None, size=None, dtype=None, ctx=None, out=None) -> _Symbol:
    """Integers in ``[low, high)`` (``int64`` by default)."""
    if high is None:
        low, high = 0, low
    shape = _size(size) or (1,)
    return apply("_random_randint", [], low=int(low), high=int(high), shape=shape,
                 dtype=onp.dtype(dtype or onp.int64))


def choice(a, size=None, replace=True, p=None, ctx=None, out=None) -> _Symbol:
    """A random sample of ``a`` (an int ``n`` means ``arange(n)``, drawing ``int64``
    indices), uniform or with probabilities ``p`` (a symbol)."""
    inputs = [] if isinstance(a, numbers.Integral) else [_Symbol(a._heads)]
    if p is not None:
        inputs.append(_Symbol(p._heads))
    attrs = {"a": int(a)} if isinstance(a, numbers.Integral) else {}
    idx = apply("_npi_choice", inputs, size=_size(size), replace=bool(replace),
                weighted=p is not None, **attrs)
    if isinstance(a, numbers.Integral):
        return idx
    return apply("take", [inputs[0], idx], axis=0, mode="clip")


def multivariate_normal(mean, cov, size=None, check_valid=None, tol=None) -> _Symbol:
    """Draws from the normal distribution with mean ``mean`` and covariance ``cov``:
    ``mean + L z`` with ``L`` the Cholesky factor of ``cov`` and ``z`` standard normal of
    shape ``size`` + the broadcast of ``mean.shape`` and ``cov.shape[:-1]``."""
    from . import linalg, _creation, _op
    mean0, cov = _Symbol(mean._heads), _Symbol(cov._heads)
    # float16 parameters are drawn in float32 and the draw cast back (as MXNet does):
    # amp_multicast widens float16 to float32 next to a float32, and narrows back
    f32 = _creation.zeros((), dtype="float32")
    mean = _Symbol(apply("amp_multicast", [mean0, f32], num_outputs=2)._heads[:1])
    cov = _Symbol(apply("amp_multicast", [cov, f32], num_outputs=2)._heads[:1])
    # zeros of the batch shape: mean's shape broadcast with cov's leading ones
    base = _op.zeros_like(mean) + _op.sum(_op.zeros_like(cov), axis=-1)
    z = apply("_npi_normal_n", [base], scale=1.0, size=_size(size) or (),
              dtype="None")  # in mean's dtype
    lt = _op.swapaxes(linalg.cholesky(cov), -1, -2)
    res = mean + _op.squeeze(_op.matmul(_op.expand_dims(z, -2), lt), axis=-2)
    return _Symbol(apply("amp_multicast", [res, mean0], num_outputs=2,
                         cast_narrow=True)._heads[:1])
