"""Arithmetic and comparison: ``nd.add``, ``nd.maximum``, ... and the NDArray
operators (``+``, ``<``, ``+=``).  NDArray with NDArray uses the broadcast
operators; NDArray with a scalar uses the ``_*_scalar`` operators, where the
scalar takes the array's dtype as in MXNet."""
from __future__ import annotations

import numpy as np

from ..base import MXNetError, numeric_types
from ..autograd import _state
from ..ops._binary_math import MATH
from ..ops.registry import get_op
from . import invoke as _invoke
from .invoke import invoke
from .ndarray import NDArray


class _OperandTypeError(MXNetError, TypeError):
    """An operand that is neither an NDArray, a number nor a NumPy array (MXNet raises
    ``TypeError``)."""


# name: (array-array op, array-scalar op, scalar-array op, python fallback)
_BINARY = {
    "add": ("broadcast_add", "_plus_scalar", "_plus_scalar", lambda a, b: a + b),
    "subtract": ("broadcast_sub", "_minus_scalar", "_rminus_scalar", lambda a, b: a - b),
    "multiply": ("broadcast_mul", "_mul_scalar", "_mul_scalar", lambda a, b: a * b),
    "divide": ("broadcast_div", "_div_scalar", "_rdiv_scalar", lambda a, b: a / b),
    "modulo": ("broadcast_mod", "_mod_scalar", "_rmod_scalar", lambda a, b: a % b),
    "power": ("broadcast_power", "_power_scalar", "_rpower_scalar", lambda a, b: a ** b),
    "maximum": ("broadcast_maximum", "_maximum_scalar", "_maximum_scalar", max),
    "minimum": ("broadcast_minimum", "_minimum_scalar", "_minimum_scalar", min),
    "hypot": ("broadcast_hypot", "_hypot_scalar", "_hypot_scalar", lambda a, b: float(np.hypot(a, b))),
    "equal": ("broadcast_equal", "_equal_scalar", "_equal_scalar", lambda a, b: float(a == b)),
    "not_equal": ("broadcast_not_equal", "_not_equal_scalar", "_not_equal_scalar",
                  lambda a, b: float(a != b)),
    "greater": ("broadcast_greater", "_greater_scalar", "_lesser_scalar",
                lambda a, b: float(a > b)),
    "greater_equal": ("broadcast_greater_equal", "_greater_equal_scalar",
                      "_lesser_equal_scalar", lambda a, b: float(a >= b)),
    "lesser": ("broadcast_lesser", "_lesser_scalar", "_greater_scalar",
               lambda a, b: float(a < b)),
    "lesser_equal": ("broadcast_lesser_equal", "_lesser_equal_scalar", "_greater_equal_scalar",
                     lambda a, b: float(a <= b)),
    "logical_and": ("broadcast_logical_and", "_logical_and_scalar", "_logical_and_scalar",
                    lambda a, b: float(bool(a) and bool(b))),
    "logical_or": ("broadcast_logical_or", "_logical_or_scalar", "_logical_or_scalar",
                   lambda a, b: float(bool(a) or bool(b))),
    "logical_xor": ("broadcast_logical_xor", "_logical_xor_scalar", "_logical_xor_scalar",
                    lambda a, b: float(bool(a) != bool(b))),
}

_resolved: dict = {}
_SCALAR_TYPES = (int, float)


def _ops(name):
    r = _resolved.get(name)
    if r is None:
        arr, scal, rscal, py = _BINARY[name]
        r = _resolved[name] = (get_op(arr), get_op(scal), get_op(rscal), py)
    return r


def _binary(name: str, lhs, rhs, out=None):
    arr_op, scal_op, rscal_op, py = _ops(name)
    if isinstance(lhs, NDArray):
        if isinstance(rhs, NDArray):
            return invoke(arr_op, [lhs, rhs], arr_op.parse_attrs(None), out=out)
        if isinstance(rhs, numeric_types):
            return invoke(scal_op, [lhs], scal_op.parse_attrs({"scalar": rhs}), out=out)
        if isinstance(rhs, np.ndarray):
            from .ndarray import array
            return _binary(name, lhs, array(rhs, ctx=lhs.context, dtype=lhs.dtype), out)
    elif isinstance(rhs, NDArray):
        if isinstance(lhs, numeric_types):
            return invoke(rscal_op, [rhs], rscal_op.parse_attrs({"scalar": lhs}), out=out)
        if isinstance(lhs, np.ndarray):
            from .ndarray import array
            return _binary(name, array(lhs, ctx=rhs.context, dtype=rhs.dtype), rhs, out)
    elif isinstance(lhs, numeric_types) and isinstance(rhs, numeric_types):
        return py(lhs, rhs)
    raise _OperandTypeError(f"{name}: unsupported operand types {type(lhs).__name__} and "
                            f"{type(rhs).__name__}")


def _make(name):
    def fn(lhs, rhs, out=None):
        return _binary(name, lhs, rhs, out)
    fn.__name__ = name
    fn.__doc__ = (f"Element-wise ``{name}`` of two arrays (broadcasting) or of an array "
                  "and a scalar, as in MXNet.")
    return fn


add = _make("add")
subtract = _make("subtract")
multiply = _make("multiply")
divide = _make("divide")
true_divide = divide
modulo = _make("modulo")
power = _make("power")
maximum = _make("maximum")
minimum = _make("minimum")
hypot = _make("hypot")
equal = _make("equal")
not_equal = _make("not_equal")
greater = _make("greater")
greater_equal = _make("greater_equal")
lesser = _make("lesser")
lesser_equal = _make("lesser_equal")
logical_and = _make("logical_and")
logical_or = _make("logical_or")
logical_xor = _make("logical_xor")


def negative(data: NDArray, out=None) -> NDArray:
    """``-data``."""
    op = get_op("negative")
    return invoke(op, [data], op.parse_attrs(None), out=out)


def _install_operators() -> None:
    def binop(name, reverse=False):
        if reverse:
            def rfn(self, other):
                if type(other) in _SCALAR_TYPES:
                    op = _ops(name)[2]
                    return invoke(op, [self], op.parse_attrs({"scalar": other}))
                return _binary(name, other, self)
            return rfn

        math = _FAST_MATH.get(name)
        ufunc = getattr(np, MATH[math].ufunc) if math else None

        # the common cases (array with array, array with a Python number) go straight
        # to invoke; everything else takes the general path
        def fn(self, other):
            kind = type(other)
            # the profiler times operators: take the path that goes through invoke
            if ufunc is not None and not _state.recording and _invoke.profiler is None:
                fast = _cpu_ufunc(ufunc, self, other, kind)
                if fast is not None:
                    return fast
            if kind is NDArray:
                op = _ops(name)[0]
                return invoke(op, [self, other], op.parse_attrs(None))
            if kind in _SCALAR_TYPES:
                op = _ops(name)[1]
                return invoke(op, [self], op.parse_attrs({"scalar": other}))
            return _binary(name, self, other)
        return fn

    def inplace(name):
        math = _FAST_MATH.get(name)
        ufunc = getattr(np, MATH[math].ufunc) if math else None

        def fn(self, other):
            if ufunc is not None and not _state.recording and _invoke.profiler is None \
                    and _cpu_ufunc_inplace(ufunc, self, other, type(other)):
                return self
            return _binary(name, self, other, out=self)
        return fn

    for dunder, name in (("add", "add"), ("sub", "subtract"), ("mul", "multiply"),
                         ("truediv", "divide"), ("div", "divide"), ("mod", "modulo"),
                         ("pow", "power")):
        setattr(NDArray, f"__{dunder}__", binop(name))
        setattr(NDArray, f"__r{dunder}__", binop(name, reverse=True))
        setattr(NDArray, f"__i{dunder}__", inplace(name))
    for dunder, name in (("eq", "equal"), ("ne", "not_equal"), ("gt", "greater"),
                         ("ge", "greater_equal"), ("lt", "lesser"), ("le", "lesser_equal")):
        setattr(NDArray, f"__{dunder}__", _comparison(name))
    NDArray.__neg__ = lambda self: negative(self)
    NDArray.__pos__ = lambda self: self
    NDArray.__abs__ = lambda self: _unary("abs", self)
    NDArray.__hash__ = lambda self: id(self)


# Operators whose forward is one NumPy ufunc call for every dtype (``MATH[m].ufunc``):
# on the CPU, outside autograd, ``x + y`` calls that ufunc directly, skipping the
# generic invoke (the result is the same as broadcast_add / _plus_scalar give).
_FAST_MATH = {"add": "add", "subtract": "sub", "multiply": "mul"}
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _cpu_ufunc(ufunc, x: NDArray, other, kind):
    """``ufunc(x, other)`` as an NDArray for the plain CPU cases, else ``None``."""
    ctx = x._ctx
    if ctx.device_typeid != 1 or type(x) is not NDArray:  # sparse: the operators' kernels
        return None
    a = x._data
    if kind is NDArray:
        b = other._data
        if other._ctx is not ctx or a.dtype != b.dtype:
            return None
        try:
            return NDArray(ufunc(a, b), ctx)
        except ValueError:  # shapes do not broadcast: the general path names the op
            return None
    if kind in _SCALAR_TYPES and a.dtype in _FLOATS:
        # float arrays keep their dtype with a Python scalar, as in MXNet
        return NDArray(ufunc(a, float(other)), ctx)
    return None


def _cpu_ufunc_inplace(ufunc, x: NDArray, other, kind) -> bool:
    """``ufunc(x, other, out=x)`` for the plain CPU cases; False where it does not apply."""
    ctx = x._ctx
    if ctx.device_typeid != 1 or type(x) is not NDArray:  # sparse: the operators' kernels
        return False
    a = x._data
    if kind is NDArray:
        b = other._data
        if other._ctx is not ctx or a.dtype != b.dtype:
            return False
    elif kind in _SCALAR_TYPES and a.dtype in _FLOATS:
        b = float(other)
    else:
        return False
    try:
        ufunc(a, b, out=a)
    except ValueError:  # does not broadcast to x's shape: the general path explains
        return False
    x._bump()
    x._entry = None
    return True


def _comparison(name):
    def fn(self, other):
        if other is None:
            return name == "not_equal"
        return _binary(name, self, other)
    return fn


def _unary(name, x):
    op = get_op(name)
    return invoke(op, [x], op.parse_attrs(None))


_install_operators()
