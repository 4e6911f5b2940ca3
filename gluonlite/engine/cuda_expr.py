"""Elementwise CUDA C expressions of the registry, normalised for kernel fusion.

The registry's ``OpDef.cuda`` strings are rendered from each operator's math in the
expression form (``OpDef.math``, :mod:`gluonlite.ops.expr`); ``where`` and ``clip``
(whose bounds depend on the dtype) write theirs by hand.  They read
``"y = ((x > 0) ? x : 0)"`` (unary operators call their input ``x``),
``"y = (lhs + rhs)"`` (binary and broadcasting operators), ``"y = (data * scalar)"``
(scalar operators, ``scalar`` being the attribute), ``"out = (condition != 0) ? x : y"``
(``where`` names its output ``out`` because one input is ``y``).  ``OpDef.cuda_grad``
holds one expression per input: the partial derivative of the output with respect to
that input, in terms of the inputs and the output, to be multiplied by the head
gradient (``"0"`` for no gradient).  An operator whose expressions depend on its attributes declares
``cuda_fn(attrs, dtype) -> (forward, grads, consts)`` in the same names, with
``consts`` naming the numbers to bake in.  What this module adds is only the
normalisation below: it holds no knowledge of particular operators (whether an
operator fuses on integers is its ``fuse_int``, how its shapes relate its
``fuse_shape``).

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
* dtypes: every input and the output have one dtype (the condition of a
  ``fuse_shape='where'`` operator may differ), which is ``float32`` or ``float64``, or
  an integer type for the operators that declare ``fuse_int`` (their C meaning equals
  MXNet's on integers: add, subtract, multiply, maximum, minimum, comparisons, logic,
  abs, negative, square, sign, relu, copies).
  ``float16`` is not fused (CuPy's half type lacks most math functions).

The functions allowed in an expression are the CUDA math functions of the expression
form, :data:`FUNCTIONS`; any other identifier makes the operator unfusable.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from ..ops.expr import FUNCTIONS as EXPR_FUNCTIONS

__all__ = ["ElemExpr", "op_expr", "float_literal", "FUNCTIONS", "CTYPES"]

FUNCTIONS = frozenset(f.c for f in EXPR_FUNCTIONS.values()
                      if f.c is not None and "{" not in f.c)

CTYPES = {
    np.dtype(np.float32): "float", np.dtype(np.float64): "double",
    np.dtype(np.int8): "signed char", np.dtype(np.uint8): "unsigned char",
    np.dtype(np.int16): "short", np.dtype(np.uint16): "unsigned short",
    np.dtype(np.int32): "int", np.dtype(np.uint32): "unsigned int",
    np.dtype(np.int64): "long long", np.dtype(np.uint64): "unsigned long long",
}
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))

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


def _declared(op, attrs, dtype):
    """``(forward, grads, consts)`` as the operator declares them for this call, or ``None``."""
    if op.cuda_fn is not None:
        return op.cuda_fn(attrs, dtype)
    consts = {"scalar": attrs.scalar} if "scalar" in op.attrs else {}
    return op.cuda, op.cuda_grad, consts


def _registry_expr(op, attrs, dtype) -> ElemExpr | None:
    declared = _declared(op, attrs, dtype)
    if declared is None:
        return None
    text, cuda_grad, consts = declared
    out_name, fwd = _split_assignment(text)
    in_names = op.input_names(attrs)
    names = {n: f"${k}" for k, n in enumerate(in_names)}
    if len(in_names) == 1 and "x" not in names:
        names["x"] = "$0"  # unary operators write their input as x
    for cname, value in consts.items():
        lit = _literal(value, dtype)
        if lit is None:
            return None
        names[cname] = lit
    fwd = _rename(fwd, names)
    if fwd is None:
        return None
    gnames = dict(names)
    gnames[out_name] = "$y"
    grads = []
    for k in range(len(in_names)):
        g = cuda_grad[k] if cuda_grad is not None and k < len(cuda_grad) else None
        if g is not None:
            g = _rename(g, gnames)
            if g is None:
                return None
            g = _suffix_floats(g, dtype)
        grads.append(g)
    return ElemExpr(_suffix_floats(fwd, dtype), tuple(grads), op.fuse_shape)


_CACHE: dict = {}


def _dtype_ok(op, attrs, in_dtypes, out_dtype) -> np.dtype | None:
    """The compute dtype when the dtypes allow fusion, else ``None``."""
    if out_dtype is None or any(d is None for d in in_dtypes):
        return None
    dt = np.dtype(out_dtype)
    if dt not in CTYPES:
        return None
    if dt not in _FLOATS and not op.fuses_int(attrs):
        return None
    for k, d in enumerate(in_dtypes):
        d = np.dtype(d)
        if d == dt:
            continue
        if op.fuse_shape == "where" and k == 0 and d in CTYPES:
            continue  # the condition may have any dtype
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
    if op is None or (op.cuda is None and op.cuda_fn is None):
        return None
    try:
        key = (op, attrs, tuple(in_dtypes), out_dtype)
        hit = _CACHE.get(key, False)
    except TypeError:
        key, hit = None, False
    if hit is not False:
        return hit
    dt = _dtype_ok(op, attrs, in_dtypes, out_dtype)
    res = None
    if dt is not None and op.num_outputs(attrs) == 1:
        res = _registry_expr(op, attrs, dt)
    if key is not None and len(_CACHE) < 8192:
        _CACHE[key] = res
    return res
