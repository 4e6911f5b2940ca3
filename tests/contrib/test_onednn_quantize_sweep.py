"""MXNet 1.9.1's CPU INT8 flow on the small graphs of
``tests/fixtures/gen_onednn_quantize_sweep.py`` (what a sweep of GluonCV models through
both flows found): the quantized graph node for node, entry versions included, and the
outputs.

The graphs are compared through :func:`gluonlite.symbol.json_io.to_dict`, the writer
itself (``tojson`` also drops AMP casts first).
"""
import json

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.contrib import quantization as q
from gluonlite.symbol.json_io import to_dict

from .onednn_util import fixture_params, load_fixture, op_nodes

DATA = load_fixture("onednn_quantize_sweep.npz")
CASES = sorted({k.split("/")[0] for k in DATA})


def _params(case, kind):
    return fixture_params(DATA, case, kind)


_nodes = op_nodes


def _quantized(case):
    meta = json.loads(str(DATA[f"{case}/meta"]))
    sym = mx.sym.load_json(str(DATA[f"{case}/json"]))
    return q.quantize_model_mkldnn(
        sym, _params(case, "arg"), _params(case, "aux"), ctx=mx.cpu(),
        calib_mode=meta["calib_mode"],
        calib_data=mx.io.NDArrayIter(DATA[f"{case}/calib"], batch_size=4),
        num_calib_examples=8, quantized_dtype=meta["quantized_dtype"],
        quantize_mode=meta["quantize_mode"],
        quantize_granularity=meta["quantize_granularity"], label_names=None)


@pytest.mark.parametrize("case", CASES)
def test_fusion_keeps_mxnets_graph_and_entry_versions(case):
    sym = mx.sym.load_json(str(DATA[f"{case}/json"]))
    fused = sym.get_backend_symbol("MKLDNN_QUANTIZE")
    assert _nodes(to_dict(fused)) == _nodes(json.loads(str(DATA[f"{case}/fused_json"])))


@pytest.mark.parametrize("case", CASES)
def test_quantize_model_mkldnn_matches_mxnet(case):
    qsym, qarg, qaux = _quantized(case)
    assert _nodes(to_dict(qsym)) == _nodes(json.loads(str(DATA[f"{case}/qjson"])))
    args = dict(qarg, data=mx.nd.array(DATA[f"{case}/x"]))
    out = qsym.bind(mx.cpu(), args, aux_states=qaux, grad_req="null").forward()[0]
    np.testing.assert_array_equal(out.asnumpy(), DATA[f"{case}/out"])


def test_aux_entry_versions_survive_quantization():
    """Entries reading the moving statistics keep version 2 in the float BatchNorm left
    unquantized and in the fused convolutions that fold the others."""
    qsym, _, _ = _quantized("versions_bn")
    nodes = to_dict(qsym)["nodes"]
    seen = [v for n in nodes for i, _, v in n["inputs"]
            if nodes[i]["name"].endswith(("running_mean", "running_var"))]
    assert len(seen) == 6 and set(seen) == {2}


def test_unfused_quantized_add_takes_its_requantize():
    """A quantized ``elemwise_add`` that no convolution absorbs: its ``requantize`` is
    calibrated by the add's float output and folds into it."""
    qsym, _, _ = _quantized("add_unfused")
    nodes = to_dict(qsym)["nodes"]
    ops = [n["op"] for n in nodes]
    assert "_contrib_requantize" not in ops
    add = next(n for n in nodes if n["op"] == "_contrib_quantized_elemwise_add")
    assert {"min_calib_range", "max_calib_range"} <= set(add["attrs"])


def test_infinite_calibrated_range_is_rejected_as_mxnet_does():
    """A calibration range that is not finite (a random detector's exp overflowing)
    fails as MXNet's parameter parser fails on ``'inf'``."""
    sym = mx.sym.load_json(str(DATA["add_unfused/fused_json"]))
    qsym, _ = q._quantize_symbol(sym, quantized_dtype="auto", quantize_mode="full")
    with pytest.raises(mx.base.MXNetError, match="max_calib_range .* value='inf'"):
        q._calibrate_quantized_sym(qsym, {"data": (0.0, float("inf"))})


def test_grouped_convolution_with_folded_batch_norm_stays_close_to_float():
    """ResNeSt's grouped convolutions: the INT8 fused conv + BatchNorm + relu gives the
    float result within INT8 error (MXNet 1.9.1's oneDNN kernel is off by up to half the
    output range here when the BatchNorm is folded into a grouped convolution; gluonlite
    follows the mathematics)."""
    rng = np.random.RandomState(3)
    data = mx.sym.var("data")
    conv = mx.sym.Convolution(data, kernel=(3, 3), pad=(1, 1), num_filter=8, num_group=2,
                              no_bias=True, name="conv")
    bn = mx.sym.BatchNorm(conv, fix_gamma=False, name="bn")
    sym = mx.sym.Activation(bn, act_type="relu", name="relu")
    args = {"conv_weight": mx.nd.array(rng.uniform(-0.5, 0.5, (8, 2, 3, 3))),
            "bn_gamma": mx.nd.array(rng.uniform(0.5, 1.5, (8,))),
            "bn_beta": mx.nd.array(rng.uniform(-0.3, 0.3, (8,)))}
    aux = {"bn_moving_mean": mx.nd.array(rng.uniform(-0.2, 0.2, (8,))),
           "bn_moving_var": mx.nd.array(rng.uniform(0.5, 1.5, (8,)))}
    x = rng.uniform(0, 1, (4, 4, 6, 6)).astype(np.float32)
    qsym, qarg, qaux = q.quantize_model_mkldnn(
        sym, args, aux, ctx=mx.cpu(), calib_mode="naive",
        calib_data=mx.io.NDArrayIter(x, batch_size=4), num_calib_examples=4,
        quantized_dtype="auto", quantize_mode="full", label_names=None)
    assert any(n["op"] == "_sg_mkldnn_conv" for n in to_dict(qsym)["nodes"])
    want = sym.bind(mx.cpu(), dict(args, data=mx.nd.array(x)), aux_states=aux,
                    grad_req="null").forward()[0].asnumpy()
    got = qsym.bind(mx.cpu(), dict(qarg, data=mx.nd.array(x)), aux_states=qaux,
                    grad_req="null").forward()[0].asnumpy()
    assert np.abs(got - want).max() <= 0.02 * np.abs(want).max()


def test_quantized_relu_of_uint8_data_stays_uint8():
    """After a quantized ``elemwise_add`` with a non-negative range (SE-ResNeXt's residual
    relu) the data are uint8: the relu keeps them (MXNet 1.9.1 labels the result int8
    and its values above 127 come back negative; gluonlite follows the mathematics)."""
    data = mx.nd.array(np.array([[0, 100, 200, 255]]), dtype="uint8")
    lo, hi = mx.nd.array([0.0]), mx.nd.array([0.65])
    out, out_lo, out_hi = mx.nd.contrib.quantized_act(data, lo, hi, act_type="relu")
    assert out.dtype == np.uint8
    np.testing.assert_array_equal(out.asnumpy(), [[0, 100, 200, 255]])
    assert float(out_hi.asscalar()) == np.float32(0.65)
