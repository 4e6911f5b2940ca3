"""Index operators of ``mx.nd.contrib``: ``index_copy``, ``index_array`` and
``boolean_mask`` (whose output length depends on the mask's values)."""
from __future__ import annotations

import numpy as np

from .attrs import Attr
from .common import fail, norm_axis, put
from .registry import OpDef, register

# -- index_copy ---------------------------------------------------------------------------
_IC = "_contrib_index_copy"


def _copy_rows(op: str, xp, index, n_rows: int, n_new: int):
    """``(target rows, source rows)``; as in MXNet, an index outside ``[0, n_rows)`` copies
    nothing."""
    idx = index.reshape(-1)
    if idx.shape[0] != n_new:
        fail(op, f"index_vector has {idx.shape[0]} entries, new_tensor has {n_new} rows")
    idx = (idx if idx.dtype.kind in "iu" else xp.trunc(idx)).astype(np.int64)
    valid = xp.nonzero((idx >= 0) & (idx < n_rows))[0]
    return idx[valid], valid


def _index_copy_forward(oc, attrs, inputs, out):
    old, index, new = inputs
    if old.ndim != new.ndim or old.shape[1:] != new.shape[1:] or new.shape[0] > old.shape[0]:
        fail(_IC, "new_tensor must have old_tensor's trailing shape and at most its rows",
             old.shape, index.shape, new.shape)
    target, source = _copy_rows(_IC, oc.xp, index, old.shape[0], new.shape[0])
    y = put(out, 0, old.copy())
    y[target] = new[source]
    return [y]


def _index_copy_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    old, index, new = inputs
    target, source = _copy_rows(_IC, xp, index, old.shape[0], new.shape[0])
    g = out_grads[0]
    d_old = g.copy()
    d_old[target] = 0
    d_new = xp.zeros(new.shape, dtype=new.dtype)
    d_new[source] = g[target]
    return [d_old, xp.zeros(index.shape, dtype=index.dtype), d_new]


def _index_copy_infer(attrs, in_shapes):
    old, index, new = in_shapes
    return [old, index, new], [old]


register(OpDef(
    _IC, _index_copy_forward, backward=_index_copy_backward,
    inputs=("old_tensor", "index_vector", "new_tensor"), infer_shape=_index_copy_infer,
    infer_type=lambda op, attrs, dts: ([dts[0], dts[1], dts[0]], [dts[0]]),
    backward_uses=("inputs",),
    doc="``old_tensor`` with rows ``index_vector[i]`` replaced by ``new_tensor[i]``."))


# -- index_array --------------------------------------------------------------------------
_IA = "_contrib_index_array"


def _ia_axes(attrs, ndim: int) -> tuple:
    if attrs.axes is None:
        return tuple(range(ndim))
    return tuple(norm_axis(_IA, a, ndim) for a in attrs.axes)


def _index_array_forward(oc, attrs, inputs, out):
    xp = oc.xp
    x = inputs[0]
    axes = _ia_axes(attrs, x.ndim)
    grids = xp.indices(x.shape, dtype=np.int64) if x.ndim else xp.zeros((0,), np.int64)
    y = xp.stack([grids[a] for a in axes], axis=-1) if axes else \
        xp.zeros(x.shape + (0,), dtype=np.int64)
    return [put(out, 0, y)]


def _index_array_infer(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [None], [None]
    return [s], [tuple(s) + (len(_ia_axes(attrs, len(s))),)]


register(OpDef(
    _IA, _index_array_forward, attrs={"axes": Attr("shape", None)},
    infer_shape=_index_array_infer,
    infer_type=lambda op, attrs, dts: (dts, [np.dtype(np.int64)]), differentiable=False,
    doc="For each element, its index (along ``axes``), as a trailing int64 dimension."))


# -- boolean_mask -------------------------------------------------------------------------
_BM = "_contrib_boolean_mask"


def _selected(op: str, xp, data, index, axis: int):
    if index.ndim != 1 or index.shape[0] != data.shape[axis]:
        fail(op, f"index must be 1-D with {data.shape[axis]} entries (axis {axis})",
             data.shape, index.shape)
    return xp.nonzero(index != 0)[0]


def _boolean_mask_forward(oc, attrs, inputs, out):
    xp = oc.xp
    data, index = inputs
    axis = norm_axis(_BM, attrs.axis, data.ndim)
    rows = _selected(_BM, xp, data, index, axis)
    return [put(out, 0, xp.take(data, rows, axis=axis))]


def _boolean_mask_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    data, index = inputs
    axis = norm_axis(_BM, attrs.axis, data.ndim)
    rows = _selected(_BM, xp, data, index, axis)
    g = xp.zeros(data.shape, dtype=data.dtype)
    where = [slice(None)] * data.ndim
    where[axis] = rows
    g[tuple(where)] = out_grads[0]
    return [g, xp.zeros(index.shape, dtype=index.dtype)]


def _boolean_mask_infer(attrs, in_shapes):
    """The selected length is only known from the mask's values: 0 (unknown)."""
    data, index = in_shapes
    if data is None:
        return [data, index], [None]
    axis = norm_axis(_BM, attrs.axis, len(data))
    out = list(data)
    out[axis] = 0
    return [data, index if index is not None else (data[axis],)], [tuple(out)]


register(OpDef(
    _BM, _boolean_mask_forward, backward=_boolean_mask_backward,
    attrs={"axis": Attr("int", 0)}, inputs=("data", "index"),
    infer_shape=_boolean_mask_infer,
    infer_type=lambda op, attrs, dts: (dts, [dts[0]]), backward_uses=("inputs",),
    doc="The slices of ``data`` along ``axis`` where ``index`` is nonzero."))
