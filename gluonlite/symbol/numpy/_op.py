"""The functions of ``mx.sym.np``: NumPy's names over ``mx.np`` symbols, each one
registry operator whose attributes need no input shape (see :mod:`._symbol`)."""
from __future__ import annotations

import numbers

import numpy as onp

from ...base import MXNetError
from ..symbol import Symbol
from ._symbol import _Symbol, apply

_NONCOMMUTATIVE = {"subtract", "true_divide", "mod", "power", "arctan2", "copysign", "fmod",
                   "ldexp"}
_DEFAULT_FLOAT = onp.dtype(onp.float32)


def _sym(x) -> _Symbol:
    if isinstance(x, _Symbol):
        return x
    if isinstance(x, Symbol):
        return _Symbol(x._heads)
    raise TypeError(f"mx.sym.np: expected a Symbol, got {type(x).__name__}")


def _binary(name: str, x1, x2, out=None):
    if out is not None:
        raise MXNetError(f"mx.sym.np.{name}: out= is not supported for symbols")
    s1, s2 = isinstance(x1, Symbol), isinstance(x2, Symbol)
    if s1 and s2:
        return apply(f"_npi_{name}", [_sym(x1), _sym(x2)])
    if s1 and isinstance(x2, numbers.Number):
        return apply(f"_npi_{name}_scalar", [_sym(x1)], scalar=float(x2),
                     is_int=isinstance(x2, numbers.Integral))
    if s2 and isinstance(x1, numbers.Number):
        op = f"_npi_r{name}_scalar" if name in _NONCOMMUTATIVE else f"_npi_{name}_scalar"
        return apply(op, [_sym(x2)], scalar=float(x1), is_int=isinstance(x1, numbers.Integral))
    raise TypeError(f"mx.sym.np.{name}: unsupported operands {type(x1).__name__} and "
                    f"{type(x2).__name__}")


_BINARY = {
    "add": "add", "subtract": "subtract", "multiply": "multiply", "divide": "true_divide",
    "true_divide": "true_divide", "mod": "mod", "remainder": "mod", "power": "power",
    "maximum": "maximum", "minimum": "minimum", "hypot": "hypot", "arctan2": "arctan2",
    "copysign": "copysign", "fmod": "fmod", "lcm": "lcm", "gcd": "gcd",
    "bitwise_and": "bitwise_and", "bitwise_or": "bitwise_or", "bitwise_xor": "bitwise_xor",
    "ldexp": "ldexp", "equal": "equal", "not_equal": "not_equal", "greater": "greater",
    "greater_equal": "greater_equal", "less": "less", "less_equal": "less_equal",
    "logical_and": "logical_and", "logical_or": "logical_or", "logical_xor": "logical_xor",
}
_UNARY = {
    "exp": "exp", "expm1": "expm1", "log": "log", "log2": "log2", "log10": "log10",
    "log1p": "log1p", "sqrt": "sqrt", "cbrt": "cbrt", "square": "square",
    "reciprocal": "reciprocal", "sin": "sin", "cos": "cos", "tan": "tan", "arcsin": "arcsin",
    "arccos": "arccos", "arctan": "arctan", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh",
    "arcsinh": "arcsinh", "arccosh": "arccosh", "arctanh": "arctanh", "degrees": "degrees",
    "radians": "radians", "negative": "negative", "absolute": "abs", "abs": "abs",
    "fabs": "abs", "sign": "sign", "floor": "floor", "ceil": "ceil", "trunc": "trunc",
    "fix": "fix", "rint": "rint",
}


def _def_binary(fname, op_name):
    def fn(x1, x2, out=None, **kwargs):
        return _binary(op_name, x1, x2, out)
    fn.__name__ = fname
    fn.__doc__ = f"NumPy ``{fname}`` of symbols (or a symbol and a scalar)."
    return fn


def _def_unary(fname, op_name):
    def fn(x, out=None, **kwargs):
        return apply(op_name, [_sym(x)])
    fn.__name__ = fname
    fn.__doc__ = f"Elementwise NumPy ``{fname}`` of a symbol."
    return fn


for _n, _op_name in _BINARY.items():
    globals()[_n] = _def_binary(_n, _op_name)
for _n, _op_name in _UNARY.items():
    globals()[_n] = _def_unary(_n, _op_name)


def _axis(axis):
    if axis is None:
        return None
    return (int(axis),) if isinstance(axis, numbers.Integral) else tuple(int(a) for a in axis)


def _reduce(op_name):
    def fn(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
        extra = {"ddof": kwargs["ddof"]} if "ddof" in kwargs else {}
        return apply(op_name, [_sym(a)], axis=_axis(axis), keepdims=keepdims,
                     dtype=None if dtype is None else onp.dtype(dtype), **extra)
    return fn


sum = _reduce("_np_sum")  # noqa: A001 - NumPy's names
mean = _reduce("_npi_mean")
prod = _reduce("_np_prod")
std = _reduce("_npi_std")
var = _reduce("_npi_var")


def max(a, axis=None, out=None, keepdims=False):  # noqa: A001
    return apply("_np_max", [_sym(a)], axis=_axis(axis), keepdims=keepdims)


def min(a, axis=None, out=None, keepdims=False):  # noqa: A001
    return apply("_np_min", [_sym(a)], axis=_axis(axis), keepdims=keepdims)


amax, amin = max, min


def all(a, axis=None, out=None, keepdims=False):  # noqa: A001
    return apply("_np_all", [_sym(a)], axis=_axis(axis), keepdims=keepdims)


def any(a, axis=None, out=None, keepdims=False):  # noqa: A001
    return apply("_np_any", [_sym(a)], axis=_axis(axis), keepdims=keepdims)


def argmax(a, axis=None, out=None):
    return apply("_npi_argmax", [_sym(a)], axis=axis)


def argmin(a, axis=None, out=None):
    return apply("_npi_argmin", [_sym(a)], axis=axis)


def cumsum(a, axis=None, dtype=None, out=None):
    return apply("_np_cumsum", [_sym(a)], axis=axis, dtype=dtype)


def reshape(a, newshape, order="C"):
    return _sym(a).reshape(newshape, order=order)


def ravel(x, order="C"):
    return reshape(x, -1)


def transpose(a, axes=None):
    return _sym(a).transpose(axes)


def swapaxes(a, axis1, axis2):
    return apply("SwapAxis", [_sym(a)], dim1=axis1, dim2=axis2)


def expand_dims(a, axis):
    return apply("expand_dims", [_sym(a)], axis=axis)


def squeeze(a, axis=None):
    return apply("squeeze", [_sym(a)], axis=_axis(axis))


def concatenate(seq, axis=0, out=None):
    arrs = [_sym(x) for x in seq]
    if axis is None:
        arrs, axis = [ravel(x) for x in arrs], 0
    return apply("Concat", arrs, dim=axis, num_args=len(arrs))


def stack(arrays, axis=0, out=None):
    arrs = [_sym(x) for x in arrays]
    return apply("stack", arrs, axis=axis, num_args=len(arrs))


def split(ary, indices_or_sections, axis=0):
    if not isinstance(indices_or_sections, numbers.Integral):
        raise NotImplementedError("mx.sym.np.split: only a number of equal sections is "
                                  "supported on symbols")
    out = apply("split", [_sym(ary)], num_outputs=int(indices_or_sections), axis=axis)
    return [_Symbol([h]) for h in out._heads]


def tile(A, reps):  # noqa: N803
    return apply("tile", [_sym(A)], reps=(reps,) if isinstance(reps, numbers.Integral)
                 else tuple(reps))


def repeat(a, repeats, axis=None):
    return apply("repeat", [_sym(a)], repeats=int(repeats), axis=axis)


def flip(m, axis=None, out=None):
    if axis is None:
        raise NotImplementedError("mx.sym.np.flip: give the axis (the rank is unknown)")
    return apply("reverse", [_sym(m)], axis=_axis(axis))


def clip(a, a_min, a_max, out=None):
    return apply("clip", [_sym(a)], a_min=-onp.inf if a_min is None else float(a_min),
                 a_max=onp.inf if a_max is None else float(a_max))


def where(condition, x, y):
    """``x`` where ``condition`` is nonzero, else ``y`` (scalars allowed), broadcast."""
    cond = _sym(condition)
    xs = _sym(x) if isinstance(x, Symbol) else None
    ys = _sym(y) if isinstance(y, Symbol) else None
    like = xs if xs is not None else (ys if ys is not None else cond)
    if xs is None:
        xs = full_like(like, x)
    if ys is None:
        ys = full_like(like, y)
    return apply("_npi_where", [cond, xs, ys])


def dot(a, b, out=None):
    return apply("_np_dot", [_sym(a), _sym(b)])


def matmul(a, b, out=None):
    return apply("_npi_matmul", [_sym(a), _sym(b)])


def tensordot(a, b, axes=2):
    if isinstance(axes, numbers.Integral):
        raise NotImplementedError("mx.sym.np.tensordot: give the axes as two sequences (an "
                                  "integer needs the ranks)")
    ax_a, ax_b = axes
    ax_a = (ax_a,) if isinstance(ax_a, numbers.Integral) else tuple(ax_a)
    ax_b = (ax_b,) if isinstance(ax_b, numbers.Integral) else tuple(ax_b)
    return apply("_npi_tensordot", [_sym(a), _sym(b)], a_axes_summed=ax_a, b_axes_summed=ax_b)


def einsum(subscripts, *operands, out=None, optimize=False):
    ops = [_sym(x) for x in operands]
    return apply("_npi_einsum", ops, subscripts=subscripts, num_args=len(ops),
                 optimize=int(bool(optimize)))


def around(a, decimals=0, out=None):
    return apply("_npi_around", [_sym(a)], decimals=decimals)


round = around  # noqa: A001
round_ = around


def tril(m, k=0):
    return apply("_npi_tril", [_sym(m)], k=k)


def logical_not(x, out=None):
    return _binary("equal", _sym(x), 0)


def zeros_like(a, dtype=None, **kwargs):
    z = apply("zeros_like", [_sym(a)])
    return z if dtype is None else z.astype(dtype)


def ones_like(a, dtype=None, **kwargs):
    o = apply("ones_like", [_sym(a)])
    return o if dtype is None else o.astype(dtype)


def full_like(a, fill_value, dtype=None, **kwargs):
    return _binary("add", zeros_like(a, dtype), fill_value)


def _creation(op_name):
    def fn(shape, dtype=None, order="C", ctx=None, **kwargs):
        shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
        return apply(op_name, [], shape=shape, dtype=onp.dtype(dtype or _DEFAULT_FLOAT))
    return fn


zeros = _creation("_zeros")
ones = _creation("_ones")
empty = zeros


def full(shape, fill_value, dtype=None, order="C", ctx=None, out=None):
    shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
    return apply("_full", [], shape=shape, value=float(fill_value),
                 dtype=onp.dtype(dtype or _DEFAULT_FLOAT))


def arange(start, stop=None, step=1, dtype=None, ctx=None):
    if stop is None:
        start, stop = 0, start
    return apply("_arange", [], start=float(start), stop=float(stop), step=float(step),
                 dtype=onp.dtype(dtype or _DEFAULT_FLOAT))


__all__ = sorted(n for n, v in globals().items()
                 if not n.startswith("_") and callable(v) and n not in ("apply", "numbers")
                 and getattr(v, "__module__", "") == __name__)
