"""The one-launch CuPy kernels of ``_gpu_window`` (im2col, col2im) and ``_gpu_pool``.

CPU tests cover the argument packing, the kernel texts and a max-pooling backward
regression of the NumPy path; the ``gpu`` tests compare the CuPy kernels with the
NumPy paths (float16/32/64, stride, dilation, padding, 1-D to 3-D, every pooling
convention, non-contiguous inputs, gradients) and count launches.
"""
from __future__ import annotations

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.ops import _batch_last, _gpu_pool, _gpu_window, _window
from gluonlite.ops.registry import OpContext, get_op

TOL = {np.float16: 2e-2, np.float32: 1e-5, np.float64: 1e-12}


# -- CPU ----------------------------------------------------------------------------------
def test_pack3_pads_leading_axes():
    assert _gpu_window.pack3((5,), 1) == (1, 1, 5)
    assert _gpu_window.pack3((2, 3), 0) == (0, 2, 3)
    assert _gpu_window.pack3((2, 3, 4), 1) == (2, 3, 4)
    with pytest.raises(ValueError):
        _gpu_window.pack3((), 1)
    with pytest.raises(ValueError):
        _gpu_window.pack3((1, 2, 3, 4), 1)


def test_index_type_widens_only_past_int32():
    assert _gpu_window.index_type(10, 2 ** 31 - 1) == "int"
    assert _gpu_window.index_type(10, 2 ** 31) == "long long"


def test_usable_only_on_real_cupy_floats():
    assert not _gpu_window.usable(np, np.float32)
    assert not _gpu_pool.usable(np, np.float32)

    class FakeCupy:
        __name__ = "cupy"
    assert _gpu_window.usable(FakeCupy(), np.float16)
    assert not _gpu_window.usable(FakeCupy(), np.int32)
    assert not _gpu_pool.usable(FakeCupy(), np.int64)


def test_pool_args_from_plan():
    from gluonlite.ops.pooling import _PoolPlan
    attrs = get_op("Pooling").parse_attrs(dict(kernel=(3, 2), stride=(2, 1), pad=(1, 0),
                                               pool_type="avg", pooling_convention="full"))
    plan = _PoolPlan(attrs, (2, 3, 7, 5))
    args = _gpu_pool.pool_args(plan, True, None)
    assert len(args) == len(_gpu_pool._INTS)
    assert args[:15] == (1, 7, 5) + (1,) + plan.out + (1, 3, 2) + (1, 2, 1) + (0, 1, 0)
    assert args[15:] == (0,) + plan.sym_pad + (1, 0)
    assert _gpu_pool.kernel_mode("lp", 1) == "sum"
    assert _gpu_pool.kernel_mode("lp", 2) == "lp"


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_kernel_texts(dtype):
    """Sizes are arguments (no shape in the text); names and types as CuPy wants them."""
    for bl in (False, True):
        for text in (_gpu_window.im2col_text(dtype, bl, "int"),
                     _gpu_window.col2im_text(dtype, bl, "long long")):
            assert text.in_params.startswith(f"raw {dtype} ")
            assert text.out_params == f"{dtype} {text.out}"
            assert text.operation.count("{") == text.operation.count("}")
    acc = "float64" if dtype == "float64" else "float32"
    for mode in _gpu_pool.MODES:
        for text in (_gpu_pool.forward_text(dtype, mode, "int"),
                     _gpu_pool.backward_text(dtype, mode, "int")):
            assert text.in_params.endswith(f"{acc} lowest")
            assert text.operation.count("{") == text.operation.count("}")
    assert "typedef float acc_t" in _gpu_pool.forward_text("float16", "avg", "int").preamble


def test_max_pool_backward_with_gaps_between_windows():
    """Stride larger than the kernel (no overlap, no padding): the gradient goes to the
    window positions, not to the upsampled block (a bug of the NumPy fast path)."""
    op = get_op("Pooling")
    attrs = op.parse_attrs(dict(kernel=(1, 2), stride=(2, 3), pool_type="max"))
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 5, 7))
    oc = OpContext(np, True, mx.cpu())
    y = op.forward(oc, attrs, [x], None)[0]
    dy = rng.standard_normal(y.shape)
    dx = op.backward(oc, attrs, [x], [y], [dy])[0]
    want = np.zeros_like(x)
    for i in range(y.shape[2]):
        for j in range(y.shape[3]):
            win = x[:, :, 2 * i, 3 * j:3 * j + 2]
            first = win.argmax(axis=-1)
            for n in range(2):
                for c in range(3):
                    want[n, c, 2 * i, 3 * j + first[n, c]] += dy[n, c, i, j]
    np.testing.assert_allclose(dx, want)


# -- GPU ----------------------------------------------------------------------------------
def _close(got, want, dtype):
    tol = TOL[np.dtype(dtype).type]
    want = np.asarray(want, np.float64)
    scale = max(1.0, float(np.nanmax(np.abs(want), initial=0)))
    np.testing.assert_allclose(np.asarray(got, np.float64), want, rtol=tol, atol=tol * scale)


_GEOMETRIES = [  # kernel, stride, dilate, pad, spatial
    ((3,), (1,), (1,), (1,), (9,)),
    ((5,), (2,), (2,), (3,), (17,)),
    ((3, 3), (1, 1), (1, 1), (1, 1), (7, 6)),
    ((5, 5), (2, 1), (1, 2), (2, 0), (11, 12)),
    ((2, 3), (3, 2), (2, 1), (0, 2), (8, 7)),
    ((1, 1), (2, 2), (1, 1), (0, 0), (5, 5)),
    ((3, 2, 3), (1, 2, 1), (1, 1, 2), (1, 0, 2), (5, 6, 7)),
]


def _out_sizes(kernel, stride, dilate, pad, spatial):
    return tuple((n + 2 * p - (d * (k - 1) + 1)) // s + 1
                 for k, s, d, p, n in zip(kernel, stride, dilate, pad, spatial))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("geo", _GEOMETRIES)
def test_im2col_col2im_match_numpy(geo, dtype):
    cp = pytest.importorskip("cupy")
    kernel, stride, dilate, pad, spatial = geo
    out = _out_sizes(*geo)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 4) + spatial).astype(dtype)
    want = _window.im2col(np, _window.pad_spatial(np, x, pad, pad), out, kernel, stride,
                          dilate, None)
    xg = cp.asarray(x)
    _close(cp.asnumpy(_window.im2col(cp, xg, out, kernel, stride, dilate, None, pad=pad)),
           want, dtype)
    # already padded input, and a non-contiguous one
    xpad = cp.asarray(_window.pad_spatial(np, x, pad, pad))
    _close(cp.asnumpy(_window.im2col(cp, xpad, out, kernel, stride, dilate)), want, dtype)
    xnc = cp.asarray(np.ascontiguousarray(x.swapaxes(0, 1))).swapaxes(0, 1)
    _close(cp.asnumpy(_window.im2col(cp, xnc, out, kernel, stride, dilate, pad=pad)),
           want, dtype)
    # col2im: whole padded target and the cropped gradient
    dcol = rng.standard_normal(want.shape).astype(dtype)
    padded = tuple(n + 2 * p for n, p in zip(spatial, pad))
    full = _window.col2im(np, dcol, (4, 3) + padded, out, kernel, stride, dilate).copy()
    got = _window.col2im(cp, cp.asarray(dcol), (4, 3) + padded, out, kernel, stride, dilate)
    _close(cp.asnumpy(got), full, dtype)
    got = _window.col2im(cp, cp.asarray(dcol), (4, 3) + padded, out, kernel, stride, dilate,
                         crop=(pad, spatial))
    _close(cp.asnumpy(got), _window.crop_spatial(full, pad, spatial), dtype)
    # batch-last layout
    xt = _batch_last.to_batch_last(np, x, pad).copy()
    want_bl = _batch_last.im2col_batch_last(np, xt, out, kernel, stride, dilate).copy()
    got = _batch_last.im2col_batch_last(cp, cp.asarray(xt), out, kernel, stride, dilate)
    _close(cp.asnumpy(got), want_bl, dtype)
    dcol = rng.standard_normal(want_bl.shape).astype(dtype)
    want = _batch_last.col2im_batch_last(np, dcol, padded, out, kernel, stride, dilate).copy()
    got = _batch_last.col2im_batch_last(cp, cp.asarray(dcol), padded, out, kernel, stride,
                                        dilate)
    _close(cp.asnumpy(got), want, dtype)


@pytest.mark.gpu
@pytest.mark.parametrize("groups", [1, 2])
@pytest.mark.parametrize("geo", _GEOMETRIES)
def test_convolution_without_cudnn_matches_numpy(geo, groups):
    cp = pytest.importorskip("cupy")
    kernel, stride, dilate, pad, spatial = geo
    op = get_op("Convolution")
    attrs = op.parse_attrs(dict(kernel=kernel, stride=stride, dilate=dilate, pad=pad,
                                num_filter=6, num_group=groups, cudnn_off=True))
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 4) + spatial)
    w = rng.standard_normal((6, 4 // groups) + kernel)
    b = rng.standard_normal(6)
    oc_np, oc_cp = OpContext(np, True, mx.cpu()), OpContext(cp, True, mx.gpu(0))
    y = op.forward(oc_np, attrs, [x, w, b], None)[0]
    xs = [cp.asarray(a) for a in (x, w, b)]
    _close(cp.asnumpy(op.forward(oc_cp, attrs, xs, None)[0]), y, np.float64)
    dy = rng.standard_normal(y.shape)
    want = op.backward(oc_np, attrs, [x, w, b], [y], [dy])
    got = op.backward(oc_cp, attrs, xs, [cp.asarray(y)], [cp.asarray(dy)])
    for g, wv in zip(got, want):
        _close(cp.asnumpy(g), wv, np.float64)


def _pool_cases():
    cases = []
    for kernel, stride, pad, spatial in [((3,), (2,), (1,), (10,)),
                                         ((2, 2), (2, 2), (0, 0), (7, 8)),
                                         ((3, 3), (2, 2), (1, 1), (9, 8)),
                                         ((1, 2), (2, 3), (0, 0), (5, 7)),
                                         ((3, 2, 2), (1, 2, 2), (1, 0, 1), (4, 5, 6))]:
        for conv in ("valid", "full", "same"):
            for kind in ("max", "avg", "sum", "lp"):
                kw = dict(kernel=kernel, stride=stride, pool_type=kind,
                          pooling_convention=conv)
                if conv != "same":
                    kw["pad"] = pad
                if kind == "lp":
                    kw["p_value"] = 2 if len(kernel) != 1 else 3
                cases.append((kw, spatial))
                if kind == "avg":
                    cases.append((dict(kw, count_include_pad=False), spatial))
    for kind in ("max", "avg", "sum"):
        cases.append((dict(global_pool=True, pool_type=kind), (5, 6)))
    cases.append((dict(kernel=(2,), pool_type="lp", p_value=1), (6,)))
    return cases


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("case", _pool_cases(), ids=lambda c: str(c[0]))
def test_pooling_matches_numpy(case, dtype):
    cp = pytest.importorskip("cupy")
    kw, spatial = case
    op = get_op("Pooling")
    attrs = op.parse_attrs(kw)
    rng = np.random.default_rng(3)
    # small integers give ties: the max gradient must go to the first maximum
    x = rng.integers(-3, 4, (2, 3) + spatial).astype(dtype)
    if kw["pool_type"] == "lp":
        x = np.abs(x) + rng.random(x.shape).astype(dtype)
    oc_np, oc_cp = OpContext(np, True, mx.cpu()), OpContext(cp, True, mx.gpu(0))
    y = op.forward(oc_np, attrs, [x], None)[0]
    xg = cp.asarray(np.ascontiguousarray(x.swapaxes(0, 1))).swapaxes(0, 1)  # non-contiguous
    yg = op.forward(oc_cp, attrs, [xg], None)[0]
    _close(cp.asnumpy(yg), y, dtype)
    dy = rng.standard_normal(y.shape).astype(dtype)
    want = op.backward(oc_np, attrs, [x], [y], [dy])[0]
    got = op.backward(oc_cp, attrs, [xg], [yg], [cp.asarray(dy)])[0]
    _close(cp.asnumpy(got), want, dtype)


@pytest.mark.gpu
def test_max_pooling_nan_and_padding_conventions():
    cp = pytest.importorskip("cupy")
    op = get_op("Pooling")
    attrs = op.parse_attrs(dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="max",
                                pooling_convention="full", cudnn_off=True))
    x = np.full((1, 2, 5, 5), -np.inf, np.float32)
    x[0, 1] = np.random.default_rng(4).standard_normal((5, 5))
    x[0, 1, 2, 2] = np.nan
    oc_np, oc_cp = OpContext(np, True, mx.cpu()), OpContext(cp, True, mx.gpu(0))
    y = op.forward(oc_np, attrs, [x], None)[0]
    yg = op.forward(oc_cp, attrs, [cp.asarray(x)], None)[0]
    np.testing.assert_array_equal(cp.asnumpy(yg), y)      # lowest in padded windows, NaN
    dy = np.ones(y.shape, np.float32)
    want = op.backward(oc_np, attrs, [x], [y], [dy])[0]
    got = op.backward(oc_cp, attrs, [cp.asarray(x)], [yg], [cp.asarray(dy)])[0]
    np.testing.assert_array_equal(cp.asnumpy(got), want)


@pytest.mark.gpu
def test_one_launch_and_cached_kernels(monkeypatch):
    """Each window operation is one kernel call, compiled once for all shapes."""
    cp = pytest.importorskip("cupy")
    calls = []
    real = _gpu_window.kernel

    def counting(xp, text):
        k = real(xp, text)

        def call(*args):
            calls.append(text.name)
            return k(*args)
        return call
    monkeypatch.setattr(_gpu_window, "kernel", counting)
    monkeypatch.setattr(_gpu_pool, "kernel", counting)
    x = cp.ones((2, 3, 9, 9), cp.float32)
    _window.im2col(cp, x, (9, 9), (5, 5), (1, 1), (1, 1), pad=(2, 2))
    assert calls == ["gl_im2col_cf"]
    before = _gpu_window.kernel_cache_size()
    _window.im2col(cp, cp.ones((1, 2, 6, 7), cp.float32), (2, 3), (5, 5), (1, 1), (1, 1))
    assert _gpu_window.kernel_cache_size() == before     # another shape, same kernel
    op = get_op("Pooling")
    attrs = op.parse_attrs(dict(kernel=(3, 3), stride=(2, 2), pool_type="max", cudnn_off=True))
    oc = OpContext(cp, True, mx.gpu(0))
    del calls[:]
    y = op.forward(oc, attrs, [x], None)[0]
    op.backward(oc, attrs, [x], [y], [cp.ones_like(y)])
    assert calls == ["gl_pool_fwd_max", "gl_pool_bwd_max"]
