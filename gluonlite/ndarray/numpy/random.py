"""``mx.np.random`` (MXNet's ``mx.nd.np.random``): NumPy's samplers over MXNet's
generator (``mx.random.seed`` seeds them).  ``float32`` by default; array parameters
broadcast against ``size``, and location/scale samplers are written as
``loc + scale * standard_sample``, so gradients reach array parameters as in MXNet.
"""
from __future__ import annotations

import numbers

import numpy as onp

from ...context import current_context
from ..ndarray import NDArray
from . import _op
from ._array import apply, ndarray, NpValueError

__all__ = ["uniform", "normal", "randn", "rand", "randint", "choice", "shuffle", "gamma",
           "exponential", "lognormal", "logistic", "gumbel", "laplace", "rayleigh", "weibull",
           "pareto", "power", "beta", "chisquare", "multinomial", "multivariate_normal",
           "bernoulli", "poisson"]

_F32 = onp.dtype(onp.float32)


def _size(size, *params) -> tuple:
    if size is None:
        shapes = [p.shape for p in params if isinstance(p, NDArray)]
        return onp.broadcast_shapes(*shapes) if shapes else ()
    return (size,) if isinstance(size, numbers.Integral) else tuple(size)


def _ctx(ctx, *params):
    for p in params:
        if isinstance(p, NDArray):
            return p.context
    return ctx or current_context()


def _standard(op, size, dtype, ctx, **attrs) -> ndarray:
    # the legacy samplers take a non-empty shape: draw (1,) for a 0-d result
    shape = size or (1,)
    if 0 in shape:  # an empty draw: nothing to sample
        from ._array import zeros
        return zeros(shape, dtype=dtype, ctx=ctx)
    res = apply(op, [], ctx=ctx, shape=shape, dtype=dtype, **attrs)
    return res.reshape(size) if not size else res


def _affine(std, loc, scale):
    """``loc + scale * std`` without ops for the defaults 0 and 1."""
    if not (isinstance(scale, numbers.Number) and scale == 1):
        std = std * scale
    if not (isinstance(loc, numbers.Number) and loc == 0):
        std = std + loc
    return std


def uniform(low=0.0, high=1.0, size=None, dtype=None, ctx=None, out=None) -> ndarray:
    """Draws from the uniform distribution on ``[low, high)``."""
    return _dist("uniform", {"low": low, "high": high}, size, ctx, dtype, out)


def normal(loc=0.0, scale=1.0, size=None, dtype=None, ctx=None, out=None) -> ndarray:
    """Draws from the normal distribution (gradients reach array ``loc``/``scale``)."""
    return _dist("normal", {"loc": loc, "scale": scale}, size, ctx, dtype, out)


def randn(*size, **kwargs) -> ndarray:
    return normal(0.0, 1.0, size=size, **kwargs)


def rand(*size, **kwargs) -> ndarray:
    return uniform(0.0, 1.0, size=size, **kwargs)


def randint(low, high=None, size=None, dtype=None, ctx=None, out=None) -> ndarray:
    """Integers in ``[low, high)`` (``int64`` by default, as MXNet gives)."""
    if high is None:
        low, high = 0, low
    dt = onp.dtype(dtype or onp.int64)
    c = _ctx(ctx)
    return _op._out(_standard("_random_randint", _size(size), dt, c, low=int(low),
                              high=int(high)), out)


def choice(a, size=None, replace=True, p=None, ctx=None, out=None) -> ndarray:
    """A random sample of ``a`` (an int ``n`` means ``arange(n)``); indices are ``int64``."""
    c = _ctx(ctx, a, p)
    n = int(a) if isinstance(a, numbers.Integral) else _op._arr(a).shape[0]
    attrs = {"a": n, "replace": bool(replace), "weighted": p is not None}
    if size is not None:
        attrs["size"] = (size,) if isinstance(size, numbers.Integral) else tuple(size)
    inputs = [] if p is None else [_op._arr(p, c)]
    idx = apply("_npi_choice", inputs, ctx=c, **attrs)
    if isinstance(a, numbers.Integral):
        return _op._out(idx, out)
    return _op._out(_op.take(_op._arr(a), idx, axis=0), out)


def shuffle(x) -> None:
    """Shuffle ``x`` in place along its first axis."""
    x[...] = apply("_shuffle", [x])


def gamma(shape=1.0, scale=1.0, size=None, dtype=None, ctx=None, out=None) -> ndarray:
    """Draws from the gamma distribution with ``shape`` and ``scale``."""
    return _dist("gamma", {"shape": shape, "scale": scale}, size, ctx, dtype, out)


def exponential(scale=1.0, size=None, ctx=None, out=None) -> ndarray:
    """Draws from the exponential distribution with mean ``scale``."""
    return _dist("exponential", {"scale": scale}, size, ctx, None, out)


def lognormal(mean=0.0, sigma=1.0, size=None, dtype=None, ctx=None, out=None) -> ndarray:
    """``exp`` of draws from the normal distribution."""
    return _op._out(_op.exp(normal(mean, sigma, size, dtype, ctx)), out)


def logistic(loc=0.0, scale=1.0, size=None, ctx=None, out=None) -> ndarray:
    """Draws from the logistic distribution."""
    return _dist("logistic", {"loc": loc, "scale": scale}, size, ctx, None, out)


def gumbel(loc=0.0, scale=1.0, size=None, ctx=None, out=None) -> ndarray:
    """Draws from the Gumbel distribution."""
    return _dist("gumbel", {"loc": loc, "scale": scale}, size, ctx, None, out)


def laplace(loc=0.0, scale=1.0, size=None, dtype=None, ctx=None, out=None) -> ndarray:
    u = uniform(-0.5 + 1e-7, 0.5, _size(size, loc, scale), ctx=_ctx(ctx, loc, scale))
    std = -_op.sign(u) * _op.log(1 - 2 * _op.absolute(u))
    return _op._out(_affine(std, loc, scale), out)


def rayleigh(scale=1.0, size=None, ctx=None, out=None) -> ndarray:
    """Draws from the Rayleigh distribution with mode ``scale``."""
    return _dist("rayleigh", {"scale": scale}, size, ctx, None, out)


def weibull(a, size=None, ctx=None, out=None) -> ndarray:
    """Draws from the Weibull distribution with shape ``a``."""
    return _dist("weibull", {"a": a}, size, ctx, None, out)


def pareto(a, size=None, ctx=None, out=None) -> ndarray:
    """Draws from the Pareto II (Lomax) distribution with shape ``a``."""
    return _dist("pareto", {"a": a}, size, ctx, None, out)


def power(a, size=None, ctx=None, out=None) -> ndarray:
    """Draws in ``[0, 1]`` from the power distribution with exponent ``a - 1``."""
    return _dist("powerd", {"a": a}, size, ctx, None, out)


def beta(a, b, size=None, dtype=None, ctx=None) -> ndarray:
    """Draws from the beta distribution, as ``x / (x + y)`` of two gamma draws."""
    x = gamma(a, 1.0, size, dtype, ctx)
    y = gamma(b, 1.0, size, dtype, ctx)
    return x / (x + y)


def chisquare(df, size=None, dtype=None, ctx=None) -> ndarray:
    """Draws from the chi-square distribution with ``df`` degrees of freedom."""
    half = df / 2.0 if isinstance(df, (numbers.Number, NDArray)) else \
        _op._arr(onp.asarray(df, dtype=onp.float32)) / 2.0
    return gamma(half, 2.0, size, dtype, ctx)


def poisson(lam=1.0, size=None, ctx=None) -> ndarray:
    return _standard("_random_poisson", _size(size), _F32, _ctx(ctx), lam=float(lam))


def bernoulli(prob=None, logit=None, size=None, dtype=None, ctx=None, out=None) -> ndarray:
    """Ones with probability ``prob`` (or ``sigmoid(logit)``), zeros otherwise."""
    if (prob is None) == (logit is None):
        raise NpValueError("bernoulli: give exactly one of prob and logit")
    is_logit = logit is not None
    p = logit if is_logit else prob
    c = _ctx(ctx, p)
    attrs = {"is_logit": is_logit, "dtype": onp.dtype(dtype or _F32)}
    if size is not None:
        attrs["size"] = (size,) if isinstance(size, numbers.Integral) else tuple(size)
    key = "logit" if is_logit else "prob"
    if isinstance(p, NDArray):
        return _op._out(apply("_npi_bernoulli", [_op._arr(p)], ctx=c, **attrs), out)
    return _op._out(apply("_npi_bernoulli", [], ctx=c, **{key: float(p)}, **attrs), out)


def multinomial(n, pvals, size=None) -> ndarray:
    """Counts of ``n`` draws over ``len(pvals)`` categories (``int64``)."""
    pv = onp.asarray(pvals.asnumpy() if isinstance(pvals, NDArray) else pvals, onp.float64)
    shape = _size(size)
    count = int(onp.prod(shape)) if shape else 1
    if pv.size == 0 or count == 0:  # no categories or no experiments: an empty result
        ctx = pvals.context if isinstance(pvals, NDArray) else None
        return _op.zeros(shape + (len(pv),), dtype=onp.int64, ctx=ctx)
    probs = _op.array(pv, dtype=onp.float32)
    draws = apply("_sample_multinomial", [probs], shape=(count, int(n)),
                  dtype=onp.dtype(onp.int32))
    counts = _op.sum(_op.equal(draws.reshape(count, int(n), 1),
                               _op.arange(len(pv), dtype=onp.int32)), axis=1, dtype=onp.int64)
    return counts.reshape(shape + (len(pv),))


def multivariate_normal(mean, cov, size=None, check_valid=None, tol=None) -> ndarray:
    mean, cov = _op._arr(mean), _op._arr(cov)
    shape = _size(size)
    from . import linalg
    # float16 draws: factor in float32, as MXNet does
    half = onp.result_type(mean.dtype, cov.dtype) == onp.float16
    if half:
        mean, cov = mean.astype(onp.float32), cov.astype(onp.float32)
    chol = linalg.cholesky(cov)
    batch = onp.broadcast_shapes(mean.shape, cov.shape[:-1])
    std = normal(size=shape + batch, ctx=mean.context, dtype=mean.dtype)
    res = mean + _op.matmul(std[..., None, :], _op.swapaxes(chol, -1, -2))[..., 0, :]
    return res.astype(onp.float16) if half else res


def _dist(dist: str, params: dict, size, ctx, dtype=None, out=None) -> ndarray:
    """A draw of ``_npi_<dist>``: array parameters become inputs, numbers attributes."""
    c = _ctx(ctx, *params.values())
    inputs, attrs = [], {}
    for name, v in params.items():
        if isinstance(v, NDArray):
            inputs.append(_op._arr(v))
            attrs[name] = None
        elif isinstance(v, (numbers.Number, onp.generic)):
            attrs[name] = float(v)
        else:
            inputs.append(_op._arr(onp.asarray(v, dtype=onp.float32), c))
            attrs[name] = None
    if size is not None:
        attrs["size"] = (size,) if isinstance(size, numbers.Integral) else tuple(size)
    if dtype is not None:
        attrs["dtype"] = onp.dtype(dtype)
    return _op._out(apply(f"_npi_{dist}", inputs, ctx=c, **attrs), out)


