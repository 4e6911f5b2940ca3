"""Samples for ``_contrib_fft``, ``_contrib_ifft``, ``_contrib_count_sketch``, the
straight-through estimators, ``_contrib_allclose`` and ``_contrib_hawkesll`` with NumPy
references (MXNet 1.9.1's values are checked in ``tests/ops/test_contrib_extra_mxnet.py``;
fft, ifft and count_sketch are GPU-only in MXNet)."""
import math

import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(31)


def _x(*shape, dtype=np.float64):
    return _rng.standard_normal(shape).astype(dtype)


def _fft_ref(data, compute_size=128):
    z = np.fft.fft(data.astype(np.float64), axis=-1)
    return np.stack([z.real, z.imag], -1).reshape(data.shape[:-1] + (-1,))


def _ifft_ref(data, compute_size=128):
    z = data[..., 0::2] + 1j * data[..., 1::2]
    return (np.fft.ifft(z, axis=-1) * z.shape[-1]).real


def _cs_ref(data, h, s, out_dim, processing_batch_size=32):
    flat = data.reshape(-1, data.shape[-1])
    out = np.zeros((flat.shape[0], out_dim))
    for i in range(data.shape[-1]):
        out[:, int(h[0, i])] += s[0, i] * flat[:, i]
    return out.reshape(data.shape[:-1] + (out_dim,))


def _round_ref(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def _allclose_ref(a, b, rtol=1e-5, atol=1e-8, equal_nan=True):
    rtol, atol = a.dtype.type(np.float32(rtol)), a.dtype.type(np.float32(atol))
    ok = np.abs(a - b) <= atol + rtol * np.abs(b)
    nan = np.isnan(a) | np.isnan(b)
    ok = np.where(nan, (np.isnan(a) & np.isnan(b)) if equal_nan else False, ok)
    return np.array(int(ok.all()), np.uint8)  # shape (), as MXNet 1.9.1 gives it


def _hawkes_ref(lda, alpha, beta, state, lags, marks, valid_length, max_time):
    """The recurrence of the operator's documentation, one event at a time."""
    n, k = lda.shape
    ll = np.zeros(n)
    out_state = state.astype(np.float64).copy()
    for i in range(n):
        last = np.zeros(k)
        t = 0.0
        for j in range(int(math.ceil(valid_length[i]))):
            c = int(marks[i, j])
            t += lags[i, j]
            d = t - last[c]
            ed = math.exp(-beta[c] * d)
            lam = lda[i, c] + alpha[c] * beta[c] * out_state[i, c] * ed
            ll[i] += math.log(lam) - (lda[i, c] * d + alpha[c] * out_state[i, c] * (1 - ed))
            out_state[i, c] = 1 + out_state[i, c] * ed
            last[c] = t
        for c in range(k):
            d = max_time[i] - last[c]
            ed = math.exp(-beta[c] * d)
            ll[i] -= lda[i, c] * d + alpha[c] * out_state[i, c] * (1 - ed)
            out_state[i, c] *= ed
    return [ll, out_state]


def _hawkes_grad_ref(*inputs):
    """Finite differences of sum(log-likelihood) in lda, alpha and beta (MXNet's gradient
    ignores the head gradient of the returned state)."""
    grads = []
    for which in (0, 1, 2):
        base = [np.array(a, dtype=a.dtype) for a in inputs]
        x = base[which]
        g = np.zeros(x.shape)
        for idx in np.ndindex(x.shape):
            orig = x[idx]
            x[idx] = orig + 1e-6
            plus = _hawkes_ref(*base)[0].sum()
            x[idx] = orig - 1e-6
            minus = _hawkes_ref(*base)[0].sum()
            x[idx] = orig
            g[idx] = (plus - minus) / 2e-6
        grads.append(g)
    return grads


def _hawkes_inputs(dtype):
    n, k, t = 3, 2, 5
    return [_rng.uniform(0.5, 2.0, (n, k)).astype(dtype), np.array([0.3, 0.6], dtype),
            np.array([1.5, 0.8], dtype), _rng.uniform(0, 1, (n, k)).astype(dtype),
            _rng.uniform(0.1, 1.0, (n, t)).astype(dtype),
            _rng.integers(0, k, (n, t)).astype(np.int32), np.array([5, 2.5, 0], dtype),
            np.array([6.0, 3.0, 1.0], dtype)]


_H = np.array([[1, 3, 0, 2, 3]], np.float64)
_S = np.array([[1, -1, -1, 1, 1]], np.float64)

SAMPLES = {
    "_contrib_fft": [
        Sample([_x(3, 8)], ref=_fft_ref, name="2d"),
        Sample([_x(2, 1, 3, 5, dtype=np.float32)], dict(compute_size=2), ref=_fft_ref,
               rtol=1e-5, atol=1e-5, grad=False, name="4d_float32"),
        Sample([_x(2, 1, 2, 3)], dict(compute_size=1), ref=_fft_ref, name="4d"),
    ],
    "_contrib_ifft": [
        Sample([_x(3, 8)], ref=_ifft_ref, name="2d"),
        Sample([_x(2, 2, 1, 6, dtype=np.float32)], ref=_ifft_ref, rtol=1e-5, atol=1e-5,
               grad=False, name="4d_float32"),
    ],
    "_contrib_count_sketch": [
        Sample([_x(4, 5), _H, _S], dict(out_dim=4), ref=_cs_ref, grad=[0], name="2d"),
        Sample([_x(2, 1, 3, 5, dtype=np.float32), _H.astype(np.float32),
                _S.astype(np.float32)], dict(out_dim=6, processing_batch_size=2),
               ref=_cs_ref, grad=False, rtol=1e-6, atol=1e-6, name="4d_float32"),
    ],
    "_contrib_round_ste": [
        Sample([np.array([[-2.5, -1.5, -0.4, 0.0], [0.5, 1.49, 2.5, 3.7]])], ref=_round_ref,
               grad_ref=lambda x: [np.ones_like(x)], name="halves"),
        Sample([_x(2, 3, 2, dtype=np.float32) * 3], ref=_round_ref,
               grad_ref=lambda x: [np.ones_like(x)], name="float32"),
    ],
    "_contrib_sign_ste": [
        Sample([np.array([[-2.0, 0.0, 3.0], [0.1, -0.1, 5.0]])], ref=np.sign,
               grad_ref=lambda x: [np.ones_like(x)], name="float64"),
        Sample([_x(2, 2, 3, dtype=np.float32)], ref=np.sign,
               grad_ref=lambda x: [np.ones_like(x)], name="float32"),
    ],
    "_contrib_allclose": [
        Sample([np.array([1e10, 1e-7], np.float32), np.array([1.00001e10, 1e-8], np.float32)],
               ref=_allclose_ref, grad=False, name="false_float32"),
        Sample([np.array([[1.0, 2.0]]), np.array([[1.0, 2.0 + 1e-6]])], ref=_allclose_ref,
               grad=False, name="true_float64"),
        Sample([np.array([1.0, 2.0]), np.array([1.1, 2.0])], dict(rtol=0.0, atol=0.2),
               ref=_allclose_ref, grad=False, name="atol"),
        Sample([np.array([np.nan, 1.0]), np.array([np.nan, 1.0])], ref=_allclose_ref,
               grad=False, name="nan_equal"),
        Sample([np.array([np.nan, 1.0]), np.array([np.nan, 1.0])], dict(equal_nan=False),
               ref=_allclose_ref, grad=False, name="nan_unequal"),
    ],
    "_contrib_hawkesll": [
        Sample(_hawkes_inputs(np.float64), ref=_hawkes_ref, grad=[0, 1, 2],
               grad_ref=_hawkes_grad_ref, rtol=1e-10, atol=1e-10, grad_rtol=1e-5,
               grad_atol=1e-6, name="float64"),
        Sample(_hawkes_inputs(np.float32), ref=_hawkes_ref, grad=False, rtol=1e-5,
               atol=1e-5, name="float32"),
    ],
}
