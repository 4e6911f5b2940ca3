"""MXNet 1.x legacy layers: ``SVMOutput``, ``IdentityAttachKLSparseReg`` and
``SpatialTransformer``.

``SVMOutput(data, label)`` is an output layer: forward is the identity, backward
ignores the head gradient (as ``SoftmaxOutput`` does) and gives the gradient of a
one-vs-all hinge loss.  As MXNet 1.9.1 computes it, data is viewed as rows
``(prod(shape[:-1]), shape[-1])`` with one label per row (label shape
``data.shape[:-1]``; a label is truncated to an integer and one outside
``[0, classes)`` marks no class).  For margin ``m`` and coefficient ``r``:

* L2-SVM (default): ``2 r (x - m)`` where ``x < m`` at the label, ``2 r (x + m)``
  where ``x > -m`` elsewhere, 0 otherwise;
* L1-SVM (``use_linear``): ``-r`` where ``x < m`` at the label, ``r`` where ``x > -m``
  elsewhere, 0 otherwise.

The label gets a zero gradient.  ``margin`` and ``regularization_coefficient`` are
float32 in MXNet; they are rounded the same way here.

``IdentityAttachKLSparseReg(data, moving_avg)`` is the identity in forward.  Its
backward first updates the auxiliary moving average of the mean activation per unit
(axis 1; the mean runs over the other axes): ``avg = momentum * avg + (1 - momentum)
* mean``, whatever the train/predict mode (MXNet updates it in every backward), then
adds the gradient of the KL sparseness penalty to the head gradient:
``penalty * (-t / avg + (1 - t) / (1 - avg))`` for the target ``t``.  MXNet 1.9.1
only runs its backward on 2-D data (a 3-D input fails in its reduction); here the
mean over every axis but 1 serves any rank.

``SpatialTransformer(data, loc)`` with ``transform_type='affine'`` and
``sampler_type='bilinear'`` (both required, the only values MXNet accepts) is
``BilinearSampler(data, GridGenerator(loc, 'affine', target_shape))``; it is built on
those two registered operators.  MXNet's node has two hidden outputs (the target and
source grids), counted in ``-symbol.json``; here backward recomputes the grid.
"""
from __future__ import annotations

import numpy as np

from .attrs import Attr
from .common import fail, merge_shapes, put
from .registry import OpAttrs, OpDef, get_op, register
from . import _visual

_SVM = "SVMOutput"
_KL = "IdentityAttachKLSparseReg"
_ST = "SpatialTransformer"


def _f32(value: float) -> float:
    """``value`` rounded to float32, as MXNet stores ``float`` parameters."""
    return float(np.float32(value))


def _compute_dtype(dtype):
    return np.promote_types(dtype, np.float32)


# -- SVMOutput -------------------------------------------------------------------------
def _svm_infer_shape(attrs: OpAttrs, in_shapes: list):
    data, label = in_shapes
    if data is None:
        return [None, label], [None]
    if len(data) < 2:
        fail(_SVM, "data must have at least 2 dimensions (rows, classes)", *in_shapes)
    label = merge_shapes(_SVM, "label", tuple(data[:-1]), label)
    return [tuple(data), label], [tuple(data)]


def _svm_infer_type(op, attrs, in_dtypes):
    ins = list(in_dtypes)
    if ins[1] is None:
        ins[1] = ins[0]
    return ins, [ins[0]]


def _svm_forward(oc, attrs, inputs, out):
    x, label = inputs
    _svm_infer_shape(attrs, [x.shape, label.shape])
    return [put(out, 0, x.copy())]


def _svm_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    x, label = inputs
    classes = x.shape[-1]
    cdt = _compute_dtype(x.dtype)
    rows = x.astype(cdt, copy=False).reshape(-1, classes)
    target = label.reshape(-1).astype(cdt, copy=False)
    target = xp.trunc(target)[:, None]
    at_label = xp.arange(classes, dtype=cdt)[None, :] == target
    margin = _f32(attrs.margin)
    coef = _f32(attrs.regularization_coefficient)
    below = rows < margin      # hinge active at the label
    above = rows > -margin     # hinge active elsewhere
    if attrs.use_linear:
        grad = xp.where(at_label, -coef * below, coef * above)
    else:
        grad = xp.where(at_label, (2 * coef) * (rows - margin) * below,
                        (2 * coef) * (rows + margin) * above)
    return [grad.reshape(x.shape).astype(x.dtype, copy=False), xp.zeros_like(label)]


register(OpDef(
    _SVM, _svm_forward, backward=_svm_backward,
    attrs={
        "margin": Attr("float", 1.0),
        "regularization_coefficient": Attr("float", 1.0),
        "use_linear": Attr("bool", False),
    },
    inputs=("data", "label"), infer_shape=_svm_infer_shape, infer_type=_svm_infer_type,
    backward_uses=("inputs",), plot_style=_visual.family("output"),
    doc="Identity forward; backward the L1/L2 one-vs-all hinge gradient (MXNet "
        "``SVMOutput``), ignoring the head gradient."))


# -- IdentityAttachKLSparseReg -----------------------------------------------------------
def _kl_infer_shape(attrs: OpAttrs, in_shapes: list):
    data, avg = in_shapes
    if data is None:
        return [None, avg], [None]
    if len(data) < 2:
        fail(_KL, "data must have at least 2 dimensions (batch, units)", *in_shapes)
    avg = merge_shapes(_KL, "moving_avg", (data[1],), avg)
    data = tuple(data[:1]) + (avg[0],) + tuple(data[2:])
    return [data, avg], [data]


def _kl_forward(oc, attrs, inputs, out):
    x, avg = inputs
    _kl_infer_shape(attrs, [x.shape, avg.shape])
    return [put(out, 0, x.copy())]


def _kl_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    x, avg = inputs
    cdt = _compute_dtype(x.dtype)
    axes = (0,) + tuple(range(2, x.ndim))
    mean = x.astype(cdt, copy=False).mean(axis=axes)
    momentum = _f32(attrs.momentum)
    new_avg = momentum * avg.astype(cdt, copy=False) + (1 - momentum) * mean
    avg[...] = new_avg.astype(avg.dtype, copy=False)
    target = _f32(attrs.sparseness_target)
    penalty = _f32(attrs.penalty)
    kl_grad = penalty * (-target / new_avg + (1 - target) / (1 - new_avg))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    grad = out_grads[0].astype(cdt, copy=False) + kl_grad.reshape(shape)
    return [grad.astype(x.dtype, copy=False), None]


register(OpDef(
    _KL, _kl_forward, backward=_kl_backward,
    attrs={
        "sparseness_target": Attr("float", _f32(0.1)),
        "penalty": Attr("float", _f32(0.001)),
        "momentum": Attr("float", _f32(0.9)),
    },
    inputs=("data", "moving_avg"), aux=("moving_avg",),
    input_init={"moving_avg": '["zero", {}]'},
    infer_shape=_kl_infer_shape, backward_uses=("inputs",),
    doc="Identity forward; backward adds a KL sparseness penalty on the moving average "
        "of the activations (MXNet ``IdentityAttachKLSparseReg``)."))


# -- SpatialTransformer ------------------------------------------------------------------
def _st_target(attrs: OpAttrs, data=None, loc=None) -> tuple:
    target = tuple(int(t) for t in attrs.target_shape)
    if len(target) != 2 or target[0] <= 0 or target[1] <= 0:
        fail(_ST, f"target_shape must be a positive (H, W), got {attrs.target_shape}",
             data, loc)
    return target


def _st_infer_shape(attrs: OpAttrs, in_shapes: list):
    data, loc = in_shapes
    h, w = _st_target(attrs, data, loc)
    if data is not None and len(data) != 4:
        fail(_ST, "data must be 4-D (N, C, H, W)", data, loc)
    if loc is not None and (len(loc) != 2 or loc[1] not in (0, 6)):
        fail(_ST, "loc must be (N, 6) for an affine transform", data, loc)
    batch = (data[0] if data is not None else 0) or (loc[0] if loc is not None else 0)
    if data is not None and loc is not None and data[0] and loc[0] and data[0] != loc[0]:
        fail(_ST, "data and loc must have the same batch size", data, loc)
    if loc is not None or batch:
        loc = (batch, 6)
    if data is None:
        return [None, loc], [None]
    data = (batch,) + tuple(data[1:])
    return [data, loc], [(batch, data[1], h, w)]


def _st_parts(attrs: OpAttrs):
    """The GridGenerator and BilinearSampler definitions with their attributes."""
    grid_op = get_op("GridGenerator")
    sampler = get_op("BilinearSampler")
    grid_attrs = grid_op.parse_attrs({"transform_type": "affine",
                                      "target_shape": _st_target(attrs)})
    return grid_op, grid_attrs, sampler, sampler.parse_attrs({})


def _st_forward(oc, attrs, inputs, out):
    data, loc = inputs
    _st_infer_shape(attrs, [data.shape, loc.shape])
    grid_op, grid_attrs, sampler, sampler_attrs = _st_parts(attrs)
    grid = grid_op.forward(oc, grid_attrs, [loc], None)[0]
    result = sampler.forward(oc, sampler_attrs, [data, grid.astype(data.dtype, copy=False)],
                             out)
    return [result[0]]


def _st_backward(oc, attrs, inputs, outputs, out_grads):
    data, loc = inputs
    grid_op, grid_attrs, sampler, sampler_attrs = _st_parts(attrs)
    grid = grid_op.forward(oc, grid_attrs, [loc], None)[0]
    grid = grid.astype(data.dtype, copy=False)
    d_data, d_grid = sampler.backward(oc, sampler_attrs, [data, grid], [None], out_grads)
    d_loc = grid_op.backward(oc, grid_attrs, [loc], [grid], [d_grid.astype(loc.dtype)])[0]
    return [d_data, d_loc]


register(OpDef(
    _ST, _st_forward, backward=_st_backward,
    attrs={
        "target_shape": Attr("shape", (0, 0)),
        "transform_type": Attr("str", choices=("affine",)),
        "sampler_type": Attr("str", choices=("bilinear",)),
        "cudnn_off": Attr("bool", None, optional=True),
    },
    inputs=("data", "loc"), infer_shape=_st_infer_shape, backward_uses=("inputs",),
    json_num_outputs=3,  # MXNet's node also outputs its target and source grids
    doc="Affine spatial transformer with bilinear sampling (MXNet ``SpatialTransformer``)."))
