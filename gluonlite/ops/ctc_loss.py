"""Connectionist temporal classification loss (``CTCLoss``, MXNet 1.9 semantics).

``data`` is ``(T, N, C)`` unnormalized activations (a softmax over ``C`` is
applied inside), ``label`` is ``(N, L)``.  With ``blank_label='first'`` class 0
is the blank and a label row ends at its first 0; with ``'last'`` class ``C - 1``
is the blank and a row ends at its first -1.  ``use_label_lengths`` /
``use_data_lengths`` add the inputs ``data_lengths`` / ``label_lengths`` (in that
order after ``label``) that give the lengths explicitly (like MXNet, fractional
lengths are rounded to the nearest integer for the loss, and the gradient is zero
from the truncated data length on).

Outputs ``(loss, grad)``: ``loss`` is ``-log p(label | data)`` per sequence; the
hidden ``grad`` is d loss / d data, which backward scales by the head gradient.
The forward-backward recursion runs in log space, vectorized over the batch and
the label positions, with one step per time step.
"""
from __future__ import annotations

import numpy as np

from .attrs import Attr
from .common import fail, put
from .registry import OpDef, register

_OP = "CTCLoss"


def _input_names(attrs):
    names = ["data", "label"]
    if attrs.use_data_lengths:
        names.append("data_lengths")
    if attrs.use_label_lengths:
        names.append("label_lengths")
    return tuple(names)


def _logaddexp(xp, a, b):
    return xp.logaddexp(a, b)


def _round_lengths(xp, lengths):
    """MXNet rounds fractional lengths to the nearest integer."""
    if lengths.dtype.kind == "f":
        return xp.floor(lengths + 0.5).astype(np.int64)
    return lengths.astype(np.int64)


def _label_lengths(xp, attrs, label, lengths):
    n, max_len = label.shape
    if lengths is not None:
        return xp.clip(_round_lengths(xp, lengths).reshape(n), 0, max_len)
    pad = 0 if attrs.blank_label == "first" else -1
    is_pad = label == pad
    # a row ends at its first padding value
    return xp.where(is_pad.any(axis=1), is_pad.argmax(axis=1), max_len).astype(np.int64)


def _ctc(xp, attrs, data, label, data_lengths, label_lengths):
    """Loss (N,) and gradient (T, N, C) in the compute dtype."""
    t_max, n, c = data.shape
    blank = 0 if attrs.blank_label == "first" else c - 1
    lab = label.astype(np.int64)
    ll = _label_lengths(xp, attrs, lab, label_lengths)                 # (N,)
    if data_lengths is not None:
        tl = xp.clip(_round_lengths(xp, data_lengths).reshape(n), 0, t_max)
    else:
        tl = xp.full((n,), t_max, dtype=np.int64)
    big_l = lab.shape[1]
    s = 2 * big_l + 1
    # extended label: blank, l1, blank, l2, ..., blank
    ext = xp.full((n, s), blank, dtype=np.int64)
    ext[:, 1::2] = xp.clip(lab, 0, c - 1)
    s_len = 2 * ll + 1                                                 # (N,)
    pos = xp.arange(s)
    valid_s = pos[None, :] < s_len[:, None]                            # (N, S)
    # the skip transition s-2 -> s is allowed onto a non-blank that differs from s-2
    skip = xp.zeros((n, s), dtype=bool)
    if s > 2:
        skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])

    xmax = data.max(axis=2, keepdims=True)
    logp = data - xmax - xp.log(xp.exp(data - xmax).sum(axis=2, keepdims=True))
    # log-probabilities of the extended label at every time step: (T, N, S)
    lp_ext = xp.take_along_axis(logp, xp.broadcast_to(ext[None], (t_max, n, s)), axis=2)
    neg_inf = -xp.inf
    batch = xp.arange(n)

    alpha = xp.full((t_max, n, s), neg_inf, dtype=data.dtype)
    init = xp.full((n, s), neg_inf, dtype=data.dtype)
    init[:, 0] = lp_ext[0, :, 0]
    if s > 1:
        init[:, 1] = xp.where(ll > 0, lp_ext[0, :, 1], neg_inf)
    alpha[0] = xp.where(valid_s, init, neg_inf)
    for t in range(1, t_max):
        prev = alpha[t - 1]
        acc = prev.copy()
        acc[:, 1:] = _logaddexp(xp, acc[:, 1:], prev[:, :-1])
        acc[:, 2:] = xp.where(skip[:, 2:], _logaddexp(xp, acc[:, 2:], prev[:, :-2]),
                              acc[:, 2:])
        alpha[t] = xp.where(valid_s, acc + lp_ext[t], neg_inf)

    last_t = xp.clip(tl - 1, 0, t_max - 1)
    a_last = alpha[last_t, batch]                                      # (N, S)
    end1 = xp.take_along_axis(a_last, (s_len - 1)[:, None], axis=1)[:, 0]
    end2 = xp.take_along_axis(a_last, xp.clip(s_len - 2, 0, s - 1)[:, None], axis=1)[:, 0]
    end2 = xp.where(s_len >= 2, end2, neg_inf)
    log_lik = _logaddexp(xp, end1, end2)

    beta = xp.full((t_max, n, s), neg_inf, dtype=data.dtype)
    end_mask = (pos[None, :] == (s_len - 1)[:, None]) | (pos[None, :] == (s_len - 2)[:, None])
    skip_next = xp.zeros((n, s), dtype=bool)
    if s > 2:
        skip_next[:, :-2] = skip[:, 2:]
    nxt = xp.full((n, s), neg_inf, dtype=data.dtype)
    for t in range(t_max - 1, -1, -1):
        acc = nxt.copy()
        acc[:, :-1] = _logaddexp(xp, acc[:, :-1], nxt[:, 1:])
        acc[:, :-2] = xp.where(skip_next[:, :-2], _logaddexp(xp, acc[:, :-2], nxt[:, 2:]),
                               acc[:, :-2])
        start = xp.where(end_mask, 0.0, neg_inf)
        acc = xp.where((t == tl - 1)[:, None], start, acc)
        acc = xp.where(valid_s & (t < tl)[:, None], acc + lp_ext[t], neg_inf)
        beta[t] = acc
        nxt = acc

    loss = -log_lik
    # occupation probabilities gathered per class: (T, N, C)
    with np.errstate(invalid="ignore", over="ignore"):
        occ = xp.exp(alpha + beta - lp_ext + loss[None, :, None])
    occ = xp.where(xp.isfinite(occ), occ, 0)
    onehot = (ext[:, :, None] == xp.arange(c)[None, None, :]).astype(data.dtype)  # (N, S, C)
    post = xp.einsum("tns,nsc->tnc", occ, onehot)
    grad = xp.exp(logp) - post
    # MXNet zeroes the gradient from the truncated length on (the loss uses the rounded one)
    t_grad = tl if data_lengths is None else xp.clip(data_lengths.astype(np.int64).reshape(n),
                                                     0, t_max)
    in_time = xp.arange(t_max)[:, None] < t_grad[None, :]
    grad = xp.where(in_time[:, :, None], grad, 0)
    return loss, grad


def _split(attrs, inputs):
    data, label = inputs[0], inputs[1]
    k = 2
    data_lengths = label_lengths = None
    if attrs.use_data_lengths:
        data_lengths = inputs[k]
        k += 1
    if attrs.use_label_lengths:
        label_lengths = inputs[k]
    return data, label, data_lengths, label_lengths


def _forward(oc, attrs, inputs, out):
    xp = oc.xp
    data, label, dlen, llen = _split(attrs, inputs)
    if data.ndim != 3 or label.ndim != 2:
        fail(_OP, "data must be (T, N, C) and label (N, L)", data.shape, label.shape)
    cdt = np.promote_types(data.dtype, np.float32)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        loss, grad = _ctc(xp, attrs, data.astype(cdt, copy=False), label, dlen, llen)
    return [put(out, 0, loss.astype(data.dtype, copy=False)),
            put(out, 1, grad.astype(data.dtype, copy=False))]


def _backward(oc, attrs, inputs, outputs, out_grads):
    grad = outputs[1] * out_grads[0][None, :, None]
    return [grad] + [None] * (len(_input_names(attrs)) - 1)


def _infer_shape(attrs, in_shapes):
    data, label = in_shapes[0], in_shapes[1]
    if label is not None and len(label) != 2:
        fail(_OP, "the label array must be 2-D (N, L)", *in_shapes)
    if data is not None and len(data) != 3:
        fail(_OP, "the data array must be 3-D (T, N, C)", *in_shapes)
    if data is not None and label is not None:
        if data[1] and label[0] and data[1] != label[0]:
            fail(_OP, "data and label have different batch sizes", *in_shapes)
        if data[0] and label[1] and label[1] > data[0]:
            fail(_OP, "the max number of labels cannot exceed the sequence length of the data",
                 *in_shapes)
    n = (data[1] if data is not None else 0) or (label[0] if label is not None else 0)
    ins = [data, label]
    for s in in_shapes[2:]:
        ins.append(s if s is not None else ((n,) if n else None))
    if data is None:
        return ins, [(n,) if n else None, None]
    return ins, [(data[1],), data]


def _infer_type(op, attrs, in_dtypes):
    data = in_dtypes[0]
    ins = [d if d is not None else data for d in in_dtypes]
    return ins, [data, data]


register(OpDef(
    _OP, _forward, backward=_backward,
    attrs={
        "use_data_lengths": Attr("bool", False),
        "use_label_lengths": Attr("bool", False),
        "blank_label": Attr("str", "first", choices=("first", "last")),
    },
    inputs=_input_names, num_outputs=2, num_visible_outputs=1,
    infer_shape=_infer_shape, infer_type=_infer_type,
    aliases=("ctc_loss", "_contrib_CTCLoss", "_contrib_ctc_loss"),
    backward_uses=("outputs",),
    doc="CTC loss over (T, N, C) activations (MXNet ``CTCLoss``)."))
