"""The functions of ``mx.np`` (MXNet's ``mx.nd.np``): NumPy's names and signatures over
``mx.np`` arrays, each one or a few registry operators, so that autograd records them.

Where MXNet 1.9's ``mx.np`` differs from NumPy, MXNet's rule holds (see
:mod:`gluonlite.ops.numpy_binary` for dtypes): lists and scalars become ``float32``,
``arange``/``linspace``/``eye``/``full`` default to ``float32``, integer ``mean`` and
division give ``float32``, indices are ``int64``.
"""
from __future__ import annotations

import builtins
import numbers

import numpy as onp

from ...base import MXNetError
from ...context import Context, current_context
from ..ndarray import NDArray
from ..invoke import invoke
from ._array import ndarray, apply, as_np, array, zeros, ones, full, empty, _DEFAULT_FLOAT
from ._array import NpValueError, NpTypeError, NpIndexError

__all__ = []  # filled at the end from the public names


def _ctx_of(*xs):
    for x in xs:
        if isinstance(x, NDArray):
            return x.context
    return None


def _arr(x, ctx=None) -> ndarray:
    """An operand as an ``mx.np`` array (scalars as ``float32`` 0-d arrays)."""
    if isinstance(x, ndarray):
        return x
    if isinstance(x, NDArray):
        return x.as_np_ndarray()
    return array(x, ctx=ctx)


def _out(res, out):
    if out is None:
        return res
    out[...] = res
    return out


def _axis_attr(axis):
    if axis is None:
        return None
    if isinstance(axis, numbers.Integral):
        return (int(axis),)
    return tuple(int(a) for a in axis)


# -- creation ---------------------------------------------------------------------------------
def zeros_like(a, dtype=None, order="C", ctx=None, out=None) -> ndarray:
    """Zeros with the shape (and dtype, unless given) of ``a``."""
    a = _arr(a)
    return _out(zeros(a.shape, dtype or a.dtype, ctx=ctx or a.context), out)


def ones_like(a, dtype=None, order="C", ctx=None, out=None) -> ndarray:
    """Ones with the shape (and dtype, unless given) of ``a``."""
    a = _arr(a)
    return _out(ones(a.shape, dtype or a.dtype, ctx=ctx or a.context), out)


def full_like(a, fill_value, dtype=None, order="C", ctx=None, out=None) -> ndarray:
    """``fill_value`` with the shape (and dtype, unless given) of ``a``."""
    a = _arr(a)
    return _out(apply("_npi_full_like", [a], fill_value=float(fill_value),
                      dtype=None if dtype is None else onp.dtype(dtype)), out)


def empty_like(prototype, dtype=None, order="C", subok=False, shape=None) -> ndarray:
    """An array like ``prototype`` (zeros here)."""
    p = _arr(prototype)
    return zeros(shape or p.shape, dtype or p.dtype, ctx=p.context)


def _host_array(values, dtype, ctx) -> ndarray:
    ctx = ctx or current_context()
    return ndarray(ctx.xp.asarray(values.astype(dtype, copy=False)), ctx)


def arange(start, stop=None, step=1, dtype=None, ctx=None) -> ndarray:
    """Evenly spaced values in ``[start, stop)`` (``float32`` unless ``dtype`` is given)."""
    step = 1 if step is None else step
    if stop is None:
        start, stop = 0, start
    if step == 0:
        raise NpValueError("arange: step must not be 0")
    return apply("_npi_arange", [], ctx=ctx, start=float(start), stop=float(stop),
                 step=float(step), dtype=onp.dtype(dtype or _DEFAULT_FLOAT))


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, ctx=None):
    """``num`` evenly spaced values from ``start`` to ``stop``."""
    vals, step = onp.linspace(start, stop, num, endpoint=endpoint, retstep=True, axis=axis)
    res = _host_array(vals, dtype or _DEFAULT_FLOAT, ctx)
    return (res, step) if retstep else res


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0, ctx=None):
    """``base ** linspace(start, stop, num)`` (``float32`` unless ``dtype`` is given)."""
    if axis != 0:
        raise NotImplementedError("logspace: only axis=0 is supported")
    return apply("_npi_logspace", [], ctx=ctx, start=float(start), stop=float(stop),
                 num=int(num), endpoint=bool(endpoint), base=float(base),
                 dtype=onp.dtype(dtype or _DEFAULT_FLOAT))


def eye(N, M=None, k=0, dtype=None, ctx=None) -> ndarray:  # noqa: N803 - NumPy's names
    """Ones on the ``k``-th diagonal of an ``N`` x ``M`` array (``M`` = ``N`` when None)."""
    return apply("_npi_eye", [], ctx=ctx, N=int(N), M=None if M is None else int(M),
                 k=int(k), dtype=onp.dtype(dtype or _DEFAULT_FLOAT))


def identity(n, dtype=None, ctx=None) -> ndarray:
    """The ``n`` x ``n`` identity."""
    return eye(n, dtype=dtype, ctx=ctx)


def tri(N, M=None, k=0, dtype=None, ctx=None) -> ndarray:  # noqa: N803
    return _host_array(onp.tri(N, M, k), dtype or _DEFAULT_FLOAT, ctx)


def indices(dimensions, dtype=onp.int32, ctx=None) -> ndarray:
    """The index grid of an array of shape ``dimensions`` (``int32`` as in MXNet)."""
    return apply("_npi_indices", [], ctx=ctx, dimensions=_ints(dimensions),
                 dtype=onp.dtype(dtype))


def copy(a) -> ndarray:
    """A copy of ``a``."""
    return _arr(a).copy()


def asarray(a, dtype=None, ctx=None) -> ndarray:
    if isinstance(a, ndarray) and (dtype is None or a.dtype == onp.dtype(dtype)):
        return a
    return array(a, dtype=dtype, ctx=ctx)


# -- elementwise binary -----------------------------------------------------------------------
_NONCOMMUTATIVE = {"subtract", "true_divide", "mod", "power", "arctan2", "copysign", "fmod",
                   "ldexp"}


_BINARY_OPS: dict = {}
_PY_SCALARS = {int: True, float: False, bool: True}  # type -> is_int


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


def _is_scalar(x) -> bool:
    return isinstance(x, (numbers.Number, onp.generic)) and not isinstance(x, complex)


def _is_int(x) -> bool:
    is_int = _PY_SCALARS.get(type(x))
    if is_int is not None:
        return is_int
    return isinstance(x, (numbers.Integral, onp.integer, onp.bool_))


def _operand(x, ctx):
    if isinstance(x, NDArray):
        return _arr(x)
    if isinstance(x, onp.ndarray):
        return array(x, ctx=ctx)
    if _is_scalar(x):
        return array(x, dtype=onp.int64 if _is_int(x) and not isinstance(x, bool) else None,
                     ctx=ctx)
    return array(x, ctx=ctx)


_UFUNC_DEFAULTS = {"where": True, "casting": "same_kind", "order": "K", "dtype": None,
                   "subok": True}
_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")


def _ufunc_kwargs(name: str, kwargs: dict) -> None:
    """MXNet's rule for NumPy's ufunc keywords: unknown ones and invalid ``dtype`` or
    ``casting`` values are a ``TypeError``; any other value than NumPy's default is not
    implemented."""
    for key, value in kwargs.items():
        if key not in _UFUNC_DEFAULTS:
            raise NpTypeError(f"{key} is an invalid keyword to function '{name}'")
        default = _UFUNC_DEFAULTS[key]
        if value is default or (not isinstance(value, type) and value == default
                                and key != "dtype"):
            continue
        if key == "casting" and value not in _CASTINGS:
            raise NpTypeError(f"{name}: casting must be one of {_CASTINGS}, got {value!r}")
        if key == "dtype":
            try:
                onp.dtype(value)
            except TypeError as err:
                raise NpTypeError(f"{name}: data type {value!r} not understood") from err
        raise NotImplementedError(f"{name}: {key}={value!r} is not supported")


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


# -- elementwise unary (the legacy operators, which already follow MXNet's dtype rules) -------
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


# -- reductions -------------------------------------------------------------------------------
def _reduce(op_name, a, axis, keepdims, dtype=None, out=None, **extra):
    a = _arr(a)
    res = apply(op_name, [a], axis=_axis_attr(axis), keepdims=keepdims,
                dtype=None if dtype is None else onp.dtype(dtype), **extra)
    return _out(res, out)


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):  # noqa: A001
    """Sum over ``axis`` (every axis when None)."""
    res = _reduce("_np_sum", a, axis, keepdims, dtype)
    return _out(res if initial is None else res + initial, out)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None):
    res = _reduce("_np_prod", a, axis, keepdims, dtype)
    return _out(res if initial is None else res * initial, out)


product = prod


def mean(a, axis=None, dtype=None, out=None, keepdims=False):
    return _reduce("_npi_mean", a, axis, keepdims, dtype, out)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    return _reduce("_npi_std", a, axis, keepdims, dtype, out, ddof=ddof)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    return _reduce("_npi_var", a, axis, keepdims, dtype, out, ddof=ddof)


def max(a, axis=None, out=None, keepdims=False):  # noqa: A001
    return _out(apply("_np_max", [_arr(a)], axis=_axis_attr(axis), keepdims=keepdims), out)


def min(a, axis=None, out=None, keepdims=False):  # noqa: A001
    return _out(apply("_np_min", [_arr(a)], axis=_axis_attr(axis), keepdims=keepdims), out)


amax = max
amin = min


def ptp(a, axis=None, out=None, keepdims=False):
    return _out(max(a, axis, keepdims=keepdims) - min(a, axis, keepdims=keepdims), out)


def all(a, axis=None, out=None, keepdims=False):  # noqa: A001
    return _out(apply("_np_all", [_arr(a)], axis=_axis_attr(axis), keepdims=keepdims), out)


def any(a, axis=None, out=None, keepdims=False):  # noqa: A001
    return _out(apply("_np_any", [_arr(a)], axis=_axis_attr(axis), keepdims=keepdims), out)


def argmax(a, axis=None, out=None):
    return _out(apply("_npi_argmax", [_arr(a)], axis=axis), out)


def argmin(a, axis=None, out=None):
    return _out(apply("_npi_argmin", [_arr(a)], axis=axis), out)


def cumsum(a, axis=None, dtype=None, out=None):
    """Cumulative sum along ``axis`` (of the flattened array when None); ``bool`` counts
    as ``int64``."""
    a = _arr(a)
    if dtype is None and a.dtype == onp.bool_:
        dtype = onp.int64
    return _out(apply("_np_cumsum", [a], axis=axis, dtype=dtype), out)


def average(a, axis=None, weights=None, returned=False):
    """Mean, or weighted mean along ``axis``; with ``returned``, also the sum of the
    weights."""
    a = _arr(a)
    ins = [a] if weights is None else [a, _arr(weights, a.context)]
    res = apply("_npi_average", ins, axis=_axis_attr(axis), returned=bool(returned),
                weighted=weights is not None)
    return list(res) if returned else res  # MXNet gives a list


def percentile(a, q, axis=None, out=None, overwrite_input=None, interpolation="linear",
               keepdims=False):
    """The ``q``-th percentile along ``axis`` (no gradient)."""
    return _percentile("percentile", a, q, axis, interpolation, keepdims, out, 1)


def quantile(a, q, axis=None, out=None, overwrite_input=None, interpolation="linear",
             keepdims=False):
    """The ``q``-th quantile along ``axis`` (no gradient)."""
    return _percentile("quantile", a, q, axis, interpolation, keepdims, out, 100)


# -- shape manipulation -----------------------------------------------------------------------
def _resolve_shape(size: int, shape: tuple, src_shape: tuple) -> tuple:
    shape = tuple(int(d) for d in shape)
    if shape.count(-1) > 1:
        raise MXNetError(f"reshape: can only specify one unknown dimension, got {shape}")
    if -1 in shape:
        known = 1
        for d in shape:
            if d != -1:
                known *= d
        if known == 0 or size % known:
            raise MXNetError(f"reshape: cannot reshape array of shape {src_shape} into {shape}")
        shape = tuple(size // known if d == -1 else d for d in shape)
    n = 1
    for d in shape:
        n *= d
    if n != size or builtins.any(d < 0 for d in shape):
        raise MXNetError(f"reshape: cannot reshape array of shape {src_shape} into {shape}")
    return shape


def reshape(a, newshape, order="C") -> ndarray:
    """``a`` with a new shape (NumPy's rule: one ``-1`` stands for the rest)."""
    if order != "C":
        raise NotImplementedError("reshape: only order='C' is supported")
    a = _arr(a)
    if isinstance(newshape, numbers.Integral):
        newshape = (newshape,)
    shape = _resolve_shape(a.size, tuple(newshape), a.shape)
    if shape == a.shape:
        return a if not _recording(a) else apply("_copy", [a])
    if not _recording(a):
        return a._view(a._data.reshape(shape)) if a._data.flags.c_contiguous else \
            ndarray(a._data.reshape(shape), a.context)
    return apply("_np_reshape", [a], newshape=shape)


def _recording(*xs) -> bool:
    from ._array import recording
    return recording(*xs)


def ravel(x, order="C") -> ndarray:
    return reshape(x, (-1,), order)


def transpose(a, axes=None) -> ndarray:
    """The axes permuted by ``axes`` (reversed when None)."""
    return apply("_np_transpose", [_arr(a)], axes=None if axes is None else _ints(axes))


def swapaxes(a, axis1, axis2) -> ndarray:
    a = _arr(a)
    axes = list(range(a.ndim))
    i, j = axis1 % a.ndim, axis2 % a.ndim
    axes[i], axes[j] = axes[j], axes[i]
    return transpose(a, axes)


def moveaxis(a, source, destination) -> ndarray:
    """Axes ``source`` moved to positions ``destination``, the others in order."""
    return apply("_np_moveaxis", [_arr(a)], source=_ints(source),
                 destination=_ints(destination))


def rollaxis(a, axis, start=0) -> ndarray:
    a = _arr(a)
    axis %= a.ndim
    start = start % (a.ndim + 1) if start < 0 else start
    if axis < start:
        start -= 1
    return moveaxis(a, axis, start) if axis != start else a


def expand_dims(a, axis) -> ndarray:
    a = _arr(a)
    axes = [axis] if isinstance(axis, numbers.Integral) else list(axis)
    n = a.ndim + len(axes)
    shape = list(a.shape)
    for ax in sorted(x % n for x in axes):
        shape.insert(ax, 1)
    return reshape(a, tuple(shape))


def squeeze(a, axis=None) -> ndarray:
    """Axes of length one removed (those of ``axis``, or all when None)."""
    return apply("_np_squeeze", [_arr(a)], axis=None if axis is None else _ints(axis))


def broadcast_to(array, shape) -> ndarray:  # noqa: A002 - NumPy's name
    """``array`` broadcast to ``shape`` (NumPy's rules, and MXNet's ``-2``: keep the
    input's axis); the array itself when the shape is its own."""
    a = _arr(array)
    shape = _npx_shape(a.shape, _ints(shape))
    if a.shape == shape:
        return a
    try:
        ok = builtins.all(d >= 0 for d in shape) and \
            onp.broadcast_shapes(a.shape, shape) == shape
    except ValueError:
        ok = False
    if not ok:
        raise NpValueError(f"broadcast_to: cannot broadcast shape {a.shape} to {shape}")
    return apply("_npi_broadcast_to", [a], shape=shape)


def broadcast_arrays(*args):
    arrs = [_arr(x) for x in args]
    shape = onp.broadcast_shapes(*[x.shape for x in arrs])
    return [broadcast_to(x, shape) for x in arrs]


def atleast_1d(*arys):
    """Each input viewed with at least one axis (a list for several inputs)."""
    return _atleast(1, arys)


def atleast_2d(*arys):
    """Each input viewed with at least two axes (a list for several inputs)."""
    return _atleast(2, arys)


def atleast_3d(*arys):
    """Each input viewed with at least three axes: ``(N,)`` becomes ``(1, N, 1)`` and
    ``(M, N)`` becomes ``(M, N, 1)`` (a list for several inputs)."""
    return _atleast(3, arys)


def _promote_all(arrs):
    dt = arrs[0].dtype
    from ...ops.numpy_binary import np_result_dtype
    for x in arrs[1:]:
        dt = np_result_dtype(dt, x.dtype)
    return [x if x.dtype == dt else x.astype(dt) for x in arrs]


def concatenate(seq, axis=0, out=None) -> ndarray:
    arrs = [_arr(x) for x in seq]
    if axis is None:
        arrs = [ravel(x) for x in arrs]
        axis = 0
    arrs = _promote_all(arrs)
    if len(arrs) == 1:
        return _out(arrs[0].copy(), out)
    return _out(apply("Concat", arrs, dim=axis % arrs[0].ndim, num_args=len(arrs)), out)


def append(arr, values, axis=None) -> ndarray:
    return concatenate([arr, values], axis=axis)


def stack(arrays, axis=0, out=None) -> ndarray:
    arrs = _promote_all([_arr(x) for x in arrays])
    return _out(apply("stack", arrs, axis=axis, num_args=len(arrs)), out)


def vstack(arrays, out=None) -> ndarray:
    """Inputs (as at least 2-d) joined along the first axis."""
    return _join("_npi_vstack", arrays, out)


row_stack = vstack


def hstack(arrays, out=None) -> ndarray:
    """Inputs joined along the second axis (the first for 1-d inputs)."""
    return _join("_npi_hstack", arrays, out)


def dstack(arrays) -> ndarray:
    """Inputs (as at least 3-d) joined along the third axis."""
    return _join("_npi_dstack", arrays)


def column_stack(tup) -> ndarray:
    """1-d inputs as columns (others as they are) joined along the second axis."""
    return _join("_npi_column_stack", tup)


def split(ary, indices_or_sections, axis=0):
    """Split into equal sections, or at the given points, along ``axis``."""
    a = _arr(ary)
    axis = _norm_axis("split", axis, a.ndim)
    op_name = "_npi_array_split"
    if isinstance(indices_or_sections, numbers.Integral):
        k = int(indices_or_sections)
        if k <= 0 or a.shape[axis] % k:
            raise NpValueError(f"split: array split does not result in an equal division "
                               f"(axis of size {a.shape[axis]} into {k})")
    return _axis_split(op_name, a, indices_or_sections, axis)


def array_split(ary, indices_or_sections, axis=0):
    """Split into nearly equal sections (the first ``n % k`` one longer), or at the
    given points, along ``axis``."""
    a = _arr(ary)
    axis = _norm_axis("array_split", axis, a.ndim)
    if isinstance(indices_or_sections, numbers.Integral):
        k = int(indices_or_sections)
        if k <= 0:
            raise NpValueError(f"array_split: number sections must be larger than 0, got {k}")
        res = apply("_npi_array_split", [a], indices=(), sections=k, axis=axis)
        return res if isinstance(res, list) else [res]
    return _axis_split("_npi_array_split", a, indices_or_sections, axis)


def _split(a, points, axis):
    axis %= a.ndim
    bounds = [0] + [builtins.min(builtins.max(p, 0), a.shape[axis]) for p in points] + \
        [a.shape[axis]]
    res = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        key = (slice(None),) * axis + (slice(lo, builtins.max(lo, hi)),)
        res.append(a[key])
    return res


def _split_min_ndim(name: str, a, ndim: int) -> None:
    if a.ndim < ndim:
        raise NpValueError(f"{name}: only works on arrays of {ndim} or more dimensions, got "
                           f"shape {a.shape}")


def hsplit(ary, indices_or_sections):
    """Split along the second axis (the first of a 1-d array)."""
    a = _arr(ary)
    _split_min_ndim("hsplit", a, 1)
    return _axis_split("_npi_hsplit", a, indices_or_sections, 0 if a.ndim == 1 else 1)


def vsplit(ary, indices_or_sections):
    """Split along the first axis of an array of 2 or more dimensions."""
    a = _arr(ary)
    _split_min_ndim("vsplit", a, 2)
    return split(a, indices_or_sections, axis=0)


def dsplit(ary, indices_or_sections):
    """Split along the third axis of an array of 3 or more dimensions."""
    a = _arr(ary)
    _split_min_ndim("dsplit", a, 3)
    return _axis_split("_npi_dsplit", a, indices_or_sections, 2)


def tile(A, reps) -> ndarray:  # noqa: N803
    """``A`` repeated ``reps`` times along each axis (NumPy's rules for unequal ranks)."""
    reps = _ints(reps)
    if builtins.any(r < 0 for r in reps):
        raise NpValueError(f"tile: negative reps {reps}")
    return apply("_npi_tile", [_arr(A)], reps=reps)


def repeat(a, repeats, axis=None) -> ndarray:
    a = _arr(a)
    if not isinstance(repeats, numbers.Integral):
        raise NotImplementedError("repeat: only an integer number of repeats is supported")
    return apply("repeat", [a], repeats=int(repeats), axis=axis)


def flip(m, axis=None, out=None) -> ndarray:
    """The order of elements reversed along ``axis`` (every axis when None)."""
    return _out(apply("_npi_flip", [_arr(m)], axis=_axis_attr(axis)), out)


def fliplr(m) -> ndarray:
    return flip(m, 1)


def flipud(m) -> ndarray:
    return flip(m, 0)


def roll(a, shift, axis=None) -> ndarray:
    """Elements shifted by ``shift`` along ``axis`` (of the flattened array when None),
    wrapping around."""
    return apply("_np_roll", [_arr(a)], shift=_ints(shift),
                 axis=None if axis is None else _ints(axis))


def rot90(m, k=1, axes=(0, 1)) -> ndarray:
    """``m`` turned ``k`` quarter turns in the plane of ``axes``."""
    return apply("_npi_rot90", [_arr(m)], k=int(k), axes=_ints(axes))


def where(condition, x=None, y=None) -> ndarray:
    """Elements of ``x`` where ``condition`` holds, else of ``y`` (broadcasting); with only
    ``condition``, the indices of its nonzero elements."""
    if x is None and y is None:
        return nonzero(condition)
    cond = _arr(condition)
    ctx = cond.context
    xs = [_arr(x, ctx) if not _is_scalar(x) else None, _arr(y, ctx) if not _is_scalar(y) else None]
    ref = [v for v in xs if v is not None]
    dt = _promote_all(ref)[0].dtype if ref else _DEFAULT_FLOAT
    vals = []
    for v, s in zip(xs, (x, y)):
        vals.append(full((), s, dtype=dt, ctx=ctx) if v is None else v.astype(dt, copy=False))
    shape = onp.broadcast_shapes(cond.shape, vals[0].shape, vals[1].shape)
    cond, xv, yv = (broadcast_to(t, shape) for t in (cond, vals[0], vals[1]))
    if not shape:
        cond, xv, yv = (reshape(t, (1,)) for t in (cond, xv, yv))
        return reshape(apply("where", [cond, xv, yv]), ())
    return apply("where", [cond, xv, yv])


def tril(m, k=0) -> ndarray:
    return apply("_npi_tril", [_arr(m)], k=k)


def triu(m, k=0) -> ndarray:
    m = _arr(m)
    return m - tril(m, k - 1)


def diag(v, k=0) -> ndarray:
    """The ``k``-th diagonal of a 2-d array (empty beyond the array), or a 2-d array
    with a 1-d ``v`` on its ``k``-th diagonal."""
    return apply("_np_diag", [_arr(v)], k=int(k))


def diagflat(v, k=0) -> ndarray:
    """A square matrix with the flattened ``v`` on its ``k``-th diagonal."""
    return apply("_np_diagflat", [_arr(v)], k=int(k))


def diagonal(a, offset=0, axis1=0, axis2=1) -> ndarray:
    """The ``offset``-th diagonal over ``axis1``/``axis2`` (the last axis of the result;
    empty when the offset lies beyond the array)."""
    return apply("_np_diagonal", [_arr(a)], offset=int(offset), axis1=int(axis1),
                 axis2=int(axis2))


def trace(a, offset=0, axis1=0, axis2=1, out=None) -> ndarray:
    """Sum along the ``offset``-th diagonal over ``axis1``/``axis2``."""
    return _out(apply("_np_trace", [_arr(a)], offset=int(offset), axis1=int(axis1),
                      axis2=int(axis2)), out)


def take(a, indices, axis=None, mode="raise", out=None) -> ndarray:
    a = _arr(a)
    idx = _arr(indices, a.context)
    if axis is None:
        a, axis = ravel(a), 0
    if mode == "raise":
        n = a.shape[axis]
        host = idx.asnumpy()
        if host.size and (host.min() < -n or host.max() >= n):
            raise MXNetError(f"take: index out of bounds for axis {axis} with size {n}")
        mode = "wrap"
    return _out(apply("take", [a, idx.astype(onp.int64, copy=False)], axis=axis, mode=mode), out)


def pad(x, pad_width, mode="constant", **kwargs) -> ndarray:
    """NumPy ``pad``: ``constant``, ``edge``, ``reflect``, ``symmetric``, ``wrap`` (with
    gradients) and ``maximum``, ``minimum``, ``mean``, ``linear_ramp``."""
    x = _arr(x)
    w = onp.broadcast_to(onp.asarray(pad_width, dtype=onp.int64), (x.ndim, 2))
    return apply("_npi_pad", [x], pad_width=tuple(int(v) for v in w.reshape(-1)), mode=mode,
                 constant_value=float(kwargs.get("constant_values", 0)),
                 reflect_type=kwargs.get("reflect_type", "even"))


def diff(a, n=1, axis=-1, prepend=None, append=None) -> ndarray:
    """The ``n``-th discrete difference along ``axis`` (``prepend``/``append`` joined
    first)."""
    a = _arr(a)
    if prepend is not None or append is not None:
        parts = [p for p in (prepend, a, append) if p is not None]
        a = concatenate([broadcast_to(_arr(p, a.context), _edge_shape(a, axis))
                         if _arr(p, a.context).ndim == 0 else p for p in parts], axis)
    return apply("_npi_diff", [a], n=int(n), axis=int(axis))


def _edge_shape(a, axis):
    shape = list(a.shape)
    shape[axis] = 1
    return tuple(shape)


def ediff1d(ary, to_end=None, to_begin=None) -> ndarray:
    """Differences of consecutive elements of the flattened array, with ``to_begin``
    and ``to_end`` (scalars or arrays) joined before and after."""
    a = _arr(ary)
    ins, attrs = [a], {}
    for key, v in (("to_begin", to_begin), ("to_end", to_end)):
        if v is None:
            continue
        if _is_scalar(v):
            attrs[f"{key}_scalar"] = float(v)
        else:
            ins.append(_arr(v, a.context))
            attrs[f"{key}_arr_given"] = True
    return apply("_npi_ediff1d", ins, **attrs)


def meshgrid(*xi, indexing="xy", sparse=False, copy=True):
    arrs = [ravel(_arr(x)) for x in xi]
    n = len(arrs)
    shape = [x.shape[0] for x in arrs]
    if indexing == "xy" and n > 1:
        shape[0], shape[1] = shape[1], shape[0]
    res = []
    for i, x in enumerate(arrs):
        s = [1] * n
        j = i
        if indexing == "xy" and n > 1 and i < 2:
            j = 1 - i
        s[j] = x.shape[0]
        r = reshape(x, tuple(s))
        res.append(r if sparse else broadcast_to(r, tuple(shape)))
    return res


# -- sorting, searching, counting -------------------------------------------------------------
def sort(a, axis=-1, kind=None, order=None) -> ndarray:
    """Sorted along ``axis`` (the flattened array when None)."""
    a = _arr(a)
    if axis is None:
        a, axis = ravel(a), 0
    return apply("sort", [a], axis=axis, is_ascend=True)


def argsort(a, axis=-1, kind=None, order=None) -> ndarray:
    a = _arr(a)
    if axis is None:
        a, axis = ravel(a), 0
    return apply("argsort", [a], axis=axis, is_ascend=True, dtype=onp.int64)


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None):
    res = apply("_npi_unique", [_arr(ar)], return_index=return_index,
                return_inverse=return_inverse, return_counts=return_counts, axis=axis)
    return tuple(res) if isinstance(res, list) else res


def nonzero(a):
    """Indices of the nonzero elements, one ``int64`` array per axis (a 0-d array counts
    as 1-d, MXNet's rule)."""
    a = _arr(a)
    if a.ndim == 0:
        a = reshape(a, (1,))
    idx = apply("_npx_nonzero", [a])
    return tuple(idx[:, i] for i in range(a.ndim))


def argwhere(a) -> ndarray:
    return apply("_npx_nonzero", [_arr(a)])


def flatnonzero(a) -> ndarray:
    return nonzero(ravel(_arr(a)))[0]


def count_nonzero(a, axis=None, keepdims=False):
    res = sum(_arr(a) != 0, axis=axis, keepdims=keepdims)
    return int(res.item()) if axis is None and not keepdims else res


def bincount(x, weights=None, minlength=0) -> ndarray:
    x = _arr(x)
    if weights is None:
        return apply("_npi_bincount", [x], minlength=minlength)
    return apply("_npi_bincount", [x, _arr(weights, x.context)], minlength=minlength,
                 has_weights=True)


def histogram(a, bins=10, range=None, normed=None, weights=None, density=None):  # noqa: A002
    """Counts (``int64``) and bin edges (the input's dtype) over ``range``."""
    a = _arr(a)
    if isinstance(bins, numbers.Integral):
        if range is None:
            raise NotImplementedError("histogram: automatic range is not supported; "
                                      "pass range=(lo, hi)")
        counts, edges = apply("_histogram", [ravel(a)], bin_cnt=int(bins), range=tuple(range))
    else:
        counts, edges = apply("_histogram", [ravel(a), _arr(bins, a.context)])
    return [counts.astype(onp.int64), edges]


def interp(x, xp, fp, left=None, right=None, period=None) -> ndarray:
    """Piecewise-linear interpolation (``float64`` as MXNet gives it; no gradient)."""
    ref = _arr(x) if isinstance(x, NDArray) else _arr(xp)
    host = [v.asnumpy() if isinstance(v, NDArray) else v for v in (x, xp, fp)]
    res = onp.asarray(onp.interp(*host, left=left, right=right, period=period),
                      dtype=onp.float64)
    return _host_array(res, onp.float64, ref.context)


# -- products ---------------------------------------------------------------------------------
def tensordot(a, b, axes=2) -> ndarray:
    """Sum of products over the last ``axes`` axes of ``a`` and the first of ``b``, or
    over the axes given as two sequences."""
    a, b = _arr(a), _arr(b)
    if isinstance(axes, numbers.Integral):
        return apply("_npi_tensordot_int_axes", [a, b], axes=int(axes))
    ax_a, ax_b = axes
    ax_a = (ax_a,) if isinstance(ax_a, numbers.Integral) else tuple(ax_a)
    ax_b = (ax_b,) if isinstance(ax_b, numbers.Integral) else tuple(ax_b)
    return apply("_npi_tensordot", [a, b], a_axes_summed=ax_a, b_axes_summed=ax_b)


def dot(a, b, out=None) -> ndarray:
    """NumPy ``dot``: the last axis of ``a`` with the second-to-last of ``b``."""
    a, b = _arr(a), _arr(b)
    if a.ndim == 0 or b.ndim == 0:
        return _out(multiply(a, b), out)
    return _out(apply("_np_dot", [a, b]), out)


def matmul(a, b, out=None) -> ndarray:
    return _out(apply("_npi_matmul", [_arr(a), _arr(b)]), out)


def inner(a, b) -> ndarray:
    a, b = _arr(a), _arr(b)
    if a.ndim == 0 or b.ndim == 0:
        return multiply(a, b)
    return tensordot(a, b, ((a.ndim - 1,), (b.ndim - 1,)))


def outer(a, b) -> ndarray:
    return multiply(reshape(ravel(a), (-1, 1)), reshape(ravel(b), (1, -1)))


def vdot(a, b) -> ndarray:
    return dot(ravel(a), ravel(b))


def kron(a, b) -> ndarray:
    a, b = _arr(a), _arr(b)
    if a.ndim != b.ndim:
        raise NotImplementedError("kron: inputs of different ranks are not supported")
    ea = reshape(a, tuple(d for s in a.shape for d in (s, 1)))
    eb = reshape(b, tuple(d for s in b.shape for d in (1, s)))
    return reshape(ea * eb, tuple(x * y for x, y in zip(a.shape, b.shape)))


def einsum(subscripts, *operands, out=None, optimize=False) -> ndarray:
    ops = [_arr(x) for x in operands]
    return _out(apply("_npi_einsum", ops, subscripts=subscripts, num_args=len(ops),
                      optimize=int(bool(optimize))), out)


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None) -> ndarray:
    a, b = _arr(a), _arr(b)
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = moveaxis(a, axisa, -1), moveaxis(b, axisb, -1)
    if a.shape[-1] != 3 or b.shape[-1] != 3:
        raise MXNetError(f"cross: only 3-element vectors are supported, got {a.shape} and "
                         f"{b.shape}")
    a0, a1, a2 = (a[..., i] for i in range(3))
    b0, b1, b2 = (b[..., i] for i in range(3))
    c = stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)
    return moveaxis(c, -1, axisc)


# -- misc -------------------------------------------------------------------------------------
def shape(a) -> tuple:
    return _arr(a).shape


def size(a, axis=None) -> int:
    a = _arr(a)
    return a.size if axis is None else a.shape[axis]


def ndim(a) -> int:
    return _arr(a).ndim


def may_share_memory(a, b, max_work=None) -> bool:
    return onp.may_share_memory(_arr(a)._data, _arr(b)._data)


shares_memory = may_share_memory


def array_equal(a1, a2, equal_nan=False) -> bool:
    a1, a2 = _arr(a1), _arr(a2, a1.context)
    return a1.shape == a2.shape and builtins.bool(all(a1 == a2))


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    return builtins.bool(all(isclose(a, b, rtol, atol, equal_nan)))


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False) -> ndarray:
    a = _arr(a)
    b = _arr(b, a.context)
    res = less_equal(absolute(a - b), atol + rtol * absolute(b))
    if equal_nan:
        res = logical_or(res, logical_and(isnan(a), isnan(b)))
    return res


# -- indices, insertion, deletion, windows ---------------------------------------------------
sometrue = any


def unravel_index(indices, shape, order: str = "C"):
    """The coordinates of flat ``indices`` in an array of ``shape`` (a tuple of ``int64``
    arrays, MXNet's result type)."""
    if order != "C":
        raise NotImplementedError("unravel_index: only order='C' is supported")
    shape = _ints(shape)
    idx = _arr(indices)
    if idx.dtype.kind == "f":
        raise NpTypeError(f"unravel_index: only int indices permitted, got {idx.dtype}")
    total = int(onp.prod(shape)) if len(shape) else 1
    if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= total):
        raise NpValueError(f"unravel_index: index out of bounds for an array of shape "
                           f"{shape}")
    coords = apply("_unravel_index", [idx.astype(onp.int64, copy=False)], shape=shape)
    return tuple(coords[i] for i in range(len(shape)))


def diag_indices_from(arr):
    """The indices of the main diagonal of an n-d array with equal axes."""
    a = _arr(arr)
    if a.ndim < 2 or len(set(a.shape)) != 1:
        raise NpValueError(f"diag_indices_from: needs an array of at least 2 dimensions, "
                           f"all of equal length, got shape {a.shape}")
    idx = apply("_npi_diag_indices_from", [a])
    return tuple(idx[i] for i in range(a.ndim))


def _normalize_positions(name, obj, n, allow_end):
    pos = onp.asarray(obj.asnumpy() if isinstance(obj, NDArray) else obj)
    if pos.dtype == onp.bool_:
        if pos.shape != (n,):
            raise NpValueError(f"{name}: a boolean index of shape {pos.shape} does not fit an "
                               f"axis of size {n}")
        pos = onp.flatnonzero(pos)
    if pos.dtype.kind not in "iu":
        raise NpTypeError(f"{name}: index arrays must be integers, got {pos.dtype}")
    pos = pos.astype(onp.int64)
    hi = n + 1 if allow_end else n
    if pos.size and (pos.min() < -hi + (1 if allow_end else 0) or pos.max() >= hi):
        raise NpIndexError(f"{name}: index {pos.tolist()} is out of bounds for an axis of "
                           f"size {n}")
    return onp.where(pos < 0, pos + n, pos)


def delete(arr, obj, axis=None) -> ndarray:
    """``arr`` without the entries ``obj`` (an int, slice or int/bool array) along
    ``axis`` (of the flattened array when None)."""
    a = _arr(arr)
    if axis is None:
        a, axis = ravel(a), 0
    axis = _norm_axis("delete", axis, a.ndim)
    n = a.shape[axis]
    if isinstance(obj, slice):
        drop = onp.arange(n)[obj]
    else:
        drop = _normalize_positions("delete", obj, n, False)
    keep = onp.setdiff1d(onp.arange(n), drop.reshape(-1))
    return take(a, _host_array(keep, onp.int64, a.context), axis=axis)


def insert(arr, obj, values, axis=None) -> ndarray:
    """``values`` inserted into ``arr`` before the positions ``obj`` along ``axis`` (of
    the flattened array when None); NumPy's rules for scalar and array ``obj``."""
    a = _arr(arr)
    if axis is None:
        a, axis = ravel(a), 0
    axis = _norm_axis("insert", axis, a.ndim)
    n = a.shape[axis]
    vals = _arr(values, a.context).astype(a.dtype, copy=False)
    if isinstance(obj, slice):
        pos = onp.arange(*obj.indices(n))
        scalar_pos = False
    else:
        pos = _normalize_positions("insert", obj, n, True)
        scalar_pos = pos.ndim == 0
    if scalar_pos:
        # a scalar position inserts ``values`` (as at least ``a.ndim``-d, its first axis
        # moved to ``axis``) as one block whose other axes broadcast
        if vals.ndim < a.ndim:
            vals = reshape(vals, (1,) * (a.ndim - vals.ndim) + vals.shape)
        vals = moveaxis(vals, 0, axis)
        shape = list(a.shape)
        shape[axis] = vals.shape[axis]
        block = broadcast_to(vals, tuple(shape))
        p = int(pos)
        lead = (slice(None),) * axis
        return concatenate([a[lead + (slice(0, p),)], block, a[lead + (slice(p, None),)]],
                           axis=axis)
    pos = pos.reshape(-1)
    k = pos.size
    shape = list(a.shape)
    shape[axis] = k
    if vals.ndim == 1 and vals.shape[0] == k and k > 1:
        vals = reshape(vals, tuple(k if i == axis else 1 for i in range(a.ndim)))
    block = broadcast_to(vals, tuple(shape))
    order = onp.argsort(pos, kind="stable")
    new_pos = pos[order] + onp.arange(k)
    total = n + k
    is_new = onp.zeros(total, bool)
    is_new[new_pos] = True
    src = onp.empty(total, onp.int64)
    src[~is_new] = onp.arange(n)
    src[new_pos] = n + order
    joined = concatenate([a, block], axis=axis)
    return take(joined, _host_array(src, onp.int64, a.context), axis=axis)


def _norm_axis(name, axis, ndim):
    if not -ndim <= axis < ndim:
        raise NpIndexError(f"{name}: axis {axis} is out of bounds for an array of dimension "
                           f"{ndim}")
    return axis % ndim


def resize(a, new_shape) -> ndarray:
    """``a``'s elements repeated in order to fill ``new_shape`` (NumPy's ``resize``)."""
    new_shape = _ints(new_shape)
    if builtins.any(d < 0 for d in new_shape):
        raise NpValueError(f"resize: all elements of new_shape must be non-negative, got "
                           f"{new_shape}")
    return apply("_np_resize", [_arr(a)], new_shape=new_shape)


def _window(name, M, dtype, ctx):
    return apply(f"_npi_{name}", [], ctx=ctx, M=int(M),
                 dtype=onp.dtype(dtype or _DEFAULT_FLOAT))


def hanning(M, dtype=None, ctx=None) -> ndarray:
    """The Hann window of ``M`` points (``float32`` unless ``dtype`` is given)."""
    return _window("hanning", M, dtype, ctx)


def hamming(M, dtype=None, ctx=None) -> ndarray:
    """The Hamming window of ``M`` points (``float32`` unless ``dtype`` is given)."""
    return _window("hamming", M, dtype, ctx)


def blackman(M, dtype=None, ctx=None) -> ndarray:
    """The Blackman window of ``M`` points (``float32`` unless ``dtype`` is given)."""
    return _window("blackman", M, dtype, ctx)


def _ints(v) -> tuple:
    """An int or a sequence of ints as a tuple."""
    return (int(v),) if isinstance(v, numbers.Integral) else tuple(int(d) for d in v)


def _atleast(n: int, arys):
    arrs = [_arr(a) for a in arys]
    res = apply(f"_np_atleast_{n}d", arrs, num_args=len(arrs))
    res = res if isinstance(res, list) else [res]
    return res[0] if len(res) == 1 else res


def _join(op_name: str, arrays, out=None) -> ndarray:
    arrs = _promote_all([_arr(x) for x in arrays])
    return _out(apply(op_name, arrs, num_args=len(arrs)), out)


def _percentile(name, a, q, axis, interpolation, keepdims, out, scale):
    a = _arr(a)
    if _is_scalar(q):
        res = apply("_npi_percentile", [a], axis=_axis_attr(axis),
                    interpolation=interpolation, keepdims=bool(keepdims),
                    q_scalar=float(q) * scale)
    else:
        qa = _arr(q, a.context)
        if scale != 1:
            qa = qa * scale
        res = apply("_npi_percentile", [a, qa], axis=_axis_attr(axis),
                    interpolation=interpolation, keepdims=bool(keepdims))
    return _out(res, out)


def polyval(p, x) -> ndarray:
    """The polynomial with coefficients ``p`` (highest power first) at ``x``."""
    p = _arr(p)
    return apply("_npi_polyval", [p, _arr(x, p.context)])


def _axis_split(op_name, a, indices_or_sections, axis):
    n = a.shape[axis]
    if isinstance(indices_or_sections, numbers.Integral):
        k = int(indices_or_sections)
        if k <= 0 or n % k:
            raise NpValueError(f"{op_name[5:]}: array split does not result in an equal "
                               f"division (axis of size {n} into {k})")
        res = apply(op_name, [a], indices=(), sections=k, axis=axis)
    else:
        pts = [int(i) + n if int(i) < 0 else int(i) for i in indices_or_sections]
        pts = [builtins.min(builtins.max(p, 0), n) for p in pts]
        if builtins.any(q < p for p, q in zip(pts, pts[1:])):
            return _split(a, [int(i) for i in indices_or_sections], axis)
        res = apply(op_name, [a], indices=tuple([0] + pts), sections=0, axis=axis)
    return res if isinstance(res, list) else [res]


def _predicate(name: str, x, out, kwargs) -> ndarray:
    if kwargs:
        _ufunc_kwargs(name, kwargs)
    if out is not None and out.dtype != onp.bool_:
        raise NpTypeError(f"{name}: the output of dtype {out.dtype} cannot hold its bool "
                          "result")
    return _out(apply(f"_npi_{name}", [_arr(x)]), out)


def _npx_shape(src: tuple, shape: tuple) -> tuple:
    """``shape`` with MXNet's ``-2`` entries (keep the input's axis, aligned on the
    right) resolved."""
    if -2 not in shape:
        return shape
    lead = len(shape) - len(src)
    if lead < 0:
        raise NpValueError(f"broadcast_to: cannot broadcast shape {src} to {shape}")
    return tuple(src[i - lead] if d == -2 and i >= lead else d for i, d in enumerate(shape))


__all__ = sorted(n for n, v in globals().items()
                 if not n.startswith("_") and callable(v) and getattr(v, "__module__", "")
                 == __name__)
__all__ += ["ndarray", "array", "zeros", "ones", "full", "empty"]
