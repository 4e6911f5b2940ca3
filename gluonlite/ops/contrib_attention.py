"""MXNet's fused multi-head attention products (``contrib.interleaved_matmul_*``), which
GluonNLP's BERT and Transformer call.

Layouts (``heads`` heads of ``d`` features each, ``proj = heads * d``):

* self-attention input ``queries_keys_values``: ``(seq, batch, 3 * proj)``, interleaved
  per head as ``(seq, batch, heads, 3, d)`` (query, key, value);
* encoder-decoder ``queries``: ``(qseq, batch, proj)``; ``keys_values``:
  ``(kseq, batch, 2 * proj)`` as ``(kseq, batch, heads, 2, d)``;
* attention scores: ``(batch * heads, qseq, kseq)``;
* ``*_qk`` scale the queries by ``1 / sqrt(d)`` before the product; ``*_valatt``
  return ``(qseq, batch, proj)``.

Each product is one batched ``matmul`` over ``batch * heads``.
"""
from __future__ import annotations

import math

from .attrs import Attr
from .common import fail
from .registry import OpDef, register

_ATTRS = {"heads": Attr("int")}


def _split_heads(op: str, x, heads: int, parts: int):
    """``(seq, batch, heads * parts * d)`` -> ``parts`` arrays ``(batch * heads, seq, d)``."""
    if x.ndim != 3 or x.shape[2] % (heads * parts):
        fail(op, f"expected a 3-D input whose last dimension divides into {heads} heads x "
                 f"{parts}", x.shape)
    seq, batch, width = x.shape
    d = width // (heads * parts)
    r = x.reshape(seq, batch, heads, parts, d)
    return [r[:, :, :, p].transpose(1, 2, 0, 3).reshape(batch * heads, seq, d)
            for p in range(parts)], d


def _merge_heads(xp, g, seq, batch, heads, parts, part, dtype):
    """Gradients ``(batch * heads, seq, d)`` of part ``part`` back into the interleaved
    input layout ``(seq, batch, heads * parts * d)`` (zeros elsewhere)."""
    d = g.shape[2]
    out = xp.zeros((seq, batch, heads, parts, d), dtype=dtype)
    out[:, :, :, part] = g.reshape(batch, heads, seq, d).transpose(2, 0, 1, 3)
    return out.reshape(seq, batch, heads * parts * d)


def _heads_to_seq(y, batch, heads):
    """``(batch * heads, seq, d)`` -> ``(seq, batch, heads * d)``."""
    bh, seq, d = y.shape
    return y.reshape(batch, heads, seq, d).transpose(2, 0, 1, 3).reshape(seq, batch, heads * d)


def _seq_to_heads(g, heads):
    """``(seq, batch, heads * d)`` -> ``(batch * heads, seq, d)``."""
    seq, batch, width = g.shape
    d = width // heads
    return g.reshape(seq, batch, heads, d).transpose(1, 2, 0, 3).reshape(batch * heads, seq, d)


def _scale(d: int, dtype):
    return dtype.type(1.0 / math.sqrt(d))


# -- self-attention ------------------------------------------------------------------------
_SQK = "_contrib_interleaved_matmul_selfatt_qk"
_SVA = "_contrib_interleaved_matmul_selfatt_valatt"


def _selfatt_qk_forward(oc, attrs, inputs, out):
    xp = oc.xp
    (q, k, _), d = _split_heads(_SQK, inputs[0], attrs.heads, 3)
    y = xp.matmul(q * _scale(d, q.dtype), k.transpose(0, 2, 1))
    return [y if out is None else _into(out[0], y)]


def _selfatt_qk_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    qkv = inputs[0]
    seq, batch, _ = qkv.shape
    h = attrs.heads
    (q, k, _), d = _split_heads(_SQK, qkv, h, 3)
    g = out_grads[0] * _scale(d, qkv.dtype)
    out = xp.zeros((seq, batch, h, 3, d), dtype=qkv.dtype)
    out[:, :, :, 0] = xp.matmul(g, k).reshape(batch, h, seq, d).transpose(2, 0, 1, 3)
    out[:, :, :, 1] = xp.matmul(g.transpose(0, 2, 1), q).reshape(batch, h, seq, d) \
        .transpose(2, 0, 1, 3)
    return [out.reshape(qkv.shape)]


def _selfatt_qk_infer(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [None], [None]
    return [s], [(s[1] * attrs.heads, s[0], s[0])]


register(OpDef(
    _SQK, _selfatt_qk_forward, backward=_selfatt_qk_backward, attrs=dict(_ATTRS),
    inputs=("queries_keys_values",), infer_shape=_selfatt_qk_infer, backward_uses=("inputs",),
    doc="Scaled query-key products of interleaved self-attention projections."))


def _selfatt_valatt_forward(oc, attrs, inputs, out):
    qkv, att = inputs
    (_, _, v), _ = _split_heads(_SVA, qkv, attrs.heads, 3)
    _check_att(_SVA, att, v.shape[0], None, v.shape[1])
    y = _heads_to_seq(oc.xp.matmul(att, v), qkv.shape[1], attrs.heads)
    return [y if out is None else _into(out[0], y)]


def _selfatt_valatt_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    qkv, att = inputs
    seq, batch, _ = qkv.shape
    (_, _, v), _ = _split_heads(_SVA, qkv, attrs.heads, 3)
    g = _seq_to_heads(out_grads[0], attrs.heads)
    dv = xp.matmul(att.transpose(0, 2, 1), g)
    datt = xp.matmul(g, v.transpose(0, 2, 1))
    return [_merge_heads(xp, dv, seq, batch, attrs.heads, 3, 2, qkv.dtype),
            datt.astype(att.dtype, copy=False)]


def _valatt_infer(parts):
    def infer(attrs, in_shapes):
        kv, att = in_shapes
        if kv is None:
            return [kv, att], [None]
        width = kv[2] // parts
        qseq = att[1] if att is not None else (kv[0] if parts == 3 else 0)
        if att is None and parts == 3:
            att = (kv[1] * attrs.heads, kv[0], kv[0])
        return [kv, att], [(qseq, kv[1], width)]
    return infer


register(OpDef(
    _SVA, _selfatt_valatt_forward, backward=_selfatt_valatt_backward, attrs=dict(_ATTRS),
    inputs=("queries_keys_values", "attention"), infer_shape=_valatt_infer(3),
    backward_uses=("inputs",),
    doc="Attention-weighted values of interleaved self-attention projections."))


# -- encoder-decoder attention -----------------------------------------------------------------
_EQK = "_contrib_interleaved_matmul_encdec_qk"
_EVA = "_contrib_interleaved_matmul_encdec_valatt"


def _encdec_qk_forward(oc, attrs, inputs, out):
    queries, kv = inputs
    (q,), d = _split_heads(_EQK, queries, attrs.heads, 1)
    (k, _), dk = _split_heads(_EQK, kv, attrs.heads, 2)
    if d != dk or queries.shape[1] != kv.shape[1]:
        fail(_EQK, "queries and keys_values must have one batch size and head width",
             queries.shape, kv.shape)
    y = oc.xp.matmul(q * _scale(d, q.dtype), k.transpose(0, 2, 1))
    return [y if out is None else _into(out[0], y)]


def _encdec_qk_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    queries, kv = inputs
    (q,), d = _split_heads(_EQK, queries, attrs.heads, 1)
    (k, _), _ = _split_heads(_EQK, kv, attrs.heads, 2)
    g = out_grads[0] * _scale(d, queries.dtype)
    dq = _heads_to_seq(xp.matmul(g, k), queries.shape[1], attrs.heads)
    dk = xp.matmul(g.transpose(0, 2, 1), q)
    return [dq.astype(queries.dtype, copy=False),
            _merge_heads(xp, dk, kv.shape[0], kv.shape[1], attrs.heads, 2, 0, kv.dtype)]


def _encdec_qk_infer(attrs, in_shapes):
    qs, kv = in_shapes
    if qs is None or kv is None:
        return [qs, kv], [None]
    return [qs, kv], [(qs[1] * attrs.heads, qs[0], kv[0])]


register(OpDef(
    _EQK, _encdec_qk_forward, backward=_encdec_qk_backward, attrs=dict(_ATTRS),
    inputs=("queries", "keys_values"), infer_shape=_encdec_qk_infer,
    backward_uses=("inputs",),
    doc="Scaled query-key products of encoder-decoder attention (interleaved keys/values)."))


def _encdec_valatt_forward(oc, attrs, inputs, out):
    kv, att = inputs
    (_, v), _ = _split_heads(_EVA, kv, attrs.heads, 2)
    _check_att(_EVA, att, v.shape[0], None, v.shape[1])
    y = _heads_to_seq(oc.xp.matmul(att, v), kv.shape[1], attrs.heads)
    return [y if out is None else _into(out[0], y)]


def _encdec_valatt_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    kv, att = inputs
    (_, v), _ = _split_heads(_EVA, kv, attrs.heads, 2)
    g = _seq_to_heads(out_grads[0], attrs.heads)
    dv = xp.matmul(att.transpose(0, 2, 1), g)
    datt = xp.matmul(g, v.transpose(0, 2, 1))
    return [_merge_heads(xp, dv, kv.shape[0], kv.shape[1], attrs.heads, 2, 1, kv.dtype),
            datt.astype(att.dtype, copy=False)]


register(OpDef(
    _EVA, _encdec_valatt_forward, backward=_encdec_valatt_backward, attrs=dict(_ATTRS),
    inputs=("keys_values", "attention"), infer_shape=_valatt_infer(2),
    backward_uses=("inputs",),
    doc="Attention-weighted values of encoder-decoder attention (interleaved keys/values)."))


def _check_att(op: str, att, bh: int, qseq, kseq: int) -> None:
    if att.ndim != 3 or att.shape[0] != bh or att.shape[2] != kseq:
        fail(op, f"attention must have shape ({bh}, qseq, {kseq})", att.shape)


def _into(buf, y):
    buf[...] = y
    return buf
