"""The INT8 LSTM (MXNet 1.9.1's ``_contrib_quantized_rnn``).

``_contrib_quantized_rnn(data, parameters, state, state_cell, min_data, max_data)`` runs the
fused ``RNN`` operator's LSTM (same attributes, packed ``parameters``, states and
outputs) on uint8 ``data`` quantized asymmetrically, ``q = x * scale + shift``, as
``_contrib_quantize_asym`` gives it.  MXNet names the last two inputs ``min_data`` and
``max_data`` but reads them as that ``scale`` and ``shift``.  The computation follows an
int8 LSTM cell of oneDNN, the library MXNet's kernel hands it to:

* the weights (float32, as for ``RNN``) are quantized to int8 per gate row: the scale of
  row ``g`` is ``127 / max |W[g, :]|``, the maximum taken over ``W_i2h`` and ``W_h2h`` of
  every layer and direction (one scale vector for the whole network);
* every layer's input and the recurrent state are uint8 with the data's ``scale`` and
  ``shift`` (the initial ``state`` is quantized so; each step's new state is
  re-quantized so before it feeds the next step and the next layer);
* the gate pre-activations accumulate exactly in integers, then are dequantized
  (the ``shift`` removed through the row sums of the int8 weights) and the float32 biases
  added; gates, the cell state and ``lstm_state_clip_*`` run in float32;
* the outputs (``output`` and ``state_output``) are the dequantized uint8 states, the
  cell state output is float32.

MXNet's kernel differs in where it rounds inside oneDNN, and this machine's MXNet 1.9.1
build cannot run it at all ("could not create a primitive descriptor for a reorder
primitive"), so the numbers are checked against the float32 ``RNN`` (within the
quantization error, as MXNet's own test does), not bit for bit.  Only the LSTM without
projection or sequence lengths exists, as in MXNet; dropout (``p``) is off at inference.
"""
from __future__ import annotations

import numpy as np

from . import _quantized_math as qm
from . import rnn as _rnn
from .attrs import Attr
from .common import fail, put
from .quantized_common import F32
from .registry import OpDef, get_op, register
from .rnn_cells import Clip

_OP = "_contrib_quantized_rnn"


def _n_outputs(attrs) -> int:
    return 3 if attrs.state_outputs else 1


def _output_names(attrs):
    # MXNet 1.9.1 spells the third one so
    return ("output", "state_output", "statecell_ouput") if attrs.state_outputs \
        else ("output",)


def _input_names(attrs):
    return ("data", "parameters", "state", "state_cell", "min_data", "max_data")


def _check_attrs(attrs, *shapes) -> None:
    if attrs.mode != "lstm":
        fail(_OP, f"only mode 'lstm' is supported (MXNet's quantized RNN is an LSTM), not "
                  f"'{attrs.mode}'", *shapes)
    if attrs.projection_size is not None:
        fail(_OP, "projection_size is not supported", *shapes)
    if attrs.use_sequence_length:
        fail(_OP, "use_sequence_length is not supported", *shapes)


def weight_scales(xp, weights) -> np.ndarray:
    """Per gate row, ``127 / max |W|`` over the ``W_i2h`` and ``W_h2h`` of every layer and
    direction (``weights`` as :func:`gluonlite.ops.rnn._unpack` gives them)."""
    top = None
    for w_i, w_h, _, _, _ in weights:
        row = xp.maximum(xp.abs(w_i).max(axis=1), xp.abs(w_h).max(axis=1))
        top = row if top is None else xp.maximum(top, row)
    top = top.astype(np.float32)
    return xp.where(top > 0, np.float32(127.0) / xp.where(top > 0, top, 1), np.float32(1.0))


def _int_weights(xp, w, scales):
    """int8 weights as float64 (exact in a float64 GEMM) and their row sums."""
    q = xp.clip(xp.rint(w.astype(np.float32) * scales[:, None]), -127, 127)
    q = q.astype(np.float64)
    return q, q.sum(axis=1)


def _sigmoid(xp, x):
    return np.float32(1.0) / (np.float32(1.0) + xp.exp(-x))


def _direction(xp, seq_u8, w, scales, h0, c0, scale, shift, clip):
    """One direction of one layer over uint8 ``seq_u8`` (T, N, I) in processing order;
    returns the uint8 states (T, N, H) and the last float32 cell state."""
    w_i, w_h, b_i, b_h, _ = w
    hid = w_h.shape[1]
    t_len, n, _ = seq_u8.shape
    wiq, sum_i = _int_weights(xp, w_i, scales)
    whq, sum_h = _int_weights(xp, w_h, scales)
    unit = (np.float32(1.0) / (np.float32(scale) * scales)).astype(np.float32)
    bias = (b_i + b_h).astype(np.float32)
    acc = xp.matmul(seq_u8.reshape(t_len * n, -1).astype(np.float64), wiq.T)
    pre_x = ((acc - shift * sum_i).astype(np.float32) * unit + bias).reshape(t_len, n, -1)
    h_u8 = qm.asym_quantize(xp, h0, scale, shift)
    c = c0.astype(np.float32)
    states = xp.empty((t_len, n, hid), dtype=np.uint8)
    whq_t = xp.ascontiguousarray(whq.T)
    for t in range(t_len):
        rec = xp.matmul(h_u8.astype(np.float64), whq_t) - shift * sum_h
        gates = pre_x[t] + rec.astype(np.float32) * unit
        i = _sigmoid(xp, gates[:, :hid])
        f = _sigmoid(xp, gates[:, hid:2 * hid])
        g = xp.tanh(gates[:, 2 * hid:3 * hid])
        o = _sigmoid(xp, gates[:, 3 * hid:])
        c = f * c + i * g
        if clip is not None:
            c = clip.apply(xp, c)[0]
        h_u8 = qm.asym_quantize(xp, o * xp.tanh(c), scale, shift)
        states[t] = h_u8
    return states, c


def _forward(oc, attrs, inputs, out):
    xp = oc.xp
    data, params, h0, c0 = inputs[:4]
    _check_attrs(attrs, data.shape)
    if data.dtype != np.uint8:
        fail(_OP, f"expects uint8 data, got {data.dtype}", data.shape)
    if data.ndim != 3:
        fail(_OP, "data must have shape (seq_len, batch, input_size)", data.shape)
    scale, shift = qm.scalar(xp, inputs[4]), qm.scalar(xp, inputs[5])
    if not scale > 0:
        fail(_OP, f"the data scale (input min_data) must be positive, got {scale}",
             data.shape)
    dirs = 2 if attrs.bidirectional else 1
    t_len, n, in_size = data.shape
    hid = attrs.state_size
    size = _rnn.param_size("lstm", attrs.num_layers, dirs, in_size, hid)
    if params.shape != (size,):
        fail(_OP, f"parameters must have shape ({size},)", data.shape, params.shape)
    want = (attrs.num_layers * dirs, n, hid)
    if h0.shape != want or c0.shape != want:
        fail(_OP, f"state and state_cell must have shape {want}", data.shape, h0.shape,
             c0.shape)
    weights = _rnn._unpack(params.astype(np.float32), "lstm", attrs.num_layers, dirs,
                           in_size, hid)
    scales = weight_scales(xp, weights)
    clip = None
    if attrs.lstm_state_clip_min is not None or attrs.lstm_state_clip_max is not None:
        lo, hi = attrs.lstm_state_clip_min, attrs.lstm_state_clip_max
        clip = Clip(-np.inf if lo is None else lo, np.inf if hi is None else hi,
                    attrs.lstm_state_clip_nan)
    hy = xp.empty(want, dtype=np.float32)
    cy = xp.empty(want, dtype=np.float32)
    layer_in = data
    for layer in range(attrs.num_layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            seq = layer_in if d == 0 else layer_in[::-1]
            states, c = _direction(xp, seq, weights[k], scales, h0[k], c0[k], scale, shift,
                                   clip)
            hy[k] = (states[-1].astype(np.float32) - np.float32(shift)) / np.float32(scale)
            cy[k] = c
            outs.append(states if d == 0 else states[::-1])
        layer_in = outs[0] if dirs == 1 else xp.concatenate(outs, axis=2)
    value = (layer_in.astype(np.float32) - np.float32(shift)) / np.float32(scale)
    results = [put(out, 0, value)]
    if attrs.state_outputs:
        results += [put(out, 1, hy), put(out, 2, cy)]
    return results


def _infer(attrs, in_shapes):
    _check_attrs(attrs, *[s for s in in_shapes if s is not None])
    ins, outs = _rnn._infer(attrs, list(in_shapes[:4]))  # the float LSTM's rules
    return list(ins) + [(1,), (1,)], list(outs[:_n_outputs(attrs)])


def _infer_type(op, attrs, in_dtypes):
    ins = [np.dtype(np.uint8)] + [F32] * (len(in_dtypes) - 1)
    return ins, [F32] * _n_outputs(attrs)


def _attrs() -> dict:
    spec = dict(get_op("RNN").attrs)
    # the rewrite of ``mx.contrib.quantization`` marks the node ``quantized='true'``
    spec["quantized"] = Attr("bool", False)
    return spec


register(OpDef(
    _OP, _forward, inputs=_input_names, attrs=_attrs(), num_outputs=_n_outputs,
    output_names=_output_names, infer_shape=_infer, infer_type=_infer_type,
    differentiable=False,
    doc="LSTM (the fused ``RNN`` operator's) on uint8 data quantized with a scale and a "
        "shift (``min_data``/``max_data`` hold them), with int8 weights and float32 "
        "biases, states and outputs."))
