"""Shape manipulation of ``mx.np``: ``reshape``, ``transpose``, stacking, splitting, tiling,
flipping, ``where``, ``pad``, ``insert``/``delete``, ..."""
from __future__ import annotations

import builtins
import numbers

import numpy as onp

from ...base import MXNetError
from ..ndarray import NDArray
from ._array import ndarray, apply, full, _DEFAULT_FLOAT
from ._array import NpValueError, NpTypeError, NpIndexError
from ._common import (_arr, _axis_attr, _host_array, _ints, _is_scalar, _norm_axis, _out,
                      _promote_all, _recording)


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


def reshape(a, newshape, order="C", out=None) -> ndarray:
    """``a`` with a new shape (NumPy's rule: one ``-1`` stands for the rest); written
    into ``out`` when given.  ``order='F'`` reads and writes the elements in Fortran
    order as NumPy does (a copy; MXNet 1.9.1 ignores ``order``)."""
    if out is not None:
        return _out(reshape(a, newshape, order), out)
    if order not in ("C", "F", "A"):
        raise NpValueError(f"reshape: order must be one of 'C', 'F' or 'A', got {order!r}")
    a = _arr(a)
    if isinstance(newshape, numbers.Integral):
        newshape = (newshape,)
    shape = _resolve_shape(a.size, tuple(newshape), a.shape)
    if order != "C":  # 'F' reads and writes in Fortran order; 'A' is 'C' for mx.np arrays
        return apply("_np_reshape", [a], newshape=shape, order=order)
    if shape == a.shape:
        return a if not _recording(a) else apply("_copy", [a])
    if not _recording(a):
        return a._view(a._data.reshape(shape)) if a._data.flags.c_contiguous else \
            ndarray(a._data.reshape(shape), a.context)
    return apply("_np_reshape", [a], newshape=shape)


def ravel(x, order="C") -> ndarray:
    return reshape(x, (-1,), order)


def transpose(a, axes=None) -> ndarray:
    """The axes permuted by ``axes`` (reversed when None)."""
    return apply("_np_transpose", [_arr(a)], axes=None if axes is None else _ints(axes))


def swapaxes(a, axis1, axis2) -> ndarray:
    """``a`` with two axes interchanged: MXNet's ``SwapAxis``, as ``mx.sym.np`` records it."""
    return apply("SwapAxis", [_arr(a)], dim1=int(axis1), dim2=int(axis2))


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


def squeeze(a, axis=None, out=None) -> ndarray:
    """Axes of length one removed (those of ``axis``, or all when None)."""
    return _out(apply("_np_squeeze", [_arr(a)], axis=None if axis is None else _ints(axis)),
                out)


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


def concatenate(seq, axis=0, out=None) -> ndarray:
    arrs = [_arr(x) for x in seq]
    if axis is None:
        arrs = [ravel(x) for x in arrs]
        axis = 0
    arrs = _promote_all(arrs)
    if builtins.any(x.ndim == 0 for x in arrs):
        raise MXNetError("concatenate: zero-dimensional arrays cannot be concatenated "
                         f"(shapes {[x.shape for x in arrs]})")
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
    """``a``'s elements each repeated ``repeats`` times (one count for all, or one per
    element along ``axis``) along ``axis`` (of the flattened array when None).

    Parameters
    ----------
    a : ndarray
        The input.
    repeats : int, or sequence / ndarray of ints
        The number of repetitions.
    axis : int, optional
        The axis to repeat along.

    Returns
    -------
    ndarray
    """
    a = _arr(a)
    if isinstance(repeats, numbers.Integral):
        return apply("repeat", [a], repeats=int(repeats), axis=axis)
    reps = onp.asarray(repeats.asnumpy() if isinstance(repeats, NDArray) else repeats)
    if reps.dtype.kind not in "iu" and not onp.array_equal(reps, onp.round(reps)):
        raise NpTypeError(f"repeat: repeats must be integers, got {reps.dtype}")
    return apply("_npi_repeats", [a], repeats=tuple(int(r) for r in reps.reshape(-1)),
                 axis=axis)


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
        from ._search import nonzero  # _search reads this module's reshape
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


def _position_attrs(obj) -> dict:
    """The attributes naming the positions ``obj`` (an int or a slice) of the
    ``_npi_insert_*``/``_npi_delete`` operators; empty for a position array."""
    if isinstance(obj, slice):
        return dict(start=obj.start, stop=obj.stop, step=1 if obj.step is None else obj.step)
    if isinstance(obj, numbers.Integral) and not isinstance(obj, bool):
        return dict(int_ind=int(obj))
    return {}


def _position_array(obj, ctx) -> ndarray:
    if isinstance(obj, NDArray):
        return obj
    pos = onp.asarray(obj)
    return _host_array(pos, onp.bool_ if pos.dtype == onp.bool_ else onp.int64, ctx)


def delete(arr, obj, axis=None) -> ndarray:
    """``arr`` without the entries ``obj`` along ``axis`` (of the flattened array when
    None).

    Parameters
    ----------
    arr : ndarray
        The input.
    obj : int, slice or array of ints
        The positions to remove (negative ones counted from the end).
    axis : int, optional
        The axis to delete along.

    Returns
    -------
    ndarray
        A copy of ``arr`` without the entries at ``obj``.
    """
    a = _arr(arr)
    attrs = _position_attrs(obj)
    if attrs:
        return apply("_npi_delete", [a], axis=axis, **attrs)
    return apply("_npi_delete", [a, _position_array(obj, a.context)], axis=axis)


def insert(arr, obj, values, axis=None) -> ndarray:
    """``values`` inserted into ``arr`` before the positions ``obj`` along ``axis`` (of
    the flattened array when None), with NumPy's rules for scalar and array ``obj``.

    Parameters
    ----------
    arr : ndarray
        The input.
    obj : int, slice or array of ints
        Positions before which ``values`` are inserted.
    values : ndarray or scalar
        The values, cast to ``arr``'s dtype and broadcast.
    axis : int, optional
        The axis to insert along.

    Returns
    -------
    ndarray
        A copy of ``arr`` with ``values`` inserted.
    """
    a = _arr(arr)
    if _is_scalar(values):
        inputs, kw = [a], dict(val=float(values))
    else:
        inputs, kw = [a, _arr(values, a.context)], {}
    attrs = _position_attrs(obj)
    if isinstance(obj, slice):
        return apply("_npi_insert_slice", inputs, axis=axis, **attrs, **kw)
    if attrs:
        return apply("_npi_insert_scalar", inputs, axis=axis, **attrs, **kw)
    return apply("_npi_insert_tensor", inputs + [_position_array(obj, a.context)],
                 axis=axis, **kw)


def resize(a, new_shape) -> ndarray:
    """``a``'s elements repeated in order to fill ``new_shape`` (NumPy's ``resize``)."""
    new_shape = _ints(new_shape)
    if builtins.any(d < 0 for d in new_shape):
        raise NpValueError(f"resize: all elements of new_shape must be non-negative, got "
                           f"{new_shape}")
    return apply("_npi_resize_fallback", [_arr(a)], new_shape=new_shape)


def _atleast(n: int, arys):
    arrs = [_arr(a) for a in arys]
    res = apply(f"_np_atleast_{n}d", arrs, num_args=len(arrs))
    res = res if isinstance(res, list) else [res]
    return res[0] if len(res) == 1 else res


def _join(op_name: str, arrays, out=None) -> ndarray:
    arrs = _promote_all([_arr(x) for x in arrays])
    return _out(apply(op_name, arrs, num_args=len(arrs)), out)


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
