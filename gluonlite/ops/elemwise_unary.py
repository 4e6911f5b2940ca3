"""Elementwise unary math operators (``relu``, ``exp``, ``sin``, ``gamma``, ...).

Each is one :func:`_unary` call: forward on ``xp``, the derivative as a function
of (x, y), CUDA expressions of both for GPU fusion, and the derivative again as
operations of the ``F`` namespace the tape hands in (``graph``) for higher-order
gradients.

MXNet dtype rules: the output keeps the input dtype.  Ops marked ``native``
(abs, sign, rounding, negative, square, relu, logical_not) compute in integer
dtypes directly; the others compute integer inputs in float64 and cast the
result back (truncation, NaN and inf give the C cast's value).
"""
from __future__ import annotations

import math

import numpy as np

from . import special
from .common import put, same_shape_infer
from .registry import OpDef, register

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
# MXNet evaluates these constants in float32
_DEG_PER_RAD = float(np.float32(180.0) / np.float32(math.pi))
_RAD_PER_DEG = float(np.float32(math.pi / 180.0))
_HALF_SQRT_PI = math.sqrt(math.pi) / 2.0
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _zero_grad(xp, x, y):
    ref = x if x is not None else y
    return xp.zeros(ref.shape, dtype=ref.dtype)


def _zeros_graph(F, x, y):
    return F.zeros_like(x if x is not None else y)


def _as_float_compute(fwd):
    """Wrap ``fwd`` so integer inputs compute in float64 and cast back."""
    def run(xp, x):
        if x.dtype.kind in "fc":
            return fwd(xp, x)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            return fwd(xp, x.astype(np.float64)).astype(x.dtype)
    return run


def _uf(name):
    """``into`` of a plain ufunc: ``xp.<name>(x, out=o)``."""
    def into(xp, x, o):
        getattr(xp, name)(x, out=o)
    return into


def _exp(xp, x):
    """``exp``; float32 on the CPU is computed in float64 and rounded once, as MXNet's
    ``expf`` (correctly rounded): NumPy's SIMD float32 ``exp`` is 1 ulp off for ~40%
    of inputs (``exp(1)`` gives 2.718282 instead of 2.7182817)."""
    if xp is np and x.dtype == np.float32:
        return np.exp(x, dtype=np.float64).astype(np.float32)
    return xp.exp(x)


def _exp_into(xp, x, o):
    if xp is np and o.dtype == np.float32:
        np.exp(x, out=o, dtype=np.float64, casting="same_kind")
    else:
        xp.exp(x, out=o)


def _uf_or_copy(name):
    """``into`` of a float rounding ufunc that leaves integers unchanged."""
    def into(xp, x, o):
        if x.dtype.kind == "f":
            getattr(xp, name)(x, out=o)
        else:
            xp.copyto(o, x)
    return into


def _logical_not_into(xp, x, o):
    xp.equal(x, 0, out=o)  # the 0/1 result converts to o's dtype


def _sigmoid_into(xp, x, o):
    # the same passes as _sigmoid, in o
    xp.negative(x, out=o)
    xp.exp(o, out=o)
    xp.add(o, 1, out=o)
    xp.reciprocal(o, out=o)


def _softsign_into(xp, x, o):
    t = xp.abs(x)  # x is read again below, so not in o (which may be x)
    t += 1
    xp.true_divide(x, t, out=o)


def _recip_of(name):
    """``into`` of ``1 / f(x)``."""
    def into(xp, x, o):
        getattr(xp, name)(x, out=o)
        xp.true_divide(1, o, out=o)
    return into


def _reciprocal_into(xp, x, o):
    xp.true_divide(1, x, out=o)


def _scale_into(c):
    def into(xp, x, o):
        xp.multiply(x, c, out=o)
    return into


def _unary(name, fwd, dfdx, cuda, cuda_grad, aliases=(), uses=("inputs", "outputs"),
           differentiable=True, doc="", graph=None, native=False, into=None,
           fuse_int=False):
    """Register one elementwise unary operator.

    ``fwd(xp, x) -> y``; ``dfdx(xp, x, y) -> dy/dx``.  ``cuda`` is the CUDA C
    expression of ``y`` in terms of ``x``; ``cuda_grad`` that of ``dy/dx`` in
    terms of ``x``, ``y``.  ``graph(F, x, y) -> dy/dx`` computes the derivative from
    arrays with the recorded functions of ``F`` (higher-order gradients).  ``native``: integer
    inputs are computed in their own dtype, else in float64 and cast back.
    ``into(xp, x, o)``, optional, writes ``fwd(xp, x)`` straight into the buffer ``o``
    of ``x``'s dtype (same values, no copy); it must stay correct when ``o`` is ``x``
    (read ``x`` only in the first pass, or before ``o`` is written).  It serves every
    dtype of a ``native`` op and floating dtypes of the others.  ``fuse_int``: ``cuda``
    means the same in C on integers (the operator fuses on integer dtypes).
    """
    run = fwd if native else _as_float_compute(fwd)

    def forward(oc, attrs, inputs, out):
        x = inputs[0]
        if out is not None and into is not None:
            o = out[0]
            if o.dtype == x.dtype and (native or x.dtype.kind in "fc"):
                into(oc.xp, x, o)
                return [o]
        y = run(oc.xp, x)
        if y is x:
            y = x.copy()
        elif y.dtype != x.dtype:
            y = y.astype(x.dtype)
        return [put(out, 0, y)]

    def backward(oc, attrs, inputs, outputs, out_grads):
        x = inputs[0] if inputs is not None else None
        y = outputs[0] if outputs is not None else None
        d = dfdx(oc.xp, x, y)
        g = out_grads[0] * d
        return [g if g.dtype == out_grads[0].dtype else g.astype(out_grads[0].dtype)]

    backward_graph = None
    if graph is not None:
        def backward_graph(F, attrs, inputs, outputs, out_grads):
            x = inputs[0] if inputs is not None else None
            y = outputs[0] if outputs is not None else None
            return [out_grads[0] * graph(F, x, y)]

    register(OpDef(name, forward, backward=backward if differentiable else None,
                   infer_shape=same_shape_infer(name), aliases=aliases,
                   cuda=cuda, cuda_grad=(cuda_grad,) if cuda_grad else None,
                   fuse_int=fuse_int, backward_uses=uses, backward_graph=backward_graph,
                   doc=doc or f"Elementwise ``{name}``.", listed_inputs=False))


# -- relu: a cached 0-d zero per (array module, dtype) keeps xp.maximum fast ----------
_ZEROS: dict = {}


def _zero(xp, dtype):
    key = (xp, dtype)
    z = _ZEROS.get(key)
    if z is None:
        z = _ZEROS[key] = xp.zeros((), dtype=dtype)
    return z


def _relu_forward(oc, attrs, inputs, out):
    x = inputs[0]
    xp = oc.xp
    if out is None:
        return [xp.maximum(x, _zero(xp, x.dtype))]
    return [xp.maximum(x, _zero(xp, x.dtype), out=out[0])]


def _relu_backward(oc, attrs, inputs, outputs, out_grads):
    y = outputs[0]
    if y.dtype.kind == "f":
        # MXNet's relu_grad passes NaN through: heaviside(y, 0) is 1 above 0, 0 at 0 and
        # NaN at NaN, in one pass
        return [out_grads[0] * oc.xp.heaviside(y, _zero(oc.xp, y.dtype))]
    return [out_grads[0] * (y > 0).astype(y.dtype)]


def _relu_graph(F, attrs, inputs, outputs, out_grads):
    return [out_grads[0] * F.sign(outputs[0])]


register(OpDef("relu", _relu_forward, backward=_relu_backward,
               infer_shape=same_shape_infer("relu"), cuda="y = (x > 0 || x != x) ? x : 0",
               cuda_grad=("y > 0 ? 1 : (y != y ? y : 0)",), fuse_int=True, backward_uses=("outputs",),
               backward_graph=_relu_graph, doc="Rectified linear unit ``max(x, 0)``.",
               listed_inputs=False))


# -- rounding (MXNet semantics) -------------------------------------------------------
def _round_half_away(xp, x):
    """MXNet ``round``: halves go away from zero."""
    if x.dtype.kind != "f":
        return x.copy()
    t = xp.trunc(x)
    return xp.where(xp.abs(x - t) >= 0.5, t + xp.sign(x), t)


def _rint_half_down(xp, x):
    """MXNet ``rint``: nearest integer, halves go down (toward -inf)."""
    if x.dtype.kind != "f":
        return x.copy()
    f = xp.floor(x)
    return xp.where(x - f > 0.5, xp.ceil(x), f)


def _int_identity(op):
    return lambda xp, x: op(x) if x.dtype.kind == "f" else x.copy()


_NAT = dict(native=True, uses=("inputs",), graph=_zeros_graph)
_unary("round", _round_half_away, _zero_grad, "y = round(x)", "0",
       doc="Round to nearest, halves away from zero.", **_NAT)
_unary("rint", _rint_half_down, _zero_grad, "y = (x - floor(x)) > 0.5 ? ceil(x) : floor(x)",
       "0", doc="Round to nearest, halves toward -inf (MXNet ``rint``).", **_NAT)
_unary("ceil", lambda xp, x: xp.ceil(x) if x.dtype.kind == "f" else x.copy(), _zero_grad,
       "y = ceil(x)", "0", doc="Ceiling.", **_NAT, into=_uf_or_copy("ceil"))
_unary("floor", lambda xp, x: xp.floor(x) if x.dtype.kind == "f" else x.copy(), _zero_grad,
       "y = floor(x)", "0", doc="Floor.", **_NAT, into=_uf_or_copy("floor"))
_unary("trunc", lambda xp, x: xp.trunc(x) if x.dtype.kind == "f" else x.copy(), _zero_grad,
       "y = trunc(x)", "0", doc="Round toward zero.", **_NAT, into=_uf_or_copy("trunc"))
_unary("fix", lambda xp, x: xp.trunc(x) if x.dtype.kind == "f" else x.copy(), _zero_grad,
       "y = trunc(x)", "0", doc="Round toward zero (MXNet ``fix``).", **_NAT, into=_uf_or_copy("trunc"))
_unary("sign", lambda xp, x: xp.sign(x), _zero_grad, "y = (x > 0) - (x < 0)", "0",
       doc="Sign: -1, 0 or 1.", **_NAT, into=_uf("sign"), fuse_int=True)
_unary("logical_not", lambda xp, x: (x == 0).astype(x.dtype), _zero_grad, "y = !x", "0",
       doc="1 where the input is 0, else 0, in the input dtype.", **_NAT,
       into=_logical_not_into, fuse_int=True)
_unary("abs", lambda xp, x: xp.abs(x), lambda xp, x, y: xp.sign(x),
       "y = x < 0 ? -x : x", "(x > 0) - (x < 0)", native=True, uses=("inputs",),
       graph=lambda F, x, y: F.sign(x), doc="Absolute value.", into=_uf("abs"),
       fuse_int=True)
_unary("negative", lambda xp, x: xp.negative(x), lambda xp, x, y: -xp.ones_like(x),
       "y = -x", "-1", native=True, uses=("inputs",),
       graph=lambda F, x, y: -F.ones_like(x), doc="Numerical negative.",
       into=_uf("negative"), fuse_int=True)
_unary("square", lambda xp, x: xp.square(x), lambda xp, x, y: 2 * x, "y = x * x", "2 * x",
       native=True, uses=("inputs",), graph=lambda F, x, y: 2 * x, doc="Square.",
       into=_uf("square"), fuse_int=True)

# -- exponentials, logarithms, powers ---------------------------------------------------
def _sigmoid(xp, x):
    # one temporary, updated in place (1 / (1 + exp(-x)) makes three)
    y = xp.empty_like(x)  # an array for 0-d x too (ufuncs return scalars there)
    xp.negative(x, out=y)
    xp.exp(y, out=y)
    y += 1
    return xp.reciprocal(y, out=y)


_unary("sigmoid", _sigmoid, lambda xp, x, y: y * (1 - y),
       "y = 1 / (1 + exp(-x))", "y * (1 - y)", uses=("outputs",),
       graph=lambda F, x, y: y * (1 - y), doc="Logistic sigmoid.", into=_sigmoid_into)
_unary("softsign", lambda xp, x: x / (1 + xp.abs(x)),
       lambda xp, x, y: 1 / xp.square(1 + xp.abs(x)), "y = x / (1 + fabs(x))",
       "1 / ((1 + fabs(x)) * (1 + fabs(x)))", uses=("inputs",),
       graph=lambda F, x, y: 1 / F.square(1 + F.abs(x)), doc="``x / (1 + |x|)``.", into=_softsign_into)
_unary("exp", lambda xp, x: _exp(xp, x), lambda xp, x, y: y, "y = exp(x)", "y",
       uses=("outputs",), graph=lambda F, x, y: y, doc="Exponential.", into=_exp_into)
_unary("expm1", lambda xp, x: xp.expm1(x), lambda xp, x, y: y + 1, "y = expm1(x)", "y + 1",
       uses=("outputs",), graph=lambda F, x, y: y + 1, doc="``exp(x) - 1``.", into=_uf("expm1"))
_unary("log", lambda xp, x: xp.log(x), lambda xp, x, y: 1 / x, "y = log(x)", "1 / x",
       uses=("inputs",), graph=lambda F, x, y: F.reciprocal(x), doc="Natural logarithm.", into=_uf("log"))
_unary("log10", lambda xp, x: xp.log10(x), lambda xp, x, y: 1 / (x * _LN10),
       "y = log10(x)", f"1 / (x * {_LN10!r})", uses=("inputs",),
       graph=lambda F, x, y: F.reciprocal(x) * (1 / _LN10), doc="Base-10 logarithm.", into=_uf("log10"))
_unary("log2", lambda xp, x: xp.log2(x), lambda xp, x, y: 1 / (x * _LN2),
       "y = log2(x)", f"1 / (x * {_LN2!r})", uses=("inputs",),
       graph=lambda F, x, y: F.reciprocal(x) * (1 / _LN2), doc="Base-2 logarithm.", into=_uf("log2"))
_unary("log1p", lambda xp, x: xp.log1p(x), lambda xp, x, y: 1 / (1 + x), "y = log1p(x)",
       "1 / (1 + x)", uses=("inputs",), graph=lambda F, x, y: F.reciprocal(x + 1),
       doc="``log(1 + x)``.", into=_uf("log1p"))
_unary("sqrt", lambda xp, x: xp.sqrt(x), lambda xp, x, y: 0.5 / y, "y = sqrt(x)",
       "0.5 / y", uses=("outputs",), graph=lambda F, x, y: 0.5 * F.reciprocal(y),
       doc="Square root.", into=_uf("sqrt"))
_unary("rsqrt", lambda xp, x: 1 / xp.sqrt(x), lambda xp, x, y: -0.5 * y * y * y,
       "y = rsqrt(x)", "-0.5 * y * y * y", uses=("outputs",),
       graph=lambda F, x, y: -0.5 * y * y * y, doc="``1 / sqrt(x)``.", into=_recip_of("sqrt"))
_unary("cbrt", lambda xp, x: xp.cbrt(x), lambda xp, x, y: 1 / (3 * y * y), "y = cbrt(x)",
       "1 / (3 * y * y)", uses=("outputs",),
       graph=lambda F, x, y: F.reciprocal(3 * y * y), doc="Cube root.", into=_uf("cbrt"))
_unary("rcbrt", lambda xp, x: 1 / xp.cbrt(x), lambda xp, x, y: -(y * y * y * y) / 3,
       "y = rcbrt(x)", "-(y * y * y * y) / 3", uses=("outputs",),
       graph=lambda F, x, y: (y * y * y * y) * (-1.0 / 3), doc="``1 / cbrt(x)``.", into=_recip_of("cbrt"))
_unary("reciprocal", lambda xp, x: 1 / x, lambda xp, x, y: -(y * y), "y = 1 / x",
       "-(y * y)", uses=("outputs",), graph=lambda F, x, y: -(y * y), doc="``1 / x``.", into=_reciprocal_into)

# -- trigonometric and hyperbolic -------------------------------------------------------
_unary("sin", lambda xp, x: xp.sin(x), lambda xp, x, y: xp.cos(x), "y = sin(x)", "cos(x)",
       uses=("inputs",), graph=lambda F, x, y: F.cos(x), doc="Sine.", into=_uf("sin"))
_unary("cos", lambda xp, x: xp.cos(x), lambda xp, x, y: -xp.sin(x), "y = cos(x)",
       "-sin(x)", uses=("inputs",), graph=lambda F, x, y: -F.sin(x), doc="Cosine.", into=_uf("cos"))
_unary("tan", lambda xp, x: xp.tan(x), lambda xp, x, y: 1 + y * y, "y = tan(x)",
       "1 + y * y", uses=("outputs",), graph=lambda F, x, y: y * y + 1, doc="Tangent.", into=_uf("tan"))
_unary("arcsin", lambda xp, x: xp.arcsin(x), lambda xp, x, y: 1 / xp.sqrt(1 - x * x),
       "y = asin(x)", "rsqrt(1 - x * x)", uses=("inputs",),
       graph=lambda F, x, y: F.rsqrt(1 - x * x), doc="Inverse sine.", into=_uf("arcsin"))
_unary("arccos", lambda xp, x: xp.arccos(x), lambda xp, x, y: -1 / xp.sqrt(1 - x * x),
       "y = acos(x)", "-rsqrt(1 - x * x)", uses=("inputs",),
       graph=lambda F, x, y: -F.rsqrt(1 - x * x), doc="Inverse cosine.", into=_uf("arccos"))
_unary("arctan", lambda xp, x: xp.arctan(x), lambda xp, x, y: 1 / (1 + x * x),
       "y = atan(x)", "1 / (1 + x * x)", uses=("inputs",),
       graph=lambda F, x, y: F.reciprocal(x * x + 1), doc="Inverse tangent.", into=_uf("arctan"))
_unary("sinh", lambda xp, x: xp.sinh(x), lambda xp, x, y: xp.cosh(x), "y = sinh(x)",
       "cosh(x)", uses=("inputs",), graph=lambda F, x, y: F.cosh(x),
       doc="Hyperbolic sine.", into=_uf("sinh"))
_unary("cosh", lambda xp, x: xp.cosh(x), lambda xp, x, y: xp.sinh(x), "y = cosh(x)",
       "sinh(x)", uses=("inputs",), graph=lambda F, x, y: F.sinh(x),
       doc="Hyperbolic cosine.", into=_uf("cosh"))
_unary("tanh", lambda xp, x: xp.tanh(x), lambda xp, x, y: 1 - y * y, "y = tanh(x)",
       "1 - y * y", uses=("outputs",), graph=lambda F, x, y: 1 - y * y,
       doc="Hyperbolic tangent.", into=_uf("tanh"))
_unary("arcsinh", lambda xp, x: xp.arcsinh(x), lambda xp, x, y: 1 / xp.sqrt(x * x + 1),
       "y = asinh(x)", "rsqrt(x * x + 1)", uses=("inputs",),
       graph=lambda F, x, y: F.rsqrt(x * x + 1), doc="Inverse hyperbolic sine.", into=_uf("arcsinh"))
_unary("arccosh", lambda xp, x: xp.arccosh(x), lambda xp, x, y: 1 / xp.sqrt(x * x - 1),
       "y = acosh(x)", "rsqrt(x * x - 1)", uses=("inputs",),
       graph=lambda F, x, y: F.rsqrt(x * x - 1), doc="Inverse hyperbolic cosine.", into=_uf("arccosh"))
_unary("arctanh", lambda xp, x: xp.arctanh(x), lambda xp, x, y: 1 / (1 - x * x),
       "y = atanh(x)", "1 / (1 - x * x)", uses=("inputs",),
       graph=lambda F, x, y: F.reciprocal(1 - x * x), doc="Inverse hyperbolic tangent.", into=_uf("arctanh"))
_unary("degrees", lambda xp, x: x * _DEG_PER_RAD, lambda xp, x, y: xp.full_like(x, _DEG_PER_RAD),
       "y = x * " + repr(_DEG_PER_RAD), repr(_DEG_PER_RAD), uses=("inputs",),
       graph=lambda F, x, y: F.ones_like(x) * _DEG_PER_RAD, doc="Radians to degrees.", into=_scale_into(_DEG_PER_RAD))
_unary("radians", lambda xp, x: x * _RAD_PER_DEG, lambda xp, x, y: xp.full_like(x, _RAD_PER_DEG),
       "y = x * " + repr(_RAD_PER_DEG), repr(_RAD_PER_DEG), uses=("inputs",),
       graph=lambda F, x, y: F.ones_like(x) * _RAD_PER_DEG, doc="Degrees to radians.", into=_scale_into(_RAD_PER_DEG))

# -- special functions ------------------------------------------------------------------
_unary("erf", special.erf, lambda xp, x, y: _TWO_OVER_SQRT_PI * xp.exp(-x * x),
       "y = erf(x)", f"{_TWO_OVER_SQRT_PI!r} * exp(-x * x)", uses=("inputs",),
       graph=lambda F, x, y: F.exp(-(x * x)) * _TWO_OVER_SQRT_PI, doc="Gauss error function.")
_unary("erfinv", special.erfinv, lambda xp, x, y: _HALF_SQRT_PI * xp.exp(y * y),
       "y = erfinv(x)", f"{_HALF_SQRT_PI!r} * exp(y * y)", uses=("outputs",),
       graph=lambda F, x, y: F.exp(y * y) * _HALF_SQRT_PI, doc="Inverse error function.")
_unary("gamma", special.gamma, lambda xp, x, y: y * special.digamma(xp, x),
       "y = tgamma(x)", None, uses=("inputs", "outputs"), doc="Gamma function.")
_unary("gammaln", special.gammaln, lambda xp, x, y: special.digamma(xp, x),
       "y = lgamma(x)", None, uses=("inputs",), doc="``log |Gamma(x)|``.")
