"""``mx.np.random`` (MXNet's ``mx.nd.np.random``): NumPy's samplers over MXNet's
generator (``mx.random.seed`` seeds them).  ``float32`` by default; array parameters
broadcast against ``size``, and location/scale samplers are written as
``loc + scale * standard_sample``, so gradients reach array parameters as in MXNet.
"""
from __future__ import annotations

import numbers

import numpy as onp

from ...base import MXNetError
from ...context import current_context
from ..ndarray import NDArray
from . import _op
from ._array import apply, ndarray

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
    dt = onp.dtype(dtype or _F32)
    c = _ctx(ctx, low, high)
    shape = _size(size, low, high)
    if isinstance(low, numbers.Number) and isinstance(high, numbers.Number):
        return _op._out(_standard("_random_uniform", shape, dt, c, low=low, high=high), out)
    std = _standard("_random_uniform", shape, dt, c, low=0.0, high=1.0)
    return _op._out(_affine(std, low, _op.subtract(high, low)), out)


def normal(loc=0.0, scale=1.0, size=None, dtype=None, ctx=None, out=None) -> ndarray:
    dt = onp.dtype(dtype or _F32)
    c = _ctx(ctx, loc, scale)
    shape = _size(size, loc, scale)
    if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number):
        return _op._out(_standard("_random_normal", shape, dt, c, loc=loc, scale=scale), out)
    return _op._out(_affine(_standard("_random_normal", shape, dt, c), loc, scale), out)


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
    shape = _size(size)
    count = int(onp.prod(shape)) if shape else 1
    if p is None and replace:
        idx = _standard("_random_randint", (count,), onp.dtype(onp.int64), c, low=0, high=n)
    else:
        probs = _op._arr(p, c) if p is not None else _op.full((n,), 1.0 / n, ctx=c)
        if replace:
            idx = apply("_sample_multinomial", [probs.astype(onp.float32)], shape=(count,),
                        dtype=onp.dtype(onp.int64))
        else:
            if count > n:
                raise MXNetError("choice: cannot take a larger sample than the population "
                                 "when replace=False")
            # Gumbel top-k: sampling without replacement in one sort
            g = -_op.log(-_op.log(uniform(size=(n,), ctx=c) + 1e-20) + 1e-20)
            keys = g + _op.log(probs.astype(onp.float32) + 1e-30)
            idx = _op.argsort(-keys)[:count]
    idx = idx.reshape(shape) if shape else idx.reshape(())
    if isinstance(a, numbers.Integral):
        return _op._out(idx, out)
    return _op._out(_op.take(_op._arr(a), idx, axis=0), out)


def shuffle(x) -> None:
    """Shuffle ``x`` in place along its first axis."""
    x[...] = apply("_shuffle", [x])


def gamma(shape=1.0, scale=1.0, size=None, dtype=None, ctx=None, out=None) -> ndarray:
    dt = onp.dtype(dtype or _F32)
    c = _ctx(ctx, shape, scale)
    if not isinstance(shape, numbers.Number):
        raise NotImplementedError("gamma: an array shape parameter is not supported")
    std = _standard("_random_gamma", _size(size, scale), dt, c, alpha=float(shape), beta=1.0)
    return _op._out(_affine(std, 0, scale), out)


def exponential(scale=1.0, size=None, ctx=None, out=None) -> ndarray:
    c = _ctx(ctx, scale)
    std = _standard("_random_exponential", _size(size, scale), _F32, c, lam=1.0)
    return _op._out(_affine(std, 0, scale), out)


def lognormal(mean=0.0, sigma=1.0, size=None, dtype=None, ctx=None, out=None) -> ndarray:
    return _op._out(_op.exp(normal(mean, sigma, size, dtype, ctx)), out)


def logistic(loc=0.0, scale=1.0, size=None, ctx=None, out=None) -> ndarray:
    u = uniform(1e-7, 1.0 - 1e-7, _size(size, loc, scale), ctx=_ctx(ctx, loc, scale))
    return _op._out(_affine(_op.log(u / (1 - u)), loc, scale), out)


def gumbel(loc=0.0, scale=1.0, size=None, ctx=None, out=None) -> ndarray:
    u = uniform(1e-7, 1.0, _size(size, loc, scale), ctx=_ctx(ctx, loc, scale))
    return _op._out(_affine(-_op.log(-_op.log(u)), loc, scale), out)


def laplace(loc=0.0, scale=1.0, size=None, dtype=None, ctx=None, out=None) -> ndarray:
    u = uniform(-0.5 + 1e-7, 0.5, _size(size, loc, scale), ctx=_ctx(ctx, loc, scale))
    std = -_op.sign(u) * _op.log(1 - 2 * _op.absolute(u))
    return _op._out(_affine(std, loc, scale), out)


def rayleigh(scale=1.0, size=None, ctx=None, out=None) -> ndarray:
    u = uniform(1e-7, 1.0, _size(size, scale), ctx=_ctx(ctx, scale))
    return _op._out(_affine(_op.sqrt(-2 * _op.log(u)), 0, scale), out)


def weibull(a, size=None, ctx=None, out=None) -> ndarray:
    u = uniform(1e-7, 1.0, _size(size, a), ctx=_ctx(ctx, a))
    return _op._out(_op.power(-_op.log(u), _op.true_divide(1.0, a)), out)


def pareto(a, size=None, ctx=None, out=None) -> ndarray:
    u = uniform(1e-7, 1.0, _size(size, a), ctx=_ctx(ctx, a))
    return _op._out(_op.power(u, _op.true_divide(-1.0, a)) - 1, out)


def power(a, size=None, ctx=None, out=None) -> ndarray:
    u = uniform(0.0, 1.0, _size(size, a), ctx=_ctx(ctx, a))
    return _op._out(_op.power(u, _op.true_divide(1.0, a)), out)


def beta(a, b, size=None, dtype=None, ctx=None) -> ndarray:
    x = gamma(a, 1.0, size, dtype, ctx)
    y = gamma(b, 1.0, size, dtype, ctx)
    return x / (x + y)


def chisquare(df, size=None, dtype=None, ctx=None) -> ndarray:
    return gamma(df / 2.0, 2.0, size, dtype, ctx)


def poisson(lam=1.0, size=None, ctx=None) -> ndarray:
    return _standard("_random_poisson", _size(size), _F32, _ctx(ctx), lam=float(lam))


def bernoulli(prob=None, logit=None, size=None, dtype=None, ctx=None, out=None) -> ndarray:
    if (prob is None) == (logit is None):
        raise MXNetError("bernoulli: give exactly one of prob and logit")
    p = prob if prob is not None else _op.true_divide(1.0, 1.0 + _op.exp(-_op._arr(logit)))
    u = uniform(0.0, 1.0, _size(size, p), ctx=_ctx(ctx, p))
    return _op._out(_op.less(u, p).astype(dtype or _F32), out)


def multinomial(n, pvals, size=None) -> ndarray:
    """Counts of ``n`` draws over ``len(pvals)`` categories (``int64``)."""
    pv = onp.asarray(pvals.asnumpy() if isinstance(pvals, NDArray) else pvals, onp.float64)
    shape = _size(size)
    count = int(onp.prod(shape)) if shape else 1
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
    chol = linalg.cholesky(cov)
    std = normal(size=shape + mean.shape, ctx=mean.context)
    return mean + _op.matmul(std, _op.swapaxes(chol, -1, -2))
