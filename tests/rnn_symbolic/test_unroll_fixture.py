"""Unrolled ``mx.rnn`` graphs against MXNet 1.9.1 (fixture ``symbolic_rnn.npz``): names
of arguments, outputs and every graph node with its attributes, shape inference, and
the outputs and gradients of a bound executor with MXNet's parameter values."""
import warnings

import numpy as np
import pytest

import gluonlite as mx

from . import cases

# ``begin_state()`` (and ZoneoutCell's first previous output) is ``_zeros`` with an
# unknown batch dimension, which MXNet fills in by graph shape inference; gluonlite's
# CachedOp plan infers shapes forward only, so these graphs cannot run yet.


def _build(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # FusedRNNCell's NTC-layout advice
        return cases.build(mx, name)


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_graph_matches_mxnet(name, rnn_fixture):
    _, meta = rnn_fixture
    want = meta["cases"][name]
    built = _build(name)
    group, cell = built["group"], built["cell"]
    assert group.list_arguments() == want["list_arguments"]
    assert group.list_outputs() == want["list_outputs"]
    assert group.list_auxiliary_states() == want["list_auxiliary_states"]
    assert sorted(cell.params._params) == want["params"]
    assert cases.state_info_json(cell) == want["state_info"]
    assert built["n_outputs"] == want["n_outputs"]
    assert built["merged"] == want["merged"]
    shapes = group.infer_shape(**built["input_shapes"])
    assert [[list(s) for s in part] for part in shapes] == want["infer_shape"]
    nodes = cases.graph_nodes(group)
    assert [n[:2] for n in nodes] == [n[:2] for n in want["nodes"]]
    assert nodes == want["nodes"]


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_partial_inference_from_data_only(name, rnn_fixture):
    """``infer_shape_partial`` given only the data shapes (begin states unknown)."""
    _, meta = rnn_fixture
    built = _build(name)
    given = {k: v for k, v in built["input_shapes"].items() if "data" in k}
    got = built["group"].infer_shape_partial(**given)
    assert [None if part is None else [list(s) for s in part] for part in got] == \
        meta["cases"][name]["infer_partial_from_data"]


def _run(name, data):
    case = cases.CASES[name]
    built = _build(name)
    group = built["group"]
    shapes = built["input_shapes"]
    exe = group.simple_bind(mx.cpu(), grad_req="write" if case["grads"] else "null",
                            **shapes)
    for nm in group.list_arguments():
        kind = "in" if nm in shapes else "arg"
        exe.arg_dict[nm][:] = data["%s/%s/%s" % (name, kind, nm)]
    outs = exe.forward(is_train=case["train"])
    return exe, group, outs


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_forward_backward_match_mxnet(name, rnn_fixture):
    data, meta = rnn_fixture
    case = cases.CASES[name]
    exe, group, outs = _run(name, data)
    assert len(outs) == len(meta["cases"][name]["list_outputs"])
    for i, out in enumerate(outs):
        np.testing.assert_allclose(out.asnumpy(), data["%s/out%d" % (name, i)],
                                   rtol=1e-5, atol=1e-5)
    if not case["grads"]:
        return
    exe.backward([mx.nd.array(data["%s/ograd%d" % (name, i)]) for i in range(len(outs))])
    for nm in group.list_arguments():
        np.testing.assert_allclose(exe.grad_dict[nm].asnumpy(),
                                   data["%s/grad/%s" % (name, nm)], rtol=1e-4, atol=1e-5,
                                   err_msg=nm)


@pytest.mark.parametrize("name", ["unfused_lstm_bi_2l", "unfused_gru_dropout"])
def test_unfuse_weights_pack_like_mxnet(name, rnn_fixture):
    """fused.unpack_weights then unfused.pack_weights gives MXNet's unfused weights."""
    data, _ = rnn_fixture
    built = _build(name)
    fused, unfused = built["fused"], built["cell"]
    packed = mx.nd.array(data["%s/packed" % name])
    unpacked = fused.unpack_weights({fused._parameter.name: packed, "other": packed})
    assert fused._parameter.name not in unpacked and "other" in unpacked
    repacked = unfused.pack_weights(unpacked)
    weights = {k[len(name) + 5:]: data[k] for k in data.files
               if k.startswith(name + "/arg/")}
    assert sorted(k for k in repacked if k != "other") == sorted(weights)
    for key, value in weights.items():
        np.testing.assert_array_equal(repacked[key].asnumpy(), value, err_msg=key)
    # and back: unfused.unpack then fused.pack restores the vector
    again = fused.pack_weights(unfused.unpack_weights({k: mx.nd.array(v)
                                                       for k, v in weights.items()}))
    np.testing.assert_array_equal(again[fused._parameter.name].asnumpy(), packed.asnumpy())


def test_fused_equals_its_unfused_stack(rnn_fixture):
    """The fused bidirectional 2-layer LSTM with MXNet's packed vector gives what MXNet's
    unfused stack gave (outputs and final states)."""
    data, meta = rnn_fixture
    name = "unfused_lstm_bi_2l"
    built = _build(name)
    fused = built["fused"]
    unfused_args = meta["cases"][name]["list_arguments"]
    begin = [nm for nm in unfused_args if "begin_state" in nm]
    # unfused begin states: l0 h, l0 c, r0 h, r0 c, l1 h, ... ; fused: (layers*dirs, N, H)
    hs = [data["%s/in/%s" % (name, nm)] for nm in begin[0::2]]
    cs = [data["%s/in/%s" % (name, nm)] for nm in begin[1::2]]
    with mx.name.NameManager(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        states = fused.begin_state(func=mx.sym.Variable)
        out, next_states = fused.unroll(cases.T, mx.sym.Variable("data"), states,
                                        layout="NTC", merge_outputs=True)
    group = mx.sym.Group([out] + next_states)
    feed = {"data": mx.nd.array(data["%s/in/data" % name]),
            states[0].name: mx.nd.array(np.stack(hs)),
            states[1].name: mx.nd.array(np.stack(cs)),
            fused._parameter.name: mx.nd.array(data["%s/packed" % name])}
    got = group.eval(**feed)
    np.testing.assert_allclose(got[0].asnumpy(), data["%s/out0" % name], rtol=1e-5,
                               atol=1e-5)
    n_states = len(begin)
    want_states = [data["%s/out%d" % (name, 1 + i)] for i in range(n_states)]
    np.testing.assert_allclose(got[1].asnumpy(), np.stack(want_states[0::2]), rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_allclose(got[2].asnumpy(), np.stack(want_states[1::2]), rtol=1e-5,
                               atol=1e-5)


def test_symbol_json_round_trip_runs(rnn_fixture):
    """The unrolled graph saved to JSON and loaded back gives the same numbers."""
    data, meta = rnn_fixture
    name = "bidir_lstm_tnc"
    built = _build(name)
    loaded = mx.sym.load_json(built["group"].tojson())
    assert loaded.list_arguments() == meta["cases"][name]["list_arguments"]
    feed = {}
    for nm in loaded.list_arguments():
        kind = "in" if nm in built["input_shapes"] else "arg"
        feed[nm] = mx.nd.array(data["%s/%s/%s" % (name, kind, nm)])
    outs = loaded.eval(**feed)
    for i, out in enumerate(outs):
        np.testing.assert_allclose(out.asnumpy(), data["%s/out%d" % (name, i)], rtol=1e-5,
                                   atol=1e-5)
