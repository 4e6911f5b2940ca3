"""Indexing by array: ``take``, ``pick``, ``batch_take``, ``one_hot``, ``gather_nd``,
``scatter_nd`` and ``_scatter_set_nd`` with MXNet 1.9 semantics.

Index inputs may have any dtype; MXNet commonly passes float32 indices.  They
are cast to integers by truncation toward zero (C casts), then handled per the
operator's ``mode``:

* ``clip``: out-of-range indices are clipped to ``[0, n - 1]`` (negative ones become 0);
* ``wrap``: indices are taken modulo ``n`` (``-1`` is the last element);
* ``raise``: an out-of-range index raises ``MXNetError``.

``gather_nd``/``scatter_nd`` accept Python-style negative indices and raise on
out-of-range ones.  Outputs keep the dtype of the data input; gradients flow to
the data only (``xp.add.at`` accumulates repeated indices), never to indices.
"""
from __future__ import annotations

import math

import numpy as np

from ..base import MXNetError
from .attrs import Attr
from .common import fail, norm_axis, put
from .registry import OpDef, register


# -- shared helpers ----------------------------------------------------------------------
def as_index(xp, idx):
    """Indices as int64, floats truncated toward zero like MXNet's C cast."""
    if idx.dtype == np.int64:
        return idx
    return idx.astype(np.int64)


def fix_mode(xp, op: str, idx, n: int, mode: str):
    """Apply ``clip``/``wrap``/``raise`` to integer indices into an axis of size ``n``."""
    if n == 0:
        fail(op, "cannot index into an axis of size 0")
    if mode == "clip":
        return xp.clip(idx, 0, n - 1)
    if mode == "wrap":
        return idx % n
    if idx.size and bool(((idx < 0) | (idx >= n)).any()):
        fail(op, f"indices out of bounds for an axis of size {n} (mode='raise')")
    return idx


def cast_scalar(value: float, dtype: np.dtype):
    """A Python float as a scalar of ``dtype`` with C cast semantics (truncate, wrap)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return np.bool_(value != 0)
    if dtype.kind in "iu":
        if not math.isfinite(value):
            return dtype.type(0)
        return np.array(math.trunc(value), dtype=np.int64).astype(dtype)[()]
    return dtype.type(value)


def _data_dtype_infer(n_inputs: int, index_positions: tuple, n_out: int = 1):
    """dtype rule: outputs take the data dtype; index inputs keep their own dtype."""
    def infer(op, attrs, in_dtypes):
        ins = list(in_dtypes)
        data = [i for i in range(n_inputs) if i not in index_positions]
        known = next((ins[i] for i in data if ins[i] is not None), None)
        if known is not None:
            for i in data:
                ins[i] = known
        return ins, [known] * n_out
    return infer


# -- take ------------------------------------------------------------------------------
def _take_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    a, idx = inputs
    axis = norm_axis("take", attrs.axis, a.ndim)
    i = fix_mode(xp, "take", as_index(xp, idx), a.shape[axis], attrs.mode)
    return [put(out, 0, xp.take(a, i, axis=axis))]


def _take_bwd(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    a, idx = inputs
    axis = norm_axis("take", attrs.axis, a.ndim)
    i = fix_mode(xp, "take", as_index(xp, idx), a.shape[axis], attrs.mode)
    g = out_grads[0]
    g = g.reshape(a.shape[:axis] + (i.size,) + a.shape[axis + 1:])
    ga = xp.zeros(a.shape, dtype=g.dtype)
    xp.add.at(xp.moveaxis(ga, axis, 0), i.reshape(-1), xp.moveaxis(g, axis, 0))
    return [ga, None]


def _take_infer(attrs, in_shapes):
    a, idx = in_shapes
    if a is None or idx is None:
        return in_shapes, [None]
    axis = norm_axis("take", attrs.axis, len(a))
    return in_shapes, [tuple(a[:axis]) + tuple(idx) + tuple(a[axis + 1:])]


register(OpDef(
    "take", _take_fwd, backward=_take_bwd, inputs=("a", "indices"),
    attrs={"axis": Attr("int", 0),
           "mode": Attr("str", "clip", choices=("clip", "raise", "wrap"))},
    infer_shape=_take_infer, infer_type=_data_dtype_infer(2, (1,)), aliases=("_npi_take",),
    backward_uses=("inputs",),
    doc="Take elements of ``a`` along ``axis`` at ``indices`` (MXNet ``take``)."))


# -- pick ------------------------------------------------------------------------------
def _pick_index(xp, attrs, data, index):
    if attrs.axis is None:
        fail("pick", "axis=None is not supported by pick yet. Must specify an axis")
    axis = norm_axis("pick", attrs.axis, data.ndim)
    i = fix_mode(xp, "pick", as_index(xp, index), data.shape[axis], attrs.mode)
    i = i.reshape(data.shape[:axis] + (1,) + data.shape[axis + 1:])
    return axis, i


def _pick_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    data, index = inputs
    axis, i = _pick_index(xp, attrs, data, index)
    y = xp.take_along_axis(data, i, axis=axis)
    # the output shape follows data and keepdims, whatever shape of the same size the
    # index has ((4,) and (4, 1) both pick one element per row of a (4, 5) input)
    if not attrs.keepdims:
        y = y.reshape(data.shape[:axis] + data.shape[axis + 1:] or (1,))
    return [put(out, 0, y)]


def _pick_bwd(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    data, index = inputs
    axis, i = _pick_index(xp, attrs, data, index)
    g = out_grads[0].reshape(i.shape)
    pos = xp.arange(data.shape[axis]).reshape(
        (1,) * axis + (data.shape[axis],) + (1,) * (data.ndim - axis - 1))
    return [(pos == i) * g, None]


def _pick_infer(attrs, in_shapes):
    data, index = in_shapes
    if data is None:
        return in_shapes, [tuple(index) if index is not None else None]
    if attrs.axis is None:
        fail("pick", "axis=None is not supported by pick yet. Must specify an axis")
    axis = norm_axis("pick", attrs.axis, len(data))
    without_axis = tuple(data[:axis]) + tuple(data[axis + 1:]) or (1,)
    out = tuple(data[:axis]) + (1,) + tuple(data[axis + 1:]) if attrs.keepdims else without_axis
    if index is None:
        index = without_axis
    elif 0 not in index and 0 not in without_axis and \
            int(np.prod(index)) != int(np.prod(without_axis)):
        fail("pick", f"index shape {tuple(index)} does not match {without_axis}", data, index)
    return [tuple(data), tuple(index)], [out]


register(OpDef(
    "pick", _pick_fwd, backward=_pick_bwd, inputs=("data", "index"),
    attrs={"axis": Attr("int", -1, optional=True), "keepdims": Attr("bool", False),
           "mode": Attr("str", "clip", choices=("clip", "wrap"))},
    infer_shape=_pick_infer, infer_type=_data_dtype_infer(2, (1,)),
    aliases=("choose_element_0index", "_npx_pick"), backward_uses=("inputs",),
    doc="Pick one element per position along ``axis`` at ``index`` (MXNet ``pick``)."))


# -- batch_take --------------------------------------------------------------------------
def _batch_take_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    a, idx = inputs
    rows = a.reshape(-1, a.shape[-1]) if a.ndim else a.reshape(1, 1)
    if rows.shape[0] != idx.size:
        fail("batch_take", "index array's size must equal the data size excluding the "
             "last dimension", a.shape, idx.shape)
    i = fix_mode(xp, "batch_take", as_index(xp, idx).reshape(-1), rows.shape[1], "clip")
    y = rows[xp.arange(rows.shape[0]), i].reshape(idx.shape if idx.ndim else (1,))
    return [put(out, 0, y)]


def _batch_take_infer(attrs, in_shapes):
    a, idx = in_shapes
    return in_shapes, [tuple(idx) if idx is not None else None]


register(OpDef(
    "batch_take", _batch_take_fwd, inputs=("a", "indices"), infer_shape=_batch_take_infer,
    infer_type=_data_dtype_infer(2, (1,)), differentiable=False,
    doc="``out[i] = a[i, indices[i]]`` with clipped indices (MXNet ``batch_take``, "
        "deprecated in favour of ``pick``)."))


# -- one_hot -----------------------------------------------------------------------------
def _one_hot_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    idx = as_index(xp, inputs[0])
    dt = attrs.dtype
    pos = xp.arange(attrs.depth)
    on = xp.asarray(cast_scalar(attrs.on_value, dt))
    off = xp.asarray(cast_scalar(attrs.off_value, dt))
    y = xp.where(idx[..., None] == pos, on, off).astype(dt, copy=False)
    return [put(out, 0, y)]


def _one_hot_infer(attrs, in_shapes):
    idx = in_shapes[0]
    return in_shapes, [None if idx is None else tuple(idx) + (attrs.depth,)]


def _one_hot_type(op, attrs, in_dtypes):
    return list(in_dtypes), [attrs.dtype]


register(OpDef(
    "one_hot", _one_hot_fwd, inputs=("indices",),
    attrs={"depth": Attr("int"), "on_value": Attr("float", 1.0),
           "off_value": Attr("float", 0.0), "dtype": Attr("dtype", np.dtype("float32"))},
    infer_shape=_one_hot_infer, infer_type=_one_hot_type, differentiable=False,
    aliases=("_npx_one_hot",),
    doc="One-hot encoding along a new last axis of size ``depth``; indices out of "
        "``[0, depth)`` give rows of ``off_value`` (MXNet ``one_hot``)."))


# -- gather_nd / scatter_nd ------------------------------------------------------------------
class IndexOutOfBoundsError(MXNetError, IndexError):
    """An index past an axis (MXNet raises ``IndexError`` for it; an ``MXNetError`` too)."""


def _nd_index(xp, op, indices, shape):
    """``indices`` (M, ...) as a tuple of M int arrays into ``shape``, negatives wrapped."""
    m = indices.shape[0] if indices.ndim else 0
    if indices.ndim == 0 or m > len(shape) or m == 0:
        fail(op, f"indices must have shape (M, ...) with 1 <= M <= {len(shape)}",
             shape, indices.shape)
    idx = as_index(xp, indices)
    dims = xp.asarray(np.array(shape[:m], dtype=np.int64)).reshape((m,) + (1,) * (idx.ndim - 1))
    idx = xp.where(idx < 0, idx + dims, idx)
    if idx.size and bool(((idx < 0) | (idx >= dims)).any()):
        raise IndexOutOfBoundsError(f"Operator {op}: index out of bounds (input shapes: "
                                    f"{tuple(shape)}, {tuple(indices.shape)})")
    return tuple(idx[k] for k in range(m))


def _gather_nd_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    data, indices = inputs
    y = data[_nd_index(xp, "gather_nd", indices, data.shape)]
    return [put(out, 0, y if y.ndim else y.reshape(1))]


def _gather_nd_bwd(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    data, indices = inputs
    pos = _nd_index(xp, "gather_nd", indices, data.shape)
    g = out_grads[0]
    ga = xp.zeros(data.shape, dtype=g.dtype)
    xp.add.at(ga, pos, g.reshape(indices.shape[1:] + data.shape[indices.shape[0]:]))
    return [ga, None]


def _gather_nd_infer(attrs, in_shapes):
    data, idx = in_shapes
    if data is None or idx is None:
        return in_shapes, [None]
    m = idx[0] if idx else 0
    if not idx or m > len(data):
        fail("gather_nd", "indices must have shape (M, ...) with M <= data.ndim", data, idx)
    return in_shapes, [(tuple(idx[1:]) + tuple(data[m:])) or (1,)]


register(OpDef(
    "gather_nd", _gather_nd_fwd, backward=_gather_nd_bwd, inputs=("data", "indices"),
    infer_shape=_gather_nd_infer, infer_type=_data_dtype_infer(2, (1,)),
    aliases=("_npi_gather_nd", "_npx_gather_nd"), backward_uses=("inputs",),
    doc="``out[i...] = data[indices[0, i...], ..., indices[M-1, i...]]`` "
        "(MXNet ``gather_nd``)."))


def _scatter_nd_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    data, indices = inputs
    shape = tuple(attrs.shape)
    pos = _nd_index(xp, "scatter_nd", indices, shape)
    y = xp.zeros(shape, dtype=data.dtype)
    y[pos] = data.reshape(indices.shape[1:] + shape[indices.shape[0]:])
    return [put(out, 0, y)]


def _scatter_nd_bwd(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    data, indices = inputs
    pos = _nd_index(xp, "scatter_nd", indices, tuple(attrs.shape))
    return [out_grads[0][pos].reshape(data.shape), None]


def _scatter_nd_infer(attrs, in_shapes):
    data, idx = in_shapes
    shape = tuple(attrs.shape)
    if idx is not None:
        m = idx[0] if idx else 0
        if not idx or m > len(shape):
            fail("scatter_nd", "indices must have shape (M, ...) with M <= len(shape)",
                 data, idx)
        want = (tuple(idx[1:]) + shape[m:]) or (1,)
        if data is not None and tuple(data) != want and 0 not in data:
            fail("scatter_nd", f"data shape must be {want}", data, idx)
        data = want
    return [data, idx], [shape]


register(OpDef(
    "scatter_nd", _scatter_nd_fwd, backward=_scatter_nd_bwd, inputs=("data", "indices"),
    attrs={"shape": Attr("shape")}, infer_shape=_scatter_nd_infer,
    infer_type=_data_dtype_infer(2, (1,)), backward_uses=("inputs",),
    doc="Zeros of ``shape`` with ``data`` written at ``indices`` (MXNet ``scatter_nd``; "
        "with repeated indices one of the values wins)."))


def _scatter_set_nd_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    lhs, rhs, indices = inputs
    pos = _nd_index(xp, "_scatter_set_nd", indices, lhs.shape)
    y = lhs.copy()
    y[pos] = rhs.reshape(indices.shape[1:] + lhs.shape[indices.shape[0]:])
    return [put(out, 0, y)]


def _scatter_set_nd_bwd(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    lhs, rhs, indices = inputs
    pos = _nd_index(xp, "_scatter_set_nd", indices, lhs.shape)
    g = out_grads[0]
    glhs = g.copy()
    glhs[pos] = 0
    return [glhs, g[pos].reshape(rhs.shape), None]


def _scatter_set_nd_infer(attrs, in_shapes):
    lhs, rhs, idx = in_shapes
    shape = tuple(attrs.shape)
    if lhs is None:
        lhs = shape
    if idx is not None and lhs is not None and rhs is None:
        rhs = (tuple(idx[1:]) + tuple(lhs[idx[0]:])) or (1,)
    return [lhs, rhs, idx], [lhs]


register(OpDef(
    "_scatter_set_nd", _scatter_set_nd_fwd, backward=_scatter_set_nd_bwd,
    inputs=("lhs", "rhs", "indices"), attrs={"shape": Attr("shape")},
    infer_shape=_scatter_set_nd_infer, infer_type=_data_dtype_infer(3, (2,)),
    aliases=("_npi_scatter_set_nd",), backward_uses=("inputs",),
    doc="A copy of ``lhs`` with ``rhs`` written at ``indices`` (MXNet ``_scatter_set_nd``)."))
