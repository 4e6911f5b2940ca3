"""MXNet 1.9.1's CPU INT8 flow against MXNet's own results (fixtures from
``tests/fixtures/gen_onednn_quantize.py``): the quantized graph node for node (names,
attributes with the calibrated ranges, inputs), the quantized parameters and the outputs.

One difference is normalized: MXNet's oneDNN relu gives ``-0.0`` for negative inputs, so
a calibrated minimum it prints as ``-0.000000`` is ``0.000000`` here (the same range).
"""
import json
import warnings

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.contrib import quantization as q
from gluonlite.symbol.onednn_post_quantize import post_quantize_onednn

from .onednn_util import fixture_params, import_fixture, load_fixture, op_nodes

DATA = load_fixture("onednn_quantize.npz")
CASES = sorted({k.split("/")[0] for k in DATA})


def _params(case, kind):
    return fixture_params(DATA, case, kind)


def _meta(case):
    return json.loads(str(DATA[f"{case}/meta"]))


def _graph(text):
    return op_nodes(json.loads(text))


def _calib_iter(case):
    return mx.io.NDArrayIter(DATA[f"{case}/calib"], batch_size=4)


def _quantize_args(case) -> dict:
    """The fixture's parameters, calibration data and MXNet's quantization options."""
    meta = _meta(case)
    return dict(arg_params=_params(case, "arg"), aux_params=_params(case, "aux"),
                ctx=mx.cpu(), calib_mode=meta["calib_mode"], calib_data=_calib_iter(case),
                num_calib_examples=8, quantized_dtype=meta["quantized_dtype"],
                quantize_mode=meta["quantize_mode"],
                quantize_granularity=meta["quantize_granularity"], label_names=None)


def _check(case, qsym, qarg, qaux):
    assert _graph(qsym.tojson()) == _graph(str(DATA[f"{case}/qjson"]))
    want = _params(case, "qarg")
    assert sorted(qarg) == sorted(want)
    for name, value in want.items():
        np.testing.assert_array_equal(qarg[name].asnumpy(), value.asnumpy(), err_msg=name)
    args = dict(qarg, data=mx.nd.array(DATA[f"{case}/x"]))
    out = qsym.bind(mx.cpu(), args, aux_states=qaux, grad_req="null").forward()[0]
    np.testing.assert_array_equal(out.asnumpy(), DATA[f"{case}/out"])


@pytest.mark.parametrize("case", CASES)
def test_quantizing_mxnets_fused_graph_gives_mxnets_int8_graph(case):
    """Quantization, calibration and the post-quantization passes on the graph MXNet fused."""
    fused = mx.sym.load_json(str(DATA[f"{case}/fused_json"]))
    qsym, qarg, qaux = q.quantize_model(fused, **_quantize_args(case))
    _check(case, post_quantize_onednn(qsym), qarg, qaux)


@pytest.mark.parametrize("case", CASES)
def test_quantize_model_mkldnn_matches_mxnet(case):
    """The whole flow from the float model, fusion included."""
    sym = mx.sym.load_json(str(DATA[f"{case}/json"]))
    qsym, qarg, qaux = q.quantize_model_mkldnn(sym, **_quantize_args(case))
    _check(case, qsym, qarg, qaux)


def test_quantize_net_on_cpu_runs_the_onednn_flow(tmp_path):
    case = "res_naive"
    net = import_fixture(DATA, case, str(tmp_path / "float"))
    calib = mx.gluon.data.DataLoader(mx.gluon.data.ArrayDataset(
        mx.nd.array(DATA[f"{case}/calib"]), mx.nd.zeros((8,))), batch_size=4)
    with warnings.catch_warnings():  # as MXNet, the quantized block warns `data` is untyped
        warnings.simplefilter("ignore", UserWarning)
        qnet = q.quantize_net_v2(net, quantized_dtype="auto", quantize_mode="full",
                                 calib_data=calib, calib_mode="naive", num_calib_examples=8,
                                 ctx=mx.cpu())
    out = qnet(mx.nd.array(DATA[f"{case}/x"])).asnumpy()
    np.testing.assert_array_equal(out, DATA[f"{case}/out"])


def test_quantize_model_mkldnn_is_cpu_only():
    sym = mx.sym.load_json(str(DATA["res_naive/json"]))
    with pytest.raises(ValueError, match="cpu"):
        q.quantize_model_mkldnn(sym, _params("res_naive", "arg"), _params("res_naive", "aux"),
                                ctx=mx.gpu(0), calib_mode="none")


def test_excluding_a_layer_inside_a_fused_node_keeps_it_float():
    fused = mx.sym.load_json(str(DATA["res_naive/fused_json"]))
    inner = "conv0_fwd" if "conv0_fwd" in str(DATA["res_naive/fused_json"]) else None
    assert inner is not None
    qsym, _, _ = q.quantize_model(
        fused, _params("res_naive", "arg"), _params("res_naive", "aux"), ctx=mx.cpu(),
        excluded_sym_names=[inner], calib_mode="none", quantized_dtype="int8",
        quantize_mode="full", label_names=None)
    nodes = {n["name"]: n for n in json.loads(qsym.tojson())["nodes"]}
    first = next(n for n in nodes.values() if n["op"] == "_sg_mkldnn_conv")
    assert first["name"] == "sg_mkldnn_conv_bn_act_0"  # not quantized_...
    assert "quantized" not in (first.get("attrs") or {})


class _MXNet1Collector:
    """A calibration collector written for MXNet 1.x (as GluonNLP's BertLayerCollector):
    ``collect(name, handle)``, the array recovered from its C handle, ``include_layer``
    a callable, thresholds in ``min_max_dict``."""

    def __init__(self):
        self.include_layer = lambda name: name.endswith(("_output", "data"))
        self.min_max_dict = {}
        self.seen_ops = set()

    def collect(self, name, arr):
        import ctypes
        from gluonlite.base import NDArrayHandle, py_str
        name = py_str(name)
        if not self.include_layer(name):
            return
        arr = mx.nd.NDArray(ctypes.cast(arr, NDArrayHandle), writable=False)
        lo, hi = float(mx.nd.min(arr).asscalar()), float(mx.nd.max(arr).asscalar())
        old = self.min_max_dict.get(name, (lo, hi))
        self.min_max_dict[name] = (min(old[0], lo), max(old[1], hi))


def test_customize_calibration_takes_an_mxnet1_collector():
    """calib_mode='customize' with a collector in MXNet 1.x's form; one that records
    min/max gives MXNet's naive-calibrated graph."""
    case = "res_naive"
    fused = mx.sym.load_json(str(DATA[f"{case}/fused_json"]))
    collector = _MXNet1Collector()
    # (quantize_model has no collector argument in MXNet 1.9: quantize_graph, then the
    # float graph's values, then calib_graph)
    qsym, qarg, qaux, coll = q.quantize_graph(
        fused, _params(case, "arg"), _params(case, "aux"), mx.cpu(), calib_mode="customize",
        quantized_dtype="auto", quantize_mode="full", LayerOutputCollector=collector)
    q._collect_layer_statistics(fused, _params(case, "arg"), _params(case, "aux"),
                                _calib_iter(case), coll, None, ("data",), mx.cpu(), 8)
    assert "sg_mkldnn_conv_bn_act_0_output" in collector.min_max_dict
    qsym, qarg, qaux = q.calib_graph(qsym, _params(case, "arg"), _params(case, "aux"), coll,
                                     calib_mode="customize", quantized_dtype="auto")
    _check(case, post_quantize_onednn(qsym), qarg, qaux)


def test_a_handle_not_lent_is_refused():
    import ctypes
    with pytest.raises(mx.base.MXNetError, match="not a live array"):
        mx.nd.NDArray(ctypes.c_void_p(12345678))
