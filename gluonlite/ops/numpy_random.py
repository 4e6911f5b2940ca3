"""Samplers of MXNet's NumPy interface (``mx.np.random``, ``mx.sym.np.random``) with
MXNet's names and attributes: ``_npi_uniform``, ``_npi_normal``, ``_npi_gamma``,
``_npi_exponential``, ``_npi_rayleigh``, ``_npi_weibull``, ``_npi_pareto``,
``_npi_powerd``, ``_npi_gumbel``, ``_npi_logistic`` and ``_npi_bernoulli``.

Each parameter is either a float attribute or, where that attribute is None, an array
input (``input1``, ``input2`` in parameter order).  The output has shape ``size`` when it
is given (the parameters broadcast to it), else the parameters' broadcast shape.  Every
draw comes from ``oc.rng`` (``mx.random.seed`` makes runs repeatable).  Gradients reach
array parameters by reparameterization: each sample is a differentiable function of its
parameters and of noise that does not depend on them, and that derivative is written from
the sample itself (``d(loc + scale * z)/d scale = (y - loc) / scale``).
"""
from __future__ import annotations

import numpy as np

from ..base import MXNetError
from . import random_sample as rs
from ._binary_math import reduce_to
from .attrs import Attr
from .common import fail, put
from .registry import OpDef, register

_F32 = np.dtype(np.float32)
_FLOATS = ("float16", "float32", "float64")


class RandomParamError(MXNetError, ValueError):
    """An invalid distribution parameter (MXNet reports a ``ValueError``)."""


def _any(v) -> bool:
    return bool(v.any()) if hasattr(v, "any") else bool(v)


def _positive(op, what, v, strict=True):
    if _any((v <= 0) if strict else (v < 0)):
        raise RandomParamError(f"Operator {op}: {what} must be "
                               f"{'positive' if strict else 'non-negative'}")


# distribution: (parameters, draw(xp, rng, params, shape), derivatives(params, y) -> list
# of dy/dparam (None: no gradient), check(op, params), has dtype attribute, doc)
def _uniform(xp, rng, p, shape):
    low, high = p
    return low + (high - low) * rs.uniform01(rng, shape)


def _uniform_d(xp, p, y):
    low, high = p
    width = high - low
    u = xp.where(width != 0, (y - low) / xp.where(width != 0, width, 1), 0)
    return [1 - u, u]


def _uniform_check(op, p):
    low, high = p
    if _any(high < low):
        raise RandomParamError(f"Operator {op}: low must be less or equal to high")


def _affine_d(xp, p, y):
    loc, scale = p
    return [xp.ones_like(y), (y - loc) / scale]


def _scale_check(op, p):
    _positive(op, "scale", p[-1], strict=False)


def _normal(xp, rng, p, shape):
    loc, scale = p
    return loc + scale * rs.standard_normal(rng, shape)


def _gumbel(xp, rng, p, shape):
    loc, scale = p
    return loc - scale * xp.log(rs.standard_exponential(rng, shape))


def _logistic(xp, rng, p, shape):
    loc, scale = p
    u = xp.clip(rs.uniform01(rng, shape), 1e-12, 1 - 1e-12)
    return loc + scale * xp.log(u / (1 - u))


def _gamma(xp, rng, p, shape):
    k, scale = p
    return rs.standard_gamma(rng, xp.broadcast_to(k, shape), shape) * scale


def _gamma_d(xp, p, y):
    k, scale = p
    return [None, y / scale]


def _gamma_check(op, p):
    _positive(op, "shape", p[0])
    _positive(op, "scale", p[1])


def _exponential(xp, rng, p, shape):
    return p[0] * rs.standard_exponential(rng, shape)


def _rayleigh(xp, rng, p, shape):
    return p[0] * xp.sqrt(2 * rs.standard_exponential(rng, shape))


def _last_scale_d(xp, p, y):
    return [y / p[0]]


def _weibull(xp, rng, p, shape):
    return rs.standard_exponential(rng, shape) ** (1 / p[0])


def _xlogx_d(xp, p, y):
    """d/da of ``e ** (1 / a)``: ``-y log(y) / a`` (0 where y is 0)."""
    a = p[0]
    safe = xp.where(y > 0, y, 1)
    return [-(y * xp.log(safe)) / a]


def _pareto(xp, rng, p, shape):
    return xp.expm1(rs.standard_exponential(rng, shape) / p[0])


def _pareto_d(xp, p, y):
    return [-((y + 1) * xp.log1p(y)) / p[0]]


def _powerd(xp, rng, p, shape):
    return (-xp.expm1(-rs.standard_exponential(rng, shape))) ** (1 / p[0])


def _a_check(op, p):
    _positive(op, "a", p[0])


_DISTS = {
    "uniform": (("low", "high"), _uniform, _uniform_d, _uniform_check, True,
                "uniform on ``[low, high)``"),
    "normal": (("loc", "scale"), _normal, _affine_d, _scale_check, True,
               "normal with mean ``loc`` and deviation ``scale``"),
    "gamma": (("shape", "scale"), _gamma, _gamma_d, _gamma_check, True,
              "gamma with ``shape`` and ``scale`` (no gradient for ``shape``)"),
    "exponential": (("scale",), _exponential, _last_scale_d, _scale_check, False,
                    "exponential with mean ``scale``"),
    "rayleigh": (("scale",), _rayleigh, _last_scale_d, _scale_check, False,
                 "Rayleigh with mode ``scale``"),
    "weibull": (("a",), _weibull, _xlogx_d, _a_check, False, "Weibull with shape ``a``"),
    "pareto": (("a",), _pareto, _pareto_d, _a_check, False,
               "Pareto II (Lomax) with shape ``a``"),
    "powerd": (("a",), _powerd, _xlogx_d, _a_check, False,
               "power distribution with exponent ``a - 1``"),
    "gumbel": (("loc", "scale"), _gumbel, _affine_d, _scale_check, False,
               "Gumbel with location ``loc`` and scale ``scale``"),
    "logistic": (("loc", "scale"), _logistic, _affine_d, _scale_check, False,
                 "logistic with location ``loc`` and scale ``scale``"),
}


def _array_params(attrs, names):
    return [n for n in names if getattr(attrs, n) is None]


def _out_shape(op, size, shapes):
    try:
        bshape = np.broadcast_shapes(*shapes) if shapes else ()
    except ValueError:
        fail(op, "the parameters do not broadcast together", *shapes)
    if size is None:
        return tuple(bshape)
    size = tuple(int(d) for d in size)
    try:
        ok = np.broadcast_shapes(bshape, size) == size
    except ValueError:
        ok = False
    if not ok:
        fail(op, f"the parameters do not broadcast to size {size}", *shapes)
    return size


def _params(xp, attrs, names, inputs, dt):
    """Every parameter as a float64 scalar (attribute) or array (input)."""
    arrays = iter(inputs)
    return [float(getattr(attrs, n)) if getattr(attrs, n) is not None
            else next(arrays).astype(np.float64, copy=False) for n in names]


def _register_dist(dist: str, names, draw, deriv, check, has_dtype: bool, what: str,
                   batch: bool = False):
    """Register ``_npi_<dist>``; with ``batch``, ``_npi_<dist>_n``, whose output shape is
    ``size`` (the batch shape) followed by the parameters' broadcast shape."""
    op = f"_npi_{dist}_n" if batch else f"_npi_{dist}"

    def shape_of(attrs, shapes):
        if batch:
            return tuple(attrs.size or ()) + _out_shape(op, None, shapes)
        return _out_shape(op, attrs.size, shapes)

    def out_dtype(attrs, in_dtypes=()):
        if not has_dtype:
            return _F32
        if attrs.dtype is None:  # gluonlite's "like the first array parameter"
            first = np.dtype(in_dtypes[0]) if in_dtypes and in_dtypes[0] is not None \
                else _F32
            return first if first.kind == "f" else _F32
        return np.dtype(attrs.dtype)

    def forward(oc, attrs, inputs, out):
        xp = oc.xp
        shape = shape_of(attrs, [x.shape for x in inputs])
        p = _params(xp, attrs, names, inputs, None)
        check(op, p)
        y = draw(xp, oc.rng, p, shape)
        odt = out_dtype(attrs, [x.dtype for x in inputs])
        return [put(out, 0, xp.asarray(y).astype(odt).reshape(shape))]

    def backward(oc, attrs, inputs, outputs, out_grads):
        xp = oc.xp
        p = _params(xp, attrs, names, inputs, None)
        y = outputs[0].astype(np.float64)
        ds = deriv(xp, p, y)
        g = out_grads[0].astype(np.float64)
        grads = []
        arrays = iter(inputs)
        for n, d in zip(names, ds):
            if getattr(attrs, n) is not None:
                continue
            x = next(arrays)
            gx = xp.zeros(x.shape, x.dtype) if d is None else \
                reduce_to(g * d, x.shape).astype(x.dtype)
            grads.append(gx)
        return grads

    def infer(attrs, in_shapes):
        if any(s is None for s in in_shapes):
            size = attrs.size
            return list(in_shapes), [None if size is None or batch else tuple(size)]
        return list(in_shapes), [shape_of(attrs, [tuple(s) for s in in_shapes])]

    def infer_type(op_, attrs, in_dtypes):
        return list(in_dtypes), [out_dtype(attrs, in_dtypes)]

    def input_names(attrs):
        return tuple(f"input{i + 1}" for i in range(len(_array_params(attrs, names))))

    attrs = {n: Attr("float", None, optional=True) for n in names}
    attrs.update(size=Attr("shape", None, optional=True), ctx=Attr("str", "cpu"))
    if has_dtype:  # MXNet's float32 default; None (gluonlite) follows the first array
        attrs["dtype"] = Attr("dtype", _F32, optional=True)
    register(OpDef(op, forward, backward=backward, inputs=input_names, attrs=attrs,
                   infer_shape=infer, infer_type=infer_type, random=True,
                   backward_uses=("inputs", "outputs"),
                   doc=f"Draw from the {what} distribution (parameters as attributes, or "
                       "as array inputs where the attribute is None; ``size`` gives the "
                       + ("batch shape, before the parameters' shape)." if batch else
                          "output shape).")))


for _dist, _spec in _DISTS.items():
    _register_dist(_dist, *_spec)
_register_dist("uniform", *_DISTS["uniform"], batch=True)
_register_dist("normal", *_DISTS["normal"], batch=True)


# -- bernoulli ----------------------------------------------------------------------------------
def _bern_forward(oc, attrs, inputs, out):
    xp = oc.xp
    op = "_npi_bernoulli"
    shape = _out_shape(op, attrs.size, [x.shape for x in inputs])
    given = attrs.logit if attrs.is_logit else attrs.prob
    p = xp.asarray(given if given is not None else inputs[0], dtype=np.float64)
    if attrs.is_logit:
        p = 1 / (1 + xp.exp(-p))
    elif bool(((p < 0) | (p > 1)).any()):
        raise RandomParamError(f"Operator {op}: prob must be in [0, 1]")
    y = rs.uniform01(oc.rng, shape) < p
    return [put(out, 0, xp.asarray(y).astype(attrs.dtype).reshape(shape))]


def _bern_infer(attrs, in_shapes):
    if any(s is None for s in in_shapes):
        return list(in_shapes), [None if attrs.size is None else tuple(attrs.size)]
    return list(in_shapes), [_out_shape("_npi_bernoulli", attrs.size,
                                        [tuple(s) for s in in_shapes])]


register(OpDef("_npi_bernoulli", _bern_forward,
               inputs=lambda attrs: ("input1",) if (attrs.logit if attrs.is_logit
                                                    else attrs.prob) is None else (),
               attrs={"prob": Attr("float", None, optional=True),
                      "logit": Attr("float", None, optional=True),
                      "size": Attr("shape", None, optional=True), "ctx": Attr("str", "cpu"),
                      "dtype": Attr("dtype", _F32), "is_logit": Attr("bool")},
               infer_shape=_bern_infer,
               infer_type=lambda op, attrs, d: (list(d), [np.dtype(attrs.dtype)]),
               random=True, differentiable=False,
               doc="Draw ones with probability ``prob`` (or ``sigmoid(logit)`` when "
                   "``is_logit``), zeros otherwise; the parameter is an attribute or an "
                   "array input."))


# -- choice ---------------------------------------------------------------------------------------
def _choice_forward(oc, attrs, inputs, out):
    xp = oc.xp
    op = "_npi_choice"
    ins = list(inputs)
    if attrs.a is None:  # the population is an array input: sample its indices
        pop = ins.pop(0)
        if pop.ndim != 1:
            fail(op, "a must be 1-dimensional", pop.shape)
        n = int(pop.shape[0])
    else:
        n = int(attrs.a)
    shape = tuple(attrs.size) if attrs.size is not None else ()
    count = int(np.prod(shape)) if shape else 1
    if n <= 0:
        raise RandomParamError(f"Operator {op}: a must be greater than 0, got {n}")
    if not attrs.replace and count > n:
        raise RandomParamError(f"Operator {op}: cannot take a larger sample than the "
                               "population when replace=False")
    if attrs.weighted:
        p = ins[0].astype(np.float64).reshape(-1)
        if p.shape[0] != n:
            fail(op, f"p must have as many entries as a ({n})", ins[0].shape)
    if attrs.replace:
        if attrs.weighted:  # inverse CDF
            cdf = xp.cumsum(p)
            u = rs.uniform01(oc.rng, (count,)) * cdf[-1]
            idx = xp.minimum(xp.searchsorted(cdf, u, side="right"), n - 1)
        else:
            idx = rs.integers(oc.rng, 0, n, (count,))
    else:  # Gumbel top-k: the ``count`` largest of log p + Gumbel noise
        keys = -xp.log(rs.standard_exponential(oc.rng, (n,)))
        if attrs.weighted:
            keys = keys + xp.log(xp.maximum(p, 1e-300))
        idx = xp.argsort(-keys, kind="stable")[:count]
    return [put(out, 0, xp.asarray(idx).astype(np.int64).reshape(shape))]


def _choice_inputs(attrs):
    n = (attrs.a is None) + bool(attrs.weighted)
    return tuple(f"input{i + 1}" for i in range(n))


register(OpDef("_npi_choice", _choice_forward, inputs=_choice_inputs,
               attrs={"a": Attr("int", None, optional=True),
                      "size": Attr("shape", None, optional=True),
                      "ctx": Attr("str", "cpu"), "replace": Attr("bool", True),
                      "weighted": Attr("bool", False)},
               infer_shape=lambda attrs, s: (list(s), [tuple(attrs.size or ())]),
               infer_type=lambda op, attrs, d: (list(d), [np.dtype(np.int64)]),
               random=True, differentiable=False,
               doc="Indices (``int64``) of a random sample of ``size`` from ``range(a)`` "
                   "(``a`` an attribute, or the length of a 1-d array input), uniform or "
                   "with probabilities given as the last input (``weighted``), with or "
                   "without replacement."))
