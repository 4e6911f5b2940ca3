"""Shared math of the elementwise binary operators (no operator is registered here).

One :class:`BinaryMath` per function (``add``, ``mod``, ``greater``, ...) serves the
same-shape operators (``elemwise_add``, ``_mod``), the broadcasting ones
(``broadcast_add``) and the scalar ones (``_plus_scalar``, ``_rmod_scalar``).

MXNet's rules, checked against MXNet 1.9.1:

* the output has the inputs' dtype; comparisons and logical functions give 0/1
  in that dtype and have a zero gradient;
* integer division truncates toward zero (``-7 / 2 == -3``); ``mod`` follows
  the sign of the divisor like Python (``-7 % 2 == 1``, ``7 % -2 == -1``), also
  for floats, and ``x % 0 == 0``;
* integer ``power`` is the float64 power cast back to the integer type like a C cast
  (``2 ** -1 == 0``; overflow gives the type's minimum);
* ``maximum`` sends the gradient to ``lhs`` at ties (``lhs >= rhs``), ``minimum``
  too (``lhs <= rhs``);
* ``mod``'s gradient is ``1`` for ``lhs`` and ``-floor(lhs / rhs)`` for ``rhs``.

Each function's math is written once in the expression form (:mod:`.expr`); the CUDA
expressions, the NumPy gradients and the recorded gradients are generated from it.
Forward functions take ``(xp, a, b, out)``: ``a`` and ``b`` arrays of one dtype
(or one of them a scalar already converted to that dtype) and ``out`` a buffer or
``None``.  ``ffwd`` is used for floating dtypes and ``ifwd`` for integer ones.
Gradient functions take ``(xp, a, b, y, g)`` and return the gradient with respect
to ``a`` (``glhs``) or ``b`` (``grhs``), before any reduction over broadcast axes.
The op harness checks the hand-tuned forwards and gradients against the expressions.
"""
from __future__ import annotations

import contextlib

import numpy as np

from .expr import (ElemMath, Expr, const, eq, fn, head_grad_kernel, isnan, logical_and,
                   logical_or, ne, var, where)

__all__ = ["BinaryMath", "MATH", "quiet", "reduce_to", "int_scalar", "c_cast"]


def quiet(xp):
    """A context silencing NumPy's floating point warnings (CuPy never warns)."""
    if xp is np:
        return np.errstate(all="ignore")
    return contextlib.nullcontext()


def _ufunc(name):
    def fwd(xp, a, b, out):
        f = getattr(xp, name)
        return f(a, b) if out is None else f(a, b, out=out)
    return fwd


def _to_dtype(y, like_dtype, out):
    if out is not None:
        out[...] = y
        return out
    return y if y.dtype == like_dtype else y.astype(like_dtype)


def _bool_result(ufunc):
    """Forward of a comparison/logical function: 0/1 in the inputs' dtype.

    Into a given buffer, ``xp.<ufunc>(a, b, out=out)`` converts the boolean result
    straight into the buffer's dtype (bool to any numeric dtype is a safe cast)."""
    def fwd(xp, a, b, out):
        f = getattr(xp, ufunc)
        if out is not None:
            return f(a, b, out=out)
        return f(a, b).astype(_arr_dtype(a, b))
    return fwd


def _arr_dtype(a, b):
    if getattr(a, "ndim", 0):
        return a.dtype
    if getattr(b, "ndim", 0):
        return b.dtype
    return np.result_type(a, b)


def _safe_divisor(xp, b):
    return xp.where(b == 0, 1, b) if getattr(b, "ndim", 0) else (b if b != 0 else b + 1)


# -- forward functions ---------------------------------------------------------------
def _idiv(xp, a, b, out):
    """Integer division truncating toward zero; ``x / 0`` gives 0."""
    dt = _arr_dtype(a, b)
    if out is not None and not getattr(b, "ndim", 0) and b != 0 and out.dtype == dt:
        # a scalar divisor that is not 0: the passes below, the last one into out
        r = xp.fmod(a, b)
        xp.subtract(a, r, out=r)
        return xp.floor_divide(r, b, out=out)
    bs = _safe_divisor(xp, b)
    r = xp.fmod(a, bs)
    q = xp.floor_divide(a - r, bs)
    if getattr(b, "ndim", 0):
        q = xp.where(b == 0, 0, q)
    elif b == 0:
        q = xp.zeros_like(q)
    return _to_dtype(q, dt, out)


def _mod(xp, a, b, out):
    """Python-style remainder (sign of the divisor); ``x % 0`` gives 0."""
    dt = _arr_dtype(a, b)
    if out is not None and not getattr(b, "ndim", 0) and b != 0 and out.dtype == dt:
        return xp.mod(a, b, out=out)
    bs = _safe_divisor(xp, b)
    r = xp.mod(a, bs)
    if getattr(b, "ndim", 0):
        r = xp.where(b == 0, 0, r)
    elif b == 0:
        r = xp.zeros_like(r)
    return _to_dtype(r, dt, out)


def c_cast(xp, y, dtype):
    """Floats to an integer ``dtype`` as MXNet's C casts give them on x86: truncation
    toward zero; NaN and values out of the int32 range (int64 for 8-byte types) give
    that type's minimum, narrower types keep the low bits."""
    big = 2.0 ** 63 if dtype.itemsize == 8 else 2.0 ** 31
    with quiet(xp):
        ok = xp.abs(y) < big
        y = xp.where(ok, xp.trunc(y), -big)
    return y.astype(np.int64).astype(dtype)


def _ipow(xp, a, b, out):
    """Integer power computed in float64 and cast back, as MXNet does
    (``2 ** -1 == 0``, ``0 ** -1 == INT_MIN``)."""
    dt = _arr_dtype(a, b)
    with quiet(xp):
        y = xp.power(xp.asarray(a, dtype=np.float64), xp.asarray(b, dtype=np.float64))
    return _to_dtype(c_cast(xp, y, dt), dt, out)


def _ihypot(xp, a, b, out):
    dt = _arr_dtype(a, b)
    return _to_dtype(xp.hypot(xp.asarray(a, dtype=np.float64),
                              xp.asarray(b, dtype=np.float64)), dt, out)


# -- hand-tuned gradients (MXNet's integer rule for mod) --------------------------------
def _floor_div(xp, a, b):
    with quiet(xp):
        return xp.floor(xp.true_divide(a, b))


def _mod_grad_lhs(xp, a, b, y, g):
    # MXNet: mod between integers has zero gradients
    return xp.zeros_like(g) if g.dtype.kind in "iu" else g


def _mod_grad_rhs(xp, a, b, y, g):
    if g.dtype.kind in "iu":
        return xp.zeros_like(g)
    return -g * _floor_div(xp, a, b)


LHS, RHS, Y = var("lhs"), var("rhs"), var("y")
_NAMES = ("lhs", "rhs", "y")


def _grad_fn(d: Expr):
    """``f(xp, a, b, y, g)``: the head gradient times ``d``, generated from the expression."""
    kernel = head_grad_kernel(d, _NAMES)
    return lambda xp, a, b, y, g: kernel(xp, g, a, b, y)


class BinaryMath:
    """One binary function, its math written once (:class:`~.expr.ElemMath` over ``lhs``,
    ``rhs`` and the output ``y``), with its hand-tuned NumPy forwards.

    Attributes
    ----------
    name : str
        Short name (``add``, ``greater_equal``).
    math : ElemMath
        The forward and both partial derivatives; the CUDA expressions, the generated
        NumPy gradients and the recorded (``F``) gradients come from it.
    ffwd, ifwd : callable
        Forward for floating and integer dtypes: ``f(xp, a, b, out)``.
    glhs, grhs : callable
        Gradients ``f(xp, a, b, y, g)``: hand-tuned where given, else generated.
    fuse_int : bool
        The C expression means on integers what the math computes there
        (``OpDef.fuse_int``).
    ufunc : str or None
        The plain ufunc when one ``xp`` call does the forward for every dtype.
    """

    def __init__(self, name, forward: Expr, grads=(0, 0), ffwd=None, ifwd=None,
                 glhs=None, grhs=None, ufunc=None, fuse_int=False):
        self.name = name
        self.math = ElemMath(forward, tuple(const(d) if not isinstance(d, Expr) else d
                                            for d in grads), ("lhs", "rhs"))
        self.fuse_int = fuse_int
        self.ufunc = ufunc
        self.ffwd = ffwd or _ufunc(ufunc)
        self.ifwd = ifwd or self.ffwd
        dl, dr = self.math.grads
        self.glhs = glhs or _grad_fn(dl)
        self.grhs = grhs or _grad_fn(dr)

    @property
    def zero_grad(self) -> bool:
        """True for comparisons and logical functions."""
        return all(d.kind == "const" and d.args[0] == 0 for d in self.math.grads)


def _cmp(name, expr, ufunc):
    return BinaryMath(name, expr, ffwd=_bool_result(ufunc), fuse_int=True)


def _fmod_python(a, b):
    """Python's remainder (sign of the divisor) from C's exact ``fmod``; ``x % 0`` is 0
    (``lhs - floor(lhs / rhs) * rhs`` would lose the remainder in float32)."""
    r = fn.fmod(a, b)
    return where(eq(b, 0), 0, where(logical_and(ne(r, 0), ne(r < 0, b < 0)), r + b, r))


_NONZERO_L, _NONZERO_R = ne(LHS, 0), ne(RHS, 0)

MATH: dict[str, BinaryMath] = {m.name: m for m in [
    BinaryMath("add", LHS + RHS, (1, 1), ufunc="add", fuse_int=True),
    BinaryMath("sub", LHS - RHS, (1, -1), ufunc="subtract", fuse_int=True),
    BinaryMath("mul", LHS * RHS, (RHS, LHS), ufunc="multiply", fuse_int=True),
    BinaryMath("div", LHS / RHS, (1 / RHS, -LHS / (RHS * RHS)), _ufunc("true_divide"), _idiv),
    BinaryMath("mod", _fmod_python(LHS, RHS), (1, -fn.floor(LHS / RHS)), _mod, _mod,
               glhs=_mod_grad_lhs, grhs=_mod_grad_rhs),
    BinaryMath("power", fn.pow(LHS, RHS), (RHS * fn.pow(LHS, RHS - 1), Y * fn.log(LHS)),
               _ufunc("power"), _ipow),
    # NaN in lhs propagates; ties send the gradient to lhs
    BinaryMath("maximum", where(logical_or(LHS >= RHS, isnan(LHS)), LHS, RHS),
               (LHS >= RHS, LHS < RHS), ufunc="maximum", fuse_int=True),
    BinaryMath("minimum", where(logical_or(LHS <= RHS, isnan(LHS)), LHS, RHS),
               (LHS <= RHS, LHS > RHS), ufunc="minimum", fuse_int=True),
    BinaryMath("hypot", fn.hypot(LHS, RHS), (LHS / Y, RHS / Y), _ufunc("hypot"), _ihypot),
    _cmp("equal", eq(LHS, RHS), "equal"),
    _cmp("not_equal", ne(LHS, RHS), "not_equal"),
    _cmp("greater", LHS > RHS, "greater"),
    _cmp("greater_equal", LHS >= RHS, "greater_equal"),
    _cmp("lesser", LHS < RHS, "less"),
    _cmp("lesser_equal", LHS <= RHS, "less_equal"),
    _cmp("logical_and", logical_and(_NONZERO_L, _NONZERO_R), "logical_and"),
    _cmp("logical_or", logical_or(_NONZERO_L, _NONZERO_R), "logical_or"),
    _cmp("logical_xor", ne(_NONZERO_L, _NONZERO_R), "logical_xor"),
]}


# -- scalars and broadcasting --------------------------------------------------------
_SCALARS: dict = {}


def int_scalar(value: float, dtype) -> np.generic:
    """``value`` as a scalar of ``dtype`` as a C cast gives it (2.5 -> 2; -1 -> 255 in uint8)."""
    key = (value, dtype)
    s = _SCALARS.get(key)
    if s is None:
        if dtype.kind == "f":
            s = dtype.type(value)
        else:
            try:
                iv = int(value)
            except (OverflowError, ValueError):
                iv = 0
            s = np.array(iv, dtype=np.int64).astype(dtype)[()] if dtype.kind in "iu" \
                else dtype.type(iv)
        if len(_SCALARS) < 4096:
            _SCALARS[key] = s
    return s


_AXES: dict = {}


def reduce_to(g, shape: tuple):
    """Sum ``g`` (of the broadcast output shape) down to ``shape`` (an input's shape)."""
    gshape = g.shape
    if gshape == shape:
        return g
    key = (gshape, shape)
    axes = _AXES.get(key)
    if axes is None:
        lead = len(gshape) - len(shape)
        axes = tuple(range(lead)) + tuple(lead + i for i, d in enumerate(shape)
                                          if d == 1 and gshape[lead + i] != 1)
        if len(_AXES) < 4096:
            _AXES[key] = axes
    if axes:
        g = g.sum(axis=axes, keepdims=True)
    return g.reshape(shape)
