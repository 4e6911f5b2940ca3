"""Models exported by MXNet 1.9.1's CPU build after its oneDNN rewrite
(``_sg_mkldnn_conv``, ``_sg_mkldnn_fully_connected``, ``_sg_mkldnn_selfatt_qk``,
``_sg_mkldnn_selfatt_valatt``; fixtures from ``tests/fixtures/gen_onednn_fused.py``).

INT8 graphs (``quantize_net`` with and without calibration, channel-wise Dense layers,
LeakyReLU/relu6/depthwise convolutions, a BERT-style self-attention) give MXNet's
outputs exactly at every node;
float fusions agree with MXNet to float32 rounding (MXNet folds the BatchNorm into the
weights) and are differentiable (MXNet's float fused nodes are inference only).
"""
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError

from .onednn_util import import_fixture

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures")
DATA = dict(np.load(os.path.join(HERE, "onednn_fused.npz")))
CASES = ["res_naive", "res_none", "acts_naive", "att_naive", "att_float", "float_fused",
         "fc_leaky_naive"]
FLOAT_CASES = ("att_float", "float_fused")


def _params(case, kind):
    prefix = f"{case}/{kind}:"
    return {k[len(prefix):]: mx.nd.array(v, dtype=v.dtype) for k, v in DATA.items()
            if k.startswith(prefix)}


def _internals(case, json_text=None):
    sym = mx.sym.load_json(json_text or str(DATA[f"{case}/json"]))
    internals = sym.get_internals()
    args = dict(_params(case, "arg"), data=mx.nd.array(DATA[f"{case}/x"]))
    ex = internals.bind(mx.cpu(), args, aux_states=_params(case, "aux"), grad_req="null")
    return dict(zip(internals.list_outputs(), ex.forward(is_train=False)))


def _expected(case):
    prefix = f"{case}/out:"
    return {k[len(prefix):]: v for k, v in DATA.items() if k.startswith(prefix)}


@pytest.mark.parametrize("case", CASES)
def test_every_node_matches_mxnet(case):
    got = _internals(case)
    expected = _expected(case)
    assert expected
    fused = [n for n in json.loads(str(DATA[f"{case}/json"]))["nodes"]
             if n["op"].startswith("_sg_mkldnn")]
    assert fused
    for name, want in expected.items():
        have = got[name].asnumpy()
        assert have.dtype == want.dtype and have.shape == want.shape, name
        if case in FLOAT_CASES or "activation" in name or "softmax" in name:  # float32
            np.testing.assert_allclose(have, want, rtol=1e-5, atol=3e-6, err_msg=name)
        else:
            np.testing.assert_array_equal(have, want, err_msg=name)


def test_quantized_output_types_follow_mxnet():
    got = _internals("res_naive")
    assert got["quantized_sg_mkldnn_conv_bn_act_0_output"].dtype == np.uint8
    assert got["quantized_sg_mkldnn_conv_bn_5_output"].dtype == np.int8
    assert got["quantized_sg_mkldnn_fully_connected_1_output"].dtype == np.float32
    leaky = _internals("fc_leaky_naive")
    assert leaky["quantized_sg_mkldnn_fully_connected_eltwise_0_output"].dtype == np.uint8
    none = _internals("res_none")
    assert none["quantized_sg_mkldnn_conv_bn_act_0_output"].dtype == np.int32


def test_int8_residual_under_uint8_output_saturates_as_mxnet():
    """MXNet sums in the residual's buffer: an int8 shortcut caps the uint8 output at 127."""
    got = _internals("res_naive")["quantized_sg_mkldnn_conv_bn_add_act_4_output"].asnumpy()
    assert got.dtype == np.uint8 and got.max() == 127
    want = _expected("res_naive")["quantized_sg_mkldnn_conv_bn_add_act_4_output"]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("case", ["res_naive", "att_naive", "float_fused"])
def test_symbolblock_imports_exported_model(case, tmp_path):
    net = import_fixture(DATA, case, str(tmp_path / "net"))
    out = net(mx.nd.array(DATA[f"{case}/x"])).asnumpy()
    last = json.loads(str(DATA[f"{case}/json"]))
    head = last["nodes"][last["heads"][0][0]]["name"]
    want = next(v for k, v in _expected(case).items() if k.startswith(head + "_output"))
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=3e-6)


@pytest.mark.parametrize("case", ["res_naive", "float_fused"])
def test_json_round_trip_keeps_fused_nodes(case):
    sym = mx.sym.load_json(str(DATA[f"{case}/json"]))
    text = sym.tojson()
    nodes = [n for n in json.loads(text)["nodes"] if n["op"].startswith("_sg_mkldnn")]
    assert nodes and all(len(n["subgraphs"]) == 1 for n in nodes)
    again = _internals(case, text)
    for name, value in _internals(case).items():
        np.testing.assert_array_equal(again[name].asnumpy(), value.asnumpy(), err_msg=name)


def test_float_fused_graph_has_the_plain_graphs_gradient():
    x = DATA["float_fused/x"]
    grads = []
    for key in ("float_fused/json", "float_fused/plain_json"):
        sym = mx.sym.load_json(str(DATA[key]))
        args = dict(_params("float_fused", "arg"), data=mx.nd.array(x))
        ex = sym.bind(mx.cpu(), args, args_grad={"data": mx.nd.zeros(x.shape)},
                      grad_req={"data": "write"}, aux_states=_params("float_fused", "aux"))
        ex.forward(is_train=False)
        ex.backward(mx.nd.ones(ex.outputs[0].shape))
        grads.append(ex.grad_dict["data"].asnumpy())
    assert np.abs(grads[1]).max() > 0
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-5, atol=1e-6)


def test_fused_nodes_list_mxnet_inputs_and_outputs():
    sym = mx.sym.load_json(str(DATA["res_naive/json"]))
    internals = sym.get_internals()
    conv = internals["quantized_sg_mkldnn_conv_bn_add_act_2_output"]
    assert conv.list_outputs() == ["quantized_sg_mkldnn_conv_bn_add_act_2_output"]
    assert "batchnorm3_running_mean" in sym.list_auxiliary_states()
    assert "batchnorm3_running_mean" not in sym.list_arguments()


def test_quantized_conv_refuses_float_data():
    graph = json.loads(str(DATA["res_naive/json"]))
    nodes = graph["nodes"]
    conv = next(i for i, n in enumerate(nodes) if n["op"] == "_sg_mkldnn_conv")
    nodes.append({"op": "null", "name": "lo", "inputs": []})
    nodes.append({"op": "null", "name": "hi", "inputs": []})
    n = len(nodes)
    # feed the float data straight in, bypassing its _contrib_quantize_v2
    nodes[conv]["inputs"] = ([[0, 0, 0]] + nodes[conv]["inputs"][1:-2]
                             + [[n - 2, 0, 0], [n - 1, 0, 0]])
    graph["arg_nodes"] = graph["arg_nodes"] + [n - 2, n - 1]
    graph["heads"] = [[conv, 0, 0]]
    graph["node_row_ptr"] = None
    sym = mx.sym.load_json(json.dumps({k: v for k, v in graph.items() if v is not None}))
    params = dict(_params("res_naive", "arg"), **_params("res_naive", "aux"))
    args = {k: params[k] for k in sym.list_arguments() if k in params}
    args.update(data=mx.nd.ones((2, 3, 16, 16)), lo=mx.nd.array([0.0]), hi=mx.nd.array([1.0]))
    aux = {k: params[k] for k in sym.list_auxiliary_states()}
    with pytest.raises(MXNetError, match="_sg_mkldnn_conv.*int8/uint8 data"):
        sym.bind(mx.cpu(), args, aux_states=aux).forward()


def test_integer_gemm_stays_exact_past_float32s_range():
    """The INT8 GEMMs run in float32 only while every partial sum fits its 24 bits."""
    from gluonlite.ops import _quantized_math as qm
    a = np.full((2, 1001), 255, dtype=np.uint8)
    a[1, 0] = 1
    b = np.full((1001, 3), 127, dtype=np.int8)
    b[0, 1] = -128  # int8's -128 has no int8 absolute value: the bound must still see it
    want = a.astype(np.int64) @ b.astype(np.int64)
    assert qm.matmul_exact_dtype(np, a, b) == np.float64
    np.testing.assert_array_equal(qm.int_matmul(np, a, b), want)
    small = np.full((2, 3), -128, dtype=np.int8)
    assert qm.matmul_exact_dtype(np, small, small.T) == np.float32
    np.testing.assert_array_equal(qm.int_matmul(np, small, small.T),
                                  small.astype(np.int64) @ small.T.astype(np.int64))
