"""Sequence operators ``SequenceMask``, ``SequenceLast``, ``SequenceReverse`` and
``_contrib_div_sqrt_dim``.

The sequence axis is ``axis`` (0 or 1; ``SequenceReverse`` supports 0 only) and
the batch axis is the other one of the first two.  ``sequence_length`` (one
entry per batch item, truncated to an integer like MXNet does) is an input only
with ``use_sequence_length=True``; it gets no gradient.
"""
from __future__ import annotations

import math

import numpy as np

from .attrs import Attr
from .common import fail, merge_shapes, put, same_shape_infer
from .registry import OpDef, register


def _inputs(attrs):
    return ("data", "sequence_length") if attrs.use_sequence_length else ("data",)


def _check_axis(op, attrs, ndim, allowed=(0, 1)):
    if attrs.axis not in allowed:
        fail(op, f"axis must be {' or '.join(map(str, allowed))}, got {attrs.axis}")
    if ndim < 2:
        fail(op, f"data must have at least 2 dimensions, got {ndim}")


def _lengths(xp, attrs, inputs):
    """Integer lengths (one per batch item), or ``None`` without the input."""
    if not attrs.use_sequence_length:
        return None
    return xp.clip(inputs[1].astype(np.int64), 0, None)


def _time_mask(xp, lengths, shape, axis):
    """Boolean array broadcastable to ``shape``: True where ``t < length[b]``."""
    t = xp.arange(shape[axis])
    keep = t[:, None] < lengths[None, :] if axis == 0 else lengths[:, None] > t[None, :]
    return keep.reshape(keep.shape + (1,) * (len(shape) - 2))


def _grad_tail(attrs, grads):
    return grads + ([None] if attrs.use_sequence_length else [])


def _seq_infer_shape(op, drop_axis=False):
    def infer(attrs, in_shapes):
        data = in_shapes[0]
        ins = [data]
        out = data
        if data is not None:
            _check_axis(op, attrs, len(data))
            if drop_axis:
                out = tuple(d for i, d in enumerate(data) if i != attrs.axis)
        if attrs.use_sequence_length:
            batch = (data[1 - attrs.axis],) if data is not None else None
            ins.append(merge_shapes(op, "sequence_length", batch, in_shapes[1]))
        return ins, [out]
    return infer


def _seq_infer_type(op, attrs, in_dtypes):
    data = in_dtypes[0]
    ins = list(in_dtypes)
    if len(ins) > 1 and ins[1] is None:
        ins[1] = data
    return ins, [data]


# -- SequenceMask ----------------------------------------------------------------------
def _mask_forward(oc, attrs, inputs, out):
    xp = oc.xp
    x = inputs[0]
    _check_axis("SequenceMask", attrs, x.ndim)
    lengths = _lengths(xp, attrs, inputs)
    if lengths is None:
        return [put(out, 0, x.copy())]
    keep = _time_mask(xp, lengths, x.shape, attrs.axis)
    y = xp.where(keep, x, xp.asarray(float(np.float32(attrs.value)), dtype=x.dtype))
    return [put(out, 0, y)]


def _mask_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    g = out_grads[0]
    lengths = _lengths(xp, attrs, inputs)
    if lengths is None:
        return _grad_tail(attrs, [g])
    keep = _time_mask(xp, lengths, g.shape, attrs.axis)
    return _grad_tail(attrs, [xp.where(keep, g, xp.zeros((), dtype=g.dtype))])


register(OpDef(
    "SequenceMask", _mask_forward, backward=_mask_backward,
    attrs={"use_sequence_length": Attr("bool", False), "value": Attr("float", 0.0),
           "axis": Attr("int", 0)},
    inputs=_inputs, infer_shape=_seq_infer_shape("SequenceMask"),
    infer_type=_seq_infer_type, backward_uses=("inputs",),
    doc="Set the steps past each sequence's length to ``value`` (MXNet ``SequenceMask``)."))


# -- SequenceLast ----------------------------------------------------------------------
def _last_index(xp, attrs, inputs, x):
    t_len = x.shape[attrs.axis]
    batch = x.shape[1 - attrs.axis]
    lengths = _lengths(xp, attrs, inputs)
    if lengths is None:
        return xp.full((batch,), t_len - 1, dtype=np.int64)
    # lengths outside [1, T] would read outside the sequence in MXNet; clamp them
    return xp.clip(lengths - 1, 0, t_len - 1)


def _last_forward(oc, attrs, inputs, out):
    xp = oc.xp
    x = inputs[0]
    _check_axis("SequenceLast", attrs, x.ndim)
    idx = _last_index(xp, attrs, inputs, x)
    b = xp.arange(x.shape[1 - attrs.axis])
    y = x[idx, b] if attrs.axis == 0 else x[b, idx]
    return [put(out, 0, y)]


def _last_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    x = inputs[0]
    g = out_grads[0]
    idx = _last_index(xp, attrs, inputs, x)
    b = xp.arange(x.shape[1 - attrs.axis])
    dx = xp.zeros(x.shape, dtype=g.dtype)
    if attrs.axis == 0:
        dx[idx, b] = g
    else:
        dx[b, idx] = g
    return _grad_tail(attrs, [dx])


register(OpDef(
    "SequenceLast", _last_forward, backward=_last_backward,
    attrs={"use_sequence_length": Attr("bool", False), "axis": Attr("int", 0)},
    inputs=_inputs, infer_shape=_seq_infer_shape("SequenceLast", drop_axis=True),
    infer_type=_seq_infer_type, backward_uses=("inputs",),
    doc="The last valid step of each sequence (MXNet ``SequenceLast``)."))


# -- SequenceReverse -------------------------------------------------------------------
def _reverse_index(xp, attrs, inputs, shape):
    """Source time index (T, B) of each output step."""
    t_len, batch = shape[0], shape[1]
    t = xp.arange(t_len)[:, None]
    lengths = _lengths(xp, attrs, inputs)
    if lengths is None:
        return xp.broadcast_to(t_len - 1 - t, (t_len, batch))
    lengths = xp.minimum(lengths, t_len)[None, :]
    return xp.where(t < lengths, lengths - 1 - t, t)


def _reverse(xp, attrs, inputs, x):
    _check_axis("SequenceReverse", attrs, x.ndim, allowed=(0,))
    src = _reverse_index(xp, attrs, inputs, x.shape)
    b = xp.arange(x.shape[1])[None, :]
    return x[src, b]


def _reverse_forward(oc, attrs, inputs, out):
    return [put(out, 0, _reverse(oc.xp, attrs, inputs, inputs[0]))]


def _reverse_backward(oc, attrs, inputs, outputs, out_grads):
    # the permutation is its own inverse
    return _grad_tail(attrs, [_reverse(oc.xp, attrs, inputs, out_grads[0])])


register(OpDef(
    "SequenceReverse", _reverse_forward, backward=_reverse_backward,
    attrs={"use_sequence_length": Attr("bool", False), "axis": Attr("int", 0)},
    inputs=_inputs, infer_shape=_seq_infer_shape("SequenceReverse"),
    infer_type=_seq_infer_type, backward_uses=("inputs",),
    doc="Reverse each sequence's valid steps (MXNet ``SequenceReverse``)."))


# -- _contrib_div_sqrt_dim -------------------------------------------------------------
def _dsd_forward(oc, attrs, inputs, out):
    x = inputs[0]
    return [put(out, 0, (x / math.sqrt(x.shape[-1])).astype(x.dtype, copy=False))]


def _dsd_backward(oc, attrs, inputs, outputs, out_grads):
    g = out_grads[0]
    return [(g / math.sqrt(g.shape[-1])).astype(g.dtype, copy=False)]


register(OpDef(
    "_contrib_div_sqrt_dim", _dsd_forward, backward=_dsd_backward,
    infer_shape=same_shape_infer("_contrib_div_sqrt_dim"), backward_uses=(),
    doc="``data / sqrt(data.shape[-1])`` (MXNet ``contrib.div_sqrt_dim``)."))
