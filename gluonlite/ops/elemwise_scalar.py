"""Array-scalar operators (``_plus_scalar``, ``_rminus_scalar``, ``_greater_scalar``, ...)
with their legacy CamelCase aliases (``_PlusScalar``, ``_RMinusScalar``, ...).

Attributes, as in MXNet 1.9: ``scalar`` (float, default 1) and ``is_int`` (bool,
default True).  With ``is_int=True`` (what ``x * 2.5`` gives) the scalar takes the
array's dtype the way a C cast does: on an ``int32`` array ``* 2.5`` multiplies by
2 and ``* -1.5`` by -1, on ``uint8`` ``-1`` wraps to 255.  With ``is_int=False`` an
integer array is computed, and returned, in float64.  The ``_r*`` operators put
the scalar on the left (``_rminus_scalar`` is ``scalar - data``).

Each operator's math is its function's expression (:mod:`._binary_math`) with the input
named ``data`` and the attribute ``scalar``; the output is ``y``.
"""
from __future__ import annotations

import numpy as np

from ._binary_math import MATH, int_scalar
from .attrs import Attr
from .common import elementwise_rule
from .expr import ElemMath, substitute, variables
from .registry import OpDef, register

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)


def _prep(attrs, x):
    """``(data, scalar)`` ready for the math, for every dtype but float32/float64."""
    if x.dtype.kind != "f" and not attrs.is_int:
        return x.astype(np.float64), attrs.scalar
    return x, int_scalar(attrs.scalar, x.dtype)


def _grad_scalar(attrs, x_dtype):
    if x_dtype is None or x_dtype.kind == "f" or not attrs.is_int:
        return attrs.scalar
    return int_scalar(attrs.scalar, x_dtype)


def _make_forward(m, reverse):
    uf = m.ufunc
    ffwd, ifwd = m.ffwd, m.ifwd

    def forward(oc, attrs, inputs, out):
        x = inputs[0]
        dt = x.dtype
        if dt is _F32 or dt is _F64:
            s = attrs.scalar
        else:
            x, s = _prep(attrs, x)
        a, b = (s, x) if reverse else (x, s)
        if uf is not None:  # one xp ufunc does every dtype
            f = getattr(oc.xp, uf)
            return [f(a, b) if out is None else f(a, b, out=out[0])]
        fn = ffwd if x.dtype.kind == "f" else ifwd
        return [fn(oc.xp, a, b, None if out is None else out[0])]
    return forward


def _make_backward(m, reverse):
    if m.zero_grad:
        def backward(oc, attrs, inputs, outputs, out_grads):
            return [oc.xp.zeros_like(out_grads[0])]
        return backward
    grad = m.grhs if reverse else m.glhs

    def backward(oc, attrs, inputs, outputs, out_grads):
        g = out_grads[0]
        x = inputs[0] if inputs is not None else None
        y = outputs[0] if outputs is not None else None
        s = _grad_scalar(attrs, x.dtype if x is not None else None)
        r = grad(oc.xp, s, x, y, g) if reverse else grad(oc.xp, x, s, y, g)
        # a NumPy float64 scalar (xp.log of the Python scalar) would promote float32
        return [r if r.dtype == g.dtype else r.astype(g.dtype)]
    return backward


@elementwise_rule
def _infer_shape(attrs, in_shapes):
    return [in_shapes[0]], [in_shapes[0]]


def _infer_type(op, attrs, in_dtypes):
    d = in_dtypes[0]
    if d is None:
        return [None], [None]
    d = np.dtype(d)
    if d.kind != "f" and not attrs.is_int:
        return [d], [_F64]
    return [d], [d]


def _scalar_math(m, reverse) -> ElemMath:
    """The function's expressions with ``lhs``/``rhs`` renamed ``data``/``scalar`` (the
    other way round for the ``_r*`` operators); the one gradient is ``data``'s."""
    names = {"lhs": "scalar", "rhs": "data"} if reverse else {"lhs": "data", "rhs": "scalar"}
    d = m.math.grads[1] if reverse else m.math.grads[0]
    return ElemMath(substitute(m.math.forward, names), (substitute(d, names),), ("data",))


def _reads(math_) -> tuple:
    """What backward reads; the input too where the gradient uses the scalar, which an
    integer input's dtype converts (``int_scalar``)."""
    reads = math_.reads()
    if "scalar" in variables(math_.grads[0]) and "inputs" not in reads:
        reads = ("inputs",) + reads
    return reads


# name, math, reversed, legacy alias
_SCALAR = [
    ("_plus_scalar", "add", False, "_PlusScalar"),
    ("_minus_scalar", "sub", False, "_MinusScalar"),
    ("_rminus_scalar", "sub", True, "_RMinusScalar"),
    ("_mul_scalar", "mul", False, "_MulScalar"),
    ("_div_scalar", "div", False, "_DivScalar"),
    ("_rdiv_scalar", "div", True, "_RDivScalar"),
    ("_mod_scalar", "mod", False, "_ModScalar"),
    ("_rmod_scalar", "mod", True, "_RModScalar"),
    ("_power_scalar", "power", False, "_PowerScalar"),
    ("_rpower_scalar", "power", True, "_RPowerScalar"),
    ("_maximum_scalar", "maximum", False, "_MaximumScalar"),
    ("_minimum_scalar", "minimum", False, "_MinimumScalar"),
    ("_hypot_scalar", "hypot", False, "_HypotScalar"),
    ("_equal_scalar", "equal", False, "_EqualScalar"),
    ("_not_equal_scalar", "not_equal", False, "_NotEqualScalar"),
    ("_greater_scalar", "greater", False, "_GreaterScalar"),
    ("_greater_equal_scalar", "greater_equal", False, "_GreaterEqualScalar"),
    ("_lesser_scalar", "lesser", False, "_LesserScalar"),
    ("_lesser_equal_scalar", "lesser_equal", False, "_LesserEqualScalar"),
    ("_logical_and_scalar", "logical_and", False, "_LogicalAndScalar"),
    ("_logical_or_scalar", "logical_or", False, "_LogicalOrScalar"),
    ("_logical_xor_scalar", "logical_xor", False, "_LogicalXorScalar"),
]

for _name, _math, _rev, _alias in _SCALAR:
    _m = MATH[_math]
    _sm = _scalar_math(_m, _rev)
    register(OpDef(
        _name, _make_forward(_m, _rev), backward=_make_backward(_m, _rev),
        attrs={"scalar": Attr("float", 1.0), "is_int": Attr("bool", True)},
        infer_shape=_infer_shape, infer_type=_infer_type, aliases=(_alias,),
        math=_sm, fuse_int=_m.fuse_int,
        backward_uses=_reads(_sm) if not _m.zero_grad else (),
        doc=f"Elementwise ``{_math}`` of an array and a scalar"
            f"{' (scalar on the left)' if _rev else ''} (MXNet ``{_name}``).",
            listed_inputs=False))
