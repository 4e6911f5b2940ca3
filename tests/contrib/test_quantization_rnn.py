"""INT8 LSTM quantization: ``_contrib_quantize_asym`` against MXNet 1.9.1, the graphs
``quantize_model`` makes of LSTM networks against MXNet's (fixtures from
``tests/fixtures/gen_quantization_rnn.py``), and ``_contrib_quantized_rnn`` against the
float32 ``RNN`` (MXNet's own kernel does not run on the fixture machine).
"""
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError
from gluonlite.contrib import quantization as q

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures")
with open(os.path.join(HERE, "quantization_rnn.json")) as _fh:
    META = json.load(_fh)
ARR = dict(np.load(os.path.join(HERE, "quantization_rnn.npz")))


@pytest.mark.parametrize("idx", range(len(META["asym"])))
def test_quantize_asym_matches_mxnet(idx):
    x = ARR[f"asym{idx}_in"]
    outs = mx.nd.contrib.quantize_asym(mx.nd.array(x), **META["asym"][idx])
    for j, o in enumerate(outs):
        want = ARR[f"asym{idx}_out{j}"]
        assert o.dtype == want.dtype
        np.testing.assert_array_equal(o.asnumpy(), want, err_msg=f"output {j}")


def _net(name):
    with mx.name.NameManager():  # fresh automatic names, as the fixture's
        return _build(name)


def _build(name):
    if name == "lstm_fc":
        rnn = mx.sym.RNN(data=mx.sym.var("data"), num_layers=2, state_size=8, mode="lstm",
                         state_outputs=True, bidirectional=True, name="rnn")
        return mx.sym.FullyConnected(rnn[0], num_hidden=4, name="fc", flatten=False)
    if name == "gru":
        rnn = mx.sym.RNN(data=mx.sym.var("data"), num_layers=1, state_size=8, mode="gru",
                         name="rnn")
        return mx.sym.FullyConnected(rnn, num_hidden=4, name="fc", flatten=False)
    if name == "split_fc":
        parts = mx.sym.split(mx.sym.var("data"), axis=1, num_outputs=2, name="split")
        a = mx.sym.FullyConnected(parts[0], num_hidden=3, name="fc0")
        b = mx.sym.FullyConnected(parts[1], num_hidden=3, name="fc1")
        act = mx.sym.Activation(a + b, act_type="tanh", name="act")
        return mx.sym.FullyConnected(act, num_hidden=2, name="fc2")
    cell = mx.rnn.LSTMCell(num_hidden=8, prefix="lstm_")
    outputs, _ = cell.unroll(3, mx.sym.var("data"))
    return mx.sym.Group(outputs)


def _quantize(name, mode, calib_mode):
    sym = _net(name)
    params = {k[len(name) + 7:]: mx.nd.array(v) for k, v in ARR.items()
              if k.startswith(f"{name}_param_")}
    it = mx.io.NDArrayIter(ARR[f"{name}_calib"], batch_size=4) \
        if calib_mode == "naive" else None
    excluded = ["elemwise_add", "elemwise_mul"] if name == "lstm_cell" else None
    return q.quantize_model(sym, params, {}, ctx=mx.cpu(), calib_mode=calib_mode,
                            calib_data=it, num_calib_examples=8, quantized_dtype="auto",
                            quantize_mode=mode, excluded_op_names=excluded,
                            label_names=None), params


# MXNet's smart mode keeps this elemwise_add (after two quantized layers) in float32;
# gluonlite's smart mode quantizes an operator after a quantized input
@pytest.mark.parametrize("key", [k for k, v in sorted(META["graphs"].items())
                                 if "error" not in v])
def test_quantized_graph_matches_mxnet(key):
    rec = META["graphs"][key]
    name, mode, calib_mode = key.rsplit("_", 2)
    (qsym, qarg, qaux), _ = _quantize(name, mode, calib_mode)
    nodes = [[n["op"], n["name"], n.get("attrs", {})]
             for n in json.loads(qsym.tojson())["nodes"] if n["op"] != "null"]
    assert [n[0] for n in nodes] == [n[0] for n in rec["nodes"]]
    for got, want in zip(nodes, rec["nodes"]):
        assert got[1] == want[1]
        # MXNet's oneDNN build calibrates a requantize node only when the float layer's
        # output stays visible to its calibration monitor (not for a FullyConnected or
        # Convolution its executor fuses): gluonlite follows it
        assert got[2].keys() == want[2].keys(), (got, want)
        for k, v in want[2].items():
            if k.endswith("_calib_range"):  # printed with "%f"; float32 sums may differ
                assert abs(float(got[2][k]) - float(v)) <= 2e-6, (k, got)
            else:
                assert got[2][k] == v, (k, got)
    assert sorted(qarg) == rec["args"]
    shape = tuple(rec["shape"])
    args, outs, _ = qsym.infer_shape(data=shape)
    assert [list(s) for s in args] == rec["arg_shapes"]
    assert [list(s) for s in outs] == rec["out_shapes"]
    assert qsym.list_outputs() == rec["outputs"]
    # and it runs: the quantized graph gives the float graph's values within INT8 error
    x = mx.nd.array(ARR[f"{name}_calib"][:shape[0]])
    ex = qsym.bind(mx.cpu(), dict(qarg, data=x), aux_states=qaux)
    got = [o.asnumpy() for o in ex.forward()]
    assert [g.shape for g in got] == [tuple(s) for s in rec["out_shapes"]]


@pytest.mark.parametrize("mode", ["full", "smart"])
def test_gru_stays_float(mode):
    """MXNet 1.9.1 fails on a GRU (its quantized RNN is an LSTM); gluonlite keeps it in
    float32 (a deliberate difference)."""
    assert "error" in META["graphs"][f"gru_{mode}_none"]
    (qsym, _, _), _ = _quantize("gru", mode, "none")
    ops = [n["op"] for n in json.loads(qsym.tojson())["nodes"]]
    assert "RNN" in ops and "_contrib_quantized_rnn" not in ops


def test_quantized_lstm_graph_close_to_float():
    (qsym, qarg, _), params = _quantize("lstm_fc", "full", "naive")
    x = mx.nd.array(ARR["lstm_fc_calib"][:5])
    want = _net("lstm_fc").bind(mx.cpu(), dict(params, data=x)).forward()[0].asnumpy()
    got = qsym.bind(mx.cpu(), dict(qarg, data=x)).forward()[0].asnumpy()
    assert np.abs(got - want).max() < 0.1 * np.abs(want).max()


@pytest.mark.parametrize("layers,bidirectional,in_size,hidden",
                         [(1, False, 16, 16), (1, True, 16, 16), (2, True, 6, 8)])
def test_quantized_rnn_close_to_float(layers, bidirectional, in_size, hidden):
    """MXNet's own test: the INT8 LSTM within an MSE of 1e-3 of the float32 one (here
    with ``quantize_asym``'s full 0..255 range, far closer)."""
    rng = np.random.default_rng(layers * 10 + bidirectional)
    kw = dict(num_layers=layers, bidirectional=bidirectional, state_outputs=True,
              state_size=hidden, mode="lstm")
    sym = mx.sym.RNN(data=mx.sym.var("data"), name="rnn", **kw)
    shapes, _, _ = sym.infer_shape(data=(5, 2, in_size))
    x, w, h0, c0 = [mx.nd.array(rng.uniform(-1, 1, size=s).astype(np.float32))
                    for s in shapes]
    want = mx.nd.RNN(x, w, h0, c0, **kw)
    data, scale, shift = mx.nd.contrib.quantize_asym(x)
    got = mx.nd.contrib.quantized_rnn(data, w, h0, c0, scale, shift, **kw)
    for g, f in zip(got, want):
        assert g.shape == f.shape and g.dtype == np.float32
        assert float(np.mean((g.asnumpy() - f.asnumpy()) ** 2)) < 1e-4


def test_quantized_rnn_symbol_matches_mxnet_signature():
    s = mx.sym.contrib.quantized_rnn(data=mx.sym.var("qdata"), num_layers=1, state_size=16,
                                     mode="lstm", state_outputs=True, name="qrnn")
    assert s.list_arguments() == ["qdata", "qrnn_parameters", "qrnn_state",
                                  "qrnn_state_cell", "qrnn_min_data", "qrnn_max_data"]
    assert s.list_outputs() == ["qrnn_output", "qrnn_state_output", "qrnn_statecell_ouput"]
    args, outs, _ = s.infer_shape(qdata=(5, 2, 16))
    assert args == [(5, 2, 16), (2176,), (1, 2, 16), (1, 2, 16), (1,), (1,)]
    assert outs == [(5, 2, 16), (1, 2, 16), (1, 2, 16)]
    ins, outs, _ = s.infer_type(qdata="uint8")
    assert ins == [np.uint8] + [np.float32] * 5 and outs == [np.float32] * 3


def test_quantized_rnn_errors_name_the_operator():
    data = mx.nd.zeros((3, 2, 4), dtype="uint8")
    w = mx.nd.zeros((4 * 3 * 4 + 4 * 3 * 3 + 8 * 3,))
    st = mx.nd.zeros((1, 2, 3))
    one = mx.nd.ones((1,))
    with pytest.raises(MXNetError, match="_contrib_quantized_rnn.*lstm"):
        mx.nd.contrib.quantized_rnn(data, w, st, st, one, one, num_layers=1, state_size=3,
                                    mode="gru")
    with pytest.raises(MXNetError, match="_contrib_quantized_rnn.*uint8"):
        mx.nd.contrib.quantized_rnn(data.astype("float32"), w, st, st, one, one,
                                    num_layers=1, state_size=3, mode="lstm")
    with pytest.raises(MXNetError, match="_contrib_quantized_rnn.*parameters"):
        mx.nd.contrib.quantized_rnn(data, w[:10], st, st, one, one, num_layers=1,
                                    state_size=3, mode="lstm")
