"""Drawing from the per-device random streams (``oc.rng``) with one API.

The CPU stream is a ``numpy.random.Generator``; a GPU stream is a
``cupy.random.RandomState``.  The two differ in a few method names; these
helpers hide that.  Every draw returns float64 (or int64) arrays, which the
operators cast to their output dtype.  Distribution parameters may be Python
floats or arrays that broadcast against ``size``.
"""
from __future__ import annotations

import numpy as np

from .._rng import MXNetCPUStream


def uniform01(rng, size):
    """Uniform draws in ``[0, 1)``."""
    fn = getattr(rng, "random", None)
    if fn is None or not callable(fn):
        fn = rng.random_sample
    return fn(size=size)


def standard_normal(rng, size):
    """Draws from N(0, 1)."""
    return rng.standard_normal(size=size)


def standard_gamma(rng, alpha, size):
    """Draws from Gamma(alpha, scale 1); ``alpha`` broadcasts against ``size``."""
    return rng.standard_gamma(alpha, size=size)


def standard_exponential(rng, size):
    """Draws from Exp(rate 1)."""
    return rng.standard_exponential(size=size)


def poisson(rng, lam, size):
    """Poisson draws with mean ``lam`` (broadcast against ``size``), as float64."""
    return rng.poisson(lam, size=size).astype(np.float64)


def integers(rng, low: int, high: int, size):
    """Integers uniformly in ``[low, high)`` as int64."""
    fn = getattr(rng, "integers", None)
    if fn is None:
        return rng.randint(low, high, size=size, dtype=np.int64)
    return fn(low, high, size=size, dtype=np.int64)


def permutation(rng, n: int):
    """A random permutation of ``range(n)``."""
    return rng.permutation(n)


# -- the distributions: ``draw(xp, rng, params, size, param_dtype, out_dtype) -> array`` ---
# ``param_dtype`` is the type MXNet holds the parameters in (float32 for the scalar
# attributes, the arrays' own for ``_sample_*``) and ``out_dtype`` the output's; only the
# samplers that reproduce MXNet's CPU streams use them.
def _mxnet_types(param_dtype, out_dtype):
    """MXNet's float type for a draw (float for float32 output, double for float64 and
    float16) and the parameters in their own type."""
    double = np.dtype(out_dtype) != np.float32
    return double, np.dtype(param_dtype or np.float32).type


def _through_float(y, out_dtype):
    # a float16 output is converted from double through float, as mshadow's half_t does
    return y.astype(np.float32) if np.dtype(out_dtype) == np.float16 else y


def draw_uniform(xp, rng, params, size, param_dtype=None, out_dtype=np.float32):
    low, high = params
    if isinstance(rng, MXNetCPUStream):
        double, itype = _mxnet_types(param_dtype, out_dtype)
        low, high = np.asarray(low, itype), np.asarray(high, itype)
        u = rng.uniform01(size, double)
        y = low.astype(u.dtype) + (high - low).astype(u.dtype) * u  # high - low in itype
        return _through_float(y, out_dtype)
    return low + (high - low) * uniform01(rng, size)


def draw_normal(xp, rng, params, size, param_dtype=None, out_dtype=np.float32):
    loc, scale = params
    if isinstance(rng, MXNetCPUStream):
        double, itype = _mxnet_types(param_dtype, out_dtype)
        z = rng.standard_normal01(size, double)
        y = z * np.asarray(scale, itype).astype(z.dtype) + np.asarray(loc, itype).astype(z.dtype)
        return _through_float(y, out_dtype)
    return loc + scale * standard_normal(rng, size)


def draw_gamma(xp, rng, params, size, param_dtype=None, out_dtype=None):
    alpha, beta = params
    return standard_gamma(rng, alpha, size) * beta


def draw_exponential(xp, rng, params, size, param_dtype=None, out_dtype=None):
    (lam,) = params
    return standard_exponential(rng, size) / lam


def draw_poisson(xp, rng, params, size, param_dtype=None, out_dtype=None):
    (lam,) = params
    return poisson(rng, lam, size)


def draw_negative_binomial(xp, rng, params, size, param_dtype=None, out_dtype=None):
    """Failures before the ``k``-th success (success probability ``p``): a Gamma-Poisson
    mixture with rate ``Gamma(k, (1 - p) / p)``."""
    k, p = params
    safe_p = xp.where(xp.asarray(p) > 0, p, 1.0)
    rate = standard_gamma(rng, k, size) * ((1.0 - safe_p) / safe_p)
    return poisson(rng, rate, size)


def draw_generalized_negative_binomial(xp, rng, params, size, param_dtype=None, out_dtype=None):
    """Gamma-Poisson mixture with mean ``mu`` and variance ``mu + alpha * mu**2``
    (Poisson(mu) where ``alpha == 0``)."""
    mu, alpha = params
    alpha = xp.asarray(alpha, dtype=np.float64)
    mixed = alpha > 0
    safe_a = xp.where(mixed, alpha, 1.0)
    rate = standard_gamma(rng, 1.0 / safe_a, size) * (safe_a * mu)
    rate = xp.where(mixed, rate, xp.asarray(mu, dtype=np.float64))
    return poisson(rng, rate, size)
