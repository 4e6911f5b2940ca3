"""Samples for ``_contrib_quantized_rnn`` (``gluonlite/ops/quantized_rnn.py``).

The reference recomputes the int8 LSTM step by step with integer GEMMs in int64 (the
weight scales per gate row over the whole network, data and recurrent state uint8 with
one scale and shift); ``tests/contrib/test_quantization_rnn.py`` checks it against the
float32 ``RNN``.  Samples cover one and two layers, both directions, ``state_outputs``
and ``lstm_state_clip_*``.
"""
import numpy as np

from ..harness import Sample

F = np.float32
_rng = np.random.default_rng(11)


def _case(t_len, n, in_size, hid, layers, dirs):
    size = 0
    for layer in range(layers):
        width = in_size if layer == 0 else dirs * hid
        size += dirs * (4 * hid * width + 4 * hid * hid + 8 * hid)
    x = _rng.uniform(-1, 1, size=(t_len, n, in_size)).astype(F)
    scale = F(255) / (F(x.max()) - F(x.min()))
    shift = F(255) - F(x.max()) * scale
    q = np.clip(np.rint(x * scale + shift), 0, 255).astype(np.uint8)
    w = _rng.uniform(-0.8, 0.8, size=(size,)).astype(F)
    h0 = _rng.uniform(-1, 1, size=(layers * dirs, n, hid)).astype(F)
    c0 = _rng.uniform(-1, 1, size=(layers * dirs, n, hid)).astype(F)
    return [q, w, h0, c0, np.array([scale], F), np.array([shift], F)]


def _unpack(w, layers, dirs, in_size, hid):
    mats, pos = [], 0
    for layer in range(layers):
        width = in_size if layer == 0 else dirs * hid
        for _ in range(dirs):
            wi = w[pos:pos + 4 * hid * width].reshape(4 * hid, width)
            pos += 4 * hid * width
            wh = w[pos:pos + 4 * hid * hid].reshape(4 * hid, hid)
            pos += 4 * hid * hid
            mats.append([wi, wh])
    for m in mats:
        m += [w[pos:pos + 4 * hid], w[pos + 4 * hid:pos + 8 * hid]]
        pos += 8 * hid
    return mats


def _sig(v):
    return F(1) / (F(1) + np.exp(-v))


def _qrnn(q, w, h0, c0, scale, shift, state_size, num_layers, mode="lstm",
          bidirectional=False, state_outputs=False, lstm_state_clip_min=None,
          lstm_state_clip_max=None, **_):
    s, sh = F(scale[0]), F(shift[0])
    hid, dirs = state_size, 2 if bidirectional else 1
    mats = _unpack(w, num_layers, dirs, q.shape[2], hid)
    top = np.max([np.maximum(np.abs(wi).max(1), np.abs(wh).max(1)) for wi, wh, _, _ in mats],
                 axis=0)
    ws = F(127) / top.astype(F)

    def quant(v):
        return np.clip(np.rint(v.astype(F) * s + sh), 0, 255).astype(np.int64)

    hy, cy = np.zeros(h0.shape, F), np.zeros(c0.shape, F)
    seq = q.astype(np.int64)
    for layer in range(num_layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            wi, wh, bi, bh = mats[k]
            wiq = np.rint(wi * ws[:, None]).astype(np.int64)
            whq = np.rint(wh * ws[:, None]).astype(np.int64)
            unit = F(1) / (s * ws)
            xs = seq if d == 0 else seq[::-1]
            h, c = quant(h0[k]), c0[k].astype(F)
            res = []
            for t in range(xs.shape[0]):
                acc = (xs[t] @ wiq.T - sh * wiq.sum(1)).astype(F) * unit + (bi + bh) \
                    + (h @ whq.T - sh * whq.sum(1)).astype(F) * unit
                i, f = _sig(acc[:, :hid]), _sig(acc[:, hid:2 * hid])
                g, o = np.tanh(acc[:, 2 * hid:3 * hid]), _sig(acc[:, 3 * hid:])
                c = f * c + i * g
                if lstm_state_clip_min is not None:
                    c = np.clip(c, lstm_state_clip_min, lstm_state_clip_max)
                h = quant(o * np.tanh(c))
                res.append(h)
            res = np.stack(res)
            hy[k], cy[k] = (res[-1] - sh) / s, c
            outs.append(res if d == 0 else res[::-1])
        seq = np.concatenate(outs, axis=2)
    out = ((seq.astype(F) - sh) / s).astype(F)
    return [out, hy, cy] if state_outputs else out


_TOL = dict(rtol=1e-5, atol=2e-5)
SAMPLES = {
    "_contrib_quantized_rnn": [
        Sample(_case(4, 2, 5, 3, 1, 1), dict(state_size=3, num_layers=1, mode="lstm"),
               ref=_qrnn, **_TOL),
        Sample(_case(3, 2, 4, 3, 2, 2),
               dict(state_size=3, num_layers=2, mode="lstm", bidirectional=True,
                    state_outputs=True), ref=_qrnn, **_TOL),
        Sample(_case(3, 1, 3, 2, 1, 1),
               dict(state_size=2, num_layers=1, mode="lstm", state_outputs=True,
                    lstm_state_clip_min=-0.3, lstm_state_clip_max=0.3), ref=_qrnn, **_TOL),
    ],
}
