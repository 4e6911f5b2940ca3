"""The fused ``RNN`` operator and ``_rnn_param_concat``.

``RNN(data, parameters, state[, state_cell][, sequence_length])`` runs a
multi-layer, optionally bidirectional ``rnn_relu``/``rnn_tanh``/``lstm``/``gru``
over time-major ``data`` of shape ``(T, N, I)``.  ``parameters`` is MXNet's flat
packed vector: first every weight (for each layer, for each direction:
``W_i2h (G*H, in)``, ``W_h2h (G*H, R)`` and, for an LSTM with ``projection_size``
``P``, ``W_h2r (P, H)``), then every bias (same order: ``b_i2h``, ``b_h2h``; the
projection has none).  ``R`` is the width of the recurrent state: ``P`` with a
projection, else ``H``.  States have shape ``(num_layers * D, N, R)`` (the LSTM
cell state ``(num_layers * D, N, H)``) with row ``layer * D + direction``; layers
after the first read ``D * R`` features.  Outputs: ``out (T, N, D*R)`` and, with
``state_outputs``, ``hy`` (and ``cy`` for LSTM).  With a projection (LSTMP) every
step computes ``h = o * tanh(c)`` and passes on ``r = W_h2r h``, which is both the
step's output and the recurrent state (MXNet 1.9's CPU build runs this forward
only; here it also has a backward).  With ``p > 0`` in training,
dropout is applied to the output of every layer but the last; the masks are kept
in a hidden output so that backward sees the same ones.  With
``use_sequence_length`` every batch item stops at its length: later outputs are
0, its final state is the state at its last step, and the reverse direction
starts at its last step (cuDNN's semantics; MXNet 1.9's CPU kernel ignores
the lengths).  ``lstm_state_clip_min/max`` clip the LSTM cell state after each
step (gradient 0 where clipped; ``lstm_state_clip_nan`` maps NaN to the minimum),
also cuDNN's semantics, which MXNet's CPU kernel rejects.

Where a backward may follow, the forward keeps its caches (every step's gates and
states) as the call's saved state (``OpDef.saved_state``; MXNet's "reserve space"):
without them the backward would rerun the whole forward, a third of a training
step.  A backward without them (a direct call) recomputes the forward first.  Then
it back-propagates through time (see :mod:`.rnn_cells` and :mod:`.rnn_lstm`).
"""
from __future__ import annotations

import numpy as np

from .attrs import Attr
from .common import fail, merge_shapes, put
from .registry import OpDef, register
from .rnn_cells import GATES, Clip, layer_backward, layer_forward

_OP = "RNN"


def _dirs(attrs) -> int:
    return 2 if attrs.bidirectional else 1


def _has_mask(attrs) -> bool:
    return attrs.p > 0 and attrs.num_layers > 1


def _n_visible(attrs) -> int:
    if not attrs.state_outputs:
        return 1
    return 3 if attrs.mode == "lstm" else 2


def _n_outputs(attrs) -> int:
    return _n_visible(attrs) + (1 if _has_mask(attrs) else 0)


def _input_names(attrs):
    names = ["data", "parameters", "state"]
    if attrs.mode == "lstm":
        names.append("state_cell")
    if attrs.use_sequence_length:
        names.append("sequence_length")
    return tuple(names)


def _output_names(attrs):
    names = ["output"]
    if attrs.state_outputs:
        names.append("state_output")
        if attrs.mode == "lstm":
            names.append("statecell_output")
    if _has_mask(attrs):
        names.append("dropout_mask")
    return tuple(names)


def _proj(attrs):
    """The projection size ``P`` of an LSTMP, else ``None``."""
    return attrs.projection_size


def _rec(attrs) -> int:
    """Width ``R`` of the recurrent state (and of each direction's output)."""
    return attrs.projection_size or attrs.state_size


def param_size(mode: str, num_layers: int, dirs: int, input_size: int, hidden: int,
               projection: int | None = None) -> int:
    """Length of MXNet's packed parameter vector.

    Parameters
    ----------
    mode : str
        ``rnn_relu``, ``rnn_tanh``, ``lstm`` or ``gru``.
    num_layers, dirs : int
        Layers and directions (1 or 2).
    input_size, hidden : int
        Features of the data and of the hidden state.
    projection : int, optional
        LSTM projection size ``P`` (LSTMP).

    Returns
    -------
    int
    """
    g = GATES[mode] * hidden
    rec = projection or hidden
    total = 0
    for layer in range(num_layers):
        in_size = input_size if layer == 0 else dirs * rec
        per_dir = g * in_size + g * rec + 2 * g
        if projection:
            per_dir += projection * hidden
        total += dirs * per_dir
    return total


def _unpack(params, mode, num_layers, dirs, input_size, hidden, projection=None):
    """Views ``[(w_i, w_h, b_i, b_h, w_r)]`` per (layer, direction) into the flat vector
    (``w_r`` is ``None`` without a projection)."""
    g = GATES[mode] * hidden
    rec = projection or hidden
    weights = []
    pos = 0
    for layer in range(num_layers):
        in_size = input_size if layer == 0 else dirs * rec
        for _ in range(dirs):
            w_i = params[pos:pos + g * in_size].reshape(g, in_size)
            pos += g * in_size
            w_h = params[pos:pos + g * rec].reshape(g, rec)
            pos += g * rec
            w_r = None
            if projection:
                w_r = params[pos:pos + projection * hidden].reshape(projection, hidden)
                pos += projection * hidden
            weights.append([w_i, w_h, None, None, w_r])
    for item in weights:
        item[2] = params[pos:pos + g]
        item[3] = params[pos + g:pos + 2 * g]
        pos += 2 * g
    return weights


def _check_projection(attrs, *shapes) -> None:
    proj = attrs.projection_size
    if proj is None:
        return
    if attrs.mode != "lstm":
        fail(_OP, f"projection_size is only supported for mode 'lstm', not "
                  f"'{attrs.mode}'", *shapes)
    if proj <= 0:
        fail(_OP, f"projection_size must be positive, got {proj}", *shapes)


def _check(attrs, inputs):
    x, params, state = inputs[0], inputs[1], inputs[2]
    _check_projection(attrs, x.shape)
    if x.ndim != 3:
        fail(_OP, "data must have shape (seq_len, batch, input_size)", x.shape)
    n_float = 4 if attrs.mode == "lstm" else 3
    if x.dtype.kind != "f" or any(a.dtype != x.dtype for a in inputs[1:n_float]):
        fail(_OP, "data, parameters and states must share one floating point dtype",
             *[a.shape for a in inputs])
    dirs = _dirs(attrs)
    t_len, n, in_size = x.shape
    size = param_size(attrs.mode, attrs.num_layers, dirs, in_size, attrs.state_size,
                      _proj(attrs))
    if params.shape != (size,):
        fail(_OP, f"parameters must have shape ({size},)", x.shape, params.shape)
    want = (attrs.num_layers * dirs, n, _rec(attrs))
    if state.shape != want:
        fail(_OP, f"states must have shape {want}", x.shape, state.shape)
    if attrs.mode == "lstm":
        want_c = (attrs.num_layers * dirs, n, attrs.state_size)
        if inputs[3].shape != want_c:
            fail(_OP, f"states must have shape {want_c} (state_cell)", x.shape,
                 inputs[3].shape)


def _clip(attrs):
    if attrs.mode != "lstm":
        return None
    lo, hi = attrs.lstm_state_clip_min, attrs.lstm_state_clip_max
    if lo is None and hi is None:
        return None
    return Clip(-np.inf if lo is None else lo, np.inf if hi is None else hi,
                attrs.lstm_state_clip_nan)


def _seq_index(xp, lengths, t_len, reverse):
    """Per (t, n) source time index for the reverse direction with lengths, and validity."""
    t = xp.arange(t_len).reshape(-1, 1)
    valid = t < lengths.reshape(1, -1)
    if not reverse:
        return None, valid
    src = lengths.reshape(1, -1) - 1 - t
    src = xp.where(valid, src, t)
    return src, valid


def _gather_time(xp, x, src):
    """``x[src[t, n], n]`` for every (t, n)."""
    n = x.shape[1]
    return x[src, xp.arange(n).reshape(1, -1)]


def _run(oc, attrs, inputs, keep, masks=None):
    """Full forward; returns (out, hy, cy, masks, caches)."""
    xp = oc.xp
    _check(attrs, inputs)
    mode = attrs.mode
    lstm = mode == "lstm"
    x, params, h0 = inputs[0], inputs[1], inputs[2]
    c0 = inputs[3] if lstm else None
    lengths = None
    if attrs.use_sequence_length:
        lengths = inputs[4 if lstm else 3].astype(np.int64)
    dirs = _dirs(attrs)
    t_len, n, in_size = x.shape
    if lengths is not None and lengths.size and bool(((lengths < 0) | (lengths > t_len)).any()):
        # checked here: a length past the end would index out of bounds, which CuPy
        # wraps around silently (one device sync per call on a GPU)
        fail(_OP, f"sequence_length values must be in [0, {t_len}]", x.shape, lengths.shape)
    hid = attrs.state_size
    rec = _rec(attrs)
    weights = _unpack(params, mode, attrs.num_layers, dirs, in_size, hid, _proj(attrs))
    clip = _clip(attrs)
    hy = xp.empty(h0.shape, dtype=x.dtype)
    cy = xp.empty(c0.shape, dtype=x.dtype) if lstm else None
    train_drop = _has_mask(attrs) and oc.is_train and masks is None
    if _has_mask(attrs) and masks is None:
        shape = (attrs.num_layers - 1, t_len, n, dirs * rec)
        if train_drop:
            keep_m = oc.rng.uniform(0.0, 1.0, size=shape) >= attrs.p
            masks = keep_m.astype(x.dtype) / x.dtype.type(1.0 - attrs.p)
        else:
            masks = xp.ones(shape, dtype=x.dtype)
    caches = []
    layer_in = x
    for layer in range(attrs.num_layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            w_i, w_h, b_i, b_h, w_r = weights[k]
            src = valid = None
            if lengths is not None:
                src, valid = _seq_index(xp, lengths, t_len, d == 1)
            if d == 1:
                seq = layer_in[::-1] if src is None else _gather_time(xp, layer_in, src)
            else:
                seq = layer_in
            o, h, c, cache = layer_forward(xp, mode, seq, w_i, w_h, b_i, b_h, h0[k],
                                           c0[k] if lstm else None, clip, keep, valid,
                                           w_r=w_r)
            if src is not None:
                o = _gather_time(xp, o, src)
            elif d == 1:
                o = o[::-1]
            if valid is not None:
                o = xp.where(valid[:, :, None], o, 0)
            hy[k] = h
            if lstm:
                cy[k] = c
            outs.append(o)
            caches.append((seq, cache, src, valid))
        layer_out = outs[0] if dirs == 1 else xp.concatenate(outs, axis=2)
        if layer + 1 < attrs.num_layers and masks is not None:
            layer_out = layer_out * masks[layer]
        caches.append(layer_in)
        layer_in = layer_out
    return layer_in, hy, cy, masks, caches


def _forward(oc, attrs, inputs, out, keep_state=False):
    out_, hy, cy, masks, caches = _run(oc, attrs, inputs, keep=keep_state)
    results = [put(out, 0, out_)]
    if attrs.state_outputs:
        results.append(put(out, 1, hy))
        if attrs.mode == "lstm":
            results.append(put(out, 2, cy))
    if _has_mask(attrs):
        results.append(put(out, len(results), masks))
    if keep_state:
        return results, (masks, caches)   # read-only in backward: reusable by a second one
    return results


def _backward(oc, attrs, inputs, outputs, out_grads, state=None):
    xp = oc.xp
    lstm = attrs.mode == "lstm"
    if state is not None:
        masks, caches = state
    else:
        masks = outputs[_n_visible(attrs)] if _has_mask(attrs) else None
        _, _, _, masks, caches = _run(oc, attrs, inputs, keep=True, masks=masks)
    x, params, h0 = inputs[0], inputs[1], inputs[2]
    dirs = _dirs(attrs)
    t_len, n, in_size = x.shape
    hid = attrs.state_size
    rec = _rec(attrs)
    proj = _proj(attrs)
    weights = _unpack(params, attrs.mode, attrs.num_layers, dirs, in_size, hid, proj)
    d_params = xp.empty(params.shape, dtype=params.dtype)     # every slice is written below
    d_weights = _unpack(d_params, attrs.mode, attrs.num_layers, dirs, in_size, hid, proj)
    c_shape = inputs[3].shape if lstm else None
    d_hy = out_grads[1] if attrs.state_outputs else xp.zeros(h0.shape, dtype=x.dtype)
    d_cy = None
    if lstm:
        d_cy = out_grads[2] if attrs.state_outputs else xp.zeros(c_shape, dtype=x.dtype)
    d_h0 = xp.empty(h0.shape, dtype=x.dtype)
    d_c0 = xp.empty(c_shape, dtype=x.dtype) if lstm else None
    d_layer = out_grads[0]
    per_layer = dirs + 1
    for layer in range(attrs.num_layers - 1, -1, -1):
        if layer + 1 < attrs.num_layers and masks is not None:
            d_layer = d_layer * masks[layer]
        d_in = None
        for d in range(dirs):
            k = layer * dirs + d
            seq, cache, src, valid = caches[layer * per_layer + d]
            d_o = d_layer[:, :, d * rec:(d + 1) * rec]
            d_hk, d_ck = d_hy[k], (d_cy[k] if lstm else None)
            if valid is not None:
                d_o = xp.where(valid[:, :, None], d_o, 0)
            if src is not None:
                d_o = _scatter_time(xp, d_o, src)
            elif d == 1:
                d_o = d_o[::-1]
            w_i, w_h, w_r = weights[k][0], weights[k][1], weights[k][4]
            dx, dw_i, dw_h, db_i, db_h, dh0, dc0, dw_r = layer_backward(
                xp, attrs.mode, seq, w_i, w_h, cache, d_o, d_hk, d_ck, valid, w_r=w_r)
            if src is not None:
                dx = _scatter_time(xp, dx, src)
            elif d == 1:
                dx = dx[::-1]
            if d_in is None:
                d_in = dx                  # a fresh array from layer_backward: ours to add into
            else:
                d_in += dx
            for dst, g in zip(d_weights[k], (dw_i, dw_h, db_i, db_h, dw_r)):
                if dst is not None:
                    dst[...] = g
            d_h0[k] = dh0
            if lstm:
                d_c0[k] = dc0
        d_layer = d_in
    grads = [d_layer, d_params, d_h0]
    if lstm:
        grads.append(d_c0)
    if attrs.use_sequence_length:
        grads.append(None)
    return grads


def _scatter_time(xp, g, src):
    """Inverse of :func:`_gather_time` for the permutation ``src`` (a bijection per item)."""
    n = g.shape[1]
    res = xp.zeros_like(g)
    res[src, xp.arange(n).reshape(1, -1)] = g
    return res


def _infer(attrs, in_shapes):
    _check_projection(attrs, *[s for s in in_shapes if s is not None])
    ins = list(in_shapes)
    dirs = _dirs(attrs)
    hid = attrs.state_size
    rec = _rec(attrs)
    data = ins[0]
    n = 0
    for s in ins[2:2 + (2 if attrs.mode == "lstm" else 1)]:
        if s is not None and len(s) == 3:
            n = n or s[1]
    if attrs.use_sequence_length and ins[-1] is not None:
        n = n or ins[-1][0]
    data = merge_shapes(_OP, "data", data, (0, n, 0)) if (data is not None or n) else None
    ins[0] = data
    if data is None:
        return ins, [None] * _n_outputs(attrs)
    if len(data) != 3:
        fail(_OP, "data must have shape (seq_len, batch, input_size)", data)
    t_len, n, in_size = data
    if in_size:
        size = param_size(attrs.mode, attrs.num_layers, dirs, in_size, hid, _proj(attrs))
        ins[1] = merge_shapes(_OP, "parameters", ins[1], (size,))
    states = [(attrs.num_layers * dirs, n, rec)]
    if attrs.mode == "lstm":
        states.append((attrs.num_layers * dirs, n, hid))
    for i, state in enumerate(states):
        ins[2 + i] = merge_shapes(_OP, "state_cell" if i else "state", ins[2 + i], state)
    if attrs.use_sequence_length:
        ins[-1] = merge_shapes(_OP, "sequence_length", ins[-1], (n,))
    outs = [(t_len, n, dirs * rec)]
    if attrs.state_outputs:
        outs += states
    if _has_mask(attrs):
        outs.append((attrs.num_layers - 1, t_len, n, dirs * rec))
    return ins, outs


def _infer_type(op, attrs, in_dtypes):
    known = next((d for d in in_dtypes[:4] if d is not None), None)
    ins = list(in_dtypes)
    n_float = len(ins) - (1 if attrs.use_sequence_length else 0)
    for i in range(n_float):
        if known is not None:
            if ins[i] is not None and ins[i] != known:
                fail(_OP, f"input {i} has dtype {ins[i]}, expected {known}")
            ins[i] = known
    if attrs.use_sequence_length and ins[-1] is None:
        ins[-1] = np.dtype(np.int32)
    return ins, [known] * _n_outputs(attrs)


register(OpDef(
    "RNN", _forward, backward=_backward,
    attrs={
        "state_size": Attr("int"),
        "num_layers": Attr("int"),
        "bidirectional": Attr("bool", False),
        "mode": Attr("str", choices=("rnn_relu", "rnn_tanh", "lstm", "gru")),
        "p": Attr("float", 0.0),
        "state_outputs": Attr("bool", False),
        "projection_size": Attr("int", None),
        "lstm_state_clip_min": Attr("float", None),
        "lstm_state_clip_max": Attr("float", None),
        "lstm_state_clip_nan": Attr("bool", False),
        "use_sequence_length": Attr("bool", False),
    },
    inputs=_input_names, num_outputs=_n_outputs, num_visible_outputs=_n_visible,
    output_names=_output_names, infer_shape=_infer, infer_type=_infer_type,
    random=True, backward_uses=("inputs", "outputs"), saved_state=True,
    doc="Fused multi-layer recurrent network (MXNet's packed-parameter RNN)."))


# -- _rnn_param_concat -------------------------------------------------------------

def _concat_forward(oc, attrs, inputs, out):
    xp = oc.xp
    shapes = [a.shape for a in inputs]
    if not inputs:
        fail("_rnn_param_concat", "needs at least one input")
    nd = inputs[0].ndim
    dim = attrs.dim % nd if nd else 0
    for a in inputs:
        if a.ndim != nd or any(a.shape[i] != inputs[0].shape[i] for i in range(nd) if i != dim):
            fail("_rnn_param_concat", f"inputs must agree except on dim {attrs.dim}", *shapes)
    return [put(out, 0, xp.concatenate(inputs, axis=dim))]


def _concat_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    dim = attrs.dim % inputs[0].ndim
    bounds = np.cumsum([a.shape[dim] for a in inputs])[:-1]
    return [p.copy() for p in xp.split(out_grads[0], [int(b) for b in bounds], axis=dim)]


def _concat_infer(attrs, in_shapes, out_shapes=None):
    """Shapes of ``_rnn_param_concat``, in both directions.

    Every dimension but ``dim`` is shared by the inputs and the output; the output's
    ``dim`` is the sum of the inputs'.  When the output's ``dim`` is known (the ``RNN``
    operator consuming it knows its packed size from the data), inputs whose ``dim``
    is unknown share what the known ones leave over equally, as MXNet does: this is
    how a layer's ``i2h`` weight without ``input_size`` gets its shape in a graph.
    """
    op = "_rnn_param_concat"
    ins = list(in_shapes)
    out = out_shapes[0] if out_shapes else None
    known_ = [s for s in ins if s is not None] + ([out] if out is not None else [])
    if not known_:
        return ins, [None]
    nd = len(known_[0])
    if any(len(s) != nd for s in known_):
        fail(op, "inputs differ in rank", *known_)
    if nd == 0:
        fail(op, "inputs must have at least one dimension", *known_)
    dim = attrs.dim % nd
    # every dimension but ``dim`` is shared
    common = [0] * nd
    for s in known_:
        for i, d in enumerate(s):
            if i != dim and d:
                if common[i] and common[i] != d:
                    fail(op, f"inputs must agree except on dim {attrs.dim}", *known_)
                common[i] = d
    base = tuple(common)
    shared = nd > 1 and any(base[j] for j in range(nd) if j != dim)
    for i, s in enumerate(ins):
        ins[i] = merge_shapes(op, "input", s, base) if s is not None else (
            base if shared else None)
    unknown = [i for i, s in enumerate(ins) if s is None or not s[dim]]
    total = sum(s[dim] for s in ins if s is not None and s[dim])
    if unknown and out is not None and out[dim]:
        rest = out[dim] - total
        if rest <= 0 or rest % len(unknown):
            fail(op, f"cannot split the {rest} remaining entries of dim {attrs.dim} of "
                     f"the output {tuple(out)} among {len(unknown)} inputs of unknown size",
                 *[s for s in ins if s is not None])
        for i in unknown:
            shape = list(ins[i] if ins[i] is not None else base)
            shape[dim] = rest // len(unknown)
            ins[i] = tuple(shape)
        unknown = []
    result = list(common)
    result[dim] = 0 if unknown else sum(s[dim] for s in ins)
    return ins, [tuple(result)]


register(OpDef(
    "_rnn_param_concat", _concat_forward, backward=_concat_backward,
    attrs={"num_args": Attr("int"), "dim": Attr("int", 1)},
    inputs=lambda attrs: tuple(f"arg{i}" for i in range(attrs.num_args)),
    key_var_num_args="num_args", infer_shape=_concat_infer, infer_shape_outputs=True,
    backward_uses=("inputs",),
    doc="Concatenation of RNN parameters (like ``Concat``) used by Gluon's rnn layers."))
