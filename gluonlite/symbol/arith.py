"""Symbol arithmetic and comparison (``+``, ``<``, ``sym.maximum``, ...).

Each maps to the operator and the node-name hint MXNet's front end uses:
``a + b`` is an ``elemwise_add`` node named ``_plus0``, ``a + 1`` a ``_plus_scalar``
node named ``_plusscalar0``, ``a == b`` an ``_equal`` node named ``_equal0``.
"""
from __future__ import annotations

from ..base import NotImplementedForSymbol, numeric_types
from ..ops.registry import get_op
from .register import create
from .symbol import Symbol

__all__ = ["pow", "power", "maximum", "minimum", "hypot"]

# name: ((array op, hint), (scalar op, hint), (reversed scalar op, hint))
_TABLE = {
    "add": (("elemwise_add", "_plus"), ("_plus_scalar", "_plusscalar"),
            ("_plus_scalar", "_plusscalar")),
    "sub": (("elemwise_sub", "_minus"), ("_minus_scalar", "_minusscalar"),
            ("_rminus_scalar", "_rminusscalar")),
    "mul": (("elemwise_mul", "_mul"), ("_mul_scalar", "_mulscalar"),
            ("_mul_scalar", "_mulscalar")),
    "div": (("elemwise_div", "_div"), ("_div_scalar", "_divscalar"),
            ("_rdiv_scalar", "_rdivscalar")),
    "mod": (("_mod", "_mod"), ("_mod_scalar", "_modscalar"), ("_rmod_scalar", "_rmodscalar")),
    "pow": (("_power", "_power"), ("_power_scalar", "_powerscalar"),
            ("_rpower_scalar", "_rpower_scalar")),
    "power": (("_power", "_power"), ("_power_scalar", "_powerscalar"),
              ("_rpower_scalar", "_rpowerscalar")),
    "maximum": (("_maximum", "_maximum"), ("_maximum_scalar", "_maximumscalar"),
                ("_maximum_scalar", "_maximumscalar")),
    "minimum": (("_minimum", "_minimum"), ("_minimum_scalar", "_minimumscalar"),
                ("_minimum_scalar", "_minimumscalar")),
    "hypot": (("_hypot", "_hypot"), ("_hypot_scalar", "_hypotscalar"),
              ("_hypot_scalar", "_hypotscalar")),
    "eq": (("_equal", "_equal"), ("_equal_scalar", "_equal_scalar"),
           ("_equal_scalar", "_equal_scalar")),
    "ne": (("_not_equal", "_not_equal"), ("_not_equal_scalar", "_not_equal_scalar"),
           ("_not_equal_scalar", "_not_equal_scalar")),
    "gt": (("_greater", "_greater"), ("_greater_scalar", "_greater_scalar"),
           ("_lesser_scalar", "_lesser_scalar")),
    "ge": (("_greater_equal", "_greater_equal"),
           ("_greater_equal_scalar", "_greater_equal_scalar"),
           ("_lesser_equal_scalar", "_lesser_equal_scalar")),
    "lt": (("_lesser", "_lesser"), ("_lesser_scalar", "_lesser_scalar"),
           ("_greater_scalar", "_greater_scalar")),
    "le": (("_lesser_equal", "_lesser_equal"), ("_lesser_equal_scalar", "_lesser_equal_scalar"),
           ("_greater_equal_scalar", "_greater_equal_scalar")),
}


def _binary(kind: str, lhs, rhs, py=None):
    arr, scal, rscal = _TABLE[kind]
    if isinstance(lhs, Symbol):
        if isinstance(rhs, Symbol):
            return create(get_op(arr[0]), arr[1], [lhs, rhs], {}, {})
        if isinstance(rhs, numeric_types) and not isinstance(rhs, bool):
            return create(get_op(scal[0]), scal[1], [lhs], {}, {"scalar": rhs})
    elif isinstance(rhs, Symbol):
        if isinstance(lhs, numeric_types) and not isinstance(lhs, bool):
            return create(get_op(rscal[0]), rscal[1], [rhs], {}, {"scalar": lhs})
    elif py is not None and isinstance(lhs, numeric_types) and isinstance(rhs, numeric_types):
        return py(lhs, rhs)
    bad = rhs if isinstance(lhs, Symbol) else lhs
    raise TypeError(f"type {type(bad)} not supported")


def pow(base, exp):  # noqa: A001 - MXNet's name
    """``base ** exp`` for symbols and/or numbers."""
    return _binary("power", base, exp, lambda a, b: a ** b)


power = pow


def maximum(left, right):
    """Element-wise maximum of symbols and/or numbers."""
    return _binary("maximum", left, right, lambda a, b: a if a > b else b)


def minimum(left, right):
    """Element-wise minimum of symbols and/or numbers."""
    return _binary("minimum", left, right, lambda a, b: a if a < b else b)


def hypot(left, right):
    """Element-wise ``sqrt(left**2 + right**2)`` of symbols and/or numbers."""
    import math
    return _binary("hypot", left, right, math.hypot)


def _install() -> None:
    def method(kind, reverse=False):
        if reverse:
            return lambda self, other: _binary(kind, other, self)
        return lambda self, other: _binary(kind, self, other)

    def inplace(dunder, op_text):
        def fn(self, other):
            raise NotImplementedForSymbol(getattr(self, f"__i{dunder}__"), op_text, other, 1)
        fn.__name__ = f"__i{dunder}__"
        return fn

    for dunder, kind, text in (("add", "add", "+="), ("sub", "sub", "-="),
                               ("mul", "mul", "*="), ("truediv", "div", "/="),
                               ("div", "div", "/="), ("mod", "mod", "%="),
                               ("pow", "pow", "**=")):
        setattr(Symbol, f"__{dunder}__", method(kind))
        setattr(Symbol, f"__r{dunder}__", method(kind, reverse=True))
        setattr(Symbol, f"__i{dunder}__", inplace(dunder, text))
    for dunder in ("eq", "ne", "gt", "ge", "lt", "le"):
        setattr(Symbol, f"__{dunder}__", method(dunder))
    Symbol.__neg__ = lambda self: create(get_op("_mul_scalar"), "_mulscalar", [self], {},
                                         {"scalar": -1.0})
    Symbol.__abs__ = lambda self: create(get_op("abs"), "abs", [self], {}, {})
    Symbol.__hash__ = None


_install()
