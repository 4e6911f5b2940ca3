"""ONNX conversion of the fused ``RNN`` operator (see :mod:`gluonlite.ops.onnx_export`).

Each layer becomes one ONNX ``LSTM``, ``GRU`` or ``RNN`` node (``direction`` forward or
bidirectional) whose weights are cut out of MXNet's flat parameter vector inside the
graph (the vector may be a graph input as well as an initializer), so the layout
knowledge lives here, beside :func:`gluonlite.ops.rnn.param_size`:

* the packed vector holds every weight first (per layer, per direction: ``W_i2h (G*H,
  in)`` then ``W_h2h (G*H, H)``), then every bias in the same order (``b_i2h``,
  ``b_h2h``);
* gate blocks are reordered from MXNet's rows to ONNX's: LSTM ``i f g o`` to
  ``i o f c``, GRU ``r z n`` to ``z r h``;
* MXNet's GRU applies the reset gate after the recurrent matmul (cuDNN's form):
  ONNX's ``linear_before_reset=1``;
* ONNX's ``Y`` is ``(T, D, N, H)``, MXNet's output ``(T, N, D*H)``; final states of the
  layers are concatenated along axis 0 (row ``layer * D + direction`` in both).

``use_sequence_length`` maps to ONNX's ``sequence_lens``, whose semantics are the ones
the operator implements (outputs past a length are 0, the final state is the state at
the last step, the reverse direction starts there).  Dropout between layers is the
identity at inference.  Not exportable: LSTM projections (``projection_size``; ONNX's
LSTM has none) and ``lstm_state_clip_*`` (ONNX's ``clip`` bounds the gate inputs, not
the cell state).
"""
from __future__ import annotations

import numpy as np

from .onnx_export import register
from .rnn_cells import GATES

_ONNX_OP = {"lstm": "LSTM", "gru": "GRU", "rnn_tanh": "RNN", "rnn_relu": "RNN"}
# ONNX's gate block g is MXNet's block _GATE_ORDER[mode][g]
_GATE_ORDER = {"lstm": [0, 3, 1, 2], "gru": [1, 0, 2], "rnn_tanh": [0], "rnn_relu": [0]}


def _slice_flat(b, flat, start, stop):
    return b.node("Slice", [flat, b.ints([start], "starts"), b.ints([stop], "ends"),
                            b.ints([0], "axes")])[0]


def _gates(b, flat, start, mode, hidden, width):
    """The ``G`` gate blocks of ``hidden`` rows (of ``width`` values, or single values
    when ``width`` is 0) at ``start`` of ``flat``, reordered to ONNX's gate order, as
    ``(1, G*hidden, width)`` (or ``(1, G*hidden)``).  Returns ``(name, end)``."""
    g = GATES[mode]
    row = hidden * max(width, 1)
    end = start + g * row
    piece = b.node("Reshape", [_slice_flat(b, flat, start, end), b.ints([g, row], "shape")])
    order = _GATE_ORDER[mode]
    if order != list(range(g)):
        piece = b.node("Gather", [piece[0], b.ints(order, "gate_order")], axis=0)
    shape = [1, g * hidden, width] if width else [1, g * hidden]
    return b.node("Reshape", [piece[0], b.ints(shape, "shape")])[0], end


def _join(b, names, axis=0):
    if len(names) == 1:
        return names[0]
    return b.node("Concat", names, axis=axis)[0]


@register("RNN")
def _rnn(b, n):
    a = n.attrs
    mode = a.mode
    if a.projection_size:
        raise n.unsupported("projection_size (ONNX's LSTM has no projection)")
    if a.lstm_state_clip_min is not None or a.lstm_state_clip_max is not None:
        raise n.unsupported("lstm_state_clip_min/max (ONNX's LSTM clip bounds the gate "
                            "inputs, not the cell state)")
    dirs = 2 if a.bidirectional else 1
    hidden = int(a.state_size)
    layers = int(a.num_layers)
    in_size = n.in_shapes[0][2]
    data, flat, state = n.inputs[:3]
    cell = n.inputs[3] if mode == "lstm" else None
    seq_lens = ""
    if a.use_sequence_length:
        seq_lens = b.node("Cast", [n.inputs[-1]], to=b.tensor_type(np.dtype(np.int32)))[0]
    g = GATES[mode]
    # offsets of each (layer, direction)'s weights, then of its biases
    pos = 0
    weights = []
    for layer in range(layers):
        width = in_size if layer == 0 else dirs * hidden
        for _ in range(dirs):
            weights.append((pos, width))
            pos += g * hidden * (width + hidden)
    bias_pos = pos
    extra = {}
    if mode == "gru":
        extra["linear_before_reset"] = 1
    elif mode != "lstm":
        extra["activations"] = ["Tanh" if mode == "rnn_tanh" else "Relu"] * dirs
    x = data
    finals: list = [[], []]
    for layer in range(layers):
        w_all, r_all, b_all = [], [], []
        for d in range(dirs):
            start, width = weights[layer * dirs + d]
            w, end = _gates(b, flat, start, mode, hidden, width)
            r, _ = _gates(b, flat, end, mode, hidden, hidden)
            k = bias_pos + (layer * dirs + d) * 2 * g * hidden
            b_i, end = _gates(b, flat, k, mode, hidden, 0)
            b_h, _ = _gates(b, flat, end, mode, hidden, 0)
            w_all.append(w)
            r_all.append(r)
            b_all.append(b.node("Concat", [b_i, b_h], axis=1)[0])
        rows = [b.ints([layer * dirs], "starts"), b.ints([(layer + 1) * dirs], "ends"),
                b.ints([0], "axes")]
        ins = [x, _join(b, w_all), _join(b, r_all), _join(b, b_all), seq_lens,
               b.node("Slice", [state] + rows)[0]]
        if cell is not None:
            ins.append(b.node("Slice", [cell] + rows)[0])
        outs = b.node(_ONNX_OP[mode], ins, n_out=3 if cell is not None else 2,
                      hidden_size=hidden,
                      direction="bidirectional" if dirs == 2 else "forward", **extra)
        for j, name in enumerate(outs[1:]):
            finals[j].append(name)
        # (T, D, N, H) -> (T, N, D*H), the next layer's input or the output
        y = b.node("Transpose", [outs[0]], perm=[0, 2, 1, 3])
        last = layer == layers - 1
        x = b.node("Reshape", [y[0], b.ints([0, 0, dirs * hidden], "shape")],
                   outputs=n.outputs[:1] if last else None)[0]
    for j, out in enumerate(n.outputs[1:]):
        if len(finals[j]) == 1:
            b.node("Identity", finals[j], outputs=[out])
        else:
            b.node("Concat", finals[j], outputs=[out], axis=0)
