"""Random samplers with MXNet 1.9 names and attributes.

* ``_random_<dist>`` (no inputs): scalar parameters as attributes, ``shape``,
  ``ctx``, ``dtype`` (None: float32; ``_random_randint``: int32);
* ``_random_<dist>_like``: the shape and dtype of the input ``data``;
* ``_sample_<dist>``: parameters as arrays of one shape; the output has shape
  ``param.shape + shape`` (one draw of ``shape`` per parameter element);
* ``_sample_multinomial`` and ``_shuffle``.

Every draw comes from ``oc.rng``, the stream of the op's device, so that
``mx.random.seed(n)`` makes runs repeatable.  Samplers have no gradient, except
the log-probability output of ``_sample_multinomial(get_prob=True)``.
"""
from __future__ import annotations

import numpy as np

from . import random_sample as rs
from ..base import MXNetError
from ..util import is_np_shape
from .attrs import Attr
from .common import fail, put
from .registry import OpDef, register

_F32 = np.dtype("float32")
_FLOATS = (np.dtype("float16"), _F32, np.dtype("float64"))
_INTS = (np.dtype("int32"), np.dtype("int64"))


def _out_dtype(op: str, dtype, allowed=_FLOATS, default=_F32) -> np.dtype:
    if dtype is None:
        return default
    if dtype not in allowed:
        fail(op, f"dtype must be one of {[d.name for d in allowed]}, got {dtype}")
    return dtype


def _shape(op: str, shape) -> tuple:
    shape = tuple(shape)
    if is_np_shape():  # npx.set_np(): 0 is a zero-size axis, () a 0-d array
        if any(d is None or d < 0 for d in shape):
            fail(op, f"the output shape {shape} has a negative dimension")
        return shape
    if not shape or any(d is None or d <= 0 for d in shape):
        fail(op, f"the output shape {shape} is not fully given; pass shape=(d0, d1, ...)")
    return shape


# -- parameter checks for the scalar forms (MXNet's messages) ------------------------------
def _check_uniform(op, low, high):
    if not high >= low:
        fail(op, f"low must be less or equal to high in uniform distribution "
             f"(low={low}, high={high})")


def _check_normal(op, loc, scale):
    if not scale > 0:
        fail(op, f"scale parameter in gaussian has to be positive (scale={scale})")


def _check_gamma(op, alpha, beta):
    if not alpha > 0:
        fail(op, f"alpha parameter in gamma distribution has to be positive (alpha={alpha})")
    if not beta > 0:
        fail(op, f"beta parameter in gamma distribution has to be positive (beta={beta})")


def _check_exponential(op, lam):
    if not lam > 0:
        fail(op, f"lambda parameter in exponential distribution has to be positive "
             f"(lam={lam})")


def _check_poisson(op, lam):
    if not lam >= 0:
        fail(op, f"lambda parameter in poisson distribution has to be non-negative "
             f"(lam={lam})")


def _check_negative_binomial(op, k, p):
    if not k >= 0:
        fail(op, f"k parameter in negative binomial distribution has to be non-negative "
             f"(k={k})")
    if not 0 < p <= 1:
        fail(op, f"p parameter in negative binomial distribution has to be in (0, 1] (p={p})")


def _check_gnb(op, mu, alpha):
    if not mu >= 0:
        fail(op, f"mu parameter in generalized negative binomial distribution has to be "
             f"non-negative (mu={mu})")
    if not alpha >= 0:
        fail(op, f"alpha parameter in generalized negative binomial distribution has to be "
             f"non-negative (alpha={alpha})")


# name: ([(attr, kind, default)], sample input names, draw, check, doc)
_DISTS = {
    "uniform": ([("low", "float", 0.0), ("high", "float", 1.0)], ("low", "high"),
                rs.draw_uniform, _check_uniform, "uniform on ``[low, high)``"),
    "normal": ([("loc", "float", 0.0), ("scale", "float", 1.0)], ("mu", "sigma"),
               rs.draw_normal, _check_normal, "normal with mean ``loc`` and std ``scale``"),
    "gamma": ([("alpha", "float", 1.0), ("beta", "float", 1.0)], ("alpha", "beta"),
              rs.draw_gamma, _check_gamma, "gamma with shape ``alpha`` and scale ``beta``"),
    "exponential": ([("lam", "float", 1.0)], ("lam",), rs.draw_exponential,
                    _check_exponential, "exponential with rate ``lam``"),
    "poisson": ([("lam", "float", 1.0)], ("lam",), rs.draw_poisson, _check_poisson,
                "Poisson with mean ``lam``"),
    "negative_binomial": ([("k", "int", 1), ("p", "float", 1.0)], ("k", "p"),
                          rs.draw_negative_binomial, _check_negative_binomial,
                          "negative binomial: failures before ``k`` successes of "
                          "probability ``p``"),
    "generalized_negative_binomial": (
        [("mu", "float", 1.0), ("alpha", "float", 1.0)], ("mu", "alpha"),
        rs.draw_generalized_negative_binomial, _check_gnb,
        "generalized negative binomial with mean ``mu`` and dispersion ``alpha``"),
}


def _scalar_params(attrs, params):
    return [float(getattr(attrs, name)) for name, _, _ in params]


def _register_random(dist: str, params, draw, check, what: str) -> None:
    name = f"_random_{dist}"

    def forward(oc, attrs, inputs, out):
        values = _scalar_params(attrs, params)
        check(name, *values)
        dt = _out_dtype(name, attrs.dtype)
        size = out[0].shape if out is not None else _shape(name, attrs.shape)
        y = draw(oc.xp, oc.rng, values, size, _F32, dt)  # MXNet keeps the attributes as floats
        return [put(out, 0, y.astype(dt))]

    def infer(attrs, in_shapes):
        shape = tuple(attrs.shape)
        return [], [shape if shape else None]

    def infer_type(op, attrs, in_dtypes):
        return [], [_out_dtype(name, attrs.dtype)]

    attrs = {p: Attr(kind, default) for p, kind, default in params}
    attrs.update(shape=Attr("shape", ()), ctx=Attr("str", ""), dtype=Attr("dtype", None))
    aliases = (f"random_{dist}",) + ((dist,) if dist in ("uniform", "normal") else ())
    register(OpDef(name, forward, inputs=(), attrs=attrs, infer_shape=infer,
                   infer_type=infer_type, aliases=aliases, random=True, differentiable=False,
                   doc=f"Draw from the {what} distribution; ``shape`` gives the output "
                       "shape (MXNet ``random." + dist + "``)."))

    def forward_like(oc, attrs, inputs, out):
        data = inputs[0]
        values = _scalar_params(attrs, params)
        check(name + "_like", *values)
        y = draw(oc.xp, oc.rng, values, data.shape, _F32, data.dtype)
        return [put(out, 0, y.astype(data.dtype))]

    register(OpDef(name + "_like", forward_like, inputs=("data",),
                   attrs={p: Attr(kind, default) for p, kind, default in params},
                   infer_shape=lambda attrs, s: (s, [None if s[0] is None else tuple(s[0])]),
                   random=True, differentiable=False, elementwise=True,
                   doc=f"Draw from the {what} distribution with the shape and dtype of "
                       "``data``."))


def _register_sample(dist: str, inputs, draw, what: str) -> None:
    name = f"_sample_{dist}"

    def forward(oc, attrs, ins, out):
        xp = oc.xp
        pshape = ins[0].shape
        for p in ins[1:]:
            if p.shape != pshape:
                fail(name, "all parameter arrays must have the same shape",
                     *[q.shape for q in ins])
        extra = tuple(attrs.shape)
        dt = _out_dtype(name, attrs.dtype)
        bshape = pshape + (1,) * len(extra)
        values = [p.astype(np.float64).reshape(bshape) for p in ins]
        y = draw(xp, oc.rng, values, pshape + extra, ins[0].dtype, dt)
        return [put(out, 0, y.astype(dt))]

    def infer(attrs, in_shapes):
        known = next((s for s in in_shapes if s is not None), None)
        if known is None:
            return in_shapes, [None]
        return [tuple(known)] * len(in_shapes), [tuple(known) + tuple(attrs.shape)]

    def infer_type(op, attrs, in_dtypes):
        known = next((d for d in in_dtypes if d is not None), None)
        return [known] * len(in_dtypes), [_out_dtype(name, attrs.dtype)]

    register(OpDef(name, forward, inputs=inputs,
                   attrs={"shape": Attr("shape", ()), "dtype": Attr("dtype", None)},
                   infer_shape=infer, infer_type=infer_type, aliases=(f"sample_{dist}",),
                   random=True, differentiable=False,
                   doc=f"Draw from the {what} distribution with parameters given as arrays: "
                       "``shape`` draws per parameter element (MXNet ``sample_" + dist
                       + "``)."))


for _dist, (_params, _inputs, _draw, _check, _what) in _DISTS.items():
    _register_random(_dist, _params, _draw, _check, _what)
    _register_sample(_dist, _inputs, _draw, _what)


# -- randint --------------------------------------------------------------------------------
def _randint_fwd(oc, attrs, inputs, out):
    name = "_random_randint"
    if not attrs.low < attrs.high:
        fail(name, f"low must be less than high in randint (low={attrs.low}, "
             f"high={attrs.high})")
    dt = _out_dtype(name, attrs.dtype, _INTS, np.dtype("int32"))
    size = out[0].shape if out is not None else _shape(name, attrs.shape)
    y = rs.integers(oc.rng, attrs.low, attrs.high, size)
    return [put(out, 0, y.astype(dt))]


register(OpDef(
    "_random_randint", _randint_fwd, inputs=(),
    attrs={"low": Attr("int"), "high": Attr("int"), "shape": Attr("shape", ()),
           "ctx": Attr("str", ""), "dtype": Attr("dtype", None)},
    infer_shape=lambda attrs, s: ([], [tuple(attrs.shape) or None]),
    infer_type=lambda op, attrs, d: ([], [_out_dtype("_random_randint", attrs.dtype, _INTS,
                                                     np.dtype("int32"))]),
    aliases=("random_randint", "_npi_random_randint"), random=True, differentiable=False,
    doc="Integers drawn uniformly from ``[low, high)`` (MXNet ``random.randint``)."))


# -- multinomial ----------------------------------------------------------------------------
_MULTI_DTYPES = (np.dtype("float16"), _F32, np.dtype("float64"), np.dtype("int32"),
                 np.dtype("uint8"))


def _largest_exact_index(dt: np.dtype) -> int:
    """The largest integer that ``dt`` holds exactly (and every integer below it)."""
    if dt.kind in "iu":
        return int(np.iinfo(dt).max)
    return 2 ** (np.finfo(dt).nmant + 1)


def _check_index_range(dt: np.dtype, shape) -> None:
    """Category indices up to ``k - 1`` must be exact in the output dtype (MXNet 1.9.1
    writes wrapped or rounded indices instead; later MXNet raises, as we do)."""
    k = shape[-1]
    if k - 1 > _largest_exact_index(dt):
        raise MXNetError(f"Operator _sample_multinomial: dtype {dt.name} cannot represent "
                         f"the category indices of {k} categories exactly (at most "
                         f"{_largest_exact_index(dt) + 1}); data shape {tuple(shape)}")


def _multinomial_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    name = "_sample_multinomial"
    data = inputs[0]
    if data.ndim == 0 or data.shape[-1] == 0:
        fail(name, "data must hold probabilities along its last axis", data.shape)
    dt = _out_dtype(name, attrs.dtype, _MULTI_DTYPES, np.dtype("int32"))
    _check_index_range(dt, data.shape)
    k = data.shape[-1]
    batch = data.shape[:-1]
    extra = tuple(attrs.shape)
    n_draw = int(np.prod(extra, dtype=np.int64))
    probs = data.reshape(-1, k).astype(np.float64)
    cdf = xp.cumsum(probs, axis=1)
    u = rs.uniform01(oc.rng, (probs.shape[0], n_draw))
    idx = (cdf[:, None, :] <= u[:, :, None]).sum(axis=2)
    idx = xp.minimum(idx, k - 1)
    out_shape = (batch + extra) or (1,)
    res = [put(out, 0, idx.reshape(out_shape).astype(dt))]
    if attrs.get_prob:
        logp = xp.log(xp.take_along_axis(probs, idx, axis=1))
        res.append(put(out, 1, logp.reshape(out_shape).astype(data.dtype)))
    return res


def _multinomial_bwd(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    data = inputs[0]
    if not attrs.get_prob:
        return [xp.zeros(data.shape, dtype=data.dtype)]
    k = data.shape[-1]
    probs = data.reshape(-1, k)
    rows = probs.shape[0]
    idx = outputs[0].reshape(rows, -1).astype(np.int64)
    head = out_grads[1].reshape(rows, -1)
    hit = idx[:, :, None] == xp.arange(k)
    acc = (hit * head[:, :, None]).sum(axis=1)
    drawn = hit.any(axis=1)  # only drawn categories get a gradient (no 0/0 elsewhere)
    g = xp.where(drawn, acc / xp.where(drawn, probs, 1), 0)
    return [g.reshape(data.shape).astype(data.dtype, copy=False)]


def _multinomial_infer(attrs, in_shapes):
    data = in_shapes[0]
    n_out = 2 if attrs.get_prob else 1
    if data is None:
        return in_shapes, [None] * n_out
    if len(data) and data[-1]:
        _check_index_range(_out_dtype("_sample_multinomial", attrs.dtype, _MULTI_DTYPES,
                                      np.dtype("int32")), data)
    shape = (tuple(data[:-1]) + tuple(attrs.shape)) or (1,)
    return in_shapes, [shape] * n_out


def _multinomial_type(op, attrs, in_dtypes):
    dt = _out_dtype("_sample_multinomial", attrs.dtype, _MULTI_DTYPES, np.dtype("int32"))
    data = in_dtypes[0]
    return list(in_dtypes), [dt, data] if attrs.get_prob else [dt]


register(OpDef(
    "_sample_multinomial", _multinomial_fwd, backward=_multinomial_bwd, inputs=("data",),
    attrs={"shape": Attr("shape", ()), "get_prob": Attr("bool", False),
           "dtype": Attr("dtype", np.dtype("int32"))},
    num_outputs=lambda attrs: 2 if attrs.get_prob else 1,
    infer_shape=_multinomial_infer, infer_type=_multinomial_type,
    aliases=("sample_multinomial",), random=True, backward_uses=("inputs", "outputs"),
    doc="Draw category indices from the distributions along the last axis of ``data``; "
        "``get_prob`` adds the log-probability of each draw, whose gradient flows to "
        "``data`` (MXNet ``sample_multinomial``).", listed_inputs=False))


# -- shuffle ----------------------------------------------------------------------------------
def _shuffle_fwd(oc, attrs, inputs, out):
    data = inputs[0]
    perm = rs.permutation(oc.rng, data.shape[0])
    return [put(out, 0, oc.xp.take(data, perm, axis=0))]


register(OpDef(
    "_shuffle", _shuffle_fwd, inputs=("data",),
    infer_shape=lambda attrs, s: (s, [None if s[0] is None else tuple(s[0])]),
    elementwise=True, aliases=("shuffle", "_npi_shuffle"), random=True,
    differentiable=False,
    doc="Randomly permute ``data`` along its first axis (MXNet ``random.shuffle``)."))
