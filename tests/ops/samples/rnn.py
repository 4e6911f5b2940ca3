"""Samples for the fused ``RNN`` operator and ``_rnn_param_concat``.

The reference is a plain step-by-step NumPy implementation (MXNet's packed
layout and gate orders were checked against MXNet 1.9.1 in
``tests/ops/test_rnn_mxnet.py``).  Sizes are tiny so that finite differences
stay fast.
"""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(23)
_GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}


def _sig(x):
    return 1 / (1 + np.exp(-x))


def _unpack(p, mode, layers, dirs, in_size, hid, proj=None):
    """``[[wi, wh, wr, bi, bh]]`` per (layer, direction); ``wr`` is None without projection."""
    g = _GATES[mode] * hid
    rec = proj or hid
    ws, pos = [], 0
    for layer in range(layers):
        n_in = in_size if layer == 0 else dirs * rec
        for _ in range(dirs):
            wi = p[pos:pos + g * n_in].reshape(g, n_in)
            pos += g * n_in
            wh = p[pos:pos + g * rec].reshape(g, rec)
            pos += g * rec
            wr = None
            if proj:
                wr = p[pos:pos + proj * hid].reshape(proj, hid)
                pos += proj * hid
            ws.append([wi, wh, wr])
    for w in ws:
        w += [p[pos:pos + g], p[pos + g:pos + 2 * g]]
        pos += 2 * g
    assert pos == p.size
    return ws


def _step(mode, x, h, c, wi, wh, wr, bi, bh, clip=None):
    gi = wi @ x + bi
    gh = wh @ h + bh
    hid = h.shape[0]
    if mode == "lstm":
        i, f, g, o = np.split(gi + gh, 4)
        c = _sig(f) * c + _sig(i) * np.tanh(g)
        if clip is not None:
            c = np.clip(c, *clip)
        h = _sig(o) * np.tanh(c)
        return (h if wr is None else wr @ h), c
    if mode == "gru":
        r = _sig(gi[:hid] + gh[:hid])
        z = _sig(gi[hid:2 * hid] + gh[hid:2 * hid])
        n = np.tanh(gi[2 * hid:] + r * gh[2 * hid:])
        return (1 - z) * n + z * h, c
    pre = gi + gh
    return (np.tanh(pre) if mode == "rnn_tanh" else np.maximum(pre, 0)), c


def _rnn_ref(data, params, state, *rest, state_size, num_layers, mode, bidirectional=False,
             state_outputs=False, use_sequence_length=False, p=0.0, lstm_state_clip_min=None,
             lstm_state_clip_max=None, projection_size=None, **_):
    lstm = mode == "lstm"
    cell = rest[0] if lstm else np.zeros_like(state)
    lengths = rest[-1] if use_sequence_length else None
    t_len, batch, in_size = data.shape
    dirs = 2 if bidirectional else 1
    rec = projection_size or state_size
    ws = _unpack(params, mode, num_layers, dirs, in_size, state_size, projection_size)
    hy, cy = np.zeros_like(state), np.zeros_like(cell)
    clip = None
    if lstm_state_clip_min is not None:
        clip = (lstm_state_clip_min, lstm_state_clip_max)
    x = data
    for layer in range(num_layers):
        out = np.zeros((t_len, batch, dirs * rec))
        for d in range(dirs):
            k = layer * dirs + d
            for b in range(batch):
                steps = t_len if lengths is None else int(lengths[b])
                order = range(steps) if d == 0 else range(steps - 1, -1, -1)
                h, c = state[k, b], cell[k, b]
                for t in order:
                    h, c = _step(mode, x[t, b], h, c, *ws[k], clip=clip)
                    out[t, b, d * rec:(d + 1) * rec] = h
                hy[k, b], cy[k, b] = h, c
        x = out
    res = [x]
    if state_outputs:
        res.append(hy)
        if lstm:
            res.append(cy)
    return res


def _psize(mode, layers, dirs, in_size, hid, proj=None):
    g = _GATES[mode] * hid
    rec = proj or hid
    return sum(dirs * (g * (in_size if l == 0 else dirs * rec) + g * rec + 2 * g
                       + (proj or 0) * hid)
               for l in range(layers))


def _case(mode, layers=1, bidir=False, t_len=3, batch=2, in_size=2, hid=2, lengths=None,
          **extra):
    dirs = 2 if bidir else 1
    proj = extra.get("projection_size")
    inputs = [_rng.standard_normal((t_len, batch, in_size)),
              _rng.uniform(-0.8, 0.8, _psize(mode, layers, dirs, in_size, hid, proj)),
              _rng.standard_normal((layers * dirs, batch, proj or hid)) * 0.5]
    if mode == "lstm":
        inputs.append(_rng.standard_normal((layers * dirs, batch, hid)) * 0.5)
    attrs = dict(state_size=hid, num_layers=layers, mode=mode, bidirectional=bidir, **extra)
    if lengths is not None:
        inputs.append(np.array(lengths, dtype=np.int32))
        attrs["use_sequence_length"] = True
    name = f"{mode}_{layers}l_{'bi' if bidir else 'uni'}" + (f"_p{proj}" if proj else "")
    return Sample(inputs, attrs, ref=_rnn_ref, name=name, infer_from=[0])


def _concat_ref(*xs, num_args, dim=1):
    return np.concatenate(xs, axis=dim)


SAMPLES = {
    "RNN": [
        _case("lstm", state_outputs=True),
        _case("lstm", layers=2, bidir=True, t_len=2, state_outputs=True),
        _case("gru", layers=2, bidir=True, t_len=2, state_outputs=True),
        _case("gru"),
        _case("rnn_tanh", layers=2, bidir=True, state_outputs=True),
        _case("rnn_relu", bidir=True, state_outputs=True),
        _case("lstm", bidir=True, t_len=4, lengths=[4, 2], state_outputs=True),
        _case("gru", bidir=True, t_len=3, lengths=[1, 3], state_outputs=True),
        # cell-state clipping (cuDNN's; MXNet's CPU build rejects it)
        _case("lstm", bidir=True, state_outputs=True, lstm_state_clip_min=-0.3,
              lstm_state_clip_max=0.35),
        # dropout is only applied in training: in predict mode the masks are ones
        _case("rnn_tanh", layers=2, p=0.5, state_outputs=True),
        # LSTM with projection (LSTMP): recurrent state and output of width P, the
        # cell state of width H; P smaller and larger than H
        _case("lstm", hid=3, projection_size=2, state_outputs=True),
        _case("lstm", layers=2, bidir=True, t_len=2, hid=3, projection_size=2,
              state_outputs=True),
        _case("lstm", layers=2, t_len=2, hid=2, projection_size=3),
        _case("lstm", bidir=True, t_len=4, hid=3, projection_size=2, lengths=[4, 1],
              state_outputs=True),
        _case("lstm", hid=3, projection_size=2, state_outputs=True,
              lstm_state_clip_min=-0.3, lstm_state_clip_max=0.35),
    ],
    "_rnn_param_concat": [
        Sample([_rng.standard_normal(6), _rng.standard_normal(4)],
               dict(num_args=2, dim=0), ref=_concat_ref),
        Sample([_rng.standard_normal((2, 3)), _rng.standard_normal((2, 1)),
                _rng.standard_normal((2, 2))], dict(num_args=3), ref=_concat_ref),
    ],
}
