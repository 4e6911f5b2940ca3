"""The chunked ("batch-first") path of ``Convolution`` (``ops/_chunked.py``) against a
float64 reference: several chunks (the last one shorter), the data gradient as a
convolution (unit strides) and by scatter-add (other strides, large pads), groups,
1-D/2-D/3-D, plain 1x1 kernels, gradient masks, ``out=``, and the simulated GPU."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.ops import _chunked, convolution
from gluonlite.ops.registry import get_op

from .test_conv_layouts import _reference

nd = mx.nd

CASES = [
    # (x shape, num_filter, kernel, stride, dilate, pad, groups)
    ((5, 3, 9, 8), 4, (3, 3), (1, 1), (1, 1), (1, 1), 1),         # the benchmark's geometry
    ((5, 4, 10, 9), 6, (3, 2), (2, 1), (1, 1), (1, 0), 2),        # strided: scatter-add
    ((3, 4, 11, 10), 4, (3, 3), (1, 1), (2, 1), (2, 1), 1),       # dilated
    ((3, 4, 7, 7), 6, (3, 3), (1, 1), (1, 1), (3, 1), 2),         # pad > kernel - 1: scatter
    ((4, 6, 12), 3, (4,), (1,), (1,), (2,), 3),
    ((3, 2, 5, 6, 5), 3, (2, 3, 2), (1, 1, 1), (1, 1, 1), (1, 0, 1), 1),
    ((5, 4, 6, 7), 6, (1, 1), (1, 1), (1, 1), (0, 0), 2),         # plain 1x1: no columns
    ((3, 4, 7, 7), 5, (1, 1), (2, 2), (1, 1), (0, 0), 1),         # strided 1x1
]


def _data(case, seed=0):
    shape, f, kernel, stride, dilate, pad, groups = case
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(np.float32)
    w = rng.standard_normal((f, shape[1] // groups) + kernel).astype(np.float32)
    b = rng.standard_normal(f).astype(np.float32)
    return x, w, b


def _attrs(case, no_bias=False):
    _, f, kernel, stride, dilate, pad, groups = case
    return dict(kernel=kernel, stride=stride, dilate=dilate, pad=pad, num_filter=f,
                num_group=groups, no_bias=no_bias)


@pytest.fixture
def small_chunks(monkeypatch):
    """Every convolution on the chunked path, two batch items per chunk."""
    monkeypatch.setattr(convolution, "use_chunked", lambda *args: True)
    calls = []
    monkeypatch.setattr(_chunked, "chunk_items", lambda n, item: calls.append(n) or min(n, 2))
    return calls


def _geometry(case):
    attrs = get_op("Convolution").parse_attrs(_attrs(case))
    return convolution.ConvGeometry("Convolution", attrs)


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-k{c[2]}-s{c[3]}" for c in CASES])
def test_chunked_matches_reference(small_chunks, case):
    x, w, b = _data(case)
    args = [nd.array(a, dtype="float32") for a in (x, w, b)]
    for a in args:
        a.attach_grad()
    with mx.autograd.record():
        y = nd.Convolution(*args, **_attrs(case))
    dy = np.random.default_rng(1).standard_normal(y.shape).astype(np.float32)
    y.backward(nd.array(dy, dtype="float32"))
    want = _reference(x, w, b, dy, *case[3:])
    got = [y.asnumpy()] + [a.grad.asnumpy() for a in args]
    for name, g, r in zip(("y", "dx", "dw", "db"), got, want):
        assert g.dtype == np.float32, name
        np.testing.assert_allclose(g, r, rtol=1e-4, atol=1e-4, err_msg=name)
    assert y._data.flags["C_CONTIGUOUS"] and args[0].grad._data.flags["C_CONTIGUOUS"]
    plain = case[2] == (1, 1) and case[3] == (1, 1)
    assert small_chunks == ([] if plain else [case[0][0]] * 2)  # forward and backward


@pytest.mark.parametrize("which", [(0,), (1,), (0, 1)])
def test_chunked_gradient_mask_no_bias(small_chunks, which):
    case = CASES[0]
    x, w, _ = _data(case)
    args = [nd.array(a, dtype="float32") for a in (x, w)]
    for i in which:
        args[i].attach_grad()
    with mx.autograd.record():
        y = nd.Convolution(*args, **_attrs(case, no_bias=True))
    dy = np.ones(y.shape, np.float32)
    y.backward()
    want = _reference(x, w, np.zeros(case[1], np.float32), dy, *case[3:])
    np.testing.assert_allclose(y.asnumpy(), want[0], rtol=1e-4, atol=1e-4)
    for i in which:
        np.testing.assert_allclose(args[i].grad.asnumpy(), want[1 + i], rtol=1e-4, atol=1e-4)


def test_chunked_forward_writes_out():
    case = CASES[0]
    x, w, b = _data(case)
    geo = _geometry(case)
    osz = geo.out_sizes("Convolution", x.shape[2:])
    want = _reference(x, w, b, np.zeros((x.shape[0], case[1]) + osz), *case[3:])[0]
    out = np.empty((x.shape[0], case[1]) + osz, np.float32)
    assert _chunked.chunked_forward(np, x, w, 1, geo, osz, b, out) is out
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-4)
    strided = np.empty((x.shape[0], case[1] * 2) + osz, np.float32)[:, ::2]
    assert _chunked.chunked_forward(np, x, w, 1, geo, osz, b, strided) is strided
    np.testing.assert_allclose(strided, want, rtol=1e-4, atol=1e-4)


def test_path_choice():
    def chunked(x_shape, f, kernel, pad=(0, 0)):
        geo = _geometry((x_shape, f, kernel, (1, 1), (1, 1), pad, 1))
        return convolution._chunked(np, np.empty(x_shape, np.float32),
                                    np.empty((f, x_shape[1]) + kernel, np.float32), 1, geo)
    assert chunked((32, 64, 56, 56), 64, (3, 3), (1, 1))    # 231 MB of columns
    assert not chunked((64, 1, 28, 28), 20, (5, 5))          # LeNet
    assert not chunked((64, 20, 12, 12), 50, (5, 5))
    assert not chunked((128, 64, 14, 14), 64, (3, 3), (1, 1))  # large but batch-last
    assert chunked((2, 8, 12, 12), 4, (1, 1))                # plain 1x1, 144 pixels
    assert not chunked((2, 8, 8, 8), 4, (1, 1))              # ... but not 64
    geo = _geometry(((32, 64, 56, 56), 64, (3, 3), (1, 1), (1, 1), (1, 1), 1))
    assert not _chunked.use_chunked(object(), (32, 64, 56, 56), geo, (56, 56), 4)  # not NumPy
    assert _chunked.chunk_items(32, 7 << 20) == 1
    assert _chunked.chunk_items(32, 1 << 20) == 8
    assert _chunked.chunk_items(3, 1) == 3


def test_chunked_on_simulated_gpu(small_chunks):
    from ..gpu_sim.simulated import simulated_gpu
    results = {}
    for case in (CASES[0], CASES[1], CASES[6]):
        x, w, b = _data(case)
        for dev in ("cpu", "gpu"):
            with simulated_gpu() as cp:
                ctx = mx.gpu(0) if dev == "gpu" else mx.cpu()
                args = [nd.array(a, ctx=ctx, dtype="float32") for a in (x, w, b)]
                for a in args:
                    a.attach_grad()
                with mx.autograd.record():
                    y = nd.Convolution(*args, **_attrs(case))
                y.backward()
                if dev == "gpu":
                    assert type(y._data) is cp.ndarray
                results[dev] = [y.asnumpy()] + [a.grad.asnumpy() for a in args]
        for c, g in zip(results["cpu"], results["gpu"]):
            np.testing.assert_allclose(g, c, rtol=1e-5, atol=1e-5)
