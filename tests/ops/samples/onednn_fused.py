"""Samples for ``_sg_mkldnn_conv`` and ``_sg_mkldnn_fully_connected`` (``onednn_fused.py``).

The subgraphs are real graphs (built with ``mx.sym``) made runnable as the engine makes
them.  Float samples check the fused node against NumPy convolution/BatchNorm/Dense
and their gradients; INT8 samples against a NumPy transcription of MXNet 1.9.1's
oneDNN arithmetic (fold the BatchNorm, per-channel weight scales when calibrated,
int32 accumulate, scale, post-ops, round half to even, saturate); they have no
gradient (MXNet's are zero).
``tests/contrib/test_onednn_fused.py`` checks the same operators bit for bit against
MXNet's own outputs.
"""
import numpy as np

import gluonlite as mx
from gluonlite.engine.subgraph import SubgraphRunner
from gluonlite.symbol.subgraph import Subgraph

from ..harness import Sample

_rng = np.random.default_rng(17)
F = np.float32
S = mx.sym


def _runner(sym):
    return (SubgraphRunner(Subgraph(list(sym._heads))),)


def _var(*names):
    return [S.var(n) for n in names]


# -- subgraphs ---------------------------------------------------------------------------
def _conv_sym(bias=True, bn=True, act=True, add=False, post=False, groups=1):
    names = ["data", "weight"] + (["bias"] if bias else [])
    v = _var(*names)
    y = S.Convolution(*v, kernel=(3, 3), pad=(1, 1), num_filter=4, num_group=groups,
                      no_bias=not bias, name="conv")
    if bn:
        y = S.BatchNorm(y, *_var("gamma", "beta", "mean", "var"), fix_gamma=False, eps=1e-3,
                        name="bn")
    if act:
        y = S.Activation(y, act_type="relu")
    if add:
        y = y + S.var("sum")
    if post:
        y = S.Activation(y, act_type="relu")
    return _runner(y)


def _fc_sym(bias=True, act=True):
    v = _var(*(["data", "weight"] + (["bias"] if bias else [])))
    y = S.FullyConnected(*v, num_hidden=5, no_bias=not bias, name="fc")
    return _runner(S.Activation(y, act_type="relu") if act else y)


# -- NumPy references -------------------------------------------------------------------
def _conv(x, w, b=None):
    """3x3 convolution with padding 1 in float64 (one slice per kernel offset)."""
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    h, wd = x.shape[2:]
    out = np.zeros((x.shape[0], w.shape[0], h, wd))
    for i in range(3):
        for j in range(3):
            out += np.einsum("nchw,fc->nfhw", xp[:, :, i:i + h, j:j + wd],
                             w[:, :, i, j].astype(np.float64))
    return out if b is None else out + b.reshape(1, -1, 1, 1)


def _bn_fold(w, b, gamma, beta, mean, var, eps=1e-3):
    alpha = (gamma.astype(np.float64) / np.sqrt(var.astype(np.float64) + eps)).astype(F)
    w = w.astype(F) * alpha.reshape(-1, 1, 1, 1)
    b = beta - alpha * mean if b is None else beta + alpha * (b.astype(F) - mean)
    return w, b.astype(F)


def _scale(kind, lo, hi):
    r = F(max(abs(float(lo)), abs(float(hi))))
    return F(127.5 if kind == "int8" else 255.5) / r


def _sat(v, kind):
    lims = {"int8": (-128, 127), "uint8": (0, 255), "int32": (-2**31, 2**31 - 1)}[kind]
    return np.clip(np.rint(v.astype(np.float64)), *lims).astype(kind)


def _kind(a):
    return "uint8" if a.dtype == np.uint8 else "int8"


def _channel_scales(w, b, d_scale):
    flat = w.reshape(w.shape[0], -1)
    s = F(127.5) / np.maximum(np.abs(flat.min(1)), np.abs(flat.max(1)))
    if b is not None:
        cap = (np.where(b > 0, F(2.0 ** 31), F(-2.0 ** 31)) / F(2) / b) / d_scale
        s = np.where(b != 0, np.minimum(s, cap), s)
    return s.astype(F)


def _q_conv(data, weight, *rest, bias=True, bn=True, calib=None, out="uint8", add=False):
    """MXNet's quantized ``_sg_mkldnn_conv`` (relu after BN when ``bn``; with ``add``, the
    sum operand and a post-sum relu)."""
    rest = list(rest)
    b = rest.pop(0) if bias else None
    if bn:
        weight, b = _bn_fold(weight, b, *rest[:4])
        rest = rest[4:]
    s = rest.pop(0) if add else None
    d_lo, d_hi = rest[0][0], rest[1][0]
    d_scale = _scale(_kind(data), d_lo, d_hi)
    if calib is not None:
        ws = _channel_scales(weight, b, d_scale)
    else:
        ws = np.full(weight.shape[0], _scale("int8", weight.min(), weight.max()), F)
    wq = _sat(weight.astype(F) * ws.reshape(-1, 1, 1, 1), "int8")
    acc = _conv(data, wq).astype(F)
    if b is not None:
        acc = acc + _sat(b * (ws * d_scale), "int32").astype(F).reshape(1, -1, 1, 1)
    if calib is None:
        top = (F(max(abs(d_lo), abs(d_hi))) / F(127 if _kind(data) == "int8" else 255)
               * (F(max(abs(weight.min()), abs(weight.max()))) / F(127)) * F(2147483647))
        y = np.maximum(acc, 0) if bn else acc
        return [_sat(y, "int32"), np.array([-top], F), np.array([top], F)]
    o_scale = _scale(out, *calib)
    y = acc * ((o_scale / d_scale) / ws).reshape(1, -1, 1, 1)
    if bn and not add:
        y = np.maximum(y, 0)
    if add:
        s_scale = _scale(_kind(s), rest[2][0], rest[3][0])
        y = np.maximum(y + s.astype(F) * F(o_scale / s_scale), 0)
    return [_sat(y, out), np.array([calib[0]], F), np.array([calib[1]], F)]


def _q_fc(data, weight, *rest, bias=True, calib=None, relu=True, float_out=False,
          channelwise=False):
    rest = list(rest)
    b = rest.pop(0) if bias else None
    d_lo, d_hi = rest[0][0], rest[1][0]
    d_scale = _scale(_kind(data), d_lo, d_hi)
    if channelwise:
        ws = _channel_scales(weight, b, d_scale)
        wq = _sat(weight * ws.reshape(-1, 1), "int8")
        bq = None if b is None else _sat(b * (ws * d_scale), "int32")
    else:
        w_lo, w_hi = rest[2][0], rest[3][0]
        ws = np.full(weight.shape[0], _scale("int8", w_lo, w_hi), F)
        wq, bq = weight, None
        if b is not None:
            rescale = F(F(d_scale * ws[0]) / _scale("int8", rest[4][0], rest[5][0]))
            v = b.astype(F) * rescale
            bq = (np.sign(v) * np.floor(np.abs(v) + 0.5)).astype(np.int32)
    acc = (data.reshape(data.shape[0], -1).astype(np.int64) @ wq.T.astype(np.int64)).astype(F)
    if bq is not None:
        acc = acc + bq.astype(F)
    act = (lambda v: np.maximum(v, 0)) if relu else (lambda v: v)
    if calib is None and not float_out:
        top = (F(max(abs(d_lo), abs(d_hi))) / F(127)
               * (F(max(abs(float(rest[2][0])), abs(float(rest[3][0])))) / F(
                   127 if _kind(data) == "int8" else 255)) * F(2147483647))
        return [_sat(act(acc), "int32"), np.array([-top], F), np.array([top], F)]
    inv = F(1.0 / float(d_scale))
    if float_out:
        return [act(acc * (inv / ws)).astype(F)]
    out = "uint8" if relu else "int8"
    o_scale = _scale(out, *calib)
    if relu:
        y = act(acc * (inv / ws)) * o_scale
    else:
        y = acc * ((o_scale / d_scale) / ws)
    return [_sat(y, out), np.array([calib[0]], F), np.array([calib[1]], F)]


def _float_conv_bn_relu(x, w, b, gamma, beta, mean, var, **_):
    y = _conv(x, w, b)
    y = (y - mean.reshape(1, -1, 1, 1)) / np.sqrt(var.reshape(1, -1, 1, 1) + 1e-3)
    return [np.maximum(y * gamma.reshape(1, -1, 1, 1) + beta.reshape(1, -1, 1, 1), 0)]


def _r(*values):
    return [np.array([v], dtype=F) for v in values]


def _ref(fn, **kw):
    return lambda *inputs, **attrs: fn(*inputs, **kw)


_x64 = _rng.normal(size=(2, 3, 5, 5))
_w64 = _rng.normal(size=(4, 3, 3, 3)) * 0.3
_b64 = _rng.normal(size=4) * 0.1
_bn64 = [_rng.uniform(0.5, 1.5, 4), _rng.normal(size=4) * 0.1, _rng.normal(size=4) * 0.1,
         _rng.uniform(0.5, 1.5, 4)]
_w32 = (_rng.normal(size=(4, 3, 3, 3)) * 0.3).astype(F)
_b32 = (_rng.normal(size=4) * 0.1).astype(F)
_bn32 = [a.astype(F) for a in _bn64]
_u8 = _rng.integers(0, 256, size=(2, 3, 5, 5)).astype(np.uint8)
_i8 = _rng.integers(-128, 128, size=(2, 3, 5, 5)).astype(np.int8)
_sum8 = _rng.integers(0, 256, size=(2, 4, 5, 5)).astype(np.uint8)
_fx64 = _rng.normal(size=(3, 6))
_fw64 = _rng.normal(size=(5, 6))
_fb64 = _rng.normal(size=5)
_fu8 = _rng.integers(0, 256, size=(3, 6)).astype(np.uint8)
_fi8 = _rng.integers(-128, 128, size=(3, 2, 3)).astype(np.int8)
_fwq = _rng.integers(-127, 128, size=(5, 6)).astype(np.int8)
_fbq = _rng.integers(-127, 128, size=5).astype(np.int8)
_fw32 = _rng.normal(size=(5, 6)).astype(F)
_fb32 = (_rng.normal(size=5) * 0.5).astype(F)

SAMPLES = {
    "_sg_mkldnn_conv": [
        Sample([_x64, _w64, _b64, *_bn64], dict(with_bn=True, with_act=True,
                                                subgraphs=_conv_sym()),
               ref=_float_conv_bn_relu, grad=[]),  # BatchNorm's gradient is for training
        Sample([_x64, _w64, _b64], dict(with_act=True, subgraphs=_conv_sym(bn=False)),
               ref=lambda x, w, b, **_: [np.maximum(_conv(x, w, b), 0)]),
        Sample([_x64, _w64, _rng.normal(size=(2, 4, 5, 5))],
               dict(with_sum=True, with_postsum_act=True,
                    subgraphs=_conv_sym(bias=False, bn=False, act=False, add=True, post=True)),
               ref=lambda x, w, s, **_: [np.maximum(_conv(x, w) + s, 0)]),
        Sample([_u8, _w32, _b32, *_bn32, *_r(0.0, 2.0)],
               dict(quantized=True, with_bn=True, with_act=True, min_calib_range=0.0,
                    max_calib_range=3.0, subgraphs=_conv_sym()),
               ref=_ref(_q_conv, calib=(0.0, 3.0)), grad=False),
        Sample([_i8, _w32, *_r(-1.0, 1.5)],
               dict(quantized=True, subgraphs=_conv_sym(bias=False, bn=False, act=False)),
               ref=_ref(_q_conv, bias=False, bn=False), grad=False),
        Sample([_u8, _w32, _sum8, *_r(0.0, 2.0, 0.0, 1.5)],
               dict(quantized=True, with_sum=True, with_postsum_act=True, min_calib_range=0.0,
                    max_calib_range=4.0,
                    subgraphs=_conv_sym(bias=False, bn=False, act=False, add=True, post=True)),
               ref=_ref(_q_conv, bias=False, bn=False, add=True, calib=(0.0, 4.0)),
               grad=False),
    ],
    "_sg_mkldnn_fully_connected": [
        Sample([_fx64, _fw64, _fb64], dict(with_eltwise=True, subgraphs=_fc_sym()),
               ref=lambda x, w, b, **_: [np.maximum(x @ w.T + b, 0)]),
        Sample([_fu8, _fwq, _fbq, *_r(0.0, 2.0, -0.8, 0.7, -0.2, 0.3)],
               dict(quantized=True, with_eltwise=True, min_calib_range=0.0, max_calib_range=5.0,
                    subgraphs=_fc_sym()),
               ref=_ref(_q_fc, calib=(0.0, 5.0)), grad=False),
        Sample([_fi8, _fwq, *_r(-1.0, 2.0, -0.8, 0.7)],
               dict(quantized=True, enable_float_output=True,
                    subgraphs=_fc_sym(bias=False, act=False)),
               ref=_ref(_q_fc, bias=False, relu=False, float_out=True), grad=False),
        Sample([_fu8, _fw32, _fb32, *_r(0.0, 2.0)],
               dict(quantized=True, channel_wise_quantize=True, min_calib_range=-4.0,
                    max_calib_range=3.0, subgraphs=_fc_sym(act=False)),
               ref=_ref(_q_fc, calib=(-4.0, 3.0), relu=False, channelwise=True), grad=False),
        Sample([_fu8, _fwq, _fbq, *_r(0.0, 2.0, -0.8, 0.7, -0.2, 0.3)],
               dict(quantized=True, with_eltwise=True, subgraphs=_fc_sym()),
               ref=_ref(_q_fc), grad=False),
    ],
}


# -- self-attention ----------------------------------------------------------------------
def _att_sym(valatt: bool):
    qkv = S.var("queries_keys_values")
    if valatt:
        y = S.contrib.interleaved_matmul_selfatt_valatt(qkv, S.var("attention"), heads=2)
    else:
        y = S.contrib.interleaved_matmul_selfatt_qk(qkv, heads=2)
    return _runner(y)


def _heads(qkv, part):
    """``(seq, batch, heads * 3 * d)`` -> part ``part`` as ``(batch * heads, seq, d)``."""
    seq, batch, width = qkv.shape
    d = width // 6
    r = qkv.reshape(seq, batch, 2, 3, d)[:, :, :, part]
    return r.transpose(1, 2, 0, 3).reshape(batch * 2, seq, d), d


def _qk(qkv, lo=None, hi=None, calib=None, float_out=False):
    (q, d), (k, _) = _heads(qkv, 0), _heads(qkv, 1)
    acc = np.matmul(q.astype(np.float64), k.transpose(0, 2, 1).astype(np.float64))
    if lo is None:
        return [acc / np.sqrt(d)]
    ds = _scale("int8", lo[0], hi[0])
    if float_out:
        return [(acc.astype(F) * (F(F(1) / (ds * ds)) / np.sqrt(F(d)))).astype(F)]
    oscale = F(_scale("int8", *calib) / (ds * ds)) / np.sqrt(F(d))
    return [_sat(acc.astype(F) * oscale, "int8"), *_r(*calib)]


def _valatt(qkv, att, *ranges, calib=None):
    v, d = _heads(qkv, 2)
    acc = np.matmul(att.astype(np.float64), v.astype(np.float64))
    seq, batch = qkv.shape[:2]
    acc = acc.reshape(batch, 2, seq, d).transpose(2, 0, 1, 3).reshape(seq, batch, 2 * d)
    if not ranges:
        return [acc]
    unit = _scale("int8", ranges[0][0], ranges[1][0]) * _scale("uint8", ranges[2][0],
                                                               ranges[3][0])
    if calib is None:
        top = (F(max(abs(ranges[0][0]), abs(ranges[1][0]))) / F(127)
               * (F(max(abs(ranges[2][0]), abs(ranges[3][0]))) / F(255)) * F(2147483647))
        return [acc.astype(np.int32), *_r(-top, top)]
    return [_sat(acc.astype(F) * (_scale("int8", *calib) / unit), "int8"), *_r(*calib)]


_qkv64 = _rng.normal(size=(4, 2, 12))
_att64 = _rng.uniform(size=(4, 4, 4))
_qkv8 = _rng.integers(-128, 128, size=(4, 2, 12)).astype(np.int8)
_att8 = _rng.integers(0, 256, size=(4, 4, 4)).astype(np.uint8)

SAMPLES.update({
    "_sg_mkldnn_selfatt_qk": [
        Sample([_qkv64], dict(heads=2, subgraphs=_att_sym(False)),
               ref=lambda qkv, **_: _qk(qkv)),
        Sample([_qkv8, *_r(-1.5, 2.0)],
               dict(heads=2, quantized=True, min_calib_range=-3.0, max_calib_range=4.0,
                    subgraphs=_att_sym(False)),
               ref=_ref(_qk, calib=(-3.0, 4.0)), grad=False),
        Sample([_qkv8, *_r(-1.5, 2.0)],
               dict(heads=2, quantized=True, enable_float_output=True,
                    subgraphs=_att_sym(False)),
               ref=_ref(_qk, float_out=True), grad=False),
    ],
    "_sg_mkldnn_selfatt_valatt": [
        Sample([_qkv64, _att64], dict(heads=2, subgraphs=_att_sym(True)),
               ref=lambda qkv, att, **_: _valatt(qkv, att)),
        Sample([_qkv8, _att8, *_r(-1.5, 2.0, 0.0, 1.0)],
               dict(heads=2, quantized=True, min_calib_range=-0.8, max_calib_range=1.1,
                    subgraphs=_att_sym(True)),
               ref=_ref(_valatt, calib=(-0.8, 1.1)), grad=False),
        Sample([_qkv8, _att8, *_r(-1.5, 2.0, 0.0, 1.0)],
               dict(heads=2, quantized=True, subgraphs=_att_sym(True)),
               ref=_ref(_valatt), grad=False),
    ],
})
