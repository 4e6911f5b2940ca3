"""The expression form of elementwise math: an operator's forward and partial
derivatives written once, as a small tree, and rendered for every back end.

An elementwise operator states its math with :class:`Expr` values built from

* variables (:func:`var`: ``x``, ``y`` for the output, ``lhs``/``rhs``, attribute
  names such as ``scalar`` or ``slope``) and Python numbers;
* arithmetic (``+ - * /``, unary ``-``);
* comparisons (``< <= > >=``, :func:`eq`, :func:`ne`) and logic
  (:func:`logical_and`, :func:`logical_or`); a comparison used in arithmetic counts 1
  where it holds and 0 elsewhere, as in C;
* :func:`where` and the math functions of :data:`FUNCTIONS` (``exp``, ``log1p``,
  ``rsqrt``, ``erf``, ``pow``, ...).

From one tree come:

* :func:`to_c`: the CUDA C expression GPU fusion compiles (``engine/cuda_expr.py``
  reads it as ``OpDef.cuda`` / ``cuda_grad``);
* :func:`numpy_kernel`: the NumPy (or CuPy) kernel, ``f(xp, *arrays, out=None)``;
* :func:`head_grad_kernel`: the NumPy backward of one input, ``g * d``, with the
  products by 0, 1 and -1 folded away;
* :func:`graph_grad`: the same product over the ``F`` namespace of recorded
  functions that second-order gradients use, ``None`` where a function has no
  recorded counterpart.

A renderer returns ``None`` (the operator is then unfusable, or has no second-order
gradient) when a function has no form for that back end, e.g. ``digamma`` in CUDA.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from . import special

__all__ = ["Expr", "var", "const", "where", "eq", "ne", "logical_and", "logical_or",
           "isnan", "call", "fn", "FUNCTIONS", "to_c", "variables", "substitute",
           "numpy_kernel", "head_grad_kernel", "graph_grad", "recorded_backward", "ElemMath"]

_ARITH = {"+": "add", "-": "subtract", "*": "multiply", "/": "true_divide"}
_COMPARE = {"<": "less", "<=": "less_equal", ">": "greater", ">=": "greater_equal",
            "==": "equal", "!=": "not_equal"}
_LOGIC = {"&&": "logical_and", "||": "logical_or"}


class Expr:
    """One node of an elementwise expression (immutable).

    ``kind`` is ``'var'`` (``args = (name,)``), ``'const'`` (``(value,)``), a binary
    operator of C (``'+'``, ``'<'``, ``'&&'``, ...; ``(lhs, rhs)``), ``'neg'``,
    ``'where'`` (``(cond, then, else)``) or ``'call'`` (``(function name, *operands)``).
    Build nodes with the functions of this module and Python's operators.
    """

    __slots__ = ("kind", "args")

    def __init__(self, kind: str, args: tuple):
        self.kind = kind
        self.args = args

    # arithmetic
    def __add__(self, other):
        return Expr("+", (self, _wrap(other)))

    def __radd__(self, other):
        return Expr("+", (_wrap(other), self))

    def __sub__(self, other):
        return Expr("-", (self, _wrap(other)))

    def __rsub__(self, other):
        return Expr("-", (_wrap(other), self))

    def __mul__(self, other):
        return Expr("*", (self, _wrap(other)))

    def __rmul__(self, other):
        return Expr("*", (_wrap(other), self))

    def __truediv__(self, other):
        return Expr("/", (self, _wrap(other)))

    def __rtruediv__(self, other):
        return Expr("/", (_wrap(other), self))

    def __neg__(self):
        return Expr("neg", (self,))

    # comparisons (== and != stay Python's identity tests: use eq() and ne())
    def __lt__(self, other):
        return Expr("<", (self, _wrap(other)))

    def __le__(self, other):
        return Expr("<=", (self, _wrap(other)))

    def __gt__(self, other):
        return Expr(">", (self, _wrap(other)))

    def __ge__(self, other):
        return Expr(">=", (self, _wrap(other)))

    @property
    def is_bool(self) -> bool:
        """Whether the node's value is a truth value (a comparison or logic)."""
        return self.kind in _COMPARE or self.kind in _LOGIC

    def __repr__(self) -> str:
        return f"Expr({to_c(self, strict=False)})"


def _wrap(v) -> Expr:
    if isinstance(v, Expr):
        return v
    if isinstance(v, (bool, np.bool_)):
        v = int(v)
    if isinstance(v, (int, float, np.number)):
        return Expr("const", (float(v) if isinstance(v, (float, np.floating)) else int(v),))
    raise TypeError(f"not an expression operand: {v!r}")


def var(name: str) -> Expr:
    """A variable: an input, the output ``y``, or an attribute baked in at fusion."""
    return Expr("var", (name,))


def const(value: float) -> Expr:
    """A number."""
    return _wrap(value)


def where(cond: Expr, then, otherwise) -> Expr:
    """``cond ? then : otherwise``."""
    return Expr("where", (cond, _wrap(then), _wrap(otherwise)))


def eq(a, b) -> Expr:
    """``a == b``."""
    return Expr("==", (_wrap(a), _wrap(b)))


def ne(a, b) -> Expr:
    """``a != b``."""
    return Expr("!=", (_wrap(a), _wrap(b)))


def logical_and(a: Expr, b: Expr) -> Expr:
    """``a && b`` of two truth values."""
    return Expr("&&", (a, b))


def logical_or(a: Expr, b: Expr) -> Expr:
    """``a || b`` of two truth values."""
    return Expr("||", (a, b))


def isnan(a: Expr) -> Expr:
    """``a != a``: true at NaN."""
    return ne(a, a)


@dataclass(frozen=True)
class Function:
    """One math function and its form on each back end.

    Attributes
    ----------
    c : str or None
        The CUDA C function, or a C template with ``{0}``, ``{1}`` for the operands
        (``None``: not fusable).
    numpy : callable
        ``f(xp, *operands, out=None)`` on arrays (or Python numbers).
    graph : str or None
        Name of the recorded ``F`` function for second-order gradients (``None``: none).
    """

    c: str | None
    numpy: Callable
    graph: str | None


def _ufunc(name: str) -> Callable:
    def run(xp, *args, out=None):
        f = getattr(xp, name)
        return f(*args) if out is None else f(*args, out=out)
    run.ufunc_name = name  # lets numpy_kernel call the ufunc directly
    return run


def _special(fn: Callable) -> Callable:
    def run(xp, a, out=None):
        r = fn(xp, a)
        if out is None:
            return r
        out[...] = r
        return out
    return run


def _reciprocal_of(name: str) -> Callable:
    """``1 / f(a)`` in one buffer (``out``, or the result of ``f``)."""
    def run(xp, a, out=None):
        r = getattr(xp, name)(a) if out is None else getattr(xp, name)(a, out=out)
        return xp.true_divide(1, r, out=r)
    return run


def _round_half_away(xp, a, out=None):
    """C's ``round`` (MXNet's): halves go away from zero."""
    t = xp.trunc(a)
    r = xp.where(xp.abs(a - t) >= 0.5, t + xp.sign(a), t)
    if out is None:
        return r
    out[...] = r
    return out


def _ufuncs(*names: str, graph: bool = True, c: dict | None = None) -> dict:
    c = c or {}
    return {n: Function(c.get(n, n), _ufunc(n), n if graph else None) for n in names}


#: name in expressions -> its forms (the C name and ``F`` name are given where they
#: differ from the expression's name)
FUNCTIONS: dict[str, Function] = {
    **_ufuncs("exp", "expm1", "log", "log10", "log2", "log1p", "sqrt", "cbrt", "sin", "cos",
              "tan", "sinh", "cosh", "tanh", "floor", "ceil", "trunc"),
    "asin": Function("asin", _ufunc("arcsin"), "arcsin"),
    "acos": Function("acos", _ufunc("arccos"), "arccos"),
    "atan": Function("atan", _ufunc("arctan"), "arctan"),
    "asinh": Function("asinh", _ufunc("arcsinh"), "arcsinh"),
    "acosh": Function("acosh", _ufunc("arccosh"), "arccosh"),
    "atanh": Function("atanh", _ufunc("arctanh"), "arctanh"),
    "fabs": Function("fabs", _ufunc("abs"), "abs"),
    "sign": Function("({0} > 0) - ({0} < 0)", _ufunc("sign"), "sign"),
    "round": Function("round", _round_half_away, "round"),
    "rsqrt": Function("rsqrt", _reciprocal_of("sqrt"), "rsqrt"),
    "rcbrt": Function("rcbrt", _reciprocal_of("cbrt"), "rcbrt"),
    "pow": Function("pow", _ufunc("power"), None),  # F: the ** operator (below)
    "hypot": Function("hypot", _ufunc("hypot"), "hypot"),
    "fmod": Function("fmod", _ufunc("fmod"), None),
    "erf": Function("erf", _special(special.erf), "erf"),
    "erfinv": Function("erfinv", _special(special.erfinv), "erfinv"),
    "tgamma": Function("tgamma", _special(special.gamma), "gamma"),
    "lgamma": Function("lgamma", _special(special.gammaln), "gammaln"),
    "digamma": Function(None, _special(special.digamma), None),
}


class _FunctionBuilders:
    """``fn.exp(x)`` is ``call("exp", x)``."""

    def __getattr__(self, name: str) -> Callable:
        if name not in FUNCTIONS:
            raise AttributeError(f"unknown expression function {name!r}")
        return lambda *operands: call(name, *operands)


#: builders of function calls: ``fn.exp(x)``, ``fn.pow(lhs, rhs)``
fn = _FunctionBuilders()


def call(name: str, *operands) -> Expr:
    """``name(*operands)`` for a function of :data:`FUNCTIONS`."""
    if name not in FUNCTIONS:
        raise ValueError(f"unknown expression function {name!r}")
    return Expr("call", (name,) + tuple(_wrap(a) for a in operands))


# -- walking -------------------------------------------------------------------------------
def variables(e: Expr) -> frozenset:
    """The names of the variables ``e`` reads."""
    if e.kind == "var":
        return frozenset(e.args)
    if e.kind == "const":
        return frozenset()
    found = frozenset()
    for a in e.args:
        if isinstance(a, Expr):
            found |= variables(a)
    return found


def substitute(e: Expr, names: dict) -> Expr:
    """``e`` with variables renamed (``names`` maps a name to a name or an :class:`Expr`)."""
    if e.kind == "var":
        new = names.get(e.args[0])
        if new is None:
            return e
        return new if isinstance(new, Expr) else var(new)
    if e.kind == "const":
        return e
    return Expr(e.kind, tuple(substitute(a, names) if isinstance(a, Expr) else a
                              for a in e.args))


# -- CUDA C ------------------------------------------------------------------------------------
def _c_number(v) -> str:
    if isinstance(v, int):
        return str(v) if v >= 0 else f"({v})"
    text = repr(float(v))
    if "e" not in text and "." not in text and "n" not in text:
        text += ".0"
    return text if v >= 0 else f"({text})"


def to_c(e: Expr, strict: bool = True) -> str | None:
    """The C expression of ``e`` (CUDA's math functions); ``None`` where a function has
    no C form (``strict=False`` writes its expression name instead, for messages)."""
    kind = e.kind
    if kind == "var":
        return e.args[0]
    if kind == "const":
        return _c_number(e.args[0])
    if kind == "neg":
        inner = to_c(e.args[0], strict)
        return None if inner is None else f"-({inner})"
    if kind == "call":
        fn = FUNCTIONS[e.args[0]]
        name = fn.c if fn.c is not None or strict else e.args[0]
        if name is None:
            return None
        parts = [to_c(a, strict) for a in e.args[1:]]
        if None in parts:
            return None
        if "{" in name:
            return "(" + name.format(*parts) + ")"
        return f"{name}({', '.join(parts)})"
    parts = [to_c(a, strict) for a in e.args]
    if None in parts:
        return None
    if kind == "where":
        return f"({parts[0]} ? {parts[1]} : {parts[2]})"
    return f"({parts[0]} {kind} {parts[1]})"


# -- NumPy / CuPy ------------------------------------------------------------------------------
# functions whose gradients meet out-of-domain values in normal use (``pow``'s: ``0 ** -1``,
# ``log`` of a negative base); their gradient kernels silence NumPy's warnings
_WARN_IN_DOMAIN = frozenset(("pow", "log"))


def _warns_in_domain(e: Expr) -> bool:
    if e.kind == "call" and e.args[0] in _WARN_IN_DOMAIN:
        return True
    return any(_warns_in_domain(a) for a in e.args if isinstance(a, Expr))


def _compile_numpy(e: Expr, names: tuple) -> Callable:
    """``f(xp, args, dtype, out)``: the value of ``e`` for ``args`` in the order of
    ``names``; ``dtype`` is the compute dtype (truth values used as numbers, and
    numbers chosen by ``where``, take it); ``out`` receives the root's result."""
    kind = e.kind
    if kind == "var":
        k = names.index(e.args[0])

        def run(xp, args, dtype, out):
            if out is None:
                return args[k]
            out[...] = args[k]
            return out
        return run
    if kind == "const":
        value = e.args[0]

        def run(xp, args, dtype, out):
            if out is None:
                return value
            out[...] = value
            return out
        return run
    if kind == "neg":
        inner = _compile_numpy(e.args[0], names)
        return lambda xp, args, dtype, out: _numpy_neg(xp, inner(xp, args, dtype, None), out)
    if kind == "call":
        fn = FUNCTIONS[e.args[0]].numpy
        if len(e.args) == 2 and e.args[1].kind == "var":  # f(x): the common case, direct
            k = names.index(e.args[1].args[0])
            return lambda xp, args, dtype, out: fn(xp, args[k], out=out)
        ops = [_compile_numpy(a, names) for a in e.args[1:]]
        if len(ops) == 1:
            (op,) = ops
            return lambda xp, args, dtype, out: fn(xp, op(xp, args, dtype, None), out=out)
        return lambda xp, args, dtype, out: fn(
            xp, *[o(xp, args, dtype, None) for o in ops], out=out)
    if kind == "where":
        cond, then, other = (_compile_numpy(a, names) for a in e.args)
        both_const = e.args[1].kind == "const" and e.args[2].kind == "const"

        def run(xp, args, dtype, out):
            a, b = then(xp, args, dtype, None), other(xp, args, dtype, None)
            if both_const:  # two Python numbers would give int64/float64
                a, b = dtype.type(a), dtype.type(b)
            r = xp.where(cond(xp, args, dtype, None), a, b)
            if out is None:
                return r
            out[...] = r
            return out
        return run
    if kind in _ARITH and _is_leaf(e.args[0]) and _is_leaf(e.args[1]):
        return _leaf_arith(_ARITH[kind], e.args[0], e.args[1], names)
    lhs, rhs = (_compile_numpy(a, names) for a in e.args)
    if kind in _ARITH:
        name = _ARITH[kind]
        lhs_bool, rhs_bool = e.args[0].is_bool, e.args[1].is_bool

        def run(xp, args, dtype, out):
            a, b = lhs(xp, args, dtype, None), rhs(xp, args, dtype, None)
            if lhs_bool:
                a = _as_number(xp, a, dtype)
            if rhs_bool:
                b = _as_number(xp, b, dtype)
            f = getattr(xp, name)
            return f(a, b) if out is None else f(a, b, out=out)
        return run
    name = _COMPARE.get(kind) or _LOGIC[kind]

    def run(xp, args, dtype, out):
        f = getattr(xp, name)
        a, b = lhs(xp, args, dtype, None), rhs(xp, args, dtype, None)
        return f(a, b) if out is None else f(a, b, out=out)
    return run


def _is_leaf(e: Expr) -> bool:
    return e.kind == "var" or e.kind == "const"


def _leaf_arith(name: str, a: Expr, b: Expr, names: tuple) -> Callable:
    """Arithmetic of two variables or numbers, reading them directly (no closure per leaf:
    the gradients of most operators are of this form)."""
    if a.kind == "var" and b.kind == "var":
        i, j = names.index(a.args[0]), names.index(b.args[0])

        def run(xp, args, dtype, out):
            f = getattr(xp, name)
            return f(args[i], args[j]) if out is None else f(args[i], args[j], out=out)
        return run
    if a.kind == "var" or b.kind == "var":
        k = names.index((a if a.kind == "var" else b).args[0])
        c = (b if a.kind == "var" else a).args[0]
        var_first = a.kind == "var"

        def run(xp, args, dtype, out):
            f = getattr(xp, name)
            x, y = (args[k], c) if var_first else (c, args[k])
            return f(x, y) if out is None else f(x, y, out=out)
        return run
    value = {"add": a.args[0] + b.args[0], "subtract": a.args[0] - b.args[0],
             "multiply": a.args[0] * b.args[0]}.get(name)
    if value is None:  # division; by zero as IEEE gives it
        num, den = a.args[0], b.args[0]
        value = num / den if den != 0 else (math.copysign(math.inf, num) if num else math.nan)

    def run(xp, args, dtype, out):
        if out is None:
            return value
        out[...] = value
        return out
    return run


def _numpy_neg(xp, v, out):
    if out is None:
        return -v
    return xp.negative(v, out=out)


def _as_number(xp, v, dtype):
    """A truth value as 0/1 of ``dtype``."""
    if isinstance(v, (bool, np.bool_)):
        return dtype.type(v)
    return v.astype(dtype)


def _needs_dtype(e: Expr) -> bool:
    """Whether evaluating ``e`` needs the compute dtype: a truth value used as a number,
    or a ``where`` choosing between two numbers."""
    if e.kind in ("var", "const"):
        return False
    if e.kind == "where" and e.args[1].kind == "const" and e.args[2].kind == "const":
        return True
    if e.kind in _ARITH and (e.args[0].is_bool or e.args[1].is_bool):
        return True
    return any(_needs_dtype(a) for a in e.args if isinstance(a, Expr))


def _first_dtype(args):
    for a in args:
        dtype = getattr(a, "dtype", None)
        if dtype is not None:
            return dtype
    return np.dtype(np.float64)


def _direct_ufunc(name: str, k: int) -> Callable:
    def kernel(xp, *args, out=None):
        f = getattr(xp, name)
        return f(args[k]) if out is None else f(args[k], out=out)
    return kernel


def numpy_kernel(e: Expr, names: tuple, quiet: bool = False) -> Callable:
    """The NumPy/CuPy kernel of ``e``: ``f(xp, *arrays, out=None)`` with the arrays in the
    order of ``names``, computing in the dtype of the first array (a truth-valued ``e``
    gives 0/1 in that dtype).  With ``out`` the last operation writes into it, after
    every operand is read, so ``out`` may be one of the arrays.  ``quiet`` silences
    NumPy's floating-point warnings (``np.errstate`` costs ~2 us a call, so only where
    out-of-domain values are normal)."""
    if e.kind == "call" and len(e.args) == 2 and e.args[1].kind == "var":
        ufunc_name = getattr(FUNCTIONS[e.args[0]].numpy, "ufunc_name", None)
        if ufunc_name is not None and not quiet:  # f(x), one ufunc: called directly
            return _direct_ufunc(ufunc_name, names.index(e.args[1].args[0]))
    run = _compile_numpy(e, tuple(names))
    to_number = e.is_bool
    needs_dtype = to_number or _needs_dtype(e)

    def kernel(xp, *args, out=None):
        dtype = _first_dtype(args) if needs_dtype else None
        if quiet and xp is np:
            with np.errstate(all="ignore"):
                r = run(xp, args, dtype, out)
        else:
            r = run(xp, args, dtype, out)
        if to_number and out is None:  # (into ``out`` the truth value converts itself)
            r = _as_number(xp, r, dtype)
        return r
    return kernel


def head_grad_kernel(d: Expr, names: tuple) -> Callable:
    """``f(xp, g, *arrays)``: the head gradient ``g`` times the partial derivative ``d``
    (over ``names``), in ``g``'s dtype; ``d = 0``, ``1``, ``-1`` fold into
    ``zeros_like(g)``, ``g`` and ``-g``."""
    if d.kind == "const":
        v = d.args[0]
        if v == 0:
            return lambda xp, g, *args: xp.zeros_like(g)
        if v == 1:
            return lambda xp, g, *args: g
        if v == -1:
            return lambda xp, g, *args: -g
        return lambda xp, g, *args: g * v
    if d.kind == "var":  # the gradient is an operand (mul's): no kernel around it
        k = names.index(d.args[0])

        def product(xp, g, *args):
            r = g * args[k]
            return r if r.dtype == g.dtype else r.astype(g.dtype)
        return product
    run = numpy_kernel(d, names, quiet=_warns_in_domain(d))

    def kernel(xp, g, *args):
        r = g * run(xp, *args)
        return r if r.dtype == g.dtype else r.astype(g.dtype)
    return kernel


# -- the F namespace (second-order gradients) ---------------------------------------------
def _is_number(v) -> bool:
    return isinstance(v, (int, float, np.number, bool))


def _has_graph(e: Expr) -> bool:
    if e.kind == "call":
        name = e.args[0]
        if name != "pow" and FUNCTIONS[name].graph is None:
            return False
    return all(_has_graph(a) for a in e.args if isinstance(a, Expr))


def _eval_graph(e: Expr, F, env: dict):
    """``e`` over recorded ``F`` functions; truth values are 0/1 arrays (as ``F``'s
    comparisons give them), Python numbers stay numbers."""
    kind = e.kind
    if kind == "var":
        return env[e.args[0]]
    if kind == "const":
        return e.args[0]
    vals = [_eval_graph(a, F, env) if isinstance(a, Expr) else a for a in e.args]
    if kind == "neg":
        return -vals[0]
    if kind == "call":
        name, operands = vals[0], vals[1:]
        if all(_is_number(v) for v in operands):
            return float(FUNCTIONS[name].numpy(np, *[np.float64(v) for v in operands]))
        if name == "pow":
            return operands[0] ** operands[1]
        return getattr(F, FUNCTIONS[name].graph)(*operands)
    if kind == "where":
        cond, a, b = vals
        if _is_number(cond):
            return a if cond else b
        if _is_number(a) and _is_number(b):
            return cond * (a - b) + b if (a, b) != (1, 0) else cond
        if _is_number(a):
            a = F.ones_like(b) * a
        if _is_number(b):
            b = F.ones_like(a) * b
        return F.where(cond, a, b)
    a, b = vals
    if kind == "+":
        return a + b
    if kind == "-":
        return a - b
    if kind == "*":
        return a * b
    if kind == "/":
        return a / b
    if kind == "&&":
        return a * b
    if kind == "||":
        return (a + b) > 0
    if _is_number(a) and not _is_number(b):  # put the array first: F's comparisons
        a, b, kind = b, a, {"<": ">", "<=": ">=", ">": "<", ">=": "<="}.get(kind, kind)
    if kind == "==":
        return a == b
    if kind == "!=":
        return a != b
    return {"<": a.__lt__, "<=": a.__le__, ">": a.__gt__, ">=": a.__ge__}[kind](b)


def graph_grad(d: Expr) -> Callable | None:
    """``f(F, g, env)``: the head gradient ``g`` times ``d`` over recorded ``F`` functions,
    ``env`` mapping variable names to arrays (or Python numbers); ``None`` when a
    function of ``d`` has no recorded form."""
    if not _has_graph(d):
        return None
    if d.kind == "const":
        v = d.args[0]
        if v == 0:
            return lambda F, g, env: F.zeros_like(g)
        if v == 1:
            return lambda F, g, env: g
        if v == -1:
            return lambda F, g, env: -g
        return lambda F, g, env: g * v
    return lambda F, g, env: g * _eval_graph(d, F, env)


class _Env(dict):
    """Variables of an expression: inputs and ``y`` by name, anything else an attribute."""

    def __init__(self, values: dict, attrs):
        super().__init__(values)
        self._attrs = attrs

    def __missing__(self, name):
        return getattr(self._attrs, name)


def recorded_backward(math: "ElemMath") -> Callable | None:
    """``OpDef.backward_graph`` generated from ``math``: each input's head gradient times
    its partial derivative over ``F``'s recorded functions (attributes the expressions
    read come from the call's attributes); ``None`` when a derivative has no recorded
    form."""
    grads = [graph_grad(d) for d in math.grads]
    if any(g is None for g in grads):
        return None
    names = math.inputs

    def backward_graph(F, attrs, inputs, outputs, out_grads):
        values = dict(zip(names, inputs)) if inputs is not None else {}
        values["y"] = outputs[0] if outputs is not None else None
        env = _Env(values, attrs)
        return [gg(F, out_grads[0], env) for gg in grads]
    return backward_graph


@dataclass(frozen=True)
class ElemMath:
    """An elementwise operator's math, written once.

    Attributes
    ----------
    forward : Expr
        The output over the input names (and attribute names).
    grads : tuple of Expr
        ``d output / d input_k`` per input, over the inputs and ``y`` (the output).
    inputs : tuple of str
        The input names, in the operator's order.
    """

    forward: Expr
    grads: tuple
    inputs: tuple

    def cuda(self, out_name: str = "y") -> str | None:
        """``"y = <C expression>"``, as ``OpDef.cuda`` holds it."""
        text = to_c(self.forward)
        return None if text is None else f"{out_name} = {text}"

    def cuda_grads(self) -> tuple | None:
        """The partial derivatives in C, as ``OpDef.cuda_grad`` holds them."""
        return tuple(to_c(d) for d in self.grads)

    def reads(self) -> tuple:
        """What backward reads: ``'inputs'`` and/or ``'outputs'`` (``OpDef.backward_uses``)."""
        used = frozenset().union(*[variables(d) for d in self.grads]) if self.grads \
            else frozenset()
        reads = ()
        if used & set(self.inputs):
            reads += ("inputs",)
        if "y" in used:
            reads += ("outputs",)
        return reads
