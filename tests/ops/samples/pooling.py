"""Samples for ``Pooling`` (max/avg/sum/lp, valid/full/same, global, 1-D to 3-D)."""
import itertools

import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(41)


def _x(*shape):
    return _rng.standard_normal(shape)


def _distinct(*shape):
    """No ties and gaps far above the FD step: max pooling has a clean gradient."""
    n = int(np.prod(shape))
    return _rng.permutation(n).reshape(shape) / n * 4 - 2


def pool_ref(x, kernel=(), pool_type="max", global_pool=False, pooling_convention="valid",
             stride=(), pad=(), p_value=None, count_include_pad=None, **_):
    """Window-by-window reference (loops: test sizes only)."""
    nd = x.ndim - 2
    sp = x.shape[2:]
    if global_pool:
        kernel, stride, pad = sp, (1,) * nd, (0,) * nd
    stride = tuple(stride) or (1,) * nd
    pad = tuple(pad) or (0,) * nd
    outs, los = [], []
    for n, k, s, p in zip(sp, kernel, stride, pad):
        if pooling_convention == "same" and not global_pool:
            o = -(-n // s)
            p = max((o - 1) * s + k - n, 0) // 2
        elif pooling_convention == "full" and not global_pool:
            o = -(-(n + 2 * p - k) // s) + 1
        else:
            o = (n + 2 * p - k) // s + 1
        outs.append(o)
        los.append(p)
    y = np.zeros(x.shape[:2] + tuple(outs))
    include = count_include_pad is None or count_include_pad
    for pos in itertools.product(*[range(o) for o in outs]):
        starts = [q * s - p for q, s, p in zip(pos, stride, los)]
        lo = [max(a, 0) for a in starts]
        hi = [min(a + k, n) for a, k, n in zip(starts, kernel, sp)]
        win = x[(slice(None), slice(None)) + tuple(slice(a, b) for a, b in zip(lo, hi))]
        win = win.reshape(x.shape[:2] + (-1,))
        idx = (slice(None), slice(None)) + pos
        if pool_type == "max":
            y[idx] = win.max(-1) if win.shape[-1] else np.finfo(x.dtype).min
        elif pool_type == "sum":
            y[idx] = win.sum(-1)
        elif pool_type == "lp":
            t = (win ** p_value).sum(-1)
            y[idx] = np.sign(t) * np.abs(t) ** (1.0 / p_value)
        else:
            if include:
                cnt = np.prod([min(a + k, n + p) - a for a, k, n, p in
                               zip(starts, kernel, sp, pad or (0,) * nd)])
            else:
                cnt = np.prod([b - a for a, b in zip(lo, hi)])
            y[idx] = win.sum(-1) / max(cnt, 1)
    return y


def _ties(*shape, dtype=np.float32, nan=False):
    """ReLU-like data rounded to few values, plus windows that are all equal: many ties."""
    x = np.maximum(np.round(_rng.standard_normal(shape) * 2) / 2, 0)
    x[..., :2, :2] = 0.5           # one window of four equal maxima
    x[..., 2:4, :2] = [[0, 1], [1, 1]]  # ties in the second window row and column
    if nan:
        x[0, 0, -2, -1] = np.nan
    return x.astype(dtype)


def max_first_grad(x, kernel=(), stride=(), **_):
    """Max pooling's gradient for a head of ones: 1 on the first maximum of each
    window in row-major order (MXNet's choice on ties), nothing for NaN windows."""
    g = np.zeros(x.shape, x.dtype)
    (kh, kw), (sh, sw) = kernel, stride
    for i in range(0, x.shape[2] - kh + 1, sh):
        for j in range(0, x.shape[3] - kw + 1, sw):
            for n, c in itertools.product(range(x.shape[0]), range(x.shape[1])):
                win = x[n, c, i:i + kh, j:j + kw]
                if np.isnan(win).any():
                    continue
                a, b = np.unravel_index(np.argmax(win), win.shape)
                g[n, c, i + a, j + b] += 1
    return g


SAMPLES = {
    "Pooling": [
        # 2x2 / stride 2 max pooling (``_pool_max2``): ties, float16/32, odd sizes, NaN
        Sample([_ties(2, 3, 6, 8)], dict(kernel=(2, 2), stride=(2, 2)), ref=pool_ref,
               grad_ref=max_first_grad, name="max2_ties_f32"),
        Sample([_ties(1, 2, 4, 6, dtype=np.float16)], dict(kernel=(2, 2), stride=(2, 2)),
               ref=pool_ref, grad_ref=max_first_grad, rtol=1e-3, name="max2_ties_f16"),
        Sample([_ties(2, 2, 7, 5)], dict(kernel=(2, 2), stride=(2, 2)), ref=pool_ref,
               grad_ref=max_first_grad, name="max2_ties_odd"),
        # (cuDNN hands a NaN window's gradient to the NaN: the GPU check takes the
        # operator's own kernels, which keep MXNet's CPU rule)
        Sample([_ties(2, 2, 6, 4, nan=True)], dict(kernel=(2, 2), stride=(2, 2), cudnn_off=True),
               ref=pool_ref, grad_ref=max_first_grad, name="max2_nan"),
        Sample([_ties(2, 2, 4, 4, dtype=np.float64)], dict(kernel=(2, 2), stride=(2, 2)),
               ref=pool_ref, grad_ref=max_first_grad, name="max2_ties_f64"),
        Sample([_distinct(2, 2, 5, 5)], dict(kernel=(2, 2), stride=(2, 2)), ref=pool_ref),
        Sample([_distinct(1, 2, 5, 6)], dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1)),
               ref=pool_ref, name="max_pad_overlap"),
        Sample([_distinct(1, 2, 5, 5)], dict(kernel=(2, 2), stride=(2, 2),
                                             pooling_convention="full"),
               ref=pool_ref, name="max_full"),
        Sample([_x(1, 2, 5, 5)], dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1),
                                      pool_type="avg", pooling_convention="full"),
               ref=pool_ref, name="avg_full"),
        Sample([_x(1, 2, 5, 4)], dict(kernel=(3, 2), stride=(2, 1), pad=(1, 1),
                                      pool_type="avg", count_include_pad=False),
               ref=pool_ref, name="avg_exclude_pad"),
        Sample([_x(2, 2, 4, 4)], dict(kernel=(2, 2), pool_type="sum"), ref=pool_ref,
               name="sum"),
        Sample([_x(1, 2, 4, 4)], dict(kernel=(2, 2), stride=(2, 2), pool_type="lp",
                                      p_value=2), ref=pool_ref, name="lp2"),
        Sample([_x(1, 2, 4, 4)], dict(kernel=(2, 2), stride=(2, 2), pool_type="lp",
                                      p_value=1), ref=pool_ref, name="lp1"),
        Sample([_distinct(2, 3, 3, 4)], dict(global_pool=True), ref=pool_ref,
               name="global_max"),
        Sample([_x(2, 3, 3, 4)], dict(kernel=(1, 1), global_pool=True, pool_type="avg"),
               ref=pool_ref, name="global_avg"),
        Sample([_x(2, 2, 7)], dict(kernel=(3,), stride=(2,), pad=(1,), pool_type="avg"),
               ref=pool_ref, name="1d_avg"),
        Sample([_distinct(1, 1, 7)], dict(kernel=(3,), stride=(2,),
                                          pooling_convention="same"),
               ref=pool_ref, name="1d_same"),
        Sample([_distinct(1, 2, 3, 4, 4)], dict(kernel=(2, 2, 2), stride=(1, 2, 2)),
               ref=pool_ref, name="3d_max"),
    ],
}
