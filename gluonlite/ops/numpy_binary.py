"""The binary operators of MXNet's NumPy interface (``mx.np``): ``_npi_add``,
``_npi_true_divide``, ``_npi_equal``, ... with their ``_scalar`` and ``_rscalar`` forms.

They share the math of :mod:`._binary_math` with the legacy operators and differ in
their dtype rules, which are MXNet 1.9's for ``mx.np`` arrays:

* comparisons give ``bool`` arrays;
* ``true_divide`` of integers gives ``float32`` (MXNet's default float type);
* two arrays of different dtypes meet in the float one when one is floating (``int32``
  with ``float32`` gives ``float32``), else in the wider one (NumPy's rule);
* a scalar takes the array's dtype, as a C cast gives it (``int_array * 2.5`` multiplies
  by 2), except that ``true_divide`` of an integer array by a scalar gives ``float32``;
  a ``bool`` array meets a scalar in ``float32`` (float scalar) or ``int64`` (int).
"""
from __future__ import annotations

import numpy as np

from ._binary_math import MATH, int_scalar, quiet, reduce_to
from .attrs import Attr
from .common import put, same_shape_infer
from .registry import OpDef, register
from .broadcast_binary import broadcast_shape

__all__ = ["np_result_dtype"]

_F32 = np.dtype(np.float32)
_BOOL = np.dtype(np.bool_)


def np_result_dtype(a: np.dtype, b: np.dtype) -> np.dtype:
    """The dtype two ``mx.np`` arrays of dtypes ``a`` and ``b`` meet in."""
    if a == b:
        return a
    fa, fb = a.kind == "f", b.kind == "f"
    if fa and not fb:
        return a
    if fb and not fa:
        return b
    return np.promote_types(a, b)


# name: (math name, numpy ufunc for comparisons/logic or None, MXNet aliases)
_FUNCS = {
    "add": ("add", None), "subtract": ("sub", None), "multiply": ("mul", None),
    "true_divide": ("div", None), "mod": ("mod", None), "power": ("power", None),
    "maximum": ("maximum", None), "minimum": ("minimum", None), "hypot": ("hypot", None),
    "equal": ("equal", "equal"), "not_equal": ("not_equal", "not_equal"),
    "greater": ("greater", "greater"), "greater_equal": ("greater_equal", "greater_equal"),
    "less": ("lesser", "less"), "less_equal": ("lesser_equal", "less_equal"),
    "logical_and": ("logical_and", "logical_and"), "logical_or": ("logical_or", "logical_or"),
    "logical_xor": ("logical_xor", "logical_xor"),
}
# functions of NumPy that MXNet's legacy math does not have: (forward, d/da, d/db)
_EXTRA = {
    "arctan2": (lambda xp, a, b: xp.arctan2(a, b),
                lambda xp, a, b, y, g: g * b / (a * a + b * b),
                lambda xp, a, b, y, g: -g * a / (a * a + b * b)),
    "copysign": (lambda xp, a, b: xp.copysign(a, b),
                 lambda xp, a, b, y, g: g * xp.where(xp.signbit(a) == xp.signbit(b), 1, -1).astype(g.dtype),
                 None),
    "fmod": (lambda xp, a, b: xp.fmod(a, b), lambda xp, a, b, y, g: g,
             lambda xp, a, b, y, g: -g * xp.trunc(a / b)),
    "lcm": (lambda xp, a, b: xp.lcm(a, b), None, None),
    "gcd": (lambda xp, a, b: xp.gcd(a, b), None, None),
    "bitwise_and": (lambda xp, a, b: xp.bitwise_and(a, b), None, None),
    "bitwise_or": (lambda xp, a, b: xp.bitwise_or(a, b), None, None),
    "bitwise_xor": (lambda xp, a, b: xp.bitwise_xor(a, b), None, None),
    "ldexp": (lambda xp, a, b: a * xp.exp2(b), lambda xp, a, b, y, g: g * xp.exp2(b),
              lambda xp, a, b, y, g: g * y * np.log(2.0)),
}
_INT_ONLY = {"lcm", "gcd", "bitwise_and", "bitwise_or", "bitwise_xor"}


def _compute(name, xp, a, b):
    """``name(a, b)`` for arrays (or one NumPy scalar) already in the compute dtype."""
    if name in _EXTRA:
        with quiet(xp):
            return _EXTRA[name][0](xp, a, b)
    math_name, ufunc = _FUNCS[name]
    if ufunc is not None:
        return getattr(xp, ufunc)(a, b)
    m = MATH[math_name]
    dt = a.dtype if hasattr(a, "dtype") else b.dtype
    with quiet(xp):
        return (m.ffwd if dt.kind == "f" else m.ifwd)(xp, a, b, None)


# integer ``mod`` is piecewise constant in both operands: MXNet gives zero gradients
_INT_ZERO_GRAD = {"mod", "fmod"}


def _grads(name, xp, a, b, y, g):
    """(d/da, d/db) of ``name`` times ``g``; ``None`` for a zero gradient."""
    if name in _EXTRA:
        _, gl, gr = _EXTRA[name]
    else:
        m = MATH[_FUNCS[name][0]]
        gl, gr = m.glhs, m.grhs
    with quiet(xp):
        return (None if gl is None else gl(xp, a, b, y, g),
                None if gr is None else gr(xp, a, b, y, g))


def _is_bool_result(name):
    return _FUNCS.get(name, (None, None))[1] is not None


def _compute_dtype(name, da, db):
    dt = np_result_dtype(da, db)
    if name == "true_divide" and dt.kind != "f":
        return _F32
    if name in ("arctan2", "hypot", "ldexp") and dt.kind != "f":
        return _F32
    return dt


def _check_ints(name, dt, shapes):
    if name in _INT_ONLY and dt.kind not in "iub":
        from .common import fail
        fail(f"_npi_{name}", f"needs integer inputs, got {dt.name}", *shapes)


def _plain_ufunc(name):
    """The NumPy/CuPy ufunc computing ``name`` exactly, warning-free, for two operands of
    one dtype that is its own result dtype (``add``, comparisons), else None."""
    if name in _EXTRA:
        return None
    math_name, ufunc = _FUNCS[name]
    return ufunc or MATH[math_name].ufunc


def _array_op(name):
    op_name = f"_npi_{name}"
    bool_out = _is_bool_result(name)
    plain = _plain_ufunc(name)

    def forward(oc, attrs, inputs, out):
        a, b = inputs
        if plain is not None and a.dtype == b.dtype and a.dtype != _BOOL:
            # the common case, in one call (no dtype work, no error-state context)
            f = getattr(oc.xp, plain)
            return [f(a, b) if out is None else f(a, b, out=out[0])]
        dt = _compute_dtype(name, a.dtype, b.dtype)
        _check_ints(name, dt, (a.shape, b.shape))
        y = _compute(name, oc.xp, a.astype(dt, copy=False), b.astype(dt, copy=False))
        if not bool_out and y.dtype != dt:
            y = y.astype(dt)
        return [put(out, 0, y)]

    def backward(oc, attrs, inputs, outputs, out_grads):
        a, b = inputs
        xp = oc.xp
        dt = _compute_dtype(name, a.dtype, b.dtype)
        if bool_out or name in _INT_ONLY or (name in _INT_ZERO_GRAD and dt.kind != "f"):
            return [xp.zeros(a.shape, a.dtype), xp.zeros(b.shape, b.dtype)]
        g = out_grads[0].astype(dt, copy=False)
        ga, gb = _grads(name, xp, a.astype(dt, copy=False), b.astype(dt, copy=False),
                        outputs[0], g)
        res = []
        for x, gx in ((a, ga), (b, gb)):
            if gx is None:
                res.append(xp.zeros(x.shape, x.dtype))
            else:
                gx = reduce_to(xp.broadcast_to(gx, g.shape), x.shape)
                res.append(gx.astype(x.dtype, copy=False))
        return res

    def infer_shape(attrs, in_shapes):
        lhs, rhs = in_shapes
        if lhs is None or rhs is None:
            return [lhs, rhs], [None]
        return [tuple(lhs), tuple(rhs)], [broadcast_shape(op_name, lhs, rhs)]

    def infer_type(op, attrs, in_dtypes):
        da, db = in_dtypes
        if da is None or db is None:
            return list(in_dtypes), [_BOOL if bool_out else None]
        return list(in_dtypes), [_BOOL if bool_out else _compute_dtype(name, np.dtype(da),
                                                                       np.dtype(db))]

    register(OpDef(op_name, forward, backward=backward, inputs=("lhs", "rhs"),
                   infer_shape=infer_shape, infer_type=infer_type,
                   backward_uses=("inputs", "outputs"),
                   doc=f"NumPy ``{name}`` of two arrays with broadcasting (``mx.np``)."))


def _scalar_dtype(name, dt, scalar, is_int):
    """The compute dtype of an array of dtype ``dt`` with a Python scalar."""
    if dt == _BOOL:
        dt = np.dtype(np.int64) if is_int else _F32
    if name in ("true_divide", "arctan2", "hypot", "ldexp") and dt.kind != "f":
        return _F32
    return dt


def _scalar_op(name, reverse):
    op_name = f"_npi_{'r' if reverse else ''}{name}_scalar"
    bool_out = _is_bool_result(name)
    plain = _plain_ufunc(name)

    def operands(attrs, x):
        dt = _scalar_dtype(name, x.dtype, attrs.scalar, attrs.is_int)
        s = int_scalar(attrs.scalar, dt)
        xv = x.astype(dt, copy=False)
        return (s, xv, dt) if reverse else (xv, s, dt)

    def forward(oc, attrs, inputs, out):
        x = inputs[0]
        a, b, dt = operands(attrs, x)
        if plain is not None and dt == x.dtype:  # the common case, in one call
            f = getattr(oc.xp, plain)
            return [f(a, b) if out is None else f(a, b, out=out[0])]
        _check_ints(name, dt, (x.shape,))
        y = _compute(name, oc.xp, a, b)
        if not hasattr(y, "shape") or y.shape != x.shape:
            y = oc.xp.broadcast_to(oc.xp.asarray(y), x.shape).copy()
        if not bool_out and y.dtype != dt:
            y = y.astype(dt)
        return [put(out, 0, y)]

    def backward(oc, attrs, inputs, outputs, out_grads):
        x = inputs[0]
        xp = oc.xp
        if bool_out or name in _INT_ONLY:
            return [xp.zeros(x.shape, x.dtype)]
        a, b, dt = operands(attrs, x)
        g = out_grads[0].astype(dt, copy=False)
        ga, gb = _grads(name, xp, a, b, outputs[0], g)
        gx = gb if reverse else ga
        if gx is None:
            return [xp.zeros(x.shape, x.dtype)]
        return [xp.broadcast_to(gx, x.shape).astype(x.dtype)]

    def infer_type(op, attrs, in_dtypes):
        d = in_dtypes[0]
        if d is None:
            return [None], [_BOOL if bool_out else None]
        return [d], [_BOOL if bool_out else _scalar_dtype(name, np.dtype(d), attrs.scalar,
                                                          attrs.is_int)]

    register(OpDef(op_name, forward, backward=backward, inputs=("data",),
                   attrs={"scalar": Attr("float", 1.0), "is_int": Attr("bool", True)},
                   infer_shape=same_shape_infer(op_name), infer_type=infer_type,
                   backward_uses=("inputs", "outputs"),
                   doc=f"NumPy ``{name}`` of an array and a scalar "
                       f"({'scalar first' if reverse else 'array first'}; ``mx.np``)."))


_NONCOMMUTATIVE = {"subtract", "true_divide", "mod", "power", "arctan2", "copysign", "fmod",
                   "ldexp"}

for _name in list(_FUNCS) + list(_EXTRA):
    _array_op(_name)
    _scalar_op(_name, reverse=False)
    if _name in _NONCOMMUTATIVE:
        _scalar_op(_name, reverse=True)
