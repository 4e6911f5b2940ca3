"""Writing into part of an array: ``_slice_assign`` (``_crop_assign``),
``_slice_assign_scalar`` (``_crop_assign_scalar``), and MXNet's legacy NDArray
functions ``fill_element_0index`` and ``_onehot_encode``.

Each returns a new array (the input with the region overwritten); MXNet's front end
calls them with ``out=`` set to the input to write in place.
"""
from __future__ import annotations

import numpy as np

from .attrs import Attr
from .common import fail, put
from .join_split import _slice_key, _sliced_shape
from .registry import OpDef, register

_SLICE_ATTRS = {"begin": Attr("shape"), "end": Attr("shape"), "step": Attr("shape", ())}


# -- _slice_assign -----------------------------------------------------------------------
def _assign_fwd(oc, attrs, inputs, out):
    lhs, rhs = inputs
    key = _slice_key(attrs, lhs.shape)
    y = lhs.copy()
    target = _sliced_shape(key, lhs.shape)
    if tuple(rhs.shape) != target:
        fail("_slice_assign", f"rhs shape {tuple(rhs.shape)} does not match the slice "
             f"shape {target}", lhs.shape, rhs.shape)
    y[key] = rhs
    return [put(out, 0, y)]


def _assign_bwd(oc, attrs, inputs, outputs, out_grads):
    g = out_grads[0]
    key = _slice_key(attrs, g.shape)
    d_lhs = g.copy()
    d_lhs[key] = 0
    return [d_lhs, g[key].copy()]


def _assign_infer(attrs, in_shapes):
    lhs, rhs = in_shapes
    if lhs is None:
        return in_shapes, [None]
    lhs = tuple(lhs)
    target = _sliced_shape(_slice_key(attrs, lhs), lhs)
    if rhs is not None and tuple(rhs) != target:
        fail("_slice_assign", f"rhs shape {tuple(rhs)} does not match the slice shape "
             f"{target}", lhs, rhs)
    return [lhs, target], [lhs]


register(OpDef(
    "_slice_assign", _assign_fwd, backward=_assign_bwd, inputs=("lhs", "rhs"),
    attrs=dict(_SLICE_ATTRS), infer_shape=_assign_infer, aliases=("_crop_assign",),
    backward_uses=(),
    doc="``lhs`` with ``lhs[begin:end:step] = rhs`` (MXNet ``_slice_assign``; the "
        "gradient of ``lhs`` is zero on the slice, that of ``rhs`` the slice of the head "
        "gradient)."))


# -- _slice_assign_scalar ------------------------------------------------------------------
def _assign_scalar_fwd(oc, attrs, inputs, out):
    x = inputs[0]
    y = x.copy()
    y[_slice_key(attrs, x.shape)] = attrs.scalar
    return [put(out, 0, y)]


def _assign_scalar_bwd(oc, attrs, inputs, outputs, out_grads):
    g = out_grads[0].copy()
    g[_slice_key(attrs, g.shape)] = 0
    return [g]


def _assign_scalar_infer(attrs, in_shapes):
    s = in_shapes[0]
    if s is not None:
        _slice_key(attrs, tuple(s))
    return in_shapes, [None if s is None else tuple(s)]


register(OpDef(
    "_slice_assign_scalar", _assign_scalar_fwd, backward=_assign_scalar_bwd,
    attrs=dict(_SLICE_ATTRS, scalar=Attr("float", 0.0)), infer_shape=_assign_scalar_infer,
    aliases=("_crop_assign_scalar",), backward_uses=(),
    doc="``data`` with ``data[begin:end:step] = scalar`` (MXNet ``_slice_assign_scalar``)."))


# -- fill_element_0index -------------------------------------------------------------------
def _row_index(xp, op, idx, rows):
    if idx.ndim != 1 or idx.shape[0] != rows:
        fail(op, f"the index must be a vector of {rows} entries, got shape {idx.shape}")
    return idx.astype(np.int64)


def _fill_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    lhs, mhs, rhs = inputs
    if lhs.ndim != 2 or mhs.shape != (lhs.shape[0],):
        fail("fill_element_0index", "lhs must be a matrix and mhs a vector of its rows",
             lhs.shape, mhs.shape, rhs.shape)
    col = _row_index(xp, "fill_element_0index", rhs, lhs.shape[0])
    ok = (col >= 0) & (col < lhs.shape[1])  # MXNet leaves rows with an outside index
    y = lhs.copy()
    rows = xp.arange(lhs.shape[0])[ok]
    y[rows, col[ok]] = mhs[ok].astype(y.dtype, copy=False)
    return [put(out, 0, y)]


def _fill_infer(attrs, in_shapes):
    lhs = in_shapes[0]
    if lhs is None:
        return in_shapes, [None]
    vec = (tuple(lhs)[0],)
    return [tuple(lhs), vec, vec], [tuple(lhs)]


def _fill_type(op, attrs, in_dtypes):
    d = in_dtypes[0] if in_dtypes[0] is not None else in_dtypes[1]
    return [d, d, in_dtypes[2]], [d]


register(OpDef(
    "fill_element_0index", _fill_fwd, inputs=("lhs", "mhs", "rhs"), infer_shape=_fill_infer,
    infer_type=_fill_type, differentiable=False,
    doc="``out = lhs`` with ``out[i, rhs[i]] = mhs[i]`` for each row ``i`` (0-based column "
        "indices; a row whose index is outside the matrix is left as it is)."))


# -- _onehot_encode ------------------------------------------------------------------------
def _onehot_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    index, like = inputs
    if like.ndim != 2:
        fail("_onehot_encode", "the output must be a matrix", index.shape, like.shape)
    col = _row_index(xp, "_onehot_encode", index, like.shape[0])
    y = (col[:, None] == xp.arange(like.shape[1])[None, :]).astype(like.dtype)
    return [put(out, 0, y)]


def _onehot_infer(attrs, in_shapes):
    like = in_shapes[1]
    if like is None:
        return in_shapes, [None]
    return [(tuple(like)[0],), tuple(like)], [tuple(like)]


register(OpDef(
    "_onehot_encode", _onehot_fwd, inputs=("lhs", "rhs"), infer_shape=_onehot_infer,
    infer_type=lambda op, attrs, d: ([d[0], d[1]], [d[1]]), differentiable=False,
    doc="Rows of ``rhs``'s shape, one-hot at the 0-based column ``lhs[i]`` (MXNet's "
        "deprecated ``onehot_encode``; an index outside the row gives a row of zeros)."))
