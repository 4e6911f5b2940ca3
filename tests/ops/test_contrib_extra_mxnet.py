"""Signal, proposal and RROIAlign operators against MXNet 1.9.1
(``tests/fixtures/contrib_extra.npz``, made by ``tests/fixtures/gen_contrib_extra.py``)."""
import os

import numpy as np
import pytest

import gluonlite as mx

FIX = np.load(os.path.join(os.path.dirname(__file__), "..", "fixtures", "contrib_extra.npz"))


def _inputs(key):
    n = len([k for k in FIX.files if k.startswith(f"{key}/in")])
    return [FIX[f"{key}/in{i}"] for i in range(n)]


def _run(op, key, attrs, grads=()):
    arrays = [mx.nd.array(a, dtype=a.dtype) for a in _inputs(key)]
    for i in grads:
        arrays[i].attach_grad()
    with mx.autograd.record():
        out = getattr(mx.nd.contrib, op)(*arrays, **attrs)
    outs = out if isinstance(out, (list, tuple)) else [out]
    if grads:
        outs[0].backward(mx.nd.array(FIX[f"{key}/head"]))
    return arrays, [o.asnumpy() for o in outs]


@pytest.mark.parametrize("op", ["round_ste", "sign_ste"])
def test_ste(op):
    arrays, outs = _run(op, op, {}, grads=(0,))
    np.testing.assert_array_equal(outs[0], FIX[f"{op}/out0"])
    np.testing.assert_array_equal(arrays[0].grad.asnumpy(), FIX[f"{op}/grad0"])


@pytest.mark.parametrize("key,attrs", [("ac_default", {}), ("ac_true", {}),
                                       ("ac_tol", dict(rtol=0.0, atol=0.2)), ("ac_nan", {}),
                                       ("ac_nan_false", dict(equal_nan=False))])
def test_allclose(key, attrs):
    _, outs = _run("allclose", key, attrs)
    # MXNet returns a 0-d uint8 array; gluonlite has no 0-d outputs: shape (1,)
    assert outs[0].dtype == np.uint8
    assert int(outs[0].reshape(-1)[0]) == int(FIX[f"{key}/out0"])


def test_hawkesll_values_and_gradients():
    arrays, outs = _run("hawkesll", "hawkes", {}, grads=(0, 1, 2))
    np.testing.assert_allclose(outs[0], FIX["hawkes/out0"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(outs[1], FIX["hawkes/out1"], rtol=1e-5, atol=1e-6)
    for i in (0, 1, 2):
        np.testing.assert_allclose(arrays[i].grad.asnumpy(), FIX[f"hawkes/grad{i}"],
                                   rtol=1e-4, atol=1e-5, err_msg=f"hawkesll grad {i}")


PROPOSAL = [
    ("prop_default_like", "Proposal",
     dict(scales=(2, 4), ratios=(0.5, 1, 2), rpn_pre_nms_top_n=40, rpn_post_nms_top_n=12,
          threshold=0.5, rpn_min_size=8, feature_stride=16, output_score=True)),
    ("prop_padded", "Proposal",
     dict(scales=(4,), ratios=(0.5, 1, 2), rpn_pre_nms_top_n=-1, rpn_post_nms_top_n=30,
          threshold=0.3, rpn_min_size=16, feature_stride=16, output_score=True)),
    ("prop_iou_loss", "Proposal",
     dict(scales=(2,), ratios=(1, 2), rpn_pre_nms_top_n=10, rpn_post_nms_top_n=20,
          threshold=0.7, rpn_min_size=4, feature_stride=16, output_score=True, iou_loss=True)),
    ("mprop_batch", "MultiProposal",
     dict(scales=(2, 4), ratios=(0.5, 1, 2), rpn_pre_nms_top_n=50, rpn_post_nms_top_n=15,
          threshold=0.6, rpn_min_size=10, feature_stride=16, output_score=True)),
    ("mprop_defaults", "MultiProposal", dict(output_score=True)),
]


@pytest.mark.parametrize("key,op,attrs", PROPOSAL, ids=[p[0] for p in PROPOSAL])
def test_proposal(key, op, attrs):
    arrays, outs = _run(op, key, attrs, grads=())
    np.testing.assert_allclose(outs[0], FIX[f"{key}/out0"], rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(outs[1], FIX[f"{key}/out1"], rtol=1e-6, atol=1e-7)
    # zero gradients, as MXNet's backward
    arrays = [mx.nd.array(a) for a in _inputs(key)]
    for a in arrays:
        a.attach_grad()
    with mx.autograd.record():
        out = getattr(mx.nd.contrib, op)(*arrays, **attrs)
    out[0].backward()
    for a in arrays:
        assert not a.grad.asnumpy().any()


def test_proposal_hides_score_by_default():
    attrs = dict(PROPOSAL[0][2])
    attrs.pop("output_score")
    out = mx.nd.contrib.Proposal(*[mx.nd.array(a) for a in _inputs(PROPOSAL[0][0])], **attrs)
    np.testing.assert_allclose(out.asnumpy(), FIX[f"{PROPOSAL[0][0]}/out0"], rtol=1e-5,
                               atol=1e-4)


@pytest.mark.parametrize("key,attrs", [
    ("rroi_adaptive", dict(pooled_size=(2, 3), spatial_scale=1.0)),
    ("rroi_ratio", dict(pooled_size=(3, 2), spatial_scale=0.5, sampling_ratio=2))])
def test_rroi_align(key, attrs):
    _, outs = _run("RROIAlign", key, attrs)
    np.testing.assert_allclose(outs[0], FIX[f"{key}/out0"], rtol=1e-5, atol=1e-5)


def test_errors_name_the_operator():
    with pytest.raises(mx.base.MXNetError, match="Proposal"):
        mx.nd.contrib.Proposal(mx.nd.ones((2, 6, 3, 3)), mx.nd.ones((2, 12, 3, 3)),
                               mx.nd.ones((2, 3)), scales=(1,), ratios=(1, 2, 3))
    with pytest.raises(mx.base.MXNetError, match="allclose"):
        mx.nd.contrib.allclose(mx.nd.ones((2,)), mx.nd.ones((1, 2)))
    with pytest.raises(mx.base.MXNetError, match="ifft"):
        mx.nd.contrib.ifft(mx.nd.ones((2, 3)))
    with pytest.raises(mx.base.MXNetError, match="count_sketch"):
        mx.nd.contrib.count_sketch(mx.nd.ones((2, 3)), mx.nd.ones((1, 4)), mx.nd.ones((1, 4)),
                                   out_dim=2)
