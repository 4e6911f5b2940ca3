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

Forward functions take ``(xp, a, b, out)``: ``a`` and ``b`` arrays of one dtype
(or one of them a scalar already converted to that dtype) and ``out`` a buffer or
``None``.  ``ffwd`` is used for floating dtypes and ``ifwd`` for integer ones.
Gradient functions take ``(xp, a, b, y, g)`` and return the gradient with respect
to ``a`` (``glhs``) or ``b`` (``grhs``), before any reduction over broadcast axes.
"""
from __future__ import annotations

import contextlib
import math

import numpy as np

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


def _bool_result(fn, ufunc):
    """Forward of a comparison/logical function: 0/1 in the inputs' dtype.

    Into a given buffer, ``xp.<ufunc>(a, b, out=out)`` converts the boolean result
    straight into the buffer's dtype (bool to any numeric dtype is a safe cast)."""
    def fwd(xp, a, b, out):
        if out is not None:
            return getattr(xp, ufunc)(a, b, out=out)
        return fn(xp, a, b).astype(_arr_dtype(a, b))
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


def _logical_and(xp, a, b):
    return xp.logical_and(a, b)


def _logical_or(xp, a, b):
    return xp.logical_or(a, b)


def _logical_xor(xp, a, b):
    return xp.logical_xor(a, b)


# -- gradients -----------------------------------------------------------------------
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


def _pow_grad_lhs(xp, a, b, y, g):
    with quiet(xp):
        return g * b * xp.power(a, b - 1)


def _pow_grad_rhs(xp, a, b, y, g):
    with quiet(xp):
        return g * y * xp.log(a)


class BinaryMath:
    """One binary function: forward, gradients, CUDA expressions.

    Attributes
    ----------
    name : str
        Short name (``add``, ``greater_equal``).
    ffwd, ifwd : callable
        Forward for floating and integer dtypes: ``f(xp, a, b, out)``.
    glhs, grhs : callable or None
        Gradients ``f(xp, a, b, y, g)``; ``None`` for a zero gradient.
    cuda : str
        Forward CUDA C expression in ``lhs``, ``rhs`` (output ``y``).
    cuda_grad : tuple of str
        Partial derivatives ``dy/dlhs``, ``dy/drhs`` in ``lhs``, ``rhs``, ``y``.
    uses : tuple of str
        What the gradients read (``inputs``, ``outputs``).
    fuse_int : bool
        ``cuda`` means in C on integers what the math computes there (``OpDef.fuse_int``).
    graph : pair of callables or None
        ``(gl, gr)``, each ``f(F, a, b, y, g)`` computing one input's gradient from
        arrays (a Python number for the scalar operand) with the recorded functions of
        ``F``, for higher-order gradients; ``None`` for a zero gradient.
    """

    def __init__(self, name, ffwd, ifwd=None, glhs=None, grhs=None, cuda="",
                 cuda_grad=("0", "0"), uses=("inputs",), graph=None, ufunc=None,
                 fuse_int=False):
        self.name = name
        self.fuse_int = fuse_int
        self.ffwd = ffwd
        self.ifwd = ifwd or ffwd
        self.glhs = glhs
        self.grhs = grhs
        self.cuda = cuda
        self.cuda_grad = cuda_grad
        self.uses = uses
        self.graph = graph
        self.ufunc = ufunc  # plain ufunc name when one xp call does it for every dtype

    @property
    def zero_grad(self) -> bool:
        """True for comparisons and logical functions."""
        return self.glhs is None


# -- higher-order gradient graphs (arrays in, arrays out, with the tape's ``F``) ---------
def _g_one(F, a, b, y, g):
    return g


def _g_neg(F, a, b, y, g):
    return -g


def _g_mul_l(F, a, b, y, g):
    return g * b


def _g_mul_r(F, a, b, y, g):
    return g * a


def _g_div_l(F, a, b, y, g):
    return g / b


def _g_div_r(F, a, b, y, g):
    return -g * a / (b * b)


def _log(F, v):
    if isinstance(v, (int, float, np.number)):
        return math.log(v)
    return F.log(v)


def _floor(F, v):
    if isinstance(v, (int, float, np.number)):
        return math.floor(v)
    return F.floor(v)


def _g_pow_l(F, a, b, y, g):
    return g * b * a ** (b - 1)


def _g_pow_r(F, a, b, y, g):
    return g * y * _log(F, a)


def _g_mod_r(F, a, b, y, g):
    return -g * _floor(F, a / b)


def _g_max_l(F, a, b, y, g):
    return g * (a >= b)


def _g_max_r(F, a, b, y, g):
    return g * (a < b)


def _g_min_l(F, a, b, y, g):
    return g * (a <= b)


def _g_min_r(F, a, b, y, g):
    return g * (a > b)


def _g_hypot_l(F, a, b, y, g):
    return g * a / y


def _g_hypot_r(F, a, b, y, g):
    return g * b / y


def _cmp(name, fn, op, ufunc):
    return BinaryMath(name, _bool_result(fn, ufunc), cuda=f"y = (lhs {op} rhs) ? 1 : 0",
                      uses=(), graph=None, fuse_int=True)


def _logic(name, fn, cexpr):
    return BinaryMath(name, _bool_result(fn, name), cuda=f"y = ({cexpr}) ? 1 : 0", uses=(),
                      graph=None, fuse_int=True)


MATH: dict[str, BinaryMath] = {m.name: m for m in [
    BinaryMath("add", _ufunc("add"), glhs=lambda xp, a, b, y, g: g,
               grhs=lambda xp, a, b, y, g: g, cuda="y = lhs + rhs", cuda_grad=("1", "1"),
               uses=(), graph=(_g_one, _g_one), ufunc="add", fuse_int=True),
    BinaryMath("sub", _ufunc("subtract"), glhs=lambda xp, a, b, y, g: g,
               grhs=lambda xp, a, b, y, g: -g, cuda="y = lhs - rhs", cuda_grad=("1", "-1"),
               uses=(), graph=(_g_one, _g_neg), ufunc="subtract", fuse_int=True),
    BinaryMath("mul", _ufunc("multiply"), glhs=lambda xp, a, b, y, g: g * b,
               grhs=lambda xp, a, b, y, g: g * a, cuda="y = lhs * rhs",
               cuda_grad=("rhs", "lhs"), graph=(_g_mul_l, _g_mul_r), ufunc="multiply",
               fuse_int=True),
    BinaryMath("div", _ufunc("true_divide"), _idiv, glhs=lambda xp, a, b, y, g: g / b,
               grhs=lambda xp, a, b, y, g: -g * a / (b * b), cuda="y = lhs / rhs",
               cuda_grad=("1 / rhs", "-lhs / (rhs * rhs)"), graph=(_g_div_l, _g_div_r)),
    BinaryMath("mod", _mod, _mod, glhs=_mod_grad_lhs, grhs=_mod_grad_rhs,
               # fmod is exact; lhs - floor(lhs / rhs) * rhs loses the remainder in float32
               cuda="y = (rhs == 0) ? 0 : ((fmod(lhs, rhs) != 0 && ((fmod(lhs, rhs) < 0) != "
                    "(rhs < 0))) ? fmod(lhs, rhs) + rhs : fmod(lhs, rhs))",
               cuda_grad=("1", "-floor(lhs / rhs)"), graph=(_g_one, _g_mod_r)),
    BinaryMath("power", _ufunc("power"), _ipow, glhs=_pow_grad_lhs, grhs=_pow_grad_rhs,
               cuda="y = pow(lhs, rhs)", cuda_grad=("rhs * pow(lhs, rhs - 1)", "y * log(lhs)"),
               uses=("inputs", "outputs"), graph=(_g_pow_l, _g_pow_r)),
    BinaryMath("maximum", _ufunc("maximum"), glhs=lambda xp, a, b, y, g: g * (a >= b),
               grhs=lambda xp, a, b, y, g: g * (a < b),
               cuda="y = (lhs >= rhs || lhs != lhs) ? lhs : rhs",  # NaN propagates
               cuda_grad=("(lhs >= rhs) ? 1 : 0", "(lhs >= rhs) ? 0 : 1"),
               graph=(_g_max_l, _g_max_r),
               ufunc="maximum", fuse_int=True),
    BinaryMath("minimum", _ufunc("minimum"), glhs=lambda xp, a, b, y, g: g * (a <= b),
               grhs=lambda xp, a, b, y, g: g * (a > b),
               cuda="y = (lhs <= rhs || lhs != lhs) ? lhs : rhs",  # NaN propagates
               cuda_grad=("(lhs <= rhs) ? 1 : 0", "(lhs <= rhs) ? 0 : 1"),
               graph=(_g_min_l, _g_min_r),
               ufunc="minimum", fuse_int=True),
    BinaryMath("hypot", _ufunc("hypot"), _ihypot, glhs=lambda xp, a, b, y, g: g * a / y,
               grhs=lambda xp, a, b, y, g: g * b / y, cuda="y = hypot(lhs, rhs)",
               cuda_grad=("lhs / y", "rhs / y"), uses=("inputs", "outputs"),
               graph=(_g_hypot_l, _g_hypot_r)),
    _cmp("equal", lambda xp, a, b: xp.equal(a, b), "==", "equal"),
    _cmp("not_equal", lambda xp, a, b: xp.not_equal(a, b), "!=", "not_equal"),
    _cmp("greater", lambda xp, a, b: xp.greater(a, b), ">", "greater"),
    _cmp("greater_equal", lambda xp, a, b: xp.greater_equal(a, b), ">=", "greater_equal"),
    _cmp("lesser", lambda xp, a, b: xp.less(a, b), "<", "less"),
    _cmp("lesser_equal", lambda xp, a, b: xp.less_equal(a, b), "<=", "less_equal"),
    _logic("logical_and", _logical_and, "lhs != 0 && rhs != 0"),
    _logic("logical_or", _logical_or, "lhs != 0 || rhs != 0"),
    _logic("logical_xor", _logical_xor, "(lhs != 0) != (rhs != 0)"),
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
