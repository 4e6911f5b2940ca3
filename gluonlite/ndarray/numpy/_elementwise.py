"""Elementwise functions of ``mx.np``: the binary operators with MXNet's dtype rules
(``_npi_*``), the unary math (the legacy operators), predicates, ``clip``, ``around``."""
from __future__ import annotations

import numpy as onp

from ..ndarray import NDArray
from ..invoke import invoke
from ._array import ndarray, apply, array
from ._array import NpValueError, NpTypeError
from ._common import _arr, _ctx_of, _is_int, _is_scalar, _out, _ufunc_kwargs
from ._common import _PY_SCALARS


_NONCOMMUTATIVE = {"subtract", "true_divide", "mod", "power", "arctan2", "copysign", "fmod",
                   "ldexp"}


_BINARY_OPS: dict = {}


def _binary_ops(name):
    """(array op, scalar op, reversed-scalar op) of ``_npi_<name>``, looked up once."""
    ops = _BINARY_OPS.get(name)
    if ops is None:
        from ._array import _get
        rname = f"_npi_r{name}_scalar" if name in _NONCOMMUTATIVE else f"_npi_{name}_scalar"
        ops = _BINARY_OPS[name] = (_get(f"_npi_{name}"), _get(f"_npi_{name}_scalar"),
                                   _get(rname))
    return ops


def _binary(name: str, x1, x2, out=None):
    arr_op, scal_op, rscal_op = _binary_ops(name)
    a_arr, b_arr = isinstance(x1, NDArray), isinstance(x2, NDArray)
    if a_arr and b_arr:
        res = invoke(arr_op, [_arr(x1), _arr(x2)], arr_op.parse_attrs(None), cls=ndarray)
    elif a_arr and (type(x2) in _PY_SCALARS or _is_scalar(x2)):
        attrs = scal_op.parse_attrs({"scalar": float(x2), "is_int": _is_int(x2)})
        res = invoke(scal_op, [_arr(x1)], attrs, cls=ndarray)
    elif b_arr and (type(x1) in _PY_SCALARS or _is_scalar(x1)):
        attrs = rscal_op.parse_attrs({"scalar": float(x1), "is_int": _is_int(x1)})
        res = invoke(rscal_op, [_arr(x2)], attrs, cls=ndarray)
    else:
        ctx = _ctx_of(x1, x2)
        res = invoke(arr_op, [_operand(x1, ctx), _operand(x2, ctx)], arr_op.parse_attrs(None),
                     cls=ndarray)
    return _out(res, out)


def _operand(x, ctx):
    if isinstance(x, NDArray):
        return _arr(x)
    if isinstance(x, onp.ndarray):
        return array(x, ctx=ctx)
    if _is_scalar(x):
        return array(x, dtype=onp.int64 if _is_int(x) and not isinstance(x, bool) else None,
                     ctx=ctx)
    return array(x, ctx=ctx)


def _def_binary(name, op_name=None):
    def fn(x1, x2, out=None, **kwargs):
        if kwargs:
            _ufunc_kwargs(name, kwargs)
        return _binary(op_name or name, x1, x2, out)
    fn.__name__ = name
    fn.__doc__ = f"NumPy ``{name}`` of two arrays or an array and a scalar (broadcasting)."
    return fn


_BINARY_NAMES = {
    "add": "add", "subtract": "subtract", "multiply": "multiply", "divide": "true_divide",
    "true_divide": "true_divide", "mod": "mod", "remainder": "mod", "power": "power",
    "maximum": "maximum", "minimum": "minimum", "hypot": "hypot", "arctan2": "arctan2",
    "copysign": "copysign", "fmod": "fmod", "lcm": "lcm", "gcd": "gcd",
    "bitwise_and": "bitwise_and", "bitwise_or": "bitwise_or", "bitwise_xor": "bitwise_xor",
    "ldexp": "ldexp", "equal": "equal", "not_equal": "not_equal", "greater": "greater",
    "greater_equal": "greater_equal", "less": "less", "less_equal": "less_equal",
    "logical_and": "logical_and", "logical_or": "logical_or", "logical_xor": "logical_xor",
    "fmax": "maximum", "fmin": "minimum",
}


for _n, _op_name in _BINARY_NAMES.items():
    globals()[_n] = _def_binary(_n, _op_name)


def floor_divide(x1, x2, out=None):
    """``floor(x1 / x2)`` in the operands' dtype."""
    q = floor(_binary("true_divide", x1, x2))
    dt = onp.result_type(*[x.dtype if isinstance(x, NDArray) else onp.asarray(x).dtype
                           for x in (x1, x2)])
    return _out(q.astype(dt) if dt.kind in "iu" else q, out)


_UNARY = {
    "exp": "exp", "expm1": "expm1", "log": "log", "log2": "log2", "log10": "log10",
    "log1p": "log1p", "sqrt": "sqrt", "cbrt": "cbrt", "square": "square",
    "reciprocal": "reciprocal", "sin": "sin", "cos": "cos", "tan": "tan", "arcsin": "arcsin",
    "arccos": "arccos", "arctan": "arctan", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh",
    "arcsinh": "arcsinh", "arccosh": "arccosh", "arctanh": "arctanh", "degrees": "degrees",
    "radians": "radians", "rad2deg": "degrees", "deg2rad": "radians", "negative": "negative",
    "absolute": "abs", "abs": "abs", "fabs": "abs", "sign": "sign", "floor": "floor",
    "ceil": "ceil", "trunc": "trunc", "fix": "fix", "rint": "rint",
}


def _def_unary(name, op_name):
    def fn(x, out=None, **kwargs):
        if kwargs:
            _ufunc_kwargs(name, kwargs)
        return _out(apply(op_name, [_arr(x)]), out)
    fn.__name__ = name
    fn.__doc__ = f"Elementwise NumPy ``{name}``."
    return fn


for _n, _op_name in _UNARY.items():
    globals()[_n] = _def_unary(_n, _op_name)


def positive(x, out=None, **kwargs) -> ndarray:
    """A copy of ``x``."""
    if kwargs:
        _ufunc_kwargs("positive", kwargs)
    return _out(_arr(x).copy(), out)


def logical_not(x, out=None, **kwargs) -> ndarray:
    """``x == 0`` as ``bool``."""
    if kwargs:
        _ufunc_kwargs("logical_not", kwargs)
    return _out(_binary("equal", _arr(x), 0), out)


def invert(x, out=None, **kwargs) -> ndarray:
    """Bitwise NOT of integers (logical NOT of ``bool``)."""
    if kwargs:
        _ufunc_kwargs("invert", kwargs)
    x = _arr(x)
    if x.dtype.kind not in "biu":
        raise NpTypeError(f"invert: ufunc 'invert' not supported for the input type "
                          f"{x.dtype}")
    return _out(apply("_npi_bitwise_not", [x]), out)


bitwise_not = invert


def isnan(x, out=None, **kwargs) -> ndarray:
    """Elementwise test for NaN (``bool``)."""
    return _predicate("isnan", x, out, kwargs)


def isinf(x, out=None, **kwargs) -> ndarray:
    """Elementwise test for positive or negative infinity (``bool``)."""
    return _predicate("isinf", x, out, kwargs)


def isposinf(x, out=None, **kwargs) -> ndarray:
    """Elementwise test for positive infinity (``bool``)."""
    return _predicate("isposinf", x, out, kwargs)


def isneginf(x, out=None, **kwargs) -> ndarray:
    """Elementwise test for negative infinity (``bool``)."""
    return _predicate("isneginf", x, out, kwargs)


def isfinite(x, out=None, **kwargs) -> ndarray:
    """Elementwise test for finiteness (``bool``)."""
    return _predicate("isfinite", x, out, kwargs)


def around(a, decimals: int = 0, out=None) -> ndarray:
    """Round to ``decimals`` places, halves to even (NumPy's rule)."""
    return _out(apply("_npi_around", [_arr(a)], decimals=decimals), out)


round = around  # noqa: A001 - NumPy's name


round_ = around


def clip(a, a_min, a_max, out=None) -> ndarray:
    """Values limited to ``[a_min, a_max]`` (either may be None)."""
    a = _arr(a)
    if a_min is None and a_max is None:
        raise NpValueError("clip: one of a_min and a_max must be given")
    lo = -onp.inf if a_min is None else float(a_min)
    hi = onp.inf if a_max is None else float(a_max)
    return _out(apply("clip", [a], a_min=lo, a_max=hi), out)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None) -> ndarray:
    """NaN and infinities replaced by finite numbers (the dtype's extremes by default)."""
    x = _arr(x)
    res = apply("_npi_nan_to_num", [x], copy=bool(copy), nan=float(nan),
                posinf=None if posinf is None else float(posinf),
                neginf=None if neginf is None else float(neginf))
    if not copy:
        x[...] = res
        return x
    return res


def _predicate(name: str, x, out, kwargs) -> ndarray:
    if kwargs:
        _ufunc_kwargs(name, kwargs)
    if out is not None and out.dtype != onp.bool_:
        raise NpTypeError(f"{name}: the output of dtype {out.dtype} cannot hold its bool "
                          "result")
    return _out(apply(f"_npi_{name}", [_arr(x)]), out)


__all__ = sorted(n for n, v in globals().items()
                 if not n.startswith("_") and callable(v) and getattr(v, "__module__", "")
                 == __name__)
