"""Samples for the INT8 operators (``quantization.py``).

The references are the NumPy formulas of MXNet 1.9.1's oneDNN CPU kernels (scales in
float32, round half to even); ``tests/contrib/test_quantization.py`` checks the same
operators bit for bit against MXNet's own outputs.  The samples cover what changes
results: int8/uint8/auto outputs, with and without calibrated ranges, with and without
bias, ``flatten``, max/avg/global pooling, int8 and uint8 data.
"""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(5)
_x = _rng.normal(size=(3, 4)).astype(np.float32)
_xp = np.abs(_x)
_q = _rng.integers(-128, 128, size=(2, 3, 4, 4)).astype(np.int8)
_u = _rng.integers(0, 256, size=(2, 3, 4, 4)).astype(np.uint8)
_u5 = _rng.integers(0, 256, size=(2, 3, 5, 5)).astype(np.uint8)
_w = _rng.integers(-127, 128, size=(2, 3, 3, 3)).astype(np.int8)
_b2 = _rng.integers(-127, 128, size=(2,)).astype(np.int8)
_fw = _rng.integers(-127, 128, size=(5, 48)).astype(np.int8)
_fw4 = _rng.integers(-127, 128, size=(5, 4)).astype(np.int8)
_fb = _rng.integers(-127, 128, size=(5,)).astype(np.int8)
_i32 = (_rng.normal(size=(3, 5)) * 3e8).astype(np.int32)
_a8 = _rng.integers(-128, 128, size=(3, 7)).astype(np.int8)
_c8 = _rng.integers(-128, 128, size=(3, 4)).astype(np.int8)
_ew = _rng.integers(-127, 128, size=(6, 3)).astype(np.int8)
_idx = np.array([[0, 5], [2, 9]], dtype=np.float32)  # 9 clips to the last row
_hist = np.histogram(_rng.normal(size=2000), bins=301, range=(-3, 3))[0].astype(np.float32)
_edges = np.linspace(-3, 3, 302).astype(np.float32)

F = np.float32
INT32_MAX = 2147483647


def _r(*values):
    return [np.array([v], dtype=np.float32) for v in values]


def _mabs(lo, hi):
    return F(max(abs(float(np.asarray(lo).reshape(-1)[0])),
                 abs(float(np.asarray(hi).reshape(-1)[0]))))


def _sat(v, kind):
    lo, hi = (-128, 127) if kind == "int8" else (0, 255)
    return np.clip(np.rint(v), lo, hi).astype(kind)


def _shapes(*shapes):
    def check(outs, inputs):
        assert [tuple(o.shape) for o in outs][:len(shapes)] == list(shapes)
    return check


# -- quantize / quantize_v2 / dequantize / requantize ----------------------------------------
def _quantize(x, lo, hi, out_type="uint8"):
    r = _mabs(lo, hi)
    if out_type == "int8" and r == 0:  # MXNet: an infinite scale, NaN, stored as 127
        return [np.full(x.shape, 127, np.int8), *_r(-r, r)]
    if out_type == "int8":  # oneDNN's reorder: round half to even, saturate
        q = np.clip(np.rint(x * (F(127) / r)), -128, 127)
        return [q.astype(np.int8), *_r(-r, r)]
    return [_sat(x * (F(255) / r), "uint8"), lo, hi]


def _quantize_v2(x, out_type="int8", min_calib_range=None, max_calib_range=None):
    if min_calib_range is None:
        lo, hi = F(x.min()), F(x.max())
    else:
        lo, hi = F(min_calib_range), F(max_calib_range)
    kind = out_type if out_type != "auto" else \
        ("uint8" if min_calib_range is not None and lo >= 0 else "int8")
    r = _mabs(lo, hi)
    q = _sat(x * (F(127.5 if kind == "int8" else 255.5) / r), kind)
    return [q, *(_r(-r, r) if kind == "int8" else _r(lo, hi))]


def _quantize_asym(x, min_calib_range=None, max_calib_range=None):
    lo, hi = (F(x.min()), F(x.max())) if min_calib_range is None else \
        (F(min_calib_range), F(max_calib_range))
    scale = F(255) / (hi - lo) if hi > lo else F(1)
    shift = F(255) - hi * scale
    return [_sat(x * scale + shift, "uint8"), *_r(scale, shift)]


def _dequantize(q, lo, hi):
    r = _mabs(lo, hi)
    level = {np.dtype(np.int8): F(127.5), np.dtype(np.uint8): F(255.5),
             np.dtype(np.int32): F(INT32_MAX)}[q.dtype]
    return q.astype(np.float32) * (r / level)


def _requantize(q, lo, hi, out_type="int8", min_calib_range=None, max_calib_range=None):
    real = q.astype(np.float32) * (_mabs(lo, hi) / F(INT32_MAX))
    kind = out_type if out_type != "auto" else \
        ("uint8" if min_calib_range is not None and min_calib_range >= 0 else "int8")
    if min_calib_range is None:
        r = F(np.abs(real).max())
        out_lo = F(0) if kind == "uint8" else -r
        out_hi = r
    else:
        out_lo, out_hi = F(min_calib_range), F(max_calib_range)
        r = _mabs(out_lo, out_hi)
    q = _sat(real * (F(127 if kind == "int8" else 255) / r), kind)
    return [q, *(_r(-r, r) if kind == "int8" else _r(out_lo, out_hi))]


# -- layers -------------------------------------------------------------------------------------
def _acc_range(d_rng, d_level, w_rng):
    top = float(F(d_rng) * F(w_rng) * F(INT32_MAX) / (F(d_level) * F(127)))
    return _r(-top, top)


def _fc(data, weight, *rest, num_hidden, no_bias=False, flatten=True):
    bias = None if no_bias else rest[0]
    r = [float(a[0]) for a in rest[0 if no_bias else 1:]]
    d_rng, w_rng = _mabs(r[0], r[1]), _mabs(r[2], r[3])
    kind = "uint8" if data.dtype == np.uint8 else "int8"
    x = data.reshape(data.shape[0], -1) if flatten else data
    acc = x.astype(np.int64) @ weight.T.astype(np.int64)
    if bias is not None:
        rescale = (F(127.5 if kind == "int8" else 255.5) / d_rng) * (F(127) / w_rng) \
            * _mabs(r[4], r[5]) / F(127)
        acc = acc + np.trunc(bias.astype(np.float32) * rescale).astype(np.int64)
    return [acc.astype(np.int32), *_acc_range(d_rng, 127 if kind == "int8" else 255, w_rng)]


def _conv(data, weight, *rest, kernel, num_filter, stride=(1, 1), pad=(0, 0), no_bias=False):
    bias = None if no_bias else rest[0]
    r = [float(a[0]) for a in rest[0 if no_bias else 1:]]
    x = np.pad(data.astype(np.int64), ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    kh, kw = kernel
    oh = (x.shape[2] - kh) // stride[0] + 1
    ow = (x.shape[3] - kw) // stride[1] + 1
    out = np.zeros((x.shape[0], num_filter, oh, ow), dtype=np.int64)
    for i in range(kh):  # reference only: one slice per kernel offset
        for j in range(kw):
            patch = x[:, :, i:i + stride[0] * oh:stride[0], j:j + stride[1] * ow:stride[1]]
            out += np.einsum("nchw,fc->nfhw", patch, weight[:, :, i, j].astype(np.int64))
    if bias is not None:  # oneDNN's quantized convolution adds the int8 bias unscaled
        out += bias.astype(np.int64).reshape(1, -1, 1, 1)
    return [out.astype(np.int32), *_acc_range(_mabs(r[0], r[1]), 127, _mabs(r[2], r[3]))]


def _pool(data, lo, hi, kernel=(1, 1), stride=(1, 1), pad=(0, 0), pool_type="max",
          global_pool=False):
    if global_pool:
        kernel, stride, pad = data.shape[2:], (1, 1), (0, 0)
    fill = -np.inf if pool_type == "max" else 0.0
    x = np.pad(data.astype(np.float64), ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])),
               constant_values=fill)
    oh = (x.shape[2] - kernel[0]) // stride[0] + 1
    ow = (x.shape[3] - kernel[1]) // stride[1] + 1
    wins = np.stack([x[:, :, i:i + stride[0] * oh:stride[0], j:j + stride[1] * ow:stride[1]]
                     for i in range(kernel[0]) for j in range(kernel[1])])
    if pool_type == "max":
        value = wins.max(axis=0).astype(data.dtype)
    else:  # average over the whole window, padding included (MXNet's default)
        value = _sat(wins.sum(axis=0) / (kernel[0] * kernel[1]),
                     "uint8" if data.dtype == np.uint8 else "int8")
    return [value, lo, hi]


def _add(a, b, alo, ahi, blo, bhi, min_calib_range=None, max_calib_range=None):
    total = (a.astype(np.float64) * (float(_mabs(alo, ahi)) / 127.5)
             + b.astype(np.float64) * (float(_mabs(blo, bhi)) / 127.5))
    if min_calib_range is None:
        top = float(_mabs(alo, ahi)) + float(_mabs(blo, bhi))
        return [np.rint(total * (INT32_MAX / top)).astype(np.int32), *_r(-top, top)]
    kind = "uint8" if min_calib_range >= 0 else "int8"
    r = max(abs(min_calib_range), abs(max_calib_range))
    q = _sat(total * ((127.5 if kind == "int8" else 255.5) / r), kind)
    return [q, *(_r(-r, r) if kind == "int8" else _r(min_calib_range, max_calib_range))]


def _concat(*args, num_args, dim=1):
    """Output range ``[min(0, mins), max(0, maxes)]``, int8 when an input is int8; inputs
    at another scale (``127.5``/``255.5`` over their range) are rescaled."""
    datas, ranges = args[:num_args], args[num_args:]
    los, his = [float(a[0]) for a in ranges[::2]], [float(a[0]) for a in ranges[1::2]]
    lo, hi = min([0.0] + los), max([0.0] + his)
    kind = "int8" if any(d.dtype == np.int8 for d in datas) else "uint8"
    level = {"int8": F(127.5), "uint8": F(255.5)}
    out_scale = level[kind] / _mabs(lo, hi)
    parts = []
    for d, a, b in zip(datas, los, his):
        scale = level["int8" if d.dtype == np.int8 else "uint8"] / _mabs(a, b)
        parts.append(d if scale == out_scale and d.dtype == kind else
                     _sat(d.astype(np.float32) * (out_scale / scale), kind))
    return [np.concatenate(parts, axis=dim), *_r(lo, hi)]


def _mul(a, b, alo, ahi, blo, bhi, min_calib_range=None, max_calib_range=None,
         enable_float_output=False):
    prod = a.astype(np.int32) * b.astype(np.int32)
    unit = (_mabs(alo, ahi) / F(127.5)) * (_mabs(blo, bhi) / F(127.5))
    if enable_float_output:
        return prod.astype(np.float32) * unit
    if min_calib_range is None:
        top = float(_mabs(alo, ahi) * _mabs(blo, bhi) * F(INT32_MAX) / (F(127) * F(127)))
        return [prod, *_r(-top, top)]
    scale = unit * (F(127.5) / F(max(abs(min_calib_range), abs(max_calib_range))))
    q = np.clip(np.trunc(prod.astype(np.float32) * scale), -128, 127).astype(np.int8)
    return [q, *_r(min_calib_range, max_calib_range)]


_bn_p = [np.array(v, dtype=np.float32) for v in
         ([1.0, 2.0, 0.5], [0.1, -0.2, 0.3], [0.05, 0.1, -0.05], [1.0, 2.0, 0.5])]


def _bn(data, gamma, beta, mean, var, lo, hi, eps=1e-3, fix_gamma=True,
        min_calib_range=None, max_calib_range=None, **_):
    """MXNet's oneDNN kernel: uint8 data rescaled to int8 first; scale and shift fold in
    the data and calibrated output ranges; one more ``1 / sqrt(1 + eps)``."""
    if data.dtype == np.uint8:
        data = _sat(data.astype(np.float32) * (F(127.5) / F(255.5)), "int8")
    g = np.ones_like(gamma) if fix_gamma else gamma
    invstd = (1.0 / np.sqrt(var.astype(np.float64) + eps)).astype(F)
    out_r = F(max(abs(min_calib_range), abs(max_calib_range)))
    scale = g * invstd * _mabs(lo, hi) / out_r / F(np.sqrt(F(1) + F(eps)))
    shift = (beta - mean * g * invstd) * F(127.5) / out_r
    y = data.astype(np.float32) * scale.reshape(1, -1, 1, 1) + shift.reshape(1, -1, 1, 1)
    return [_sat(y, "int8"), *_r(min_calib_range, max_calib_range)]


SAMPLES = {
    "_contrib_quantize": [
        Sample([_x, *_r(-1.0, 2.0)], dict(out_type="int8"), ref=_quantize),
        Sample([_xp, *_r(0.0, 1.5)], dict(out_type="uint8"), ref=_quantize),
        Sample([np.zeros((2, 3), np.float32), *_r(0.0, 0.0)], dict(out_type="int8"),
               ref=_quantize),  # a zero bias, quantized offline
        Sample([np.array([0.5, 1.5, -2.5, 3.5], np.float32), *_r(-127.0, 1.0)],
               dict(out_type="int8"), ref=_quantize),  # ties round to even
    ],
    "_contrib_quantize_v2": [
        Sample([_x], dict(out_type="int8"), ref=_quantize_v2),
        Sample([_xp], dict(out_type="uint8"), ref=_quantize_v2),
        Sample([_x], dict(out_type="int8", min_calib_range=-0.7, max_calib_range=0.9),
               ref=_quantize_v2),
        Sample([_xp], dict(out_type="uint8", min_calib_range=0.0, max_calib_range=1.3),
               ref=_quantize_v2),
        Sample([_xp], dict(out_type="auto", min_calib_range=0.0, max_calib_range=1.3),
               ref=_quantize_v2),
        Sample([_x], dict(out_type="auto", min_calib_range=-1.0, max_calib_range=1.3),
               ref=_quantize_v2),
        Sample([_x], dict(out_type="auto"), ref=_quantize_v2),
    ],
    "_contrib_quantize_asym": [
        Sample([_x.reshape(3, 2, 2)], ref=_quantize_asym),
        Sample([_x], dict(min_calib_range=-0.5, max_calib_range=1.0), ref=_quantize_asym),
        Sample([np.full((2, 3), 0.7, np.float32)], ref=_quantize_asym),
    ],
    "_contrib_dequantize": [
        Sample([_q, *_r(-1.0, 2.0)], ref=_dequantize),
        Sample([_u, *_r(0.0, 2.5)], ref=_dequantize),
        Sample([_i32, *_r(-0.9, 0.9)], ref=_dequantize),
    ],
    "_contrib_requantize": [
        Sample([_i32, *_r(-0.9, 0.9)], dict(out_type="int8"), ref=_requantize),
        Sample([_i32, *_r(-0.9, 0.9)], dict(out_type="int8", min_calib_range=-0.2,
                                               max_calib_range=0.3), ref=_requantize),
        Sample([_i32, *_r(-0.9, 0.9)], dict(out_type="uint8", min_calib_range=0.0,
                                               max_calib_range=0.3), ref=_requantize),
        Sample([_i32, *_r(-0.9, 0.9)], dict(out_type="auto", min_calib_range=0.0,
                                               max_calib_range=0.25), ref=_requantize),
        Sample([_i32, *_r(-0.9, 0.9)], dict(out_type="auto"), ref=_requantize),
    ],
    "_contrib_quantized_fully_connected": [
        Sample([_q, _fw, *_r(-1.0, 2.0, -0.5, 0.5)], dict(num_hidden=5, no_bias=True),
               ref=_fc),
        Sample([_q, _fw, _fb, *_r(-1.0, 2.0, -0.5, 0.5, -0.3, 0.3)], dict(num_hidden=5),
               ref=_fc),
        Sample([_u, _fw, _fb, *_r(0.0, 2.0, -0.5, 0.5, -0.3, 0.3)], dict(num_hidden=5),
               ref=_fc),
        Sample([_q, _fw4, _fb, *_r(-1.0, 2.0, -0.5, 0.5, -0.3, 0.3)],
               dict(num_hidden=5, flatten=False), ref=_fc),
    ],
    "_contrib_quantized_conv": [
        Sample([_u, _w, *_r(0.0, 2.0, -0.5, 0.5)],
               dict(kernel=(3, 3), num_filter=2, no_bias=True), ref=_conv),
        Sample([_u5, _w, _b2, *_r(0.0, 2.0, -0.5, 0.5, -0.3, 0.3)],
               dict(kernel=(3, 3), num_filter=2, stride=(2, 1), pad=(1, 1)), ref=_conv),
        Sample([_q, _w, _b2, *_r(-1.0, 2.0, -0.5, 0.5, -0.3, 0.3)],
               dict(kernel=(3, 3), num_filter=2, pad=(1, 1)), ref=_conv),
    ],
    "_contrib_quantized_pooling": [
        Sample([_q, *_r(-1.0, 2.0)], dict(kernel=(2, 2), stride=(2, 2), pool_type="max"),
               ref=_pool),
        Sample([_u, *_r(0.0, 2.0)], dict(kernel=(3, 3), stride=(1, 1), pad=(1, 1),
                                           pool_type="avg"), ref=_pool),
        Sample([_q, *_r(-1.0, 2.0)], dict(kernel=(2, 2), stride=(2, 2), pool_type="avg"),
               ref=_pool),
        Sample([_u5, *_r(0.0, 2.0)], dict(kernel=(1, 1), global_pool=True, pool_type="avg"),
               ref=_pool),
    ],
    "_contrib_quantized_flatten": [
        Sample([_q, *_r(-1.0, 2.0)], ref=lambda d, lo, hi: [d.reshape(2, -1), lo, hi]),
        Sample([_u, *_r(0.0, 2.0)], ref=lambda d, lo, hi: [d.reshape(2, -1), lo, hi]),
    ],
    "_contrib_quantized_act": [
        Sample([_q, *_r(-1.0, 2.0)], dict(act_type="relu"),
               ref=lambda d, lo, hi, **k: [np.maximum(d, 0), lo, hi]),
        Sample([_u, *_r(0.0, 2.0)], dict(act_type="relu"),
               ref=lambda d, lo, hi, **k: [d, lo, hi]),
    ],
    "_contrib_quantized_elemwise_mul": [
        Sample([_a8, _a8[::-1].copy(), *_r(-1.0, 2.0, -0.5, 0.4)], ref=_mul),
        Sample([_a8, _a8[::-1].copy(), *_r(-1.0, 2.0, -0.5, 0.4)],
               dict(min_calib_range=-0.9, max_calib_range=0.8), ref=_mul),
        Sample([_a8, _a8[::-1].copy(), *_r(-1.0, 2.0, -0.5, 0.4)],
               dict(enable_float_output=True), ref=_mul),
    ],
    "_contrib_quantized_batch_norm": [
        Sample([_q, *_bn_p, *_r(-1.0, 2.0)],
               dict(fix_gamma=False, min_calib_range=-2.0, max_calib_range=1.0), ref=_bn),
        Sample([_u, *_bn_p, *_r(0.0, 2.0)],
               dict(fix_gamma=True, min_calib_range=-0.5, max_calib_range=1.5), ref=_bn),
    ],
    "_contrib_quantized_embedding": [
        Sample([_idx, _ew, *_r(-1.0, 1.0)], dict(input_dim=6, output_dim=3),
               ref=lambda d, w, lo, hi, **k: [w[np.clip(d.astype(int), 0, 5)], lo, hi]),
    ],
    "_contrib_quantized_elemwise_add": [
        Sample([_a8, _a8[::-1].copy(), *_r(-1.0, 1.0, -0.5, 0.5)], ref=_add, atol=64,
               rtol=2e-7),
        Sample([_a8, _a8[::-1].copy(), *_r(-1.0, 1.0, -0.5, 0.5)],
               dict(min_calib_range=-1.2, max_calib_range=1.2), ref=_add),
        Sample([_a8, _a8[::-1].copy(), *_r(-1.0, 1.0, -0.5, 0.5)],
               dict(min_calib_range=0.0, max_calib_range=1.2), ref=_add),
    ],
    "_contrib_quantized_concat": [
        Sample([_a8, _c8, *_r(-1.0, 1.0, -0.37, 0.37)], dict(num_args=2, dim=1),
               ref=_concat),
        Sample([_a8.T.copy(), _c8.T.copy(), _a8.T.copy(), *_r(-0.6, 0.6, -1.3, 1.3, -0.2, 0.2)],
               dict(num_args=3, dim=0), ref=_concat),
        Sample([_u[:, :, :3].copy(), _q[:, :, :3].copy(), *_r(0.0, 2.0, -1.0, 0.8)],
               dict(num_args=2, dim=1), ref=_concat),
        Sample([_u, _u, *_r(0.0, 2.0, 0.0, 2.0)], dict(num_args=2, dim=3), ref=_concat),
    ],
    "_contrib_calibrate_entropy": [
        Sample([_hist, _edges], dict(num_quantized_bins=31), check=_shapes((1,), (1,))),
        Sample([_hist[:151].copy(), _edges[:152].copy()], dict(num_quantized_bins=15),
               check=_shapes((1,), (1,))),
    ],
}
