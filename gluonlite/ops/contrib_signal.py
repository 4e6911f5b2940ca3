"""Signal and estimator operators of ``mx.contrib``: ``fft``, ``ifft``, ``count_sketch``,
``round_ste``, ``sign_ste``, ``allclose`` and ``hawkesll``, MXNet 1.9.1 semantics.

* ``fft`` transforms the last axis of real (N, d) or (N1, N2, N3, d) data and writes
  complex results interleaved, ``[re0, im0, re1, im1, ...]`` (shape (..., 2d)); ``ifft``
  reads that layout and returns the real part of the *unnormalised* inverse transform
  (cuFFT's convention: ``ifft(fft(x)) == d * x``).  Both gradients are the exact adjoints
  (the other transform of the head gradient), as MXNet's.  ``compute_size`` only sizes
  MXNet's cuFFT batches; it changes no value.  In MXNet both are GPU-only operators.
* ``count_sketch`` maps (N, d) (or (N1, N2, N3, d)) data to ``out_dim`` columns:
  ``out[n, h[i]] += s[i] * data[n, i]``.  It is one GEMM with the sparse sketch matrix
  ``M[i, h[i]] = s[i]``; the data gradient is the GEMM with ``M.T``; ``h`` and ``s``
  get zero gradients.  ``processing_batch_size`` changes no value (GPU-only in MXNet).
* ``round_ste`` / ``sign_ste``: ``round`` (halves away from zero) and ``sign`` forward,
  the identity as gradient (straight-through estimators).
* ``allclose``: ``all(|a - b| <= atol + rtol * |b|)`` with NaN handling, as one uint8
  flag.  The tolerances are float attributes compared in the data's dtype.
* ``hawkesll``: log-likelihood of K independent univariate Hawkes processes with
  exponential kernels for each of N ragged sequences, and the process memory at
  ``max_time`` (see :func:`_hawkes_forward`).  Its gradient, as MXNet's, is that of the
  log-likelihood only (the head gradient of the returned state is ignored) with respect
  to ``lda``, ``alpha`` and ``beta``; ``state`` and the observations get zeros.
"""
from __future__ import annotations

import numpy as np

from .attrs import Attr
from .common import fail, put, same_shape_infer
from .registry import OpDef, register

_FFT = "_contrib_fft"
_IFFT = "_contrib_ifft"
_CS = "_contrib_count_sketch"
_RSTE = "_contrib_round_ste"
_SSTE = "_contrib_sign_ste"
_AC = "_contrib_allclose"
_HLL = "_contrib_hawkesll"

_BLOCK = 1 << 22  # pairwise entries per block in hawkesll


def _acc(dtype) -> str:
    """Computation dtype: float64 stays, everything else computes in float32."""
    return "float64" if np.dtype(dtype) == np.float64 else "float32"


# -- fft / ifft -------------------------------------------------------------------------------

def _fft_infer_for(op: str, inverse: bool):
    def infer(attrs, shapes):
        data = shapes[0]
        if data is None:
            return [None], [None]
        if len(data) not in (2, 4):
            fail(op, "data must be 2-D (N, d) or 4-D (N1, N2, N3, d)", data)
        last = data[-1]
        if inverse and last and last % 2:
            fail(op, f"the last dimension ({last}) must be even: [real0, imag0, ...]", data)
        out_last = (last // 2 if inverse else last * 2) if last else 0
        return [tuple(data)], [tuple(data[:-1]) + (out_last,)]
    return infer


_fft_infer = _fft_infer_for(_FFT, False)
_ifft_infer = _fft_infer_for(_IFFT, True)


def _interleave(xp, re, im, dtype):
    """Real and imaginary parts (..., d) to real (..., 2d) ``[re0, im0, re1, im1, ...]``."""
    return xp.stack([re, im], axis=-1).reshape(re.shape[:-1] + (2 * re.shape[-1],)) \
        .astype(dtype)


def _deinterleave(x):
    """Real (..., 2d) interleaved to its real and imaginary parts (..., d)."""
    pairs = x.reshape(x.shape[:-1] + (x.shape[-1] // 2, 2))
    return pairs[..., 0], pairs[..., 1]


def _dft(xp, re, im, inverse: bool):
    """Unnormalised DFT of ``re + i im`` along the last axis (``exp(+i...)`` when
    ``inverse``), by the array module's FFT; returns the real and imaginary parts.
    ``im`` may be ``None`` (real input)."""
    d = re.shape[-1]
    z = re if im is None else re + 1j * im
    out = xp.fft.ifft(z, axis=-1) * d if inverse else xp.fft.fft(z, axis=-1)
    return out.real.astype(re.dtype), out.imag.astype(re.dtype)


def _fft_forward(oc, attrs, inputs, out):
    xp = oc.xp
    data = inputs[0]
    _fft_infer(attrs, [data.shape])
    re, im = _dft(xp, data.astype(_acc(data.dtype)), None, inverse=False)
    return [put(out, 0, _interleave(xp, re, im, data.dtype))]


def _fft_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    data = inputs[0]
    re, im = _deinterleave(out_grads[0].astype(_acc(data.dtype)))
    # the adjoint of the real-input DFT: the real part of the unnormalised inverse DFT
    grad, _ = _dft(xp, re, im, inverse=True)
    return [grad.astype(data.dtype)]


def _ifft_forward(oc, attrs, inputs, out):
    xp = oc.xp
    data = inputs[0]
    _ifft_infer(attrs, [data.shape])
    re, im = _deinterleave(data.astype(_acc(data.dtype)))
    res, _ = _dft(xp, re, im, inverse=True)  # cuFFT's inverse is unnormalised
    return [put(out, 0, res.astype(data.dtype))]


def _ifft_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    data = inputs[0]
    re, im = _dft(xp, out_grads[0].astype(_acc(data.dtype)), None, inverse=False)
    return [_interleave(xp, re, im, data.dtype)]


_FFT_ATTRS = {"compute_size": Attr("int", 128)}

register(OpDef(_FFT, _fft_forward, backward=_fft_backward, attrs=_FFT_ATTRS,
               infer_shape=_fft_infer, backward_uses=("inputs",),
               doc="1-D FFT of the last axis of real data; real/imag interleaved output."))
register(OpDef(_IFFT, _ifft_forward, backward=_ifft_backward, attrs=_FFT_ATTRS,
               infer_shape=_ifft_infer, backward_uses=("inputs",),
               doc="Real part of the unnormalised 1-D inverse FFT of interleaved data."))


# -- count_sketch -----------------------------------------------------------------------------

def _cs_infer(attrs, shapes):
    data, h, s = shapes
    if attrs.out_dim <= 0:
        fail(_CS, f"out_dim must be positive, got {attrs.out_dim}", data, h, s)
    if data is None:
        return [data, h, s], [None]
    if len(data) not in (2, 4):
        fail(_CS, "data must be 2-D (N, d) or 4-D (N1, N2, N3, d)", data, h, s)
    d = data[-1]
    for name, t in (("h", h), ("s", s)):
        if t is not None and (len(t) != 2 or (t[1] and d and t[1] != d)):
            fail(_CS, f"{name} must be 2-D (1, {d}): as long as the last dimension of data",
                 data, h, s)
    h = tuple(h) if h is not None else (1, d)
    s = tuple(s) if s is not None else (1, d)
    return [tuple(data), h, s], [tuple(data[:-1]) + (attrs.out_dim,)]


def _cs_matrix(xp, attrs, data, h, s, acc):
    """The sketch matrix (d, out_dim): ``M[i, h[i]] = s[i]``."""
    d = data.shape[-1]
    idx = h.reshape(-1)[:d].astype("int64")  # MXNet reads h as the data's float type
    if bool(xp.any((idx < 0) | (idx >= attrs.out_dim))):
        fail(_CS, f"hash indices h must lie in [0, out_dim={attrs.out_dim})",
             data.shape, h.shape, s.shape)
    m = xp.zeros((d, attrs.out_dim), dtype=acc)
    m[xp.arange(d), idx] = s.reshape(-1)[:d].astype(acc)
    return m


def _cs_forward(oc, attrs, inputs, out):
    xp = oc.xp
    data, h, s = inputs
    _cs_infer(attrs, [data.shape, h.shape, s.shape])
    acc = _acc(data.dtype)
    m = _cs_matrix(xp, attrs, data, h, s, acc)
    flat = data.reshape(-1, data.shape[-1]).astype(acc)
    res = (flat @ m).reshape(data.shape[:-1] + (attrs.out_dim,))
    return [put(out, 0, res.astype(data.dtype))]


def _cs_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    data, h, s = inputs
    acc = _acc(data.dtype)
    m = _cs_matrix(xp, attrs, data, h, s, acc)
    g = out_grads[0].reshape(-1, attrs.out_dim).astype(acc)
    grad = (g @ m.T).reshape(data.shape).astype(data.dtype)
    return [grad, xp.zeros_like(h), xp.zeros_like(s)]


register(OpDef(_CS, _cs_forward, backward=_cs_backward, inputs=("data", "h", "s"),
               attrs={"out_dim": Attr("int"), "processing_batch_size": Attr("int", 32)},
               infer_shape=_cs_infer, backward_uses=("inputs",),
               doc="Count sketch: out[..., h[i]] += s[i] * data[..., i]."))


# -- straight-through estimators --------------------------------------------------------------

def _round_away(xp, x):
    """``round``: halves go away from zero (NumPy rounds them to even)."""
    if x.dtype.kind != "f":
        return x.copy()
    t = xp.trunc(x)
    return xp.where(xp.abs(x - t) >= 0.5, t + xp.sign(x), t).astype(x.dtype)


def _ste(name: str, fn, doc: str):
    def forward(oc, attrs, inputs, out):
        return [put(out, 0, fn(oc.xp, inputs[0]))]

    def backward(oc, attrs, inputs, outputs, out_grads):
        return [out_grads[0].copy()]

    def backward_graph(F, attrs, inputs, outputs, out_grads):
        return [F.identity(out_grads[0])]

    register(OpDef(name, forward, backward=backward, infer_shape=same_shape_infer(name),
                   backward_uses=(), backward_graph=backward_graph, doc=doc))


_ste(_RSTE, _round_away, "Round (halves away from zero) with an identity gradient.")
_ste(_SSTE, lambda xp, x: xp.sign(x), "Sign with an identity gradient.")


# -- allclose ----------------------------------------------------------------------------------

def _ac_infer(attrs, shapes):
    a, b = shapes
    if a is not None and b is not None and tuple(a) != tuple(b):
        fail(_AC, "a and b must have the same shape", a, b)
    known = a if a is not None else b
    # a scalar (shape ``()``) even outside NumPy shape semantics, as MXNet 1.9.1
    return [known, known], [()]


def _ac_type(op, attrs, dtypes):
    known = next((d for d in dtypes if d is not None), None)
    return [known, known], [np.dtype(np.uint8)]


def _ac_forward(oc, attrs, inputs, out):
    xp = oc.xp
    a, b = inputs
    _ac_infer(attrs, [a.shape, b.shape])
    dt = a.dtype
    if dt.kind == "f":
        # the tolerances are C floats, cast to the data type before the comparison
        rtol, atol = dt.type(np.float32(attrs.rtol)), dt.type(np.float32(attrs.atol))
        close = xp.abs(a - b) <= atol + rtol * xp.abs(b)
        nan = xp.isnan(a) | xp.isnan(b)
        both = xp.isnan(a) & xp.isnan(b)
        close = xp.where(nan, both if attrs.equal_nan else False, close)
    else:
        rtol, atol = np.float32(attrs.rtol), np.float32(attrs.atol)
        diff = xp.abs(a.astype("float64") - b.astype("float64"))
        close = diff <= float(atol) + float(rtol) * xp.abs(b.astype("float64"))
    res = xp.asarray(bool(xp.all(close)) if a.size else True, dtype=np.uint8).reshape(())
    return [put(out, 0, res)]


register(OpDef(_AC, _ac_forward, inputs=("a", "b"),
               attrs={"rtol": Attr("float", 1e-5), "atol": Attr("float", 1e-8),
                      "equal_nan": Attr("bool", True)},
               infer_shape=_ac_infer, infer_type=_ac_type, differentiable=False,
               zero_dim_outputs=True,
               doc="1 (uint8) where every |a - b| <= atol + rtol * |b|, else 0."))


# -- hawkesll ----------------------------------------------------------------------------------

_HLL_INPUTS = ("lda", "alpha", "beta", "state", "lags", "marks", "valid_length", "max_time")


def _hll_infer(attrs, shapes):
    lda, alpha, beta, state, lags, marks, valid, tmax = shapes
    ndims = (2, 1, 1, 2, 2, 2, 1, 1)
    for name, s, nd in zip(_HLL_INPUTS, shapes, ndims):
        if s is not None and len(s) != nd:
            fail(_HLL, f"{name} must be {nd}-D", *shapes)
    n = next((s[0] for s in (lags, marks, lda, state, valid, tmax) if s is not None and s[0]),
             0)
    t = next((s[1] for s in (lags, marks) if s is not None and s[1]), 0)
    k = next((s[-1] for s in (lda, state, alpha, beta) if s is not None and s[-1]), 0)
    want = ((n, k), (k,), (k,), (n, k), (n, t), (n, t), (n,), (n,))
    merged = []
    for name, s, w in zip(_HLL_INPUTS, shapes, want):
        if s is not None and any(a and b and a != b for a, b in zip(s, w)):
            fail(_HLL, f"{name} has shape {tuple(s)}, expected {w} (N={n}, K={k}, T={t})",
                 *shapes)
        merged.append(tuple(w))
    return merged, [(n,), (n, k)]


def _hll_type(op, attrs, dtypes):
    known = next((d for i, d in enumerate(dtypes) if d is not None and i != 5), None)
    ins = [known] * 8
    ins[5] = np.dtype(np.int32)
    return ins, [known, known]


def _hll_events(xp, inputs):
    """Per-event quantities: times (N, T), valid mask, marks and the per-event
    parameters picked by mark."""
    lda, alpha, beta, state, lags, marks, valid, tmax = inputs
    acc = _acc(lda.dtype)
    n, t = lags.shape
    k = lda.shape[1]
    valid_mask = xp.arange(t)[None, :] < valid.astype(acc)[:, None]
    mk = marks.astype("int64")
    if bool(xp.any(valid_mask & ((mk < 0) | (mk >= k)))):
        fail(_HLL, f"marks must lie in [0, K={k})", lda.shape, marks.shape)
    mk = xp.where(valid_mask, mk, 0)
    # event times: the running sum of the lags (only valid events precede valid ones)
    times = xp.cumsum(xp.where(valid_mask, lags.astype(acc), 0), axis=1)
    return acc, valid_mask, mk, times


def _hll_memory(xp, acc, inputs, valid_mask, mk, times, with_dbeta: bool):
    """For every event j: the memory S_j just before it (the initial state decayed plus
    exp(-beta (t_j - t_i)) over earlier events i of its mark) and, optionally, dS_j/dbeta.
    Pairwise in blocks of events, bounding memory at O(N T block)."""
    lda, alpha, beta, state = (x.astype(acc) for x in inputs[:4])
    n, t = times.shape
    b_j = beta[mk]                                                        # (N, T)
    s0_j = xp.take_along_axis(state, mk, axis=1)                          # (N, T)
    e0 = xp.exp(-b_j * times)
    mem = s0_j * e0
    dmem = -times * s0_j * e0 if with_dbeta else None
    block = max(1, min(t, _BLOCK // max(1, n * t)))
    earlier = xp.arange(t)
    for lo in range(0, t, block):
        hi = min(t, lo + block)
        diff = times[:, lo:hi, None] - times[:, None, :]                  # (N, B, T)
        pair = ((earlier[None, None, :] < xp.arange(lo, hi)[None, :, None])
                & (mk[:, lo:hi, None] == mk[:, None, :]) & valid_mask[:, None, :])
        diff = xp.where(pair, diff, 0)
        e = xp.where(pair, xp.exp(-b_j[:, lo:hi, None] * diff), 0)
        mem[:, lo:hi] += e.sum(axis=2)
        if with_dbeta:
            dmem[:, lo:hi] -= (diff * e).sum(axis=2)
    return mem, dmem


def _hll_terms(xp, inputs, with_grad: bool):
    lda, alpha, beta, state, lags, marks, valid, tmax = inputs
    acc, valid_mask, mk, times = _hll_events(xp, inputs)
    mu, al, be, s0 = (x.astype(acc) for x in (lda, alpha, beta, state))
    tm = tmax.astype(acc)
    n, k = mu.shape
    mem, dmem = _hll_memory(xp, acc, inputs, valid_mask, mk, times, with_grad)
    mu_j = xp.take_along_axis(mu, mk, axis=1)
    a_j, b_j = al[mk], be[mk]
    intensity = mu_j + a_j * b_j * mem
    vm = valid_mask.astype(acc)
    # the compensator: integral of the intensity over (0, max_time] for every mark
    rest = tm[:, None] - times                                            # (N, T)
    er = xp.exp(-b_j * xp.where(valid_mask, rest, 0))
    onehot = (mk[:, :, None] == xp.arange(k)[None, None, :]) & valid_mask[:, :, None]
    oh = onehot.astype(acc)                                               # (N, T, K)
    eT = xp.exp(-be[None, :] * tm[:, None])                               # (N, K)
    decay_sum = s0 * (1 - eT) + xp.einsum("ntk,nt->nk", oh, 1 - er)
    comp = mu * tm[:, None] + al[None, :] * decay_sum
    with np.errstate(divide="ignore", invalid="ignore"):
        ll = (xp.where(valid_mask, xp.log(xp.where(valid_mask, intensity, 1)), 0).sum(axis=1)
              - comp.sum(axis=1))
    new_state = s0 * eT + xp.einsum("ntk,nt->nk", oh, er)
    if not with_grad:
        return ll, new_state, None
    inv = vm / xp.where(valid_mask, intensity, 1)                        # (N, T)
    g_mu = xp.einsum("ntk,nt->nk", oh, inv) - tm[:, None]
    g_alpha = xp.einsum("ntk,nt->nk", oh, inv * b_j * mem) - decay_sum
    d_decay = s0 * tm[:, None] * eT + xp.einsum("ntk,nt->nk", oh, rest * er * vm)
    g_beta = (xp.einsum("ntk,nt->nk", oh, inv * a_j * (mem + b_j * dmem))
              - al[None, :] * d_decay)
    return ll, new_state, (g_mu, g_alpha, g_beta)


def _hawkes_forward(oc, attrs, inputs, out):
    """Log-likelihood (N,) and the memory at ``max_time`` (N, K).

    For sample n and mark k, with event times t_j (running sums of the valid lags) and
    the memory ``S_k(t) = state_k exp(-beta_k t) + sum_{t_i < t, y_i = k}
    exp(-beta_k (t - t_i))``, the intensity is ``lda_k + alpha_k beta_k S_k(t)`` and
    ``ll = sum_j log(intensity at t_j) - sum_k integral_0^max_time intensity_k``.
    """
    xp = oc.xp
    _hll_infer(None, [x.shape for x in inputs])
    dt = inputs[0].dtype
    ll, new_state, _ = _hll_terms(xp, inputs, False)
    return [put(out, 0, ll.astype(dt)), put(out, 1, new_state.astype(dt))]


def _hawkes_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    dt = inputs[0].dtype
    _, _, (g_mu, g_alpha, g_beta) = _hll_terms(xp, inputs, True)
    head = out_grads[0].astype(g_mu.dtype)[:, None]
    zeros = [xp.zeros_like(x) for x in inputs[3:]]
    return [(g_mu * head).astype(dt), (g_alpha * head).sum(axis=0).astype(dt),
            (g_beta * head).sum(axis=0).astype(dt)] + zeros


register(OpDef(_HLL, _hawkes_forward, backward=_hawkes_backward, inputs=_HLL_INPUTS,
               num_outputs=2, output_names=("output", "out_state"), infer_shape=_hll_infer,
               infer_type=_hll_type, backward_uses=("inputs",),
               doc="Log-likelihood of exponential-kernel Hawkes processes."))
