"""NumPy ``insert`` and ``delete`` (and ``repeat`` with per-element counts) as single
operators, so that ``mx.np`` and ``mx.sym.np`` (hybridized blocks) build the same node:
``_npi_insert_scalar`` (one position, ``int_ind``), ``_npi_insert_slice`` (the positions
of a slice), ``_npi_insert_tensor`` (positions given as an integer array input),
``_npi_delete`` (an int, a slice or an integer array input) and ``_npi_repeats``.

NumPy's rules: ``axis=None`` works on the flattened array; a scalar position inserts
``values`` (as at least ``arr.ndim``-d, its first axis moved to ``axis``) as one block; a
one-element position array inserts the block ``values.shape[axis]`` wide without moving
axes; several positions insert one slice each (stably ordered). The inserted values take
``arr``'s dtype. Outputs are copies of input elements, so gradients scatter the head
gradient back (the shared rule of :mod:`.numpy_manip`); position arrays get none.
"""
from __future__ import annotations

import numpy as np

from .attrs import Attr
from .common import fail, norm_axis, put
from .numpy_manip import _dummy, _scatter_grad
from .registry import OpDef, register


def _host(x):
    return x if isinstance(x, np.ndarray) else x.get()


def _axis_of(op: str, attrs, arr):
    """``arr`` (flattened when ``axis`` is None) and the normalized axis."""
    if attrs.axis is None:
        return arr.reshape(-1), 0
    if arr.ndim == 0:
        fail(op, f"axis {attrs.axis} is out of range for a 0-d input", arr.shape)
    return arr, norm_axis(op, attrs.axis, arr.ndim)


def _int_positions(op: str, obj, n: int, allow_end: bool):
    """Integer positions (a host array) from a position input; negative ones counted from
    the end; out-of-range ones raise."""
    pos = np.asarray(_host(obj))
    if pos.dtype == np.bool_:
        if pos.shape != (n,):
            fail(op, f"a boolean index of shape {pos.shape} does not fit an axis of size {n}")
        pos = np.flatnonzero(pos)
    if pos.size and pos.dtype.kind not in "iu":
        if not np.all(pos == np.round(pos)):
            fail(op, f"index arrays must be integers, got {pos.dtype}")
    pos = pos.astype(np.int64)
    hi = n + 1 if allow_end else n
    if pos.size and (pos.min() < -hi + (1 if allow_end else 0) or pos.max() >= hi):
        fail(op, f"index {pos.tolist()} is out of bounds for an axis of size {n}")
    return np.where(pos < 0, pos + n, pos)


def _slice_positions(attrs, n: int):
    return np.arange(*slice(attrs.start, attrs.stop, attrs.step).indices(n), dtype=np.int64)


# -- insert ------------------------------------------------------------------------------------
def _insert_apply(op: str, xp, arr, vals, pos, scalar: bool, axis: int):
    n = arr.shape[axis]
    if vals.ndim < arr.ndim:
        vals = vals.reshape((1,) * (arr.ndim - vals.ndim) + vals.shape)
    if pos.size == 1:
        if scalar:
            vals = xp.moveaxis(vals, 0, axis)
        if vals.ndim != arr.ndim:
            fail(op, f"values of shape {vals.shape} do not fit an input of shape {arr.shape}")
        k = vals.shape[axis]
        p = int(pos.reshape(-1)[0])
        order = np.arange(k)
        new_pos = p + order
    else:
        pos = pos.reshape(-1)
        k = pos.size
        order = np.argsort(pos, kind="stable")
        new_pos = pos[order] + np.arange(k)
    shape = list(arr.shape)
    shape[axis] = k
    try:
        block = xp.broadcast_to(vals, tuple(shape))
    except ValueError:
        fail(op, f"cannot broadcast values of shape {tuple(vals.shape)} to {tuple(shape)}",
             arr.shape)
    src = np.empty(n + k, np.int64)
    is_new = np.zeros(n + k, bool)
    is_new[new_pos] = True
    src[~is_new] = np.arange(n)
    src[new_pos] = n + order
    joined = xp.concatenate([arr, block.astype(arr.dtype, copy=False)], axis)
    return xp.take(joined, xp.asarray(src), axis=axis)


def _insert_fn(op: str, kind: str):
    """``fn(xp, attrs, ins, obj)``: the insertion of one of the three operators."""

    def fn(xp, attrs, ins, obj=None, positions=False):
        arr, axis = _axis_of(op, attrs, ins[0])
        if attrs.val is not None:  # as source positions: 0, a filled element
            vals = xp.asarray(np.asarray(0 if positions else attrs.val).astype(arr.dtype))
        else:
            vals = ins[1]
        n = arr.shape[axis]
        if kind == "scalar":
            if attrs.int_ind is None:
                fail(op, "int_ind is required", arr.shape)
            pos = _int_positions(op, np.asarray(attrs.int_ind), n, True)
            return _insert_apply(op, xp, arr, vals, pos, True, axis)
        if kind == "slice":
            pos = _slice_positions(attrs, n)
        else:
            pos = _int_positions(op, obj, n, True)
        return _insert_apply(op, xp, arr, vals, pos, pos.ndim == 0, axis)
    return fn


def _delete_fn(xp, attrs, ins, obj=None, positions=False):
    op = "_npi_delete"
    arr, axis = _axis_of(op, attrs, ins[0])
    n = arr.shape[axis]
    if obj is not None:  # positions in an array outside [0, n) are ignored, negative ones
        # included (MXNet's rule: they are not counted from the end)
        pos = np.asarray(_host(obj)).reshape(-1)
        if pos.dtype != np.bool_:
            pos = pos[(pos >= 0) & (pos < n)]
        drop = _int_positions(op, pos, n, False)
    elif attrs.int_ind is not None:
        drop = _int_positions(op, np.asarray(attrs.int_ind), n, False)
    else:
        drop = _slice_positions(attrs, n)
    keep = np.setdiff1d(np.arange(n), drop.reshape(-1))
    return xp.take(arr, xp.asarray(keep), axis=axis)


_POSITION_ATTRS = {"start": Attr("int", None, optional=True),
                   "stop": Attr("int", None, optional=True),
                   "step": Attr("int", None, optional=True),
                   "int_ind": Attr("int", None, optional=True),
                   "axis": Attr("int", None, optional=True)}


def _register_positional(name: str, fn, inputs, has_obj, attrs: dict, doc: str,
                         dynamic_shape: bool = False):
    """Register an operator ``fn(xp, attrs, data_inputs, obj, positions)`` whose output
    copies elements of its data inputs (``positions``: the inputs are arrays of source
    positions, the gradient's pass); the position input (``obj``, when ``has_obj(attrs)``)
    is the last one and gets no gradient."""

    def split(attrs, ins):
        if has_obj(attrs):
            return list(ins[:-1]), ins[-1]
        return list(ins), None

    def forward(oc, attrs, ins, out):
        data, obj = split(attrs, ins)
        return [put(out, 0, fn(oc.xp, attrs, data, obj))]

    def backward(oc, attrs, ins, outputs, out_grads):
        xp = oc.xp
        data, obj = split(attrs, ins)
        grads = _scatter_grad(xp, lambda xp_, a, idx: fn(xp_, a, idx, obj, True), attrs, data,
                              out_grads)
        return grads + ([] if obj is None else [xp.zeros(obj.shape, obj.dtype)])

    def infer(attrs, in_shapes):
        if any(s is None for s in in_shapes):
            return list(in_shapes), [None]
        shapes = [tuple(s) for s in in_shapes]
        data, obj = split(attrs, shapes)
        if obj is not None and dynamic_shape:
            # the kept length depends on the positions' values: 0 (unknown)
            d = data[0]
            if attrs.axis is None:
                return shapes, [(0,)]
            out = list(d)
            out[norm_axis(name, attrs.axis, len(d))] = 0
            return shapes, [tuple(out)]
        res = fn(np, attrs, [_dummy(s) for s in data],
                 None if obj is None else np.zeros(obj, np.int64))
        return shapes, [tuple(res.shape)]

    def infer_type(op, attrs, in_dtypes):
        return list(in_dtypes), [in_dtypes[0]]

    register(OpDef(name, forward, backward=backward, attrs=attrs, inputs=inputs,
                   infer_shape=infer, infer_type=infer_type, backward_uses=("inputs",),
                   doc=doc))


def _insert_inputs(with_obj: bool):
    def names(attrs):
        base = ("arr",) if attrs.val is not None else ("arr", "values")
        return base + (("obj",) if with_obj else ())
    return names


_INSERT_ATTRS = dict(_POSITION_ATTRS, val=Attr("float", None, optional=True))
_register_positional("_npi_insert_scalar", _insert_fn("_npi_insert_scalar", "scalar"),
                     _insert_inputs(False), lambda a: False, _INSERT_ATTRS,
                     "NumPy ``insert`` at the one position ``int_ind``: ``values`` (an "
                     "input, or the scalar ``val``) as at least ``arr.ndim``-d with its "
                     "first axis moved to ``axis``, broadcast, inserted before it.")
_register_positional("_npi_insert_slice", _insert_fn("_npi_insert_slice", "slice"),
                     _insert_inputs(False), lambda a: False, _INSERT_ATTRS,
                     "NumPy ``insert`` before the positions of the slice "
                     "``start:stop:step``.")
_register_positional("_npi_insert_tensor", _insert_fn("_npi_insert_tensor", "tensor"),
                     _insert_inputs(True), lambda a: True,
                     {"val": Attr("float", None, optional=True),
                      "axis": Attr("int", None, optional=True)},
                     "NumPy ``insert`` before the integer positions of the input ``obj``.")


def _delete_inputs(attrs):
    return ("arr",) if attrs.int_ind is not None or _has_slice(attrs) else ("arr", "obj")


def _has_slice(attrs):
    return any(v is not None for v in (attrs.start, attrs.stop, attrs.step))


_register_positional("_npi_delete", _delete_fn, _delete_inputs,
                     lambda a: a.int_ind is None and not _has_slice(a), _POSITION_ATTRS,
                     "NumPy ``delete``: ``arr`` without the entries ``int_ind``, those of "
                     "the slice ``start:stop:step``, or those of the integer input ``obj`` "
                     "(when neither is given), along ``axis`` (of the flattened array when "
                     "None).", dynamic_shape=True)


# -- repeat with per-element counts ---------------------------------------------------------------
def _repeats_fn(xp, attrs, ins, obj=None, positions=False):
    op = "_npi_repeats"
    x = ins[0]
    reps = np.asarray(tuple(attrs.repeats), np.int64)
    if reps.size and reps.min() < 0:
        fail(op, f"repeats {tuple(attrs.repeats)} must be non-negative", x.shape)
    if attrs.axis is None:
        x, axis = x.reshape(-1), 0
    else:
        if x.ndim == 0:
            x = x.reshape(1)
        axis = norm_axis(op, attrs.axis, x.ndim)
    n = x.shape[axis]
    if reps.size == 1:
        reps = np.full(n, reps[0], np.int64)
    if reps.size != n:
        fail(op, f"{reps.size} repeats do not fit an axis of size {n}", x.shape)
    return xp.take(x, xp.asarray(np.repeat(np.arange(n), reps)), axis=axis)


_register_positional("_npi_repeats", _repeats_fn, ("a",), lambda a: False,
                     {"repeats": Attr("shape"), "axis": Attr("int", None, optional=True)},
                     "NumPy ``repeat`` with one count per element along ``axis`` (of the "
                     "flattened array when None), or one count for all.")
