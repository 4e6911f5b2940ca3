"""``mx.sym.random``: sampling symbols.  Numbers as distribution parameters give a
``_random_<dist>`` node drawing ``shape`` samples; Symbols give a ``_sample_<dist>``
node drawing ``shape`` samples per parameter element.  Mixing the two raises."""
from __future__ import annotations

import numbers

from ..base import _Null
from ..ndarray.random import LIKE_SAMPLERS, like_sampler
from .symbol import Symbol

__all__ = ["uniform", "normal", "randn", "randint", "exponential", "gamma", "poisson",
           "negative_binomial", "generalized_negative_binomial", "multinomial", "shuffle",
           "uniform_like", "normal_like", "exponential_like", "gamma_like", "poisson_like",
           "negative_binomial_like", "generalized_negative_binomial_like"]


def _fn(name: str):
    from . import _api
    return _api.function(name)


def _given(**kwargs) -> dict:
    return {k: v for k, v in kwargs.items() if v is not _Null}


def _helper(random: str, sampler: str | None, params: list, shape, dtype, kwargs: dict):
    if isinstance(params[0], Symbol):
        for p in params[1:]:
            if not isinstance(p, Symbol):
                raise AssertionError("Distribution parameters must all have the same type, "
                                     f"but got both {type(params[0])} and {type(p)}.")
        if sampler is None:
            raise ValueError(f"{random}: the distribution parameters must be numbers")
        return _fn(sampler)(*params, **_given(shape=shape, dtype=dtype), **kwargs)
    if isinstance(params[0], numbers.Number):
        for p in params[1:]:
            if not isinstance(p, numbers.Number):
                raise AssertionError("Distribution parameters must all have the same type, "
                                     f"but got both {type(params[0])} and {type(p)}.")
        # a ``_random_*`` node has no inputs: MXNet's composition ignores Symbols given
        # as keyword inputs to it (``randn(data=sym)``), and so do we
        kwargs = {k: v for k, v in kwargs.items() if not isinstance(v, Symbol)}
        return _fn(random)(*params, **_given(shape=shape, dtype=dtype), **kwargs)
    raise ValueError("Distribution parameters must be either Symbol or numbers, but got "
                     f"{type(params[0])}.")


def uniform(low=0, high=1, shape=_Null, dtype=_Null, **kwargs) -> Symbol:
    """Uniform samples on ``[low, high)`` (``_random_uniform`` / ``_sample_uniform``)."""
    return _helper("_random_uniform", "_sample_uniform", [low, high], shape, dtype, kwargs)


def normal(loc=0, scale=1, shape=_Null, dtype=_Null, **kwargs) -> Symbol:
    """Normal samples with mean ``loc`` and standard deviation ``scale``."""
    return _helper("_random_normal", "_sample_normal", [loc, scale], shape, dtype, kwargs)


def randn(*shape, **kwargs) -> Symbol:
    """Normal samples of the given shape (``loc``, ``scale``, ``dtype`` as keywords)."""
    loc = kwargs.pop("loc", 0)
    scale = kwargs.pop("scale", 1)
    dtype = kwargs.pop("dtype", _Null)
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return _helper("_random_normal", "_sample_normal", [loc, scale], tuple(shape),
                   dtype, kwargs)


def randint(low, high, shape=_Null, dtype=_Null, **kwargs) -> Symbol:
    """Integers drawn uniformly from ``[low, high)``."""
    return _helper("_random_randint", None, [low, high], shape, dtype, kwargs)


def exponential(scale=1, shape=_Null, dtype=_Null, **kwargs) -> Symbol:
    """Exponential samples with mean ``scale`` (rate ``1 / scale``)."""
    return _helper("_random_exponential", "_sample_exponential", [1.0 / scale], shape, dtype,
                   kwargs)


def gamma(alpha=1, beta=1, shape=_Null, dtype=_Null, **kwargs) -> Symbol:
    """Gamma samples with shape ``alpha`` and scale ``beta``."""
    return _helper("_random_gamma", "_sample_gamma", [alpha, beta], shape, dtype, kwargs)


def poisson(lam=1, shape=_Null, dtype=_Null, **kwargs) -> Symbol:
    """Poisson samples with mean ``lam``."""
    return _helper("_random_poisson", "_sample_poisson", [lam], shape, dtype, kwargs)


def negative_binomial(k=1, p=1, shape=_Null, dtype=_Null, **kwargs) -> Symbol:
    """Failures before ``k`` successes of probability ``p``."""
    return _helper("_random_negative_binomial", "_sample_negative_binomial", [k, p], shape,
                   dtype, kwargs)


def generalized_negative_binomial(mu=1, alpha=1, shape=_Null, dtype=_Null,
                                  **kwargs) -> Symbol:
    """Generalized negative binomial samples with mean ``mu`` and dispersion ``alpha``."""
    return _helper("_random_generalized_negative_binomial",
                   "_sample_generalized_negative_binomial", [mu, alpha], shape, dtype, kwargs)


def multinomial(data, shape=_Null, get_prob=True, dtype="int32", **kwargs) -> Symbol:
    """Category indices drawn from the distributions along the last axis of ``data``."""
    return _fn("_sample_multinomial")(data, get_prob=get_prob, dtype=dtype,
                                      **_given(shape=shape), **kwargs)


def shuffle(data, **kwargs) -> Symbol:
    """``data`` with its first axis randomly permuted."""
    return _fn("_shuffle")(data, **kwargs)


_SHORT: dict = {}


def _short_fn(op_name: str):
    """The ``sym`` function of ``op_name`` under the sampler's short name, so that nodes
    are named ``normal_like0`` as in MXNet (not ``_random_normal_like0``)."""
    fn = _SHORT.get(op_name)
    if fn is None:
        from ..ops.registry import get_op
        from .register import make_function
        fn = _SHORT[op_name] = make_function(get_op(op_name), op_name[len("_random_"):])
    return fn


globals().update({k: like_sampler(_short_fn, op, names)
                  for k, (op, names) in LIKE_SAMPLERS.items()})
