"""Fused CuPy kernels for the time loops of the ``RNN`` operator (GPU only).

On a GPU every launch costs ~10 us of host time, so the op-by-op step of
:mod:`.rnn_lstm` / :mod:`.rnn_cells` (a dozen small kernels per time step) is bound
by the host, not the device.  Here each direction of each layer runs as:

* forward: one GEMM for the input projection of every step (``(T*N, I) @ W_i2h.T``),
  then per step one recurrent GEMM (``matmul`` with ``out=`` into a preallocated
  buffer) and ONE generated elementwise kernel that adds the input projection, the
  recurrent result and both biases, applies the gate activations, updates the
  states (clipping, sequence-length carry) and writes what the backward needs into
  per-step slices of preallocated ``(T, ...)`` buffers;
* backward: per step ONE elementwise kernel (gate gradients from ``dh``, ``dc`` and the
  saved activations) and one GEMM ``dgates @ W_h2h``; the weight gradients and ``dx``
  are three GEMMs after the loop, as on the CPU.

Gradients that skip the GEMM (the part of ``dh`` that is carried past a step: the
whole of it at a masked step, ``z * dh`` in a GRU) go through a ``carry`` buffer that
the next step's kernel adds to the GEMM result, so a step needs no extra launch.

The caches have the layout of the NumPy path's (``gates`` hold the activations in
MXNet's gate order, LSTM ``i, f, g, o``, GRU ``r, z, n``).  Gate math runs in float32
for float16 data (in float64 for float64); the states are stored in the data's dtype.
Kernels are built once per process and mode (CuPy compiles them once per dtype).
Used only where ``xp`` is the real CuPy (:func:`usable`); callers keep their own
path otherwise.
"""
from __future__ import annotations

import numpy as np

from .rnn_lstm import lstm_cache

__all__ = ["usable", "kernel", "SOURCES", "PREAMBLE", "lstm_forward", "lstm_backward",
           "simple_forward", "simple_backward"]

#: Helpers shared by every kernel: the accumulation type of a storage type, sigmoid.
PREAMBLE = r"""
template <typename X> struct gl_rnn_acc { typedef float type; };
template <> struct gl_rnn_acc<double> { typedef double type; };
template <typename X> __device__ X gl_rnn_sigmoid(X a) { return X(1) / (X(1) + exp(-a)); }
"""

# flag bits of the ``flags`` kernel argument (uniform over a launch: no divergence)
_VALID, _CLIP, _CLIP_NAN, _CARRY_H, _SAVE_MASK, _RELU = 1, 2, 4, 8, 16, 32
_FOLD = 8          # backward: dh = mm + carry + dout in the kernel (LSTM without projection)

_LSTM_FWD = r"""
typedef typename gl_rnn_acc<T>::type A;
const ptrdiff_t n = i / H, k = i - n * H, b = n * 4 * H + k, g = 4 * H;
A gi = (A)gates[b] + (A)rec[b] + (A)bias[k] + (A)bias[g + k];
A gf = (A)gates[b + H] + (A)rec[b + H] + (A)bias[k + H] + (A)bias[g + k + H];
A gg = (A)gates[b + 2 * H] + (A)rec[b + 2 * H] + (A)bias[k + 2 * H] + (A)bias[g + k + 2 * H];
A go = (A)gates[b + 3 * H] + (A)rec[b + 3 * H] + (A)bias[k + 3 * H] + (A)bias[g + k + 3 * H];
gi = gl_rnn_sigmoid(gi);
gf = gl_rnn_sigmoid(gf);
gg = tanh(gg);
go = gl_rnn_sigmoid(go);
gates[b] = (T)gi;
gates[b + H] = (T)gf;
gates[b + 2 * H] = (T)gg;
gates[b + 3 * H] = (T)go;
// the new cell state is rounded to the storage type before clipping, as stored
A c = (A)(T)(gf * (A)c_prev + gi * gg);
if (flags & 2) {
  const A lo_ = (A)(T)lo, hi_ = (A)(T)hi;
  const bool pass = c >= lo_ && c <= hi_;
  if (isnan(c)) {
    if (flags & 4) c = lo_;
  } else {
    c = c < lo_ ? lo_ : (c > hi_ ? hi_ : c);
  }
  if (flags & 16) cmask[i] = pass;
}
const A t = tanh(c);
tc = (T)t;
const bool v = !(flags & 1) || valid[n];
if (v) {
  c_out = (T)c;
  h_out = (T)(go * t);
} else {
  c_out = c_prev;
  if (flags & 8) h_out = h_prev[i]; else h_out = (T)(go * t);
}
"""

_LSTM_BWD = r"""
typedef typename gl_rnn_acc<T>::type A;
const ptrdiff_t n = i / H, k = i - n * H, b = n * 4 * H + k;
A dh = (A)dh_in;
if (flags & 8) dh += (A)carry[i] + (A)dout[i];
const bool v = !(flags & 1) || valid[n];
if (!v) {
  if (flags & 8) carry[i] = (T)dh;
  dg[b] = (T)(A)0;
  dg[b + H] = (T)(A)0;
  dg[b + 2 * H] = (T)(A)0;
  dg[b + 3 * H] = (T)(A)0;
} else {
  if (flags & 8) carry[i] = (T)(A)0;
  const A gi = (A)gates[b], gf = (A)gates[b + H], gg = (A)gates[b + 2 * H];
  const A go = (A)gates[b + 3 * H], t = (A)tc;
  A d = (A)dc + dh * go * ((A)1 - t * t);
  if ((flags & 2) && !cmask[i]) d = (A)0;
  dg[b] = (T)(d * gg * gi * ((A)1 - gi));
  dg[b + H] = (T)(d * (A)c_prev * gf * ((A)1 - gf));
  dg[b + 2 * H] = (T)(d * gi * ((A)1 - gg * gg));
  dg[b + 3 * H] = (T)(dh * t * go * ((A)1 - go));
  dc = (T)(d * gf);
}
"""

# LSTMP backward, first half: the gradient of the step's projected output r
_PROJ_BWD = r"""
typedef typename gl_rnn_acc<T>::type A;
const A d = (A)mm + (A)carry + (A)dout;
const bool v = !(flags & 1) || valid[i / P];
if (v) {
  drs = (T)d;
  carry = (T)(A)0;
} else {
  drs = (T)(A)0;
  carry = (T)d;
}
"""

_GRU_FWD = r"""
typedef typename gl_rnn_acc<T>::type A;
const ptrdiff_t n = i / H, k = i - n * H, b = n * 3 * H + k, g = 3 * H;
const A r = gl_rnn_sigmoid((A)gates[b] + (A)bias[k] + (A)rec[b] + (A)bias[g + k]);
const A z = gl_rnn_sigmoid((A)gates[b + H] + (A)bias[k + H] + (A)rec[b + H]
                           + (A)bias[g + k + H]);
const A hv = (A)rec[b + 2 * H] + (A)bias[g + k + 2 * H];
const A nn = tanh((A)gates[b + 2 * H] + (A)bias[k + 2 * H] + r * hv);
gates[b] = (T)r;
gates[b + H] = (T)z;
gates[b + 2 * H] = (T)nn;
hn = (T)hv;
const bool v = !(flags & 1) || valid[n];
if (v) h_out = (T)(((A)1 - z) * nn + z * (A)h_prev); else h_out = h_prev;
"""

_GRU_BWD = r"""
typedef typename gl_rnn_acc<T>::type A;
const ptrdiff_t n = i / H, k = i - n * H, b = n * 3 * H + k;
const A dh = (A)mm + (A)carry + (A)dout;
const bool v = !(flags & 1) || valid[n];
if (!v) {
  carry = (T)dh;
  dxg[b] = (T)(A)0; dxg[b + H] = (T)(A)0; dxg[b + 2 * H] = (T)(A)0;
  dhg[b] = (T)(A)0; dhg[b + H] = (T)(A)0; dhg[b + 2 * H] = (T)(A)0;
} else {
  const A r = (A)gates[b], z = (A)gates[b + H], nn = (A)gates[b + 2 * H];
  const A dn = dh * ((A)1 - z) * ((A)1 - nn * nn);
  const A dz = dh * ((A)h_prev - nn) * z * ((A)1 - z);
  const A dr = dn * (A)hn * r * ((A)1 - r);
  dxg[b] = (T)dr; dxg[b + H] = (T)dz; dxg[b + 2 * H] = (T)dn;
  dhg[b] = (T)dr; dhg[b + H] = (T)dz; dhg[b + 2 * H] = (T)(dn * r);
  carry = (T)(dh * z);
}
"""

_RNN_FWD = r"""
typedef typename gl_rnn_acc<T>::type A;
const ptrdiff_t n = i / H, k = i - n * H;
const A p = (A)gates + (A)rec + (A)bias[k] + (A)bias[H + k];
const A h = (flags & 32) ? (p < (A)0 ? (A)0 : p) : tanh(p);
gates = (T)h;
const bool v = !(flags & 1) || valid[n];
if (v) h_out = (T)h; else h_out = h_prev;
"""

_RNN_BWD = r"""
typedef typename gl_rnn_acc<T>::type A;
const ptrdiff_t n = i / H;
const A dh = (A)mm + (A)carry + (A)dout;
const bool v = !(flags & 1) || valid[n];
if (!v) {
  carry = (T)dh;
  dg = (T)(A)0;
} else {
  carry = (T)(A)0;
  const A h = (A)gates;
  dg = (T)((flags & 32) ? (h > (A)0 ? dh : (A)0) : dh * ((A)1 - h * h));
}
"""

#: name -> (in_params, out_params, operation) of every kernel (``T`` is the data's
#: dtype, ``B`` the bias's, float32 for float16/float32 data).
SOURCES = {
    "lstm_fwd": ("raw T rec, raw B bias, T c_prev, raw T h_prev, raw bool valid, int32 H, "
                 "int32 flags, float64 lo, float64 hi",
                 "raw T gates, T c_out, T h_out, T tc, raw bool cmask", _LSTM_FWD),
    "lstm_bwd": ("raw T gates, T tc, T c_prev, T dh_in, raw T dout, raw bool cmask, "
                 "raw bool valid, int32 H, int32 flags",
                 "raw T carry, T dc, raw T dg", _LSTM_BWD),
    "proj_bwd": ("T mm, T dout, raw bool valid, int32 P, int32 flags",
                 "T carry, T drs", _PROJ_BWD),
    "gru_fwd": ("raw T rec, raw B bias, T h_prev, raw bool valid, int32 H, int32 flags",
                "raw T gates, T h_out, T hn", _GRU_FWD),
    "gru_bwd": ("raw T gates, T h_prev, T hn, T mm, T dout, raw bool valid, int32 H, "
                "int32 flags", "T carry, raw T dxg, raw T dhg", _GRU_BWD),
    "rnn_fwd": ("T rec, raw B bias, T h_prev, raw bool valid, int32 H, int32 flags",
                "T gates, T h_out", _RNN_FWD),
    "rnn_bwd": ("T gates, T mm, T dout, raw bool valid, int32 H, int32 flags",
                "T carry, T dg", _RNN_BWD),
}

_KERNELS: dict = {}


def usable(xp) -> bool:
    """Whether ``xp`` is the real CuPy (the test-only stand-in has no kernels)."""
    return getattr(xp, "__name__", "") == "cupy" and hasattr(xp, "ElementwiseKernel")


def kernel(xp, name: str):
    """The ``ElementwiseKernel`` ``name`` of :data:`SOURCES`, built once per process."""
    key = (xp.__name__, name)
    k = _KERNELS.get(key)
    if k is None:
        in_p, out_p, body = SOURCES[name]
        k = _KERNELS[key] = xp.ElementwiseKernel(in_p, out_p, body, "gl_rnn_" + name,
                                                 preamble=PREAMBLE)
    return k


def _bias(xp, b_i, b_h, dt):
    """``[b_i2h; b_h2h]`` in the accumulation dtype (float32 for float16)."""
    acc = np.float64 if dt == np.float64 else np.float32
    return xp.concatenate([b_i, b_h]).astype(acc)


def _prep(xp, valid):
    """Per-call values shared by the loops: flags and a stand-in for an absent ``valid``."""
    flags = _VALID if valid is not None else 0
    dummy = xp.ones((1,), dtype=bool)
    return flags, dummy


def lstm_forward(xp, x, w_i, w_h, b_i, b_h, h0, c0, clip=None, keep=False, valid=None,
                 w_r=None):
    """The CuPy version of :func:`.rnn_lstm.lstm_forward` (same arguments and results)."""
    t_len, n, in_size = x.shape
    hid = w_i.shape[0] // 4
    rec = w_h.shape[1]
    dt = x.dtype
    # the input projection of every step in one GEMM; the kernels turn it into the
    # gate activations in place (the backward's gate cache)
    gates = xp.matmul(x.reshape(t_len * n, in_size), w_i.T).reshape(t_len, n, 4 * hid)
    bias = _bias(xp, b_i, b_h, dt)
    w_ht = xp.ascontiguousarray(w_h.T)
    w_rt = xp.ascontiguousarray(w_r.T) if w_r is not None else None
    hs = xp.empty((t_len + 1, n, rec), dtype=dt)
    cs = xp.empty((t_len + 1, n, hid), dtype=dt)
    hs[0] = h0
    cs[0] = c0
    rec_buf = xp.empty((n, 4 * hid), dtype=dt)
    tcs = xp.empty((t_len if keep else 1, n, hid), dtype=dt)
    flags, dummy = _prep(xp, valid)
    lo = hi = 0.0
    cmask = None
    if clip is not None:
        flags |= _CLIP | (_CLIP_NAN if clip.clip_nan else 0)
        lo, hi = float(clip.lo), float(clip.hi)
        if keep:
            flags |= _SAVE_MASK
            cmask = xp.empty((t_len, n, hid), dtype=bool)
    hh = None
    if w_r is None:
        flags |= _CARRY_H
    else:
        hh = xp.empty((t_len if keep else 1, n, hid), dtype=dt)
        if valid is not None:
            skip = ~valid[:, :, None]
    step = kernel(xp, "lstm_fwd")
    for t in range(t_len):
        xp.matmul(hs[t], w_ht, out=rec_buf)
        h_out = hs[t + 1] if w_r is None else hh[t if keep else 0]
        step(rec_buf, bias, cs[t], hs[t], dummy if valid is None else valid[t], hid, flags,
             lo, hi, gates[t], cs[t + 1], h_out, tcs[t if keep else 0],
             dummy if cmask is None else cmask[t])
        if w_r is not None:
            xp.matmul(h_out, w_rt, out=hs[t + 1])
            if valid is not None:
                xp.copyto(hs[t + 1], hs[t], where=skip[t])
    if not keep:
        return hs[1:], hs[t_len], cs[t_len], None
    return hs[1:].copy(), hs[t_len], cs[t_len], lstm_cache(gates, hs, cs, tcs, cmask, hh)


def lstm_backward(xp, x, w_i, w_h, cache, d_out, d_h, d_c, valid=None, w_r=None):
    """The CuPy version of :func:`.rnn_lstm.lstm_backward` (same arguments and results)."""
    t_len, n, in_size = x.shape
    hid = w_i.shape[0] // 4
    rec = w_h.shape[1]
    dt = x.dtype
    gates, hs, cs, tcs = cache["gates"], cache["hs"], cache["cs"], cache["tc"]
    cmask = cache.get("cmask")
    d_out = xp.ascontiguousarray(d_out)           # raw kernel operands are indexed flat
    d_g = xp.empty((t_len, n, 4 * hid), dtype=dt)
    mm = xp.empty((n, rec), dtype=dt)             # dgates @ W_h2h of the step after
    mm[...] = d_h
    carry = xp.zeros((n, rec), dtype=dt)          # the part of dh that skipped the GEMM
    dc = xp.empty((n, hid), dtype=dt)
    dc[...] = d_c
    flags, dummy = _prep(xp, valid)
    if cmask is not None:
        flags |= _CLIP
    step = kernel(xp, "lstm_bwd")
    if w_r is None:
        flags |= _FOLD
        for t in range(t_len - 1, -1, -1):
            step(gates[t], tcs[t], cs[t], mm, d_out[t], dummy if cmask is None else cmask[t],
                 dummy if valid is None else valid[t], hid, flags, carry, dc, d_g[t])
            xp.matmul(d_g[t], w_h, out=mm)
    else:
        proj = kernel(xp, "proj_bwd")
        d_rs = xp.empty((t_len, n, rec), dtype=dt)
        dh = xp.empty((n, hid), dtype=dt)
        for t in range(t_len - 1, -1, -1):
            v = dummy if valid is None else valid[t]
            proj(mm, d_out[t], v, rec, flags, carry, d_rs[t])
            xp.matmul(d_rs[t], w_r, out=dh)
            step(gates[t], tcs[t], cs[t], dh, dh, dummy if cmask is None else cmask[t],
                 v, hid, flags, carry, dc, d_g[t])
            xp.matmul(d_g[t], w_h, out=mm)
    dh0 = mm + carry
    flat = d_g.reshape(t_len * n, 4 * hid)
    dx = xp.matmul(flat, w_i).reshape(x.shape)
    dw_i = xp.matmul(flat.T, x.reshape(t_len * n, in_size))
    dw_h = xp.matmul(flat.T, hs[:t_len].reshape(t_len * n, rec))
    db = flat.sum(axis=0)
    dw_r = None
    if w_r is not None:
        dw_r = xp.matmul(d_rs.reshape(t_len * n, rec).T, cache["hh"].reshape(t_len * n, hid))
    return dx, dw_i, dw_h, db, db, dh0, dc, dw_r


def simple_forward(xp, mode, x, w_i, w_h, b_i, b_h, h0, keep=False, valid=None):
    """The CuPy version of :func:`.rnn_cells.layer_forward` for ``gru``, ``rnn_tanh`` and
    ``rnn_relu`` (same results and cache layout)."""
    t_len, n, in_size = x.shape
    hid = w_h.shape[1]
    g = w_i.shape[0]
    dt = x.dtype
    gates = xp.matmul(x.reshape(t_len * n, in_size), w_i.T).reshape(t_len, n, g)
    bias = _bias(xp, b_i, b_h, dt)
    w_ht = xp.ascontiguousarray(w_h.T)
    hs = xp.empty((t_len + 1, n, hid), dtype=dt)
    hs[0] = h0
    rec_buf = xp.empty((n, g), dtype=dt)
    flags, dummy = _prep(xp, valid)
    gru = mode == "gru"
    hn = xp.empty((t_len if keep else 1, n, hid), dtype=dt) if gru else None
    if mode == "rnn_relu":
        flags |= _RELU
    step = kernel(xp, "gru_fwd" if gru else "rnn_fwd")
    for t in range(t_len):
        xp.matmul(hs[t], w_ht, out=rec_buf)
        v = dummy if valid is None else valid[t]
        if gru:
            step(rec_buf, bias, hs[t], v, hid, flags, gates[t], hs[t + 1],
                 hn[t if keep else 0])
        else:
            step(rec_buf, bias, hs[t], v, hid, flags, gates[t], hs[t + 1])
    if not keep:
        return hs[1:], hs[t_len], None, None
    cache = {"h_prev": hs[:t_len], "gates": gates}
    if gru:
        cache["hn"] = hn
    return hs[1:].copy(), hs[t_len], None, cache


def simple_backward(xp, mode, x, w_i, w_h, cache, d_out, d_h, valid=None):
    """The CuPy version of :func:`.rnn_cells.layer_backward` for ``gru``, ``rnn_tanh`` and
    ``rnn_relu`` (same results)."""
    t_len, n, in_size = x.shape
    hid = w_h.shape[1]
    dt = x.dtype
    gates_all, h_prev = cache["gates"], cache["h_prev"]
    gru = mode == "gru"
    d_out = xp.ascontiguousarray(d_out)
    d_xg = xp.empty(gates_all.shape, dtype=dt)
    d_hg = xp.empty(gates_all.shape, dtype=dt) if gru else d_xg
    mm = xp.empty((n, hid), dtype=dt)
    mm[...] = d_h
    carry = xp.zeros((n, hid), dtype=dt)
    flags, dummy = _prep(xp, valid)
    if mode == "rnn_relu":
        flags |= _RELU
    step = kernel(xp, "gru_bwd" if gru else "rnn_bwd")
    for t in range(t_len - 1, -1, -1):
        v = dummy if valid is None else valid[t]
        if gru:
            step(gates_all[t], h_prev[t], cache["hn"][t], mm, d_out[t], v, hid, flags,
                 carry, d_xg[t], d_hg[t])
        else:
            step(gates_all[t], mm, d_out[t], v, hid, flags, carry, d_xg[t])
        xp.matmul(d_hg[t], w_h, out=mm)
    dh0 = mm + carry
    flat_xg = d_xg.reshape(t_len * n, -1)
    flat_hg = d_hg.reshape(t_len * n, -1)
    dx = xp.matmul(flat_xg, w_i).reshape(x.shape)
    dw_i = xp.matmul(flat_xg.T, x.reshape(t_len * n, in_size))
    dw_h = xp.matmul(flat_hg.T, h_prev.reshape(t_len * n, hid))
    return dx, dw_i, dw_h, flat_xg.sum(axis=0), flat_hg.sum(axis=0), dh0, None, None
