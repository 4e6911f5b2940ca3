"""Elementwise CUDA C expressions of the registry, normalised for kernel fusion.

The registry's ``OpDef.cuda`` strings are written for people: ``"y = x > 0 ? x : 0"``
(unary operators call their input ``x``), ``"y = lhs + rhs"`` (binary and
broadcasting operators), ``"y = data * scalar"`` (scalar operators, ``scalar`` being
the attribute), ``"out = (condition != 0) ? x : y"`` (``where`` names its output
``out`` because one input is ``y``).  ``OpDef.cuda_grad`` holds one expression per
input: the partial derivative of the output with respect to that input, in terms
of the inputs and the output, to be multiplied by the head gradient (``"0"`` for
no gradient).  Attribute-dependent operators (``Activation``, ``LeakyReLU``,
``clip``, ``smooth_l1``) carry no string; their expressions are built here.

Normalised convention (what :func:`op_expr` returns, an :class:`ElemExpr`):

* ``forward`` is a C expression (no ``y =``) whose free variables are ``$0``,
  ``$1``, ... for the operator's inputs in order;
* ``grads[k]`` is the C expression of ``d out / d input_k`` over ``$0``, ... and
  ``$y`` (the output), or ``None`` where the registry has none (then the fused
  backward runs the member ops instead);
* attributes are baked in as literals of the compute dtype: for ``float32``
  ``_mul_scalar(scalar=2.5)`` is ``$0 * 2.5f`` and every floating literal gets the
  ``f`` suffix (so float32 math stays float32, as NumPy computes it); for an
  integer dtype the scalar is converted as MXNet does (C cast: ``int32 * 2.5``
  multiplies by 2, ``uint8 - 1`` wraps to 255), written ``((int)2LL)``;
* dtypes: every input and the output have one dtype (``where``'s condition may
  differ), which is ``float32`` or ``float64``, or an integer type for the few
  operators whose C meaning equals MXNet's on integers (add, subtract, multiply,
  maximum, minimum, comparisons, logic, abs, negative, square, sign, relu, copies).
  ``float16`` is not fused (CuPy's half type lacks most math functions).

The functions allowed in an expression are CUDA's math functions listed in
:data:`FUNCTIONS`; any other identifier makes the operator unfusable.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

__all__ = ["ElemExpr", "op_expr", "float_literal", "FUNCTIONS", "CTYPES"]

FUNCTIONS = frozenset((
    "exp", "expm1", "log", "log10", "log2", "log1p", "sqrt", "rsqrt", "cbrt", "rcbrt",
    "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh",
    "acosh", "atanh", "erf", "erfinv", "tgamma", "lgamma", "floor", "ceil", "trunc",
    "round", "fabs", "pow", "hypot", "fmod", "normcdf"))

CTYPES = {
    np.dtype(np.float32): "float", np.dtype(np.float64): "double",
    np.dtype(np.int8): "signed char", np.dtype(np.uint8): "unsigned char",
    np.dtype(np.int16): "short", np.dtype(np.uint16): "unsigned short",
    np.dtype(np.int32): "int", np.dtype(np.uint32): "unsigned int",
    np.dtype(np.int64): "long long", np.dtype(np.uint64): "unsigned long long",
}
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))

# math names (of _binary_math.MATH) and unary operators that mean the same in C on integers
_INT_OK = frozenset((
    "elemwise_add", "elemwise_sub", "elemwise_mul", "_grad_add", "_maximum", "_minimum",
    "_equal", "_not_equal", "_greater", "_greater_equal", "_lesser", "_lesser_equal",
    "_logical_and", "_logical_or", "_logical_xor",
    "broadcast_add", "broadcast_sub", "broadcast_mul", "broadcast_maximum",
    "broadcast_minimum", "broadcast_equal", "broadcast_not_equal", "broadcast_greater",
    "broadcast_greater_equal", "broadcast_lesser", "broadcast_lesser_equal",
    "broadcast_logical_and", "broadcast_logical_or", "broadcast_logical_xor",
    "_plus_scalar", "_minus_scalar", "_rminus_scalar", "_mul_scalar", "_maximum_scalar",
    "_minimum_scalar", "_equal_scalar", "_not_equal_scalar", "_greater_scalar",
    "_greater_equal_scalar", "_lesser_scalar", "_lesser_equal_scalar",
    "_logical_and_scalar", "_logical_or_scalar", "_logical_xor_scalar",
    "relu", "sign", "logical_not", "abs", "negative", "square", "_copy", "BlockGrad",
    "zeros_like", "ones_like", "where"))


@dataclass(frozen=True)
class ElemExpr:
    """One operator's normalised expressions for one dtype (see the module docstring).

    Attributes
    ----------
    forward : str
        C expression of the output over ``$0``, ``$1``, ...
    grads : tuple of (str or None)
        ``d out / d input_k`` over the inputs and ``$y``.
    shape_rule : str
        ``'same'`` (all inputs have the output's shape), ``'broadcast'`` (NumPy
        broadcasting) or ``'where'`` (condition must have x's shape to be fused).
    """

    forward: str
    grads: tuple
    shape_rule: str = "same"


_IDENT = re.compile(r"(?<![\w.$])[A-Za-z_]\w*")
_FLOAT_LIT = re.compile(r"(?<![\w.$])((?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+)"
                        r"(?![\w.])")


def float_literal(value: float, dtype) -> str | None:
    """``value`` as a C literal of a floating ``dtype`` (rounded to it); ``None`` if not finite."""
    dtype = np.dtype(dtype)
    v = float(dtype.type(value))
    if not math.isfinite(v):
        return None
    text = repr(v)
    if "e" not in text and "." not in text:
        text += ".0"
    return text + "f" if dtype == np.float32 else text


def _int_literal(value: float, dtype) -> str:
    from ..ops._binary_math import int_scalar
    iv = int(int_scalar(value, dtype))
    return f"(({CTYPES[dtype]}){iv}LL)" if iv >= 0 else f"(({CTYPES[dtype]})({iv}LL))"


def _literal(value: float, dtype) -> str | None:
    if dtype in _FLOATS:
        lit = float_literal(value, dtype)
        return None if lit is None else f"({lit})"
    return _int_literal(value, dtype)


def _suffix_floats(expr: str, dtype) -> str:
    """Give float literals the ``f`` suffix in float32 code (C would promote to double)."""
    if dtype != np.float32:
        return expr
    return _FLOAT_LIT.sub(lambda m: m.group(1) + "f", expr)


def _rename(expr: str, names: dict) -> str | None:
    """Replace identifiers by ``names``; ``None`` when an unknown identifier remains."""
    bad = []

    def repl(m):
        word = m.group(0)
        if word in names:
            return names[word]
        if word not in FUNCTIONS:
            bad.append(word)
        return word
    out = _IDENT.sub(repl, expr)
    return None if bad else out


def _split_assignment(text: str):
    """``"y = expr"`` -> ``("y", "expr")``; an expression without ``=`` gets ``y``."""
    m = re.match(r"\s*([A-Za-z_]\w*)\s*=(?!=)\s*(.*)$", text, re.S)
    if m is None:
        return "y", text.strip()
    return m.group(1), m.group(2).strip()


def _registry_expr(op, attrs, dtype) -> ElemExpr | None:
    out_name, fwd = _split_assignment(op.cuda)
    in_names = op.input_names(attrs)
    names = {n: f"${k}" for k, n in enumerate(in_names)}
    if len(in_names) == 1 and "x" not in names:
        names["x"] = "$0"  # unary operators write their input as x
    if "scalar" in op.attrs:
        lit = _literal(attrs.scalar, dtype)
        if lit is None:
            return None
        names["scalar"] = lit
    fwd = _rename(fwd, names)
    if fwd is None:
        return None
    gnames = dict(names)
    gnames[out_name] = "$y"
    grads = []
    for k in range(len(in_names)):
        g = op.cuda_grad[k] if op.cuda_grad is not None and k < len(op.cuda_grad) else None
        if g is not None:
            g = _rename(g, gnames)
            if g is None:
                return None
            g = _suffix_floats(g, dtype)
        grads.append(g)
    rule = "broadcast" if op.name.startswith("broadcast_") else (
        "where" if op.name == "where" else "same")
    return ElemExpr(_suffix_floats(fwd, dtype), tuple(grads), rule)


# -- attribute-dependent operators ---------------------------------------------------
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_LAMBDA = 1.0507009873554804934193349852946
_INV_SQRT2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)

# act_type -> (forward, d/dx) over $0 (x) and $y
_ACTIVATION = {
    "relu": ("$0 > 0 ? $0 : 0", "$y > 0 ? 1 : 0"),
    "sigmoid": ("1 / (1 + exp(-$0))", "$y * (1 - $y)"),
    "tanh": ("tanh($0)", "1 - $y * $y"),
    "softrelu": ("($0 > 0 ? $0 : 0) + log1p(exp(-fabs($0)))", "-expm1(-$y)"),
    "softsign": ("$0 / (1 + fabs($0))", "(1 - fabs($y)) * (1 - fabs($y))"),
}


def _attr_expr(op, attrs, dtype) -> ElemExpr | None:
    if op.name == "Activation":
        fwd, grad = _ACTIVATION[attrs.act_type]
        return ElemExpr(fwd, (grad,))
    if op.name == "LeakyReLU":
        act = attrs.act_type
        slope = _literal(float(np.float32(attrs.slope)), dtype)  # MXNet parses it as float32
        if slope is None:
            return None
        if act == "leaky":
            return ElemExpr(f"$0 > 0 ? $0 : $0 * {slope}", (f"$0 > 0 ? 1 : {slope}",))
        if act == "elu":
            return ElemExpr(f"$0 > 0 ? $0 : {slope} * expm1($0)",
                            (f"$0 > 0 ? 1 : $y + {slope}",))
        if act == "selu":
            lam, alpha = _literal(_SELU_LAMBDA, dtype), _literal(_SELU_ALPHA, dtype)
            # MXNet 1.9's selu gradient for x <= 0 is lambda * (y + alpha) (see activation.py)
            return ElemExpr(f"{lam} * ($0 > 0 ? $0 : {alpha} * expm1($0))",
                            (f"$0 > 0 ? {lam} : {lam} * ($y + {alpha})",))
        if act == "gelu":
            r2, r2pi = _literal(_INV_SQRT2, dtype), _literal(_INV_SQRT_2PI, dtype)
            half = _literal(0.5, dtype)
            grad = f"{half} * (1 + erf($0 * {r2})) + $0 * {r2pi} * exp(-{half} * $0 * $0)"
            return ElemExpr(f"{half} * $0 * (1 + erf($0 * {r2}))", (grad,))
        return None  # prelu (a second, broadcast input) and rrelu (random) are not fused
    if op.name == "clip":
        from ..ops.elemwise_misc import _bound
        lo, hi = _bound(attrs.a_min, dtype), _bound(attrs.a_max, dtype)
        lo_s, hi_s = _literal(float(lo), dtype), _literal(float(hi), dtype)
        if lo_s is None or hi_s is None:
            return None
        return ElemExpr(f"$0 > {hi_s} ? {hi_s} : ($0 < {lo_s} ? {lo_s} : $0)",
                        (f"($0 >= {lo_s} && $0 <= {hi_s}) ? 1 : 0",))
    if op.name == "smooth_l1":
        s2 = float(attrs.scalar) ** 2
        if s2 == 0:
            return None
        q, t, h = (_literal(1.0 / s2, dtype), _literal(0.5 * s2, dtype),
                   _literal(0.5 / s2, dtype))
        s2l = _literal(s2, dtype)
        if None in (q, t, h, s2l):
            return None
        return ElemExpr(f"fabs($0) < {q} ? {t} * $0 * $0 : fabs($0) - {h}",
                        (f"fabs($0) < {q} ? {s2l} * $0 : (($0 > 0) - ($0 < 0))",))
    return None


_ATTR_OPS = frozenset(("Activation", "LeakyReLU", "clip", "smooth_l1"))
_INT_ATTR_OK = {"Activation": lambda attrs: attrs.act_type == "relu"}
_CACHE: dict = {}


def _dtype_ok(op, attrs, in_dtypes, out_dtype) -> np.dtype | None:
    """The compute dtype when the dtypes allow fusion, else ``None``."""
    if out_dtype is None or any(d is None for d in in_dtypes):
        return None
    dt = np.dtype(out_dtype)
    if dt not in CTYPES:
        return None
    if dt not in _FLOATS:
        ok = op.name in _INT_OK or (op.name in _INT_ATTR_OK and _INT_ATTR_OK[op.name](attrs))
        if not ok:
            return None
    for k, d in enumerate(in_dtypes):
        d = np.dtype(d)
        if d == dt:
            continue
        if op.name == "where" and k == 0 and d in CTYPES:
            continue
        return None
    return dt


def op_expr(op, attrs, in_dtypes, out_dtype) -> ElemExpr | None:
    """The normalised expressions of one operator call, or ``None`` if it is not fusable.

    Parameters
    ----------
    op : OpDef
    attrs : OpAttrs
        The call's parsed attributes (scalars are baked into the expressions).
    in_dtypes : sequence of numpy dtypes
        The dtypes of the inputs.
    out_dtype : numpy dtype
        The dtype of the (single) output.
    """
    if op is None or (op.cuda is None and op.name not in _ATTR_OPS):
        return None
    try:
        key = (op.name, attrs, tuple(in_dtypes), out_dtype)
        hit = _CACHE.get(key, False)
    except TypeError:
        key, hit = None, False
    if hit is not False:
        return hit
    dt = _dtype_ok(op, attrs, in_dtypes, out_dtype)
    res = None
    if dt is not None and op.num_outputs(attrs) == 1:
        res = _registry_expr(op, attrs, dt) if op.cuda is not None else _attr_expr(op, attrs, dt)
        if res is not None and op.cuda is None:
            res = ElemExpr(_suffix_floats(res.forward, dt),
                           tuple(None if g is None else _suffix_floats(g, dt)
                                 for g in res.grads), res.shape_rule)
    if key is not None and len(_CACHE) < 8192:
        _CACHE[key] = res
    return res
