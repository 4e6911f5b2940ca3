"""Samples for the interleaved multi-head attention products (``contrib_attention.py``);
the NumPy references below were checked against MXNet 1.9.1, and
``tests/test_contrib_attention.py`` compares with MXNet's outputs and gradients."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(5)
S, Q, B, H, D = 4, 3, 2, 2, 3


def _heads(x, heads, parts):
    seq, batch, _ = x.shape
    r = x.reshape(seq, batch, heads, parts, -1)
    return [r[:, :, :, p].transpose(1, 2, 0, 3).reshape(batch * heads, seq, -1)
            for p in range(parts)]


def _to_seq(y, batch, heads):
    bh, seq, d = y.shape
    return y.reshape(batch, heads, seq, d).transpose(2, 0, 1, 3).reshape(seq, batch, heads * d)


def _selfatt_qk(qkv, heads):
    q, k, _ = _heads(qkv, heads, 3)
    return (q / np.sqrt(q.shape[2])) @ k.transpose(0, 2, 1)


def _selfatt_valatt(qkv, att, heads):
    return _to_seq(att @ _heads(qkv, heads, 3)[2], qkv.shape[1], heads)


def _encdec_qk(queries, kv, heads):
    (q,) = _heads(queries, heads, 1)
    k, _ = _heads(kv, heads, 2)
    return (q / np.sqrt(q.shape[2])) @ k.transpose(0, 2, 1)


def _encdec_valatt(kv, att, heads):
    return _to_seq(att @ _heads(kv, heads, 2)[1], kv.shape[1], heads)


_qkv = _rng.normal(size=(S, B, 3 * H * D))
_att = _rng.normal(size=(B * H, S, S))
_queries = _rng.normal(size=(Q, B, H * D))
_kv = _rng.normal(size=(S, B, 2 * H * D))
_att_ed = _rng.normal(size=(B * H, Q, S))
_f32 = dict(rtol=1e-5, atol=1e-6, grad=False)


def _f(*arrays):
    return [a.astype(np.float32) for a in arrays]


SAMPLES = {
    "_contrib_interleaved_matmul_selfatt_qk": [
        Sample([_qkv], {"heads": H}, ref=_selfatt_qk),
        Sample(_f(_qkv), {"heads": H}, ref=_selfatt_qk, **_f32),
        Sample([_qkv], {"heads": 1}, ref=_selfatt_qk),
    ],
    "_contrib_interleaved_matmul_selfatt_valatt": [
        Sample([_qkv, _att], {"heads": H}, ref=_selfatt_valatt),
        Sample(_f(_qkv, _att), {"heads": H}, ref=_selfatt_valatt, **_f32),
    ],
    "_contrib_interleaved_matmul_encdec_qk": [
        Sample([_queries, _kv], {"heads": H}, ref=_encdec_qk),
        Sample(_f(_queries, _kv), {"heads": H}, ref=_encdec_qk, **_f32),
    ],
    "_contrib_interleaved_matmul_encdec_valatt": [
        Sample([_kv, _att_ed], {"heads": H}, ref=_encdec_valatt),
        Sample(_f(_kv, _att_ed), {"heads": H}, ref=_encdec_valatt, **_f32),
    ],
}
