"""Elementwise unary math operators (``relu``, ``exp``, ``sin``, ``gamma``, ...).

Each is one :func:`_unary` call stating its math once in the expression form of
:mod:`.expr`: the output over ``x`` and ``dy/dx`` over ``x`` and ``y``.  From them come
the NumPy kernel, the NumPy backward, the CUDA expressions GPU fusion compiles and
the backward over ``F`` that higher-order gradients record.  A hand-tuned NumPy kernel
(``numpy=``, ``backward=``) replaces a generated one where it is faster or follows
MXNet's integer rules; the op harness checks it against the expression.

MXNet dtype rules: the output keeps the input dtype.  Ops marked ``native``
(abs, sign, rounding, negative, square, relu, logical_not) compute in integer
dtypes directly; the others compute integer inputs in float64 and cast the
result back (truncation, NaN and inf give the C cast's value).
"""
from __future__ import annotations

import math

import numpy as np

from .common import put, same_shape_infer
from .expr import (ElemMath, const, eq, fn, head_grad_kernel, isnan, logical_or,
                   numpy_kernel, var, where)
from .registry import OpDef, register

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
# MXNet evaluates these constants in float32
_DEG_PER_RAD = float(np.float32(180.0) / np.float32(math.pi))
_RAD_PER_DEG = float(np.float32(math.pi / 180.0))
_HALF_SQRT_PI = math.sqrt(math.pi) / 2.0
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


X, Y = var("x"), var("y")


def _as_float_compute(fwd):
    """Wrap ``fwd`` so integer inputs compute in float64 and cast back."""
    def run(xp, x):
        if x.dtype.kind in "fc":
            return fwd(xp, x)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            return fwd(xp, x.astype(np.float64)).astype(x.dtype)
    return run


# -- hand-tuned NumPy kernels: ``f(xp, x, out=None)``; with ``out`` each stays correct
# when ``out`` is ``x`` (x is read before out is written, or only in the first pass)
def _plain(name):
    """One ufunc call."""
    def kernel(xp, x, out=None):
        f = getattr(xp, name)
        return f(x) if out is None else f(x, out=out)
    return kernel


def _exp(xp, x, out=None):
    """``exp``; float32 on the CPU is computed in float64 and rounded once, as MXNet's
    ``expf`` (correctly rounded): NumPy's SIMD float32 ``exp`` is 1 ulp off for ~40%
    of inputs (``exp(1)`` gives 2.718282 instead of 2.7182817)."""
    if xp is np and x.dtype == np.float32:
        if out is None:
            return np.exp(x, dtype=np.float64).astype(np.float32)
        return np.exp(x, out=out, dtype=np.float64, casting="same_kind")
    return xp.exp(x) if out is None else xp.exp(x, out=out)


def _float_rounding(name):
    """A float rounding ufunc that leaves integers unchanged."""
    def kernel(xp, x, out=None):
        if x.dtype.kind == "f":
            return getattr(xp, name)(x) if out is None else getattr(xp, name)(x, out=out)
        if out is None:
            return x.copy()
        xp.copyto(out, x)
        return out
    return kernel


def _round_half_away(xp, x, out=None):
    """MXNet ``round``: halves go away from zero; integers unchanged."""
    if x.dtype.kind != "f":
        return x.copy() if out is None else _into(xp, x, out)
    t = xp.trunc(x)
    return _into(xp, xp.where(xp.abs(x - t) >= 0.5, t + xp.sign(x), t), out)


def _rint_half_down(xp, x, out=None):
    """MXNet ``rint``: nearest integer, halves go down (toward -inf); integers unchanged."""
    if x.dtype.kind != "f":
        return x.copy() if out is None else _into(xp, x, out)
    f = xp.floor(x)
    return _into(xp, xp.where(x - f > 0.5, xp.ceil(x), f), out)


def _into(xp, r, out):
    if out is None:
        return r
    xp.copyto(out, r)
    return out


def sigmoid_kernel(xp, x, out=None):
    """Logistic sigmoid (also ``Activation``'s)."""
    # one buffer, updated in place (1 / (1 + exp(-x)) makes three)
    y = xp.empty_like(x) if out is None else out  # an array for 0-d x too
    xp.negative(x, out=y)
    xp.exp(y, out=y)
    xp.add(y, 1, out=y)
    return xp.reciprocal(y, out=y)


def softsign_kernel(xp, x, out=None):
    """``x / (1 + |x|)`` (also ``Activation``'s)."""
    t = xp.abs(x)  # x is read again below, so not in out (which may be x)
    t += 1
    return xp.true_divide(x, t, out=out)


# -- relu: a cached 0-d zero per (array module, dtype) keeps xp.maximum fast ----------
_ZEROS: dict = {}


def _zero(xp, dtype):
    key = (xp, dtype)
    z = _ZEROS.get(key)
    if z is None:
        z = _ZEROS[key] = xp.zeros((), dtype=dtype)
    return z


def _relu(xp, x, out=None):
    if out is None:
        return xp.maximum(x, _zero(xp, x.dtype))
    return xp.maximum(x, _zero(xp, x.dtype), out=out)


def _relu_backward(xp, g, x, y):
    if y.dtype.kind == "f":
        # MXNet's relu_grad passes NaN through: heaviside(y, 0) is 1 above 0, 0 at 0 and
        # NaN at NaN, in one pass
        return g * xp.heaviside(y, _zero(xp, y.dtype))
    return g * (y > 0).astype(y.dtype)


def _unary(name, forward, grad, *, numpy=None, backward=None, native=False,
           fuse_int=False, aliases=(), doc=""):
    """Register one elementwise unary operator.

    Parameters
    ----------
    forward : Expr
        The output over ``x``.
    grad : Expr
        ``dy/dx`` over ``x`` and ``y``.
    numpy : callable, optional
        Hand-tuned kernel ``f(xp, x, out=None)`` replacing the generated one.
    backward : callable, optional
        Hand-tuned ``f(xp, g, x, y) -> g * dy/dx`` replacing the generated one.
    native : bool
        Integer inputs are computed in their own dtype, else in float64 and cast back.
    fuse_int : bool
        The C expression means the same on integers (the operator fuses on them).
    """
    grad = const(grad) if not isinstance(grad, type(X)) else grad
    math_ = ElemMath(forward, (grad,), ("x",))
    kernel = numpy or numpy_kernel(forward, ("x",))
    run = kernel if native else _as_float_compute(kernel)
    grad_kernel = backward or head_grad_kernel(grad, ("x", "y"))

    def forward_fn(oc, attrs, inputs, out):
        x = inputs[0]
        if out is not None:
            o = out[0]
            if o.dtype == x.dtype and (native or x.dtype.kind in "fc"):
                kernel(oc.xp, x, out=o)
                return [o]
        y = run(oc.xp, x)
        if y is x:
            y = x.copy()
        elif y.dtype is not x.dtype and y.dtype != x.dtype:
            y = y.astype(x.dtype)
        return [y] if out is None else [put(out, 0, y)]

    def backward_fn(oc, attrs, inputs, outputs, out_grads):
        x = inputs[0] if inputs is not None else None
        y = outputs[0] if outputs is not None else None
        g = out_grads[0]
        r = grad_kernel(oc.xp, g, x, y)
        return [r if r.dtype is g.dtype or r.dtype == g.dtype else r.astype(g.dtype)]

    register(OpDef(name, forward_fn, backward=backward_fn,
                   infer_shape=same_shape_infer(name), aliases=aliases,
                   math=math_, fuse_int=fuse_int, backward_uses=math_.reads(),
                   doc=doc or f"Elementwise ``{name}``.", listed_inputs=False))


_unary("relu", where(logical_or(X > 0, isnan(X)), X, 0), where(Y > 0, 1, where(isnan(Y), Y, 0)),
       numpy=_relu, backward=_relu_backward, native=True, fuse_int=True,
       doc="Rectified linear unit ``max(x, 0)``.")

# -- rounding (MXNet semantics) -------------------------------------------------------
_unary("round", fn.round(X), 0, numpy=_round_half_away, native=True,
       doc="Round to nearest, halves away from zero.")
_unary("rint", where(X - fn.floor(X) > 0.5, fn.ceil(X), fn.floor(X)), 0,
       numpy=_rint_half_down, native=True,
       doc="Round to nearest, halves toward -inf (MXNet ``rint``).")
_unary("ceil", fn.ceil(X), 0, numpy=_float_rounding("ceil"), native=True, doc="Ceiling.")
_unary("floor", fn.floor(X), 0, numpy=_float_rounding("floor"), native=True, doc="Floor.")
_unary("trunc", fn.trunc(X), 0, numpy=_float_rounding("trunc"), native=True,
       doc="Round toward zero.")
_unary("fix", fn.trunc(X), 0, numpy=_float_rounding("trunc"), native=True,
       doc="Round toward zero (MXNet ``fix``).")
_unary("sign", fn.sign(X), 0, native=True, fuse_int=True, doc="Sign: -1, 0 or 1.")
_unary("logical_not", eq(X, 0), 0, native=True, fuse_int=True,
       doc="1 where the input is 0, else 0, in the input dtype.")
# C's fabs would convert integers to double; the comparison keeps them exact
_unary("abs", where(X < 0, -X, X), fn.sign(X), numpy=_plain("abs"), native=True,
       fuse_int=True, doc="Absolute value.")
_unary("negative", -X, -1, native=True, fuse_int=True, doc="Numerical negative.")
_unary("square", X * X, 2 * X, numpy=_plain("square"), native=True, fuse_int=True,
       doc="Square.")

# -- exponentials, logarithms, powers ---------------------------------------------------
_unary("sigmoid", 1 / (1 + fn.exp(-X)), Y * (1 - Y), numpy=sigmoid_kernel, doc="Logistic sigmoid.")
_unary("softsign", X / (1 + fn.fabs(X)), 1 / ((1 + fn.fabs(X)) * (1 + fn.fabs(X))),
       numpy=softsign_kernel, doc="``x / (1 + |x|)``.")
_unary("exp", fn.exp(X), Y, numpy=_exp, doc="Exponential.")
_unary("expm1", fn.expm1(X), Y + 1, doc="``exp(x) - 1``.")
_unary("log", fn.log(X), 1 / X, doc="Natural logarithm.")
_unary("log10", fn.log10(X), 1 / (X * _LN10), doc="Base-10 logarithm.")
_unary("log2", fn.log2(X), 1 / (X * _LN2), doc="Base-2 logarithm.")
_unary("log1p", fn.log1p(X), 1 / (1 + X), doc="``log(1 + x)``.")
_unary("sqrt", fn.sqrt(X), 0.5 / Y, doc="Square root.")
_unary("rsqrt", fn.rsqrt(X), -0.5 * Y * Y * Y, doc="``1 / sqrt(x)``.")
_unary("cbrt", fn.cbrt(X), 1 / (3 * Y * Y), doc="Cube root.")
_unary("rcbrt", fn.rcbrt(X), -(Y * Y * Y * Y) / 3, doc="``1 / cbrt(x)``.")
_unary("reciprocal", 1 / X, -(Y * Y), doc="``1 / x``.")

# -- trigonometric and hyperbolic -------------------------------------------------------
_unary("sin", fn.sin(X), fn.cos(X), doc="Sine.")
_unary("cos", fn.cos(X), -fn.sin(X), doc="Cosine.")
_unary("tan", fn.tan(X), 1 + Y * Y, doc="Tangent.")
_unary("arcsin", fn.asin(X), fn.rsqrt(1 - X * X), doc="Inverse sine.")
_unary("arccos", fn.acos(X), -fn.rsqrt(1 - X * X), doc="Inverse cosine.")
_unary("arctan", fn.atan(X), 1 / (1 + X * X), doc="Inverse tangent.")
_unary("sinh", fn.sinh(X), fn.cosh(X), doc="Hyperbolic sine.")
_unary("cosh", fn.cosh(X), fn.sinh(X), doc="Hyperbolic cosine.")
_unary("tanh", fn.tanh(X), 1 - Y * Y, doc="Hyperbolic tangent.")
_unary("arcsinh", fn.asinh(X), fn.rsqrt(X * X + 1), doc="Inverse hyperbolic sine.")
_unary("arccosh", fn.acosh(X), fn.rsqrt(X * X - 1), doc="Inverse hyperbolic cosine.")
_unary("arctanh", fn.atanh(X), 1 / (1 - X * X), doc="Inverse hyperbolic tangent.")
_unary("degrees", X * _DEG_PER_RAD, _DEG_PER_RAD, doc="Radians to degrees.")
_unary("radians", X * _RAD_PER_DEG, _RAD_PER_DEG, doc="Degrees to radians.")

# -- special functions ------------------------------------------------------------------
_unary("erf", fn.erf(X), _TWO_OVER_SQRT_PI * fn.exp(-X * X), doc="Gauss error function.")
_unary("erfinv", fn.erfinv(X), _HALF_SQRT_PI * fn.exp(Y * Y), doc="Inverse error function.")
_unary("gamma", fn.tgamma(X), Y * fn.digamma(X), doc="Gamma function.")
_unary("gammaln", fn.lgamma(X), fn.digamma(X), doc="``log |Gamma(x)|``.")
