"""``Embedding`` and ``LRN`` (local response normalization across channels).

``Embedding`` looks rows of ``weight`` ``(input_dim, output_dim)`` up by the
indices in ``data``; like MXNet 1.9 the indices are truncated toward zero and
clipped into ``[0, input_dim - 1]``; the output dtype is the weight's.  The
weight gradient accumulates the head gradient rows with ``add.at``; ``data``
gets a zero gradient.  With ``sparse_grad=True`` the weight gradient is row_sparse
(imperatively, and in buffers ``simple_bind`` allocates: ``grad_stypes``).

``LRN`` computes ``out = x / (knorm + alpha / nsize * S) ** beta`` where ``S``
sums ``x**2`` over the channels within ``(nsize - 1) // 2`` of each channel
(zero outside; an even ``nsize`` sums ``nsize - 1`` channels, as MXNet does).
It has a hidden second output, the normalizer ``knorm + alpha / nsize * S``
(MXNet's ``tmp_norm``).
"""
from __future__ import annotations

import numpy as np

from .attrs import Attr
from .common import fail, merge_shapes, put
from .registry import OpDef, register
from . import _visual

# -- Embedding ----------------------------------------------------------------------------
_EMB = "Embedding"


def _indices(xp, data, input_dim):
    idx = data if data.dtype.kind in "iu" else xp.trunc(data)
    return xp.clip(idx.astype(np.int64), 0, input_dim - 1)


def _emb_forward(oc, attrs, inputs, out):
    xp = oc.xp
    data, weight = inputs
    if weight.ndim != 2 or weight.shape != (attrs.input_dim, attrs.output_dim):
        fail(_EMB, f"weight must have shape ({attrs.input_dim}, {attrs.output_dim})",
             data.shape, weight.shape)
    idx = _indices(xp, data, attrs.input_dim)
    if out is not None:
        xp.take(weight, idx, axis=0, out=out[0])
        return [out[0]]
    return [xp.take(weight, idx, axis=0)]


def _emb_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    data, weight = inputs
    idx = _indices(xp, data, attrs.input_dim).reshape(-1)
    dy = out_grads[0].reshape(-1, weight.shape[1])
    dw = xp.zeros(weight.shape, dtype=weight.dtype)
    xp.add.at(dw, idx, dy.astype(weight.dtype, copy=False))
    return [xp.zeros(data.shape, dtype=data.dtype), dw]


def _emb_infer_shape(attrs, in_shapes):
    data, weight = in_shapes
    if data is None:
        # as MXNet's rule: nothing is inferred before the indices' shape is known
        return [data, weight], [None]
    weight = merge_shapes(_EMB, "weight", (attrs.input_dim, attrs.output_dim), weight)
    out = None if data is None else tuple(data) + (attrs.output_dim,)
    return [data, weight], [out]


def _emb_infer_type(op, attrs, in_dtypes):
    data, weight = in_dtypes
    if weight is None:
        weight = np.dtype(attrs.dtype)
    return [data if data is not None else np.dtype(np.float32), weight], [weight]


register(OpDef(
    _EMB, _emb_forward, backward=_emb_backward,
    attrs={"input_dim": Attr("int"), "output_dim": Attr("int"),
           "dtype": Attr("dtype", np.dtype(np.float32)), "sparse_grad": Attr("bool", False)},
    inputs=("data", "weight"), infer_shape=_emb_infer_shape, infer_type=_emb_infer_type,
    backward_uses=("inputs",),
    grad_stypes=lambda attrs, stypes: ("default", "row_sparse") if attrs.sparse_grad else None,
    summary_params=_visual.embedding_params,
    doc="Maps integer indices to rows of a weight matrix (MXNet ``Embedding``)."))


# -- LRN ----------------------------------------------------------------------------------
_LRN = "LRN"


def _channel_window_sum(xp, v, before: int, after: int):
    """``out[:, c] = sum(v[:, c - before : c + after + 1])`` with zeros outside."""
    c = v.shape[1]
    out = v.copy()
    for d in range(1, before + 1):
        if d < c:
            out[:, d:] += v[:, :c - d]
    for d in range(1, after + 1):
        if d < c:
            out[:, :c - d] += v[:, d:]
    return out


def _window(nsize: int):
    # MXNet 1.9 sums (nsize - 1) // 2 channels on each side (even sizes round down)
    half = (nsize - 1) // 2
    return half, half


def _lrn_norm(xp, x, attrs):
    if x.ndim < 2:
        fail(_LRN, "data must have at least 2 dimensions (N, C, ...)", x.shape)
    before, after = _window(attrs.nsize)
    s = _channel_window_sum(xp, x * x, before, after)
    return attrs.knorm + (attrs.alpha / attrs.nsize) * s


def _lrn_forward(oc, attrs, inputs, out):
    xp = oc.xp
    x = inputs[0]
    norm = _lrn_norm(xp, x, attrs)
    y = x * norm ** (-attrs.beta)
    return [put(out, 0, y.astype(x.dtype, copy=False)),
            put(out, 1, norm.astype(x.dtype, copy=False))]


def _lrn_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    x = inputs[0]
    norm = outputs[1]
    dy = out_grads[0]
    before, after = _window(attrs.nsize)
    scale = norm ** (-attrs.beta)
    t = dy * x * scale / norm                     # dy_c * x_c * N_c^(-beta-1)
    back = _channel_window_sum(xp, t, after, before)   # the transposed window
    dx = dy * scale - (2.0 * attrs.alpha * attrs.beta / attrs.nsize) * x * back
    return [dx.astype(x.dtype, copy=False)]


register(OpDef(
    _LRN, _lrn_forward, backward=_lrn_backward,
    attrs={"alpha": Attr("float", float(np.float32(1e-4))), "beta": Attr("float", 0.75),
           "knorm": Attr("float", 2.0), "nsize": Attr("int")},
    num_outputs=2, num_visible_outputs=1, output_names=("output", "tmp_norm"),
    infer_shape=lambda attrs, s: ([s[0]], [s[0], s[0]]), backward_uses=("inputs", "outputs"),
    doc="Local response normalization across channels (MXNet ``LRN``)."))
