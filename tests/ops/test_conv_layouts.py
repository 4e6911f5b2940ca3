"""Both column layouts of ``Convolution`` (channel-first and batch-last) against a
float64 reference, forward and backward, for every geometry the layout choice
sees: strides, dilation, padding, groups, 1-D/2-D/3-D."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.ops import _batch_last, convolution

nd = mx.nd


def _offsets(kernel):
    return [tuple(int(v) for v in o) for o in np.ndindex(*kernel)]


def _windows(x, off, osz, stride, dilate):
    """x[:, :, off*dilate + i*stride] for every output index i (one kernel offset)."""
    idx = (slice(None), slice(None)) + tuple(
        slice(o * d, o * d + (n - 1) * s + 1, s) for o, n, s, d in zip(off, osz, stride, dilate))
    return idx


def _reference(x, w, b, dy, stride, dilate, pad, groups):
    """Forward and the three gradients in float64, one kernel offset at a time."""
    x, w, b, dy = (a.astype(np.float64) for a in (x, w, b, dy))
    nd_ = x.ndim - 2
    xp_ = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    f, cg = w.shape[:2]
    kernel = w.shape[2:]
    osz = dy.shape[2:]
    fg = f // groups
    y = np.zeros(dy.shape)
    dxp = np.zeros(xp_.shape)
    dw = np.zeros(w.shape)
    for off in _offsets(kernel):
        idx = _windows(xp_, off, osz, stride, dilate)
        win = xp_[idx]                                      # (N, C, *out)
        for g in range(groups):
            wk = w[(slice(g * fg, (g + 1) * fg), slice(None)) + off]      # (Fg, Cg)
            xs = win[:, g * cg:(g + 1) * cg]
            ds = dy[:, g * fg:(g + 1) * fg]
            y[:, g * fg:(g + 1) * fg] += np.einsum("fc,nc...->nf...", wk, xs)
            flat = [a.reshape(a.shape[:2] + (-1,)) for a in (ds, xs)]
            dw[(slice(g * fg, (g + 1) * fg), slice(None)) + off] += np.einsum(
                "nfp,ncp->fc", *flat)
            part = np.einsum("fc,nf...->nc...", wk, ds)
            sub = (idx[0], slice(g * cg, (g + 1) * cg)) + idx[2:]
            dxp[sub] += part
    y += b.reshape((1, f) + (1,) * nd_)
    crop = (slice(None), slice(None)) + tuple(slice(p, p + s) for p, s in
                                              zip(pad, x.shape[2:]))
    return y, dxp[crop], dw, dy.sum(axis=(0,) + tuple(range(2, dy.ndim)))


CASES = [
    # (x shape, num_filter, kernel, stride, dilate, pad, groups)
    ((4, 3, 9, 8), 5, (3, 3), (1, 1), (1, 1), (0, 0), 1),
    ((3, 4, 10, 9), 6, (3, 2), (2, 1), (1, 1), (1, 0), 2),
    ((2, 4, 11, 10), 4, (3, 3), (1, 2), (2, 1), (2, 1), 1),
    ((2, 6, 12), 3, (4,), (3,), (1,), (1,), 3),
    ((2, 2, 5, 6, 5), 3, (2, 3, 2), (1, 1, 2), (1, 1, 1), (1, 0, 1), 1),
    ((5, 1, 12, 12), 4, (5, 5), (1, 1), (1, 1), (0, 0), 1),      # LeNet's first layer
]


@pytest.mark.parametrize("batch_last", [False, True])
@pytest.mark.parametrize("case", CASES, ids=[str(c[0]) for c in CASES])
def test_both_layouts_match_reference(monkeypatch, batch_last, case):
    shape, f, kernel, stride, dilate, pad, groups = case
    monkeypatch.setattr(convolution, "use_batch_last", lambda *args: batch_last)
    rng = np.random.default_rng(len(shape) + f)
    x = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal((f, shape[1] // groups) + kernel).astype(np.float32)
    b = rng.standard_normal(f).astype(np.float32)
    args = [nd.array(a, dtype="float32") for a in (x, w, b)]
    for a in args:
        a.attach_grad()
    with mx.autograd.record():
        y = nd.Convolution(*args, kernel=kernel, stride=stride, dilate=dilate, pad=pad,
                           num_filter=f, num_group=groups)
    dy = rng.standard_normal(y.shape).astype(np.float32)
    y.backward(nd.array(dy, dtype="float32"))
    want = _reference(x, w, b, dy, stride, dilate, pad, groups)
    got = [y.asnumpy()] + [a.grad.asnumpy() for a in args]
    for name, g, r in zip(("y", "dx", "dw", "db"), got, want):
        assert g.dtype == np.float32, name
        np.testing.assert_allclose(g, r, rtol=1e-4, atol=1e-4, err_msg=name)
    assert y._data.flags["C_CONTIGUOUS"]  # never a transposed view of a GEMM result
    assert args[0].grad._data.flags["C_CONTIGUOUS"]


def test_layout_choice():
    # LeNet: 1 -> 20 channels stays channel-first, 20 -> 50 goes batch-last
    assert not _batch_last.use_batch_last(1, 20, (5, 5), 24)
    assert _batch_last.use_batch_last(20, 50, (5, 5), 8)
    assert not _batch_last.use_batch_last(20, 50, (5, 5), 100)  # long rows
    assert not _batch_last.use_batch_last(64, 16, (1, 1), 8)    # 1x1: a plain transpose
