"""Densities of MXNet's sampling distributions (``random_pdf_*``) and the unique
Zipfian sampler ``_sample_unique_zipfian``, with MXNet 1.9 names and attributes.

``_random_pdf_<dist>(sample, *params, is_log=False)`` (public alias
``random_pdf_<dist>``) evaluates the density (or, for the discrete distributions,
the probability mass) of ``sample`` under distributions whose parameters are arrays
of one shape ``P``:

* ``sample`` has shape ``P + E``: each parameter element is the distribution of the
  ``E``-shaped block of samples below it (``E`` may be empty); the output has the
  sample's shape;
* ``_random_pdf_dirichlet``: ``alpha`` has shape ``P + (k,)``, ``sample`` shape
  ``P + E + (k,)`` and the output shape ``P + E`` (``(1,)`` when that is empty).

As MXNet does, the formulas are evaluated as written, without support checks
(a uniform density is ``1 / (high - low)`` everywhere, a Poisson mass uses
``lgamma(x + 1)`` for any real ``x``), the density is ``exp`` of the log-density,
and the gradient of the density is the density times the gradient of the
log-density.  Gradients flow to the samples (zero for the discrete distributions
and for the uniform) and to every parameter (summed over ``E``).  Everything is
computed in float64 and cast to the inputs' dtype (float16, float32 or float64).
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from .attrs import Attr
from .common import fail, merge_shapes, put
from .registry import OpDef, register
from .special import digamma, gammaln

__all__: list = []

_FLOATS = (np.dtype("float16"), np.dtype("float32"), np.dtype("float64"))
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
_QUIET = {"divide": "ignore", "invalid": "ignore", "over": "ignore"}


def _digamma(xp, v):
    """``digamma`` as MXNet's kernels evaluate it at 0: the largest float64, not inf
    (so that a zero ``k``/``alpha`` gives MXNet's gradients)."""
    return xp.where(v == 0, np.finfo(np.float64).max, digamma(xp, v))


# -- log-densities and their gradients ------------------------------------------------------
# ``logpdf(xp, x, params)`` and ``grads(xp, x, params) -> (d/dx or None, [d/dparam])``
# take float64 arrays already broadcast against each other.
def _uniform_log(xp, x, p):
    low, high = p
    return xp.broadcast_to(-xp.log(high - low), x.shape)


def _uniform_grads(xp, x, p):
    low, high = p
    return None, [1.0 / (high - low), 1.0 / (low - high)]


def _normal_log(xp, x, p):
    mu, sigma = p
    z = (x - mu) / sigma
    return -0.5 * z * z - xp.log(sigma) - _HALF_LOG_2PI


def _normal_grads(xp, x, p):
    mu, sigma = p
    d = (x - mu) / (sigma * sigma)
    z = (x - mu) / sigma
    return -d, [d, (z * z - 1.0) / sigma]


def _gamma_log(xp, x, p):
    alpha, beta = p
    return alpha * xp.log(beta) + (alpha - 1.0) * xp.log(x) - beta * x - gammaln(xp, alpha)


def _gamma_grads(xp, x, p):
    alpha, beta = p
    return ((alpha - 1.0) / x - beta,
            [xp.log(beta) + xp.log(x) - _digamma(xp, alpha), alpha / beta - x])


def _exponential_log(xp, x, p):
    (lam,) = p
    return xp.log(lam) - lam * x


def _exponential_grads(xp, x, p):
    (lam,) = p
    return xp.broadcast_to(-lam, x.shape), [1.0 / lam - x]


def _poisson_log(xp, x, p):
    (lam,) = p
    return x * xp.log(lam) - lam - gammaln(xp, x + 1.0)


def _poisson_grads(xp, x, p):
    (lam,) = p
    return None, [x / lam - 1.0]


def _nb_log_kp(xp, x, k, prob):
    return (gammaln(xp, x + k) - gammaln(xp, x + 1.0) - gammaln(xp, k)
            + k * xp.log(prob) + x * xp.log(1.0 - prob))


def _nb_dk_dp(xp, x, k, prob):
    dk = _digamma(xp, x + k) - _digamma(xp, k) + xp.log(prob)
    dp = k / prob - x / (1.0 - prob)
    return dk, dp


def _negative_binomial_log(xp, x, p):
    k, prob = p
    return _nb_log_kp(xp, x, k, prob)


def _negative_binomial_grads(xp, x, p):
    k, prob = p
    return None, list(_nb_dk_dp(xp, x, k, prob))


def _gnb_kp(mu, alpha):
    """The negative binomial's ``k = 1 / alpha`` and ``p = 1 / (1 + mu * alpha)``."""
    return 1.0 / alpha, 1.0 / (1.0 + mu * alpha)


def _gnb_log(xp, x, p):
    mu, alpha = p
    k, prob = _gnb_kp(mu, alpha)
    return _nb_log_kp(xp, x, k, prob)


def _gnb_grads(xp, x, p):
    mu, alpha = p
    k, prob = _gnb_kp(mu, alpha)
    dk, dp = _nb_dk_dp(xp, x, k, prob)
    # chain rule: dk/dalpha = -1/alpha^2, dp/dmu = -alpha p^2, dp/dalpha = -mu p^2
    p2 = prob * prob
    return None, [-alpha * p2 * dp, -dk / (alpha * alpha) - mu * p2 * dp]


def _dirichlet_log(xp, x, p):
    (alpha,) = p
    return (gammaln(xp, alpha.sum(axis=-1)) - gammaln(xp, alpha).sum(axis=-1)
            + ((alpha - 1.0) * xp.log(x)).sum(axis=-1))


def _dirichlet_grads(xp, x, p):
    (alpha,) = p
    total = alpha.sum(axis=-1, keepdims=True)
    return (alpha - 1.0) / x, [_digamma(xp, total) - _digamma(xp, alpha) + xp.log(x)]


# name: (parameter names, log-density, gradients, what it is)
_DISTS: dict = {
    "uniform": (("low", "high"), _uniform_log, _uniform_grads,
                "uniform distributions on ``[low, high)``"),
    "normal": (("mu", "sigma"), _normal_log, _normal_grads,
               "normal distributions with mean ``mu`` and standard deviation ``sigma``"),
    "gamma": (("alpha", "beta"), _gamma_log, _gamma_grads,
              "gamma distributions with shape ``alpha`` and rate ``beta``"),
    "exponential": (("lam",), _exponential_log, _exponential_grads,
                    "exponential distributions with rate ``lam``"),
    "poisson": (("lam",), _poisson_log, _poisson_grads,
                "Poisson distributions with rate ``lam``"),
    "negative_binomial": (("k", "p"), _negative_binomial_log, _negative_binomial_grads,
                          "negative binomial distributions (``k`` successes of "
                          "probability ``p``)"),
    "generalized_negative_binomial": (
        ("mu", "alpha"), _gnb_log, _gnb_grads,
        "generalized negative binomial distributions with mean ``mu`` and dispersion "
        "``alpha`` (``k = 1 / alpha``, ``p = 1 / (1 + mu * alpha)``)"),
    "dirichlet": (("alpha",), _dirichlet_log, _dirichlet_grads,
                  "Dirichlet distributions with concentrations ``alpha``"),
}


# -- shapes and dtypes -------------------------------------------------------------------------
def _check_dtypes(op: str, names: tuple, dtypes: list) -> np.dtype | None:
    known = None
    for name, d in zip(names, dtypes):
        if d is None:
            continue
        d = np.dtype(d)
        if d not in _FLOATS:
            fail(op, f"this operation only supports floating point types, not {d.name} "
                     f"(input '{name}')")
        if known is not None and d != known:
            fail(op, f"input '{name}' has dtype {d.name}, expected {known.name} like the "
                     "other inputs")
        known = known or d
    return known


def _check_shapes(op: str, dirichlet: bool, sample: tuple, params: list) -> None:
    pshape = tuple(params[0])
    if any(tuple(p) != pshape for p in params[1:]):
        fail(op, "all parameter arrays must have the same shape", sample, *params)
    if dirichlet:
        ok = (len(pshape) >= 1 and len(sample) >= len(pshape)
              and tuple(sample[:len(pshape) - 1]) == pshape[:-1]
              and sample[-1] == pshape[-1])
        what = ("alpha must have shape P + (k,) for samples of shape P + E + (k,) "
                "(alpha's last dimension the samples' last dimension, its leading "
                "dimensions the samples' leftmost ones)")
    else:
        ok = len(sample) >= len(pshape) and tuple(sample[:len(pshape)]) == pshape
        what = ("the shape of the distribution parameters must match the leftmost "
                "dimensions of sample")
    if not ok:
        fail(op, what, sample, *params)


def _out_shape(dirichlet: bool, sample) -> tuple:
    sample = tuple(sample)
    return (sample[:-1] or (1,)) if dirichlet else sample


def _broadcast_params(dirichlet: bool, sample_ndim: int, params: list) -> list:
    """The parameters reshaped to broadcast against the samples."""
    pnd = params[0].ndim
    extra = sample_ndim - pnd
    if dirichlet:
        shape = params[0].shape[:-1] + (1,) * extra + params[0].shape[-1:]
    else:
        shape = params[0].shape + (1,) * extra
    return [p.astype(np.float64).reshape(shape) for p in params]


def _reduce_to(xp, g, pshape: tuple, dirichlet: bool, sample_ndim: int):
    """Sum a gradient broadcast over the samples back to the parameters' shape."""
    pnd = len(pshape)
    if dirichlet:
        axes = tuple(range(pnd - 1, sample_ndim - 1))
    else:
        axes = tuple(range(pnd, sample_ndim))
    if axes:
        g = g.sum(axis=axes)
    return g.reshape(pshape)


def _register_pdf(dist: str, pnames: tuple, logpdf: Callable, grads: Callable,
                  what: str) -> None:
    name = f"_random_pdf_{dist}"
    dirichlet = dist == "dirichlet"
    inputs = ("sample",) + pnames

    def prepare(xp, ins):
        sample, params = ins[0], list(ins[1:])
        dt = _check_dtypes(name, inputs, [a.dtype for a in ins])
        _check_shapes(name, dirichlet, sample.shape, [p.shape for p in params])
        x = sample.astype(np.float64)
        return dt, x, _broadcast_params(dirichlet, x.ndim, params)

    def forward(oc, attrs, ins, out):
        xp = oc.xp
        dt, x, params = prepare(xp, ins)
        with np.errstate(**_QUIET):  # inf/nan are results here, as in MXNet
            y = logpdf(xp, x, params)
            if not attrs.is_log:
                y = xp.exp(y)
        y = xp.asarray(y).reshape(_out_shape(dirichlet, ins[0].shape))
        return [put(out, 0, y.astype(dt))]

    def backward(oc, attrs, ins, outputs, out_grads):
        with np.errstate(**_QUIET):
            return gradients(oc.xp, attrs, ins, out_grads)

    def gradients(xp, attrs, ins, out_grads):
        dt, x, params = prepare(xp, ins)
        head = out_grads[0].astype(np.float64)
        if dirichlet:
            head = head.reshape(ins[0].shape[:-1])
        scale = head
        if not attrs.is_log:
            scale = head * xp.exp(logpdf(xp, x, params))
        if dirichlet:
            scale = scale[..., None]
        dx, dps = grads(xp, x, params)
        if dx is None:
            gx = xp.zeros(ins[0].shape, dtype=dt)
        else:
            gx = xp.broadcast_to(scale * dx, ins[0].shape).astype(dt)
        pshape = tuple(ins[1].shape)
        gps = []
        for dp in dps:
            full = xp.broadcast_to(scale * dp, x.shape)
            gps.append(_reduce_to(xp, full, pshape, dirichlet, x.ndim).astype(dt))
        return [gx] + gps

    def infer_shape(attrs, in_shapes):
        sample, params = in_shapes[0], in_shapes[1:]
        pshape = None
        for s in params:
            pshape = merge_shapes(name, "distribution parameters", pshape, s)
        out = None
        if sample is not None:
            sample = tuple(sample)
            out = _out_shape(dirichlet, sample)
            if pshape is not None and all(sample) and all(pshape):
                _check_shapes(name, dirichlet, sample, [pshape] * len(params))
        return [sample] + [pshape] * len(params), [out]

    def infer_type(op, attrs, in_dtypes):
        dt = _check_dtypes(name, inputs, list(in_dtypes))
        return [dt] * len(in_dtypes), [dt]

    shape_doc = ("``alpha`` of shape ``P + (k,)``, ``sample`` of shape ``P + E + (k,)``, "
                 "output of shape ``P + E``" if dirichlet else
                 "parameters of one shape ``P``, ``sample`` of shape ``P + E`` "
                 "(the output's)")
    register(OpDef(
        name, forward, backward=backward, inputs=inputs,
        attrs={"is_log": Attr("bool", False)},
        infer_shape=infer_shape, infer_type=infer_type, aliases=(f"random_pdf_{dist}",),
        backward_uses=("inputs",),
        doc=f"Density of ``sample`` under {what}; {shape_doc}.  ``is_log`` gives the "
            f"log-density (MXNet ``random_pdf_{dist}``)."))


for _dist, (_pnames, _log, _grads, _what) in _DISTS.items():
    _register_pdf(_dist, _pnames, _log, _grads, _what)


# -- unique Zipfian sampling -------------------------------------------------------------------
_ZIPF = "_sample_unique_zipfian"


def _zipf_shape(attrs) -> tuple:
    shape = attrs.shape
    if shape is None or len(tuple(shape)) != 2:
        fail(_ZIPF, f"shape must be 2-D (batch_size, num_sampled), got {shape}")
    batch, num = (int(d) for d in shape)
    if num > attrs.range_max:
        fail(_ZIPF, f"number of samples cannot exceed the number of possible classes "
                    f"({num} vs. range_max {attrs.range_max})")
    return batch, num


def _zipf_draw(xp, rng, log_range: float, range_max: int, size):
    """Classes ``round(exp(u * log(range_max))) - 1`` for ``u`` uniform on ``[0, 1)``: what
    MXNet 1.9's kernel draws (measured: ``P(c) = log((c + 1.5) / (c + 0.5)) /
    log(range_max)`` with the ends clipped to ``[1, range_max]``, not the docstring's
    ``log((c + 2) / (c + 1)) / log(range_max + 1)``)."""
    from . import random_sample as rs
    u = rs.uniform01(rng, size)
    v = xp.floor(xp.exp(u * log_range) + 0.5).astype(np.int64) - 1
    return xp.minimum(v, range_max - 1)


def _zipf_forward(oc, attrs, inputs, out):
    xp = oc.xp
    batch, num = _zipf_shape(attrs)
    samples = xp.zeros((batch, num), dtype=np.int64)
    trials = xp.zeros((batch,), dtype=np.int64)
    if batch and num:
        range_max = int(attrs.range_max)
        log_range = math.log(range_max)
        rows = xp.arange(batch)[:, None]
        draws = _zipf_draw(xp, oc.rng, log_range, range_max, (batch, 2 * num + 16))
        while True:
            total = draws.shape[1]
            # first occurrence of each value in its row: sort by (value, position)
            key = draws * total + xp.arange(total, dtype=np.int64)
            order = xp.argsort(key, axis=1)
            ordered = xp.take_along_axis(draws, order, axis=1)
            new_sorted = xp.ones(draws.shape, dtype=bool)
            new_sorted[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
            first = xp.zeros(draws.shape, dtype=bool)
            first[rows, order] = new_sorted
            count = xp.cumsum(first, axis=1)
            if bool((count[:, -1] >= num).all()):
                break
            # keep drawing (the same number again) until every row has ``num`` classes
            more = _zipf_draw(xp, oc.rng, log_range, range_max, (batch, total))
            draws = xp.concatenate([draws, more], axis=1)
        trials = xp.argmax(count >= num, axis=1).astype(np.int64) + 1
        r, c = xp.nonzero(first & (count <= num))
        samples[r, count[r, c] - 1] = draws[r, c]
    return [put(out, 0, samples), put(out, 1, trials)]


def _zipf_infer(attrs, in_shapes):
    shape = attrs.shape
    if shape is None or len(tuple(shape)) != 2:
        return [], [None, None]
    shape = tuple(shape)
    return [], [shape, (shape[0],)]


register(OpDef(
    _ZIPF, _zipf_forward, inputs=(),
    attrs={"range_max": Attr("int"), "shape": Attr("shape", None)},
    num_outputs=2, infer_shape=_zipf_infer,
    infer_type=lambda op, attrs, d: ([], [np.dtype(np.int64), np.dtype(np.int64)]),
    random=True, differentiable=False,
    doc="For each of ``shape[0]`` rows, ``shape[1]`` distinct classes in "
        "``[0, range_max)`` drawn without replacement from an approximately log-uniform "
        "(Zipfian) distribution (int64), in the order first drawn, and the number of "
        "draws each row took (MXNet ``_sample_unique_zipfian``)."))
