"""cuDNN paths of Convolution, Deconvolution, Pooling and BatchNorm against the CPU.

Each case runs the op three ways: NumPy on the CPU, on the GPU through cuDNN and
on the GPU with ``cudnn_off=True`` (the operator's own CuPy kernels), forward and
the gradients of every differentiable input, and checks that cuDNN really ran.
Skipped without a usable GPU; the CPU-side pieces (library loading, descriptors)
are tested where libcudnn is found.
"""
import ctypes

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.ops import _cudnn_lib

_TOL = {np.float16: (2e-2, 2e-2), np.float32: (1e-4, 1e-4), np.float64: (1e-9, 1e-10)}


def _run(op, arrays, attrs, ctx, grads, train=True, head_seed=0):
    """Outputs and the gradients of inputs ``grads`` (random head gradients)."""
    nds = [mx.nd.array(a, ctx=ctx, dtype=a.dtype) for a in arrays]
    for i in grads:
        nds[i].attach_grad()
    with mx.autograd.record(train_mode=train):
        outs = getattr(mx.nd, op)(*nds, **attrs)
    outs = outs if isinstance(outs, (list, tuple)) else [outs]
    rng = np.random.default_rng(head_seed)
    if grads:
        heads = [mx.nd.array(rng.standard_normal(o.shape), ctx=ctx, dtype=o.dtype)
                 for o in outs[:1]]
        mx.autograd.backward(outs[:1], heads)
    return ([o.asnumpy() for o in outs] + [nds[i].grad.asnumpy() for i in grads]
            + [a.asnumpy() for a in nds])


def _compare(op, arrays, attrs, grads=None, train=True, cudnn_calls=()):
    dtype = arrays[0].dtype.type
    if grads is None:
        grads = list(range(len(arrays)))
    rtol, atol = _TOL[dtype]
    ref = _run(op, [a.astype(np.float64) if dtype == np.float16 else a for a in arrays],
               attrs, mx.cpu(), grads, train)
    before = dict(_cudnn_lib.calls)
    on = _run(op, arrays, attrs, mx.gpu(0), grads, train)
    for name in cudnn_calls:
        assert _cudnn_lib.calls.get(name, 0) > before.get(name, 0), f"{name} did not run"
    off = _run(op, arrays, dict(attrs, cudnn_off=True), mx.gpu(0), grads, train)
    for i, (r, a, b) in enumerate(zip(ref, on, off)):
        scale = max(1.0, float(np.abs(r).max())) if r.size else 1.0
        np.testing.assert_allclose(a.astype(np.float64), r, rtol=rtol, atol=atol * scale,
                                   err_msg=f"{op} cuDNN, result {i}")
        np.testing.assert_allclose(b.astype(np.float64), r, rtol=rtol, atol=atol * scale,
                                   err_msg=f"{op} cudnn_off, result {i}")


def _rand(rng, shape, dtype):
    return rng.standard_normal(shape).astype(dtype)


def _distinct(rng, shape, dtype):
    """Values without ties (exact in float16 too): max pooling's gradient is then
    unambiguous."""
    n = int(np.prod(shape))
    return ((rng.permutation(n) - n / 2) * 0.01).reshape(shape).astype(dtype)


CONV_CASES = [
    # (data shape, num_filter, kernel, extra attrs)
    ((2, 3, 9, 8), 4, (3, 3), dict(pad=(1, 1))),
    ((2, 4, 11, 10), 6, (3, 2), dict(stride=(2, 1), dilate=(1, 2), pad=(1, 0), num_group=2)),
    ((2, 8, 12, 12), 8, (3, 3), dict(num_group=8, pad=(1, 1), stride=(2, 2))),  # depthwise
    ((3, 5, 17), 4, (3,), dict(stride=(2,), pad=(1,))),                       # 1-D
    ((1, 3, 5, 6, 7), 2, (2, 3, 2), dict(pad=(1, 0, 1), stride=(1, 2, 1))),   # 3-D
    ((4, 16, 8, 8), 32, (1, 1), dict(no_bias=True)),
    ((2, 3, 32, 32), 16, (5, 5), dict(pad=(2, 2))),
]


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("case", range(len(CONV_CASES)))
def test_convolution_cudnn(case, dtype):
    shape, f, kernel, extra = CONV_CASES[case]
    g = extra.get("num_group", 1)
    rng = np.random.default_rng(case)
    arrays = [_rand(rng, shape, dtype), _rand(rng, (f, shape[1] // g) + kernel, dtype) * 0.3]
    if not extra.get("no_bias"):
        arrays.append(_rand(rng, (f,), dtype))
    attrs = dict(kernel=kernel, num_filter=f, **extra)
    _compare("Convolution", arrays, attrs,
             cudnn_calls=("cudnnConvolutionForward", "cudnnConvolutionBackwardData",
                          "cudnnConvolutionBackwardFilter"))


@pytest.mark.gpu
@pytest.mark.parametrize("grads", [[0], [1], [2], [0, 2]])
def test_convolution_cudnn_gradient_subsets(grads):
    rng = np.random.default_rng(7)
    arrays = [_rand(rng, (2, 3, 7, 7), np.float32), _rand(rng, (4, 3, 3, 3), np.float32),
              _rand(rng, (4,), np.float32)]
    _compare("Convolution", arrays, dict(kernel=(3, 3), num_filter=4, pad=(1, 1)), grads)


@pytest.mark.gpu
def test_convolution_cudnn_non_contiguous_and_out():
    import cupy as cp
    rng = np.random.default_rng(3)
    x = _rand(rng, (2, 6, 6, 3), np.float32)
    w = _rand(rng, (4, 3, 3, 3), np.float32)
    ref = mx.nd.Convolution(mx.nd.array(x).transpose((0, 3, 1, 2)), mx.nd.array(w),
                            kernel=(3, 3), num_filter=4, no_bias=True).asnumpy()
    xg = mx.nd.array(x, ctx=mx.gpu(0)).transpose((0, 3, 1, 2))   # a strided view
    out = mx.nd.zeros((4, 4, 4, 4), ctx=mx.gpu(0))[::2]           # a strided out buffer
    mx.nd.Convolution(xg, mx.nd.array(w, ctx=mx.gpu(0)), kernel=(3, 3), num_filter=4,
                      no_bias=True, out=out)
    np.testing.assert_allclose(out.asnumpy(), ref, rtol=1e-4, atol=1e-4)
    assert isinstance(out._data, cp.ndarray)


DECONV_CASES = [
    ((2, 4, 5, 5), 3, (3, 3), dict(stride=(2, 2), pad=(1, 1), adj=(1, 1))),
    ((2, 4, 6, 5), 6, (4, 4), dict(stride=(2, 2), pad=(1, 1), num_group=2)),
    ((2, 3, 7), 2, (3,), dict(stride=(2,), dilate=(2,), pad=(2,))),
    ((1, 2, 3, 4, 3), 2, (2, 2, 2), dict(stride=(2, 1, 2))),
    # target_shape: even remainder (cuDNN) and odd remainder at stride 1 (own kernels)
    ((2, 3, 5, 5), 2, (3, 3), dict(stride=(2, 2), target_shape=(9, 9))),
    ((2, 3, 5, 5), 2, (4, 4), dict(target_shape=(7, 7))),
]


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("case", range(len(DECONV_CASES)))
def test_deconvolution_cudnn(case, dtype):
    shape, f, kernel, extra = DECONV_CASES[case]
    g = extra.get("num_group", 1)
    rng = np.random.default_rng(10 + case)
    arrays = [_rand(rng, shape, dtype), _rand(rng, (shape[1], f // g) + kernel, dtype) * 0.3,
              _rand(rng, (f,), dtype)]
    attrs = dict(kernel=kernel, num_filter=f, no_bias=False, **extra)
    calls = () if case == 5 else ("cudnnConvolutionBackwardData", "cudnnConvolutionForward")
    _compare("Deconvolution", arrays, attrs, cudnn_calls=calls)


POOL_CASES = [
    dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="max"),
    dict(kernel=(2, 2), stride=(2, 2), pool_type="max"),
    dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg"),
    dict(kernel=(3, 3), stride=(1, 1), pad=(1, 1), pool_type="avg", count_include_pad=False),
    dict(kernel=(1, 1), global_pool=True, pool_type="avg"),
    dict(kernel=(1, 1), global_pool=True, pool_type="max"),
    dict(kernel=(3, 3), stride=(2, 2), pool_type="max", pooling_convention="full"),
    dict(kernel=(2, 2), stride=(2, 2), pool_type="sum"),
]


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("case", range(len(POOL_CASES)))
def test_pooling_cudnn(case, dtype):
    rng = np.random.default_rng(20 + case)
    x = _distinct(rng, (2, 3, 9, 8), dtype)
    attrs = POOL_CASES[case]
    calls = ("cudnnPoolingForward", "cudnnPoolingBackward") if case < 6 else ()
    _compare("Pooling", [x], attrs, cudnn_calls=calls)


@pytest.mark.gpu
@pytest.mark.parametrize("shape,attrs", [
    ((2, 3, 11), dict(kernel=(3,), stride=(2,), pad=(1,), pool_type="max")),
    ((1, 2, 5, 6, 7), dict(kernel=(2, 2, 2), stride=(2, 2, 2), pool_type="avg")),
])
def test_pooling_cudnn_1d_3d(shape, attrs):
    rng = np.random.default_rng(5)
    _compare("Pooling", [_distinct(rng, shape, np.float32)], attrs,
             cudnn_calls=("cudnnPoolingForward", "cudnnPoolingBackward"))


BN_SHAPES = [(8, 5), (4, 3, 7), (4, 6, 5, 5), (2, 3, 4, 3, 5)]


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("fix_gamma", [True, False])
@pytest.mark.parametrize("shape", BN_SHAPES)
def test_batchnorm_cudnn_training(shape, fix_gamma, dtype):
    rng = np.random.default_rng(len(shape))
    c = shape[1]
    pdt = np.float64 if dtype == np.float64 else np.float32
    arrays = [_rand(rng, shape, dtype) * 2 + 1, _rand(rng, (c,), pdt), _rand(rng, (c,), pdt),
              _rand(rng, (c,), pdt), np.abs(_rand(rng, (c,), pdt)) + 0.5]
    attrs = dict(fix_gamma=fix_gamma, momentum=0.8, eps=1e-3, output_mean_var=True)
    # the moving statistics (inputs 3, 4) are compared after backward updated them
    _compare("BatchNorm", arrays, attrs, grads=[0, 1, 2],
             cudnn_calls=("cudnnBatchNormalizationForwardTraining",
                          "cudnnBatchNormalizationBackward"))


@pytest.mark.gpu
@pytest.mark.parametrize("use_global_stats", [True, False])
def test_batchnorm_cudnn_inference(use_global_stats):
    rng = np.random.default_rng(9)
    arrays = [_rand(rng, (4, 6, 5, 5), np.float32), _rand(rng, (6,), np.float32),
              _rand(rng, (6,), np.float32), _rand(rng, (6,), np.float32),
              np.abs(_rand(rng, (6,), np.float32)) + 0.5]
    attrs = dict(fix_gamma=False, use_global_stats=use_global_stats, output_mean_var=True)
    _compare("BatchNorm", arrays, attrs, grads=[], train=False,
             cudnn_calls=("cudnnBatchNormalizationForwardInference",))


@pytest.mark.gpu
def test_batchnorm_last_axis_keeps_own_kernels():
    rng = np.random.default_rng(4)
    arrays = [_rand(rng, (4, 5, 6), np.float32), _rand(rng, (6,), np.float32),
              _rand(rng, (6,), np.float32), np.zeros(6, np.float32), np.ones(6, np.float32)]
    _compare("BatchNorm", arrays, dict(axis=-1, fix_gamma=False), grads=[0, 1, 2])


@pytest.mark.gpu
def test_hybridized_cnn_on_cudnn_matches_cpu():
    from gluonlite.gluon import nn
    results = []
    for ctx in (mx.cpu(), mx.gpu(0)):
        mx.random.seed(1)
        net = nn.HybridSequential()
        net.add(nn.Conv2D(8, 3, padding=1), nn.BatchNorm(), nn.Activation("relu"),
                nn.MaxPool2D(2), nn.Conv2DTranspose(4, 2, strides=2), nn.GlobalAvgPool2D(),
                nn.Dense(3))
        net.initialize(mx.init.Xavier(), ctx=ctx)
        net.hybridize(static_alloc=True, static_shape=True)
        x = mx.nd.array(np.random.default_rng(0).standard_normal((4, 3, 16, 16)), ctx=ctx)
        with mx.autograd.record():
            y = net(x)
        y.backward()
        results.append([y.asnumpy()] + [p.grad().asnumpy() for p in
                                         net.collect_params().values() if p.grad_req != "null"])
    for c, g in zip(*results):
        np.testing.assert_allclose(g, c, rtol=1e-3, atol=1e-4)


def test_descriptors_on_the_host():
    """Descriptors and output sizes need no GPU: checked wherever libcudnn loads."""
    lib = _cudnn_lib.library()
    if lib is None:
        pytest.skip(f"libcudnn not found: {_cudnn_lib.load_error()}")
    x = _cudnn_lib.TensorDesc(0, (2, 3, 10, 11))
    w = _cudnn_lib.FilterDesc(0, (8, 3, 3, 3))
    conv = _cudnn_lib.ConvDesc((1, 0), (2, 1), (1, 2), 1, 0, _cudnn_lib.FMA_MATH)
    dims = (ctypes.c_int * 4)()
    lib.check("cudnnGetConvolutionNdForwardOutputDim", conv.ptr, x.ptr, w.ptr, 4, dims)
    y = mx.nd.Convolution(mx.nd.zeros((2, 3, 10, 11)), mx.nd.zeros((8, 3, 3, 3)),
                          kernel=(3, 3), pad=(1, 0), stride=(2, 1), dilate=(1, 2),
                          num_filter=8, no_bias=True)
    assert tuple(dims) == y.shape
    with pytest.raises(_cudnn_lib.CudnnError, match="BAD_PARAM"):
        _cudnn_lib.TensorDesc(0, (2, 3, 0, 4))   # an empty dimension: refused, not a crash


def test_cudnn_never_serves_numpy_or_fake_cupy():
    assert not _cudnn_lib.usable(np)

    class FakeCupy:
        __name__ = "fake_cupy"
    assert not _cudnn_lib.usable(FakeCupy())
