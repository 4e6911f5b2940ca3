"""Focused checks of the heavy NN operators: dtypes, errors, structure, and the
scratch / kept-column buffers never leaking into results."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError
from gluonlite.ops.registry import get_op

nd = mx.nd
_rng = np.random.default_rng(5)


def _f32(*shape):
    return nd.array(_rng.standard_normal(shape).astype(np.float32), dtype="float32")


def _grads(fn, *arrs):
    for a in arrs:
        a.attach_grad()
    with mx.autograd.record():
        out = fn(*arrs)
    out.backward()
    return out, [a.grad for a in arrs]


@pytest.mark.parametrize("name,fn,shapes", [
    ("conv", lambda x, w, b: nd.Convolution(x, w, b, kernel=(3, 3), num_filter=4, pad=(1, 1)),
     [(2, 3, 6, 6), (4, 3, 3, 3), (4,)]),
    ("deconv", lambda x, w: nd.Deconvolution(x, w, kernel=(2, 2), stride=(2, 2), num_filter=2),
     [(2, 3, 3, 3), (3, 2, 2, 2)]),
    ("pool", lambda x: nd.Pooling(x, kernel=(2, 2), stride=(2, 2), pool_type="avg"),
     [(2, 3, 4, 4)]),
    ("fc", lambda x, w, b: nd.FullyConnected(x, w, b, num_hidden=5), [(3, 4), (5, 4), (5,)]),
    ("dot", lambda a, b: nd.dot(a, b), [(3, 4), (4, 2)]),
    ("batch_dot", lambda a, b: nd.batch_dot(a, b), [(2, 3, 4), (2, 4, 2)]),
    ("bilinear", lambda x: nd.contrib.BilinearResize2D(x, height=5, width=3), [(1, 2, 3, 4)]),
    ("adaptive", lambda x: nd.contrib.AdaptiveAvgPooling2D(x, output_size=2), [(1, 2, 5, 4)]),
    ("lrn", lambda x: nd.LRN(x, nsize=3), [(1, 4, 2, 2)]),
    ("upsampling", lambda x: nd.UpSampling(x, scale=2, sample_type="nearest"), [(1, 2, 2, 2)]),
])
def test_float32_stays_float32(name, fn, shapes):
    arrs = [_f32(*s) for s in shapes]
    out, grads = _grads(fn, *arrs)
    assert out.dtype == np.float32, f"{name} output upcast to {out.dtype}"
    for g in grads:
        assert g.dtype == np.float32, f"{name} gradient upcast to {g.dtype}"


def test_unsupported_layout_raises():
    # channel-last layouts run (gluonlite.ops.channel_last); mismatched ones raise
    with pytest.raises(MXNetError, match="Convolution.*NCW"):
        nd.Convolution(_f32(1, 3, 4, 4), _f32(2, 3, 3, 3), _f32(2), kernel=(3, 3),
                       num_filter=2, layout="NCW")
    with pytest.raises(MXNetError, match="Convolution.*NDHWC"):
        nd.Convolution(_f32(1, 4, 4, 3), _f32(2, 3, 3, 3), _f32(2), kernel=(3, 3),
                       num_filter=2, layout="NDHWC")
    with pytest.raises(MXNetError, match="Pooling.*NDHWC"):
        nd.Pooling(_f32(1, 4, 4, 3), kernel=(2, 2), layout="NDHWC")


def test_pooling_errors():
    with pytest.raises(MXNetError, match="Pooling.*kernel"):
        nd.Pooling(_f32(1, 1, 4, 4))
    with pytest.raises(MXNetError, match="same"):
        nd.Pooling(_f32(1, 1, 6), kernel=(2,), pad=(1,), pooling_convention="same")


def test_structure_matches_mxnet():
    deconv = get_op("Deconvolution")
    assert deconv.input_names(deconv.parse_attrs({"kernel": (2, 2), "num_filter": 1})) == \
        ("data", "weight")  # no_bias defaults to True in MXNet 1.9
    conv = get_op("Convolution")
    assert conv.input_names(conv.parse_attrs({"kernel": (2, 2), "num_filter": 1})) == \
        ("data", "weight", "bias")
    assert get_op("Convolution_v1") is conv and get_op("Pooling_v1") is get_op("Pooling")
    lrn = get_op("LRN")
    a = lrn.parse_attrs({"nsize": 3})
    assert lrn.num_outputs(a) == 2 and lrn.num_visible_outputs(a) == 1
    up = get_op("UpSampling")
    assert up.input_names(up.parse_attrs({"scale": 2, "sample_type": "bilinear"})) == \
        ("data", "weight")
    assert up.input_names(up.parse_attrs({"scale": 2, "sample_type": "nearest",
                                          "num_args": 2})) == ("arg0", "arg1")


def test_shape_inference_both_ways():
    conv = get_op("Convolution")
    a = conv.parse_attrs({"kernel": (3, 3), "num_filter": 4, "num_group": 2})
    ins, outs = conv.infer_shape(a, [(2, 0, 8, 8), (4, 3, 3, 3), None])
    assert ins == [(2, 6, 8, 8), (4, 3, 3, 3), (4,)] and outs == [(2, 4, 6, 6)]
    fc = get_op("FullyConnected")
    a = fc.parse_attrs({"num_hidden": 4})
    ins, outs = fc.infer_shape(a, [(2, 3, 5), None, None])
    assert ins == [(2, 3, 5), (4, 15), (4,)] and outs == [(2, 4)]
    deconv = get_op("Deconvolution")
    a = deconv.parse_attrs({"kernel": (3, 3), "num_filter": 2, "stride": (2, 2),
                            "target_shape": (10, 9)})
    ins, outs = deconv.infer_shape(a, [(1, 3, 5, 5), None])
    assert ins == [(1, 3, 5, 5), (3, 2, 3, 3)] and outs == [(1, 2, 10, 9)]


def test_embedding_dtypes():
    w = nd.array(np.arange(8.0).reshape(4, 2), dtype="float64")
    out = nd.Embedding(nd.array([1, 7], dtype="int32"), w, input_dim=4, output_dim=2)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out.asnumpy(), [[2, 3], [6, 7]])


@pytest.mark.parametrize("n,c", [(1, 1), (1, 3), (2, 1)])
def test_results_never_alias_scratch(n, c):
    """Outputs and gradients stay valid after later calls reuse the scratch buffers."""
    def run(seed):
        rng = np.random.default_rng(seed)
        x = nd.array(rng.standard_normal((n, c, 5, 5)))
        w = nd.array(rng.standard_normal((3, c, 3, 3)))
        out, (gx, gw) = _grads(lambda a, b: nd.Convolution(a, b, kernel=(3, 3), num_filter=3,
                                                           pad=(1, 1), no_bias=True), x, w)
        dout, (dgx, dgw) = _grads(lambda a, b: nd.Deconvolution(a, b, kernel=(3, 3),
                                                                num_filter=c), out, w)
        return [a.asnumpy().copy() for a in (out, gx, gw, dout, dgx, dgw)], \
            [out, gx, gw, dout, dgx, dgw]
    first, first_arrays = run(1)
    run(2)
    for kept, arr in zip(first, first_arrays):
        np.testing.assert_array_equal(arr.asnumpy(), kept)


def test_kept_columns_belong_to_their_input():
    """Interleaved forwards of several convolutions still give each its own weight gradient."""
    rng = np.random.default_rng(3)
    xs = [nd.array(rng.standard_normal((2, 2, 5, 5))) for _ in range(3)]
    w = nd.array(rng.standard_normal((3, 2, 3, 3)))
    w.attach_grad()
    with mx.autograd.record():
        outs = [nd.Convolution(x, w, kernel=(3, 3), num_filter=3, no_bias=True) for x in xs]
    mx.autograd.backward(outs)
    together = w.grad.asnumpy().copy()
    alone = np.zeros_like(together)
    for x in xs:
        with mx.autograd.record():
            y = nd.Convolution(x, w, kernel=(3, 3), num_filter=3, no_bias=True)
        y.backward()
        alone += w.grad.asnumpy()
    np.testing.assert_allclose(together, alone, rtol=1e-10)
