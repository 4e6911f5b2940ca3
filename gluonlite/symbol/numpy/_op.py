"""The functions of ``mx.sym.np``: NumPy's names over ``mx.np`` symbols, each one
registry operator whose attributes need no input shape (see :mod:`._symbol`)."""
from __future__ import annotations

import builtins
import numbers

import numpy as onp

from ...base import MXNetError
from ..symbol import Symbol
from ._symbol import _Symbol, apply
from ...ndarray.numpy._elementwise import _BINARY_NAMES, _UNARY as _UNARY_NAMES

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


# the same NumPy names as mx.np's, on the same operators
_BINARY, _UNARY = _BINARY_NAMES, _UNARY_NAMES


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


def squeeze(a, axis=None) -> _Symbol:
    """Axes of length one removed (those of ``axis``, or all when None)."""
    return apply("_np_squeeze", [_sym(a)], axis=_axis(axis))


def concatenate(seq, axis=0, out=None):
    arrs = [_sym(x) for x in seq]
    if axis is None:
        arrs, axis = [ravel(x) for x in arrs], 0
    return apply("Concat", arrs, dim=axis, num_args=len(arrs))


def stack(arrays, axis=0, out=None):
    arrs = [_sym(x) for x in arrays]
    return apply("stack", arrs, axis=axis, num_args=len(arrs))


def split(ary, indices_or_sections, axis=0):
    """Split into equal sections, or at the given points, along ``axis``."""
    if isinstance(indices_or_sections, numbers.Integral):
        return _group(apply("split", [_sym(ary)], num_outputs=int(indices_or_sections),
                            axis=axis))
    return array_split(ary, indices_or_sections, axis)


def tile(A, reps) -> _Symbol:  # noqa: N803
    """``A`` repeated ``reps`` times along each axis (NumPy's rules for unequal ranks)."""
    return apply("_npi_tile", [_sym(A)], reps=_ints(reps))


def repeat(a, repeats, axis=None):
    """Each element repeated ``repeats`` times (one count, or a sequence of one count per
    element) along ``axis`` (of the flattened array when None)."""
    if isinstance(repeats, numbers.Integral):
        return apply("repeat", [_sym(a)], repeats=int(repeats), axis=axis)
    return apply("_npi_repeats", [_sym(a)], repeats=_ints(repeats), axis=axis)


def flip(m, axis=None, out=None) -> _Symbol:
    """The order of elements reversed along ``axis`` (every axis when None)."""
    return apply("_npi_flip", [_sym(m)], axis=_axis(axis))


def clip(a, a_min, a_max, out=None):
    return apply("clip", [_sym(a)], a_min=-onp.inf if a_min is None else float(a_min),
                 a_max=onp.inf if a_max is None else float(a_max))


def where(condition, x, y):
    """``x`` where ``condition`` is nonzero, else ``y`` (scalars allowed), broadcast."""
    cond = _sym(condition)
    xs = _sym(x) if isinstance(x, Symbol) else None
    ys = _sym(y) if isinstance(y, Symbol) else None
    like = xs if xs is not None else (ys if ys is not None else cond)
    if xs is None:  # a scalar takes mx.np's scalar dtype rule against ``like``
        xs = _binary("add", zeros_like(like), x)
    if ys is None:
        ys = _binary("add", zeros_like(like), y)
    return apply("_npi_where", [cond, xs, ys])


def dot(a, b, out=None):
    return apply("_np_dot", [_sym(a), _sym(b)])


def matmul(a, b, out=None):
    return apply("_npi_matmul", [_sym(a), _sym(b)])


def tensordot(a, b, axes=2) -> _Symbol:
    """Sum of products over the last ``axes`` axes of ``a`` and the first of ``b``, or
    over the axes given as two sequences."""
    if isinstance(axes, numbers.Integral):
        return apply("_npi_tensordot_int_axes", [_sym(a), _sym(b)], axes=int(axes))
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


def _ints(v) -> tuple:
    """An int or a sequence of ints as a tuple."""
    return (int(v),) if isinstance(v, numbers.Integral) else tuple(int(d) for d in v)


def _group(out) -> list:
    """The outputs of a node as a list of single symbols."""
    return [_Symbol([h]) for h in out._heads]


def moveaxis(a, source, destination) -> _Symbol:
    """Axes ``source`` moved to positions ``destination``."""
    return apply("_np_moveaxis", [_sym(a)], source=_ints(source),
                 destination=_ints(destination))


def roll(a, shift, axis=None) -> _Symbol:
    """Elements shifted along ``axis`` (the flattened array when None), wrapping around."""
    return apply("_np_roll", [_sym(a)], shift=_ints(shift),
                 axis=None if axis is None else _ints(axis))


def rot90(m, k=1, axes=(0, 1)) -> _Symbol:
    """``k`` quarter turns in the plane of ``axes``."""
    return apply("_npi_rot90", [_sym(m)], k=int(k), axes=_ints(axes))


def diag(v, k=0) -> _Symbol:
    """The ``k``-th diagonal of a matrix, or a matrix with ``v`` on it."""
    return apply("_np_diag", [_sym(v)], k=int(k))


def diagflat(v, k=0) -> _Symbol:
    """A square matrix with the flattened ``v`` on its ``k``-th diagonal."""
    return apply("_np_diagflat", [_sym(v)], k=int(k))


def diagonal(a, offset=0, axis1=0, axis2=1) -> _Symbol:
    """The ``offset``-th diagonal over ``axis1``/``axis2``, as the last axis."""
    return apply("_np_diagonal", [_sym(a)], offset=int(offset), axis1=int(axis1),
                 axis2=int(axis2))


def trace(a, offset=0, axis1=0, axis2=1, out=None) -> _Symbol:
    """Sum along the ``offset``-th diagonal over ``axis1``/``axis2``."""
    return apply("_np_trace", [_sym(a)], offset=int(offset), axis1=int(axis1),
                 axis2=int(axis2))


def diff(a, n=1, axis=-1, prepend=None, append=None) -> _Symbol:
    """The ``n``-th discrete difference along ``axis``."""
    a = _sym(a)
    if prepend is not None or append is not None:
        parts = [p for p in (prepend, a, append) if p is not None]
        if not builtins.all(isinstance(p, Symbol) for p in parts):
            raise NotImplementedError("mx.sym.np.diff: scalar prepend/append need the "
                                      "shape; give symbols")
        a = concatenate(parts, axis=axis)
    return apply("_npi_diff", [a], n=int(n), axis=int(axis))


def ediff1d(ary, to_end=None, to_begin=None) -> _Symbol:
    """Differences of consecutive elements of the flattened array, with ``to_begin``
    and ``to_end`` (scalars or symbols) joined before and after."""
    ins, attrs = [_sym(ary)], {}
    for key, v in (("to_begin", to_begin), ("to_end", to_end)):
        if v is None:
            continue
        if isinstance(v, Symbol):
            ins.append(_sym(v))
            attrs[f"{key}_arr_given"] = True
        else:
            attrs[f"{key}_scalar"] = float(v)
    return apply("_npi_ediff1d", ins, **attrs)


def _atleast(n: int, arys):
    arrs = [_sym(a) for a in arys]
    res = _group(apply(f"_np_atleast_{n}d", arrs, num_args=len(arrs)))
    return res[0] if len(res) == 1 else res


def atleast_1d(*arys):
    """Each input with at least one axis."""
    return _atleast(1, arys)


def atleast_2d(*arys):
    """Each input with at least two axes."""
    return _atleast(2, arys)


def atleast_3d(*arys):
    """Each input with at least three axes."""
    return _atleast(3, arys)


def _join(op_name: str, arrays) -> _Symbol:
    arrs = [_sym(x) for x in arrays]
    return apply(op_name, arrs, num_args=len(arrs))


def hstack(arrays) -> _Symbol:
    """Inputs joined along the second axis (the first for 1-d inputs)."""
    return _join("_npi_hstack", arrays)


def vstack(arrays, out=None) -> _Symbol:
    """Inputs (as at least 2-d) joined along the first axis."""
    return _join("_npi_vstack", arrays)


def dstack(arrays) -> _Symbol:
    """Inputs (as at least 3-d) joined along the third axis."""
    return _join("_npi_dstack", arrays)


def column_stack(tup) -> _Symbol:
    """1-d inputs as columns joined along the second axis."""
    return _join("_npi_column_stack", tup)


def _split_attrs(indices_or_sections, exact: bool, name: str) -> dict:
    if isinstance(indices_or_sections, numbers.Integral):
        return {"indices": (), "sections": int(indices_or_sections)}
    pts = [int(i) for i in indices_or_sections]
    if builtins.any(p < 0 for p in pts) or \
            builtins.any(q < p for p, q in zip(pts, pts[1:])):
        raise NotImplementedError(f"mx.sym.np.{name}: negative or decreasing split points "
                                  "need the shape")
    return {"indices": tuple([0] + pts), "sections": 0}


def array_split(ary, indices_or_sections, axis=0):
    """Split into nearly equal sections (the first ``n % k`` one longer), or at the given
    points, along ``axis``."""
    return _group(apply("_npi_array_split", [_sym(ary)], axis=axis,
                        **_split_attrs(indices_or_sections, False, "array_split")))


def vsplit(ary, indices_or_sections):
    """Split along the first axis."""
    return split(ary, indices_or_sections, axis=0)


def hsplit(ary, indices_or_sections):
    """Split along the second axis (the first of a 1-d array)."""
    return _group(apply("_npi_hsplit", [_sym(ary)],
                        **_split_attrs(indices_or_sections, True, "hsplit")))


def dsplit(ary, indices_or_sections):
    """Split along the third axis."""
    return _group(apply("_npi_dsplit", [_sym(ary)],
                        **_split_attrs(indices_or_sections, True, "dsplit")))


def fliplr(m) -> _Symbol:
    return flip(m, 1)


def flipud(m) -> _Symbol:
    return flip(m, 0)


def resize(a, new_shape) -> _Symbol:
    """The elements in order, repeated to fill ``new_shape``."""
    return apply("_npi_resize_fallback", [_sym(a)], new_shape=_ints(new_shape))


def broadcast_to(array, shape) -> _Symbol:  # noqa: A002 - NumPy's name
    """``array`` broadcast to ``shape`` (a scalar fills an array of ``shape``)."""
    if not isinstance(array, Symbol):
        from ._creation import full
        return full(shape, array)
    return apply("_npi_broadcast_to", [_sym(array)], shape=_ints(shape))


def sort(a, axis=-1, kind=None, order=None) -> _Symbol:
    """Sorted along ``axis`` (the flattened array when None)."""
    a = _sym(a)
    if axis is None:
        a, axis = ravel(a), 0
    return apply("sort", [a], axis=axis, is_ascend=True)


def argsort(a, axis=-1, kind=None, order=None) -> _Symbol:
    """Indices (``int64``) that sort along ``axis`` (the flattened array when None)."""
    a = _sym(a)
    if axis is None:
        a, axis = ravel(a), 0
    return apply("argsort", [a], axis=axis, is_ascend=True, dtype="int64")


def take(a, indices, axis=None, mode="raise", out=None) -> _Symbol:
    """Elements of ``a`` at ``indices`` along ``axis`` (of the flattened array when None)."""
    a = _sym(a)
    if axis is None:
        a, axis = ravel(a), 0
    return apply("take", [a, _sym(indices)], axis=int(axis), mode=mode)


def pad(x, pad_width, mode="constant", **kwargs) -> _Symbol:
    """NumPy ``pad``; ``pad_width`` gives a (before, after) pair for every axis."""
    w = onp.asarray(pad_width, dtype=onp.int64)
    if w.ndim != 2 or w.shape[1] != 2:
        raise NotImplementedError("mx.sym.np.pad: give a (before, after) pair for every "
                                  "axis (broadcasting pad_width needs the rank)")
    return apply("_npi_pad", [_sym(x)], pad_width=tuple(int(v) for v in w.reshape(-1)),
                 mode=mode, constant_value=float(kwargs.get("constant_values", 0)),
                 reflect_type=kwargs.get("reflect_type", "even"))


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None):
    """The sorted distinct values of ``ar`` (flattened, or slices along ``axis``), with
    the first indices, the inverse and the counts when asked for: one symbol, or a group
    of them (their sizes are known only when the graph runs)."""
    return apply("_npi_unique", [_sym(ar)], return_index=bool(return_index),
                 return_inverse=bool(return_inverse), return_counts=bool(return_counts),
                 axis=None if axis is None else int(axis))


def bincount(x, weights=None, minlength=0) -> _Symbol:
    """Occurrences of each non-negative integer (weighted when ``weights`` is given)."""
    if weights is None:
        return apply("_npi_bincount", [_sym(x)], minlength=minlength)
    return apply("_npi_bincount", [_sym(x), _sym(weights)], minlength=minlength,
                 has_weights=True)


def _def_predicate(fname):
    def fn(x, out=None, **kwargs):
        return apply(f"_npi_{fname}", [_sym(x)])
    fn.__name__ = fname
    fn.__doc__ = f"Elementwise NumPy ``{fname}`` of a symbol (``bool``)."
    return fn


def invert(x, out=None) -> _Symbol:
    """Bitwise NOT of integers (logical NOT of ``bool``)."""
    return apply("_npi_bitwise_not", [_sym(x)])


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None) -> _Symbol:
    """NaN and infinities replaced by finite numbers (the dtype's extremes by default);
    ``copy`` has no meaning for a symbol, whose result is always a new array."""
    return apply("_npi_nan_to_num", [_sym(x)], copy=True, nan=float(nan),
                 posinf=None if posinf is None else float(posinf),
                 neginf=None if neginf is None else float(neginf))


def unravel_index(indices, shape, order: str = "C") -> _Symbol:
    """The coordinates of flat ``indices`` in an array of ``shape``, one row per axis
    (``order='F'`` reads the flat index in Fortran order)."""
    if order not in ("C", "F"):
        raise ValueError(f"mx.sym.np.unravel_index: order must be 'C' or 'F', got {order!r}")
    if order == "C":
        return apply("_unravel_index", [_sym(indices)], shape=_ints(shape))
    return flip(apply("_unravel_index", [_sym(indices)], shape=_ints(shape)[::-1]), 0)


def vdot(a, b) -> _Symbol:
    """Dot product of the flattened arrays."""
    return apply("_npi_tensordot_int_axes", [ravel(a), ravel(b)], axes=1)


def inner(a, b) -> _Symbol:
    """Sum of products over the last axes."""
    return apply("_npi_tensordot", [_sym(a), _sym(b)], a_axes_summed=(-1,),
                 b_axes_summed=(-1,))


def outer(a, b) -> _Symbol:
    """Products of every element of ``a`` with every element of ``b`` (flattened)."""
    return apply("_npi_tensordot_int_axes", [ravel(a), ravel(b)], axes=0)


row_stack = vstack
isnan = _def_predicate("isnan")
isinf = _def_predicate("isinf")
isposinf = _def_predicate("isposinf")
isneginf = _def_predicate("isneginf")
isfinite = _def_predicate("isfinite")
bitwise_not = invert


__all__ = sorted(n for n, v in globals().items()
                 if not n.startswith("_") and callable(v) and n not in ("apply", "numbers")
                 and getattr(v, "__module__", "") == __name__)
