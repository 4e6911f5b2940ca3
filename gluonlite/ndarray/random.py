"""``mx.nd.random``: MXNet 1.9's random sampling API.

Each sampler takes its distribution parameters either as numbers, and then
draws ``shape`` samples with ``_random_<dist>`` (one sample when neither
``shape`` nor ``out`` is given), or as NDArrays of one shape, and then draws
``shape`` samples per parameter element with ``_sample_<dist>``.  Mixing the
two raises, as in MXNet.  ``mx.random.seed`` makes the draws repeatable.
"""
from __future__ import annotations

import numbers

import numpy as np

from ..base import MXNetError

__all__ = ["uniform", "normal", "randn", "randint", "exponential", "gamma", "poisson",
           "negative_binomial", "generalized_negative_binomial", "multinomial", "shuffle",
           "uniform_like", "normal_like", "exponential_like", "gamma_like", "poisson_like",
           "negative_binomial_like", "generalized_negative_binomial_like"]


class _NullType:
    """Marks an argument the caller did not give (MXNet's ``_Null``)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "_Null"

    def __bool__(self) -> bool:
        return False


_Null = _NullType()


def _fn(name: str):
    from . import _api  # imported lazily: _api needs the operator registry loaded
    return _api.function(name)


def _is_nd(x) -> bool:
    from .ndarray import NDArray
    return isinstance(x, NDArray)


def _given(**kwargs) -> dict:
    return {k: v for k, v in kwargs.items() if v is not _Null}


def _random_helper(random: str, sampler: str | None, params: list, shape, dtype, ctx, out,
                   kwargs: dict):
    """Dispatch to the scalar sampler ``random`` or the array sampler ``sampler``."""
    if out is not None and dtype is _Null:
        # draw in out's dtype, so the sampler refuses an integer out (as MXNet does)
        # instead of the draws being truncated into it
        dtype = np.dtype(out.dtype).name
    if _is_nd(params[0]):
        for p in params[1:]:
            if not _is_nd(p):
                raise AssertionError("Distribution parameters must all have the same type, "
                                     f"but got both {type(params[0])} and {type(p)}.")
        if sampler is None:
            raise MXNetError(f"{random}: the distribution parameters must be numbers")
        return _fn(sampler)(*params, out=out, **_given(shape=shape, dtype=dtype), **kwargs)
    if isinstance(params[0], numbers.Number):
        for p in params[1:]:
            if not isinstance(p, numbers.Number):
                raise AssertionError("Distribution parameters must all have the same type, "
                                     f"but got both {type(params[0])} and {type(p)}.")
        if shape is _Null:
            shape = 1 if out is None else tuple(out.shape)
        if isinstance(shape, numbers.Integral):
            shape = (int(shape),)
        from ..context import current_context
        return _fn(random)(*params, out=out, ctx=ctx if ctx is not None else current_context(),
                           **_given(shape=shape, dtype=dtype), **kwargs)
    raise ValueError("Distribution parameters must be either NDArray or numbers, but got "
                     f"{type(params[0])}.")


def uniform(low=0, high=1, shape=_Null, dtype=_Null, ctx=None, out=None, **kwargs):
    """Samples from the uniform distribution on ``[low, high)``.

    Parameters
    ----------
    low, high : float or NDArray
        Bounds; NDArrays give one distribution per element (``_sample_uniform``).
    shape : int or tuple of int, optional
        Samples per distribution (the output shape for scalar parameters).
    dtype : {'float16', 'float32', 'float64'}, optional
        Output dtype (float32 by default).
    ctx : Context, optional
        Device of the output (scalar parameters only).
    out : NDArray, optional
        Where to write the samples.

    Returns
    -------
    NDArray
    """
    return _random_helper("_random_uniform", "_sample_uniform", [low, high], shape, dtype,
                          ctx, out, kwargs)


def normal(loc=0, scale=1, shape=_Null, dtype=_Null, ctx=None, out=None, **kwargs):
    """Samples from the normal distribution with mean ``loc`` and std ``scale``
    (see :func:`uniform` for the arguments)."""
    return _random_helper("_random_normal", "_sample_normal", [loc, scale], shape, dtype,
                          ctx, out, kwargs)


def randn(*shape, **kwargs):
    """Normal samples of the given shape: ``randn(2, 3, loc=0, scale=1, dtype=None,
    ctx=None, out=None)``."""
    loc = kwargs.pop("loc", 0)
    scale = kwargs.pop("scale", 1)
    dtype = kwargs.pop("dtype", _Null)
    ctx = kwargs.pop("ctx", None)
    out = kwargs.pop("out", None)
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return _random_helper("_random_normal", "_sample_normal", [loc, scale],
                          tuple(shape) if shape else _Null, dtype, ctx, out, kwargs)


def randint(low, high, shape=_Null, dtype=_Null, ctx=None, out=None, **kwargs):
    """Integers drawn uniformly from ``[low, high)`` (int32 by default; int64 allowed)."""
    return _random_helper("_random_randint", None, [low, high], shape, dtype, ctx, out,
                          kwargs)


def exponential(scale=1, shape=_Null, dtype=_Null, ctx=None, out=None, **kwargs):
    """Samples from the exponential distribution with mean ``scale`` (rate ``1 / scale``)."""
    return _random_helper("_random_exponential", "_sample_exponential", [1.0 / scale], shape,
                          dtype, ctx, out, kwargs)


def gamma(alpha=1, beta=1, shape=_Null, dtype=_Null, ctx=None, out=None, **kwargs):
    """Samples from the gamma distribution with shape ``alpha`` and scale ``beta``."""
    return _random_helper("_random_gamma", "_sample_gamma", [alpha, beta], shape, dtype,
                          ctx, out, kwargs)


def poisson(lam=1, shape=_Null, dtype=_Null, ctx=None, out=None, **kwargs):
    """Samples from the Poisson distribution with mean ``lam`` (as floats)."""
    return _random_helper("_random_poisson", "_sample_poisson", [lam], shape, dtype, ctx,
                          out, kwargs)


def negative_binomial(k=1, p=1, shape=_Null, dtype=_Null, ctx=None, out=None, **kwargs):
    """Samples of the number of failures before ``k`` successes of probability ``p``."""
    return _random_helper("_random_negative_binomial", "_sample_negative_binomial", [k, p],
                          shape, dtype, ctx, out, kwargs)


def generalized_negative_binomial(mu=1, alpha=1, shape=_Null, dtype=_Null, ctx=None,
                                  out=None, **kwargs):
    """Samples from the generalized negative binomial distribution with mean ``mu`` and
    dispersion ``alpha`` (variance ``mu + alpha * mu**2``)."""
    return _random_helper("_random_generalized_negative_binomial",
                          "_sample_generalized_negative_binomial", [mu, alpha], shape, dtype,
                          ctx, out, kwargs)


def multinomial(data, shape=_Null, get_prob=False, out=None, dtype="int32", **kwargs):
    """Category indices drawn from the distributions along the last axis of ``data``.

    Parameters
    ----------
    data : NDArray
        Probabilities, shape ``(..., k)``.
    shape : int or tuple of int, optional
        Draws per distribution.
    get_prob : bool
        Also return the log-probability of each draw (differentiable with respect to
        ``data``, for REINFORCE-style gradients).
    dtype : str
        Dtype of the indices (int32 by default).

    Returns
    -------
    NDArray or list of NDArray
    """
    return _fn("_sample_multinomial")(data, out=out, get_prob=get_prob, dtype=dtype,
                                      **_given(shape=shape), **kwargs)


def shuffle(data, **kwargs):
    """A copy of ``data`` with its first axis randomly permuted."""
    return _fn("_shuffle")(data, **kwargs)


# ``<name>_like`` samplers: the registry operator and its distribution parameters
LIKE_SAMPLERS = {
    "uniform_like": ("_random_uniform_like", ("low", "high")),
    "normal_like": ("_random_normal_like", ("loc", "scale")),
    "gamma_like": ("_random_gamma_like", ("alpha", "beta")),
    "exponential_like": ("_random_exponential_like", ("lam",)),
    "poisson_like": ("_random_poisson_like", ("lam",)),
    "negative_binomial_like": ("_random_negative_binomial_like", ("k", "p")),
    "generalized_negative_binomial_like": ("_random_generalized_negative_binomial_like",
                                           ("mu", "alpha")),
}


def like_sampler(lookup, op_name: str, names: tuple):
    """``f(data, *params, **kwargs)`` calling ``lookup(op_name)`` (the ``nd`` or ``sym``
    function of the operator) with the parameters by name; shared by ``nd.random``
    and ``sym.random``."""
    def sampler(data=None, *args, out=None, name=None, **kwargs):
        if len(args) > len(names):
            raise MXNetError(f"{op_name}: too many positional arguments")
        params = dict(zip(names, args))
        params.update({k: kwargs.pop(k) for k in names if k in kwargs})
        if name is not None:
            kwargs["name"] = name
        return lookup(op_name)(data, out=out, **_given(**params), **kwargs)
    short = op_name[len("_random_"):]
    sampler.__name__ = sampler.__qualname__ = short
    sampler.__doc__ = (f"Samples with the shape and dtype of ``data`` (``{op_name}``); "
                       f"parameters: {', '.join(names)}.")
    return sampler


globals().update({k: like_sampler(_fn, op, names) for k, (op, names) in LIKE_SAMPLERS.items()})
