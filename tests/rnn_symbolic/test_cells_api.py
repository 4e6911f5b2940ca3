"""Behaviour of the ``mx.rnn`` cell API that the fixture cases do not pin: parameter
sharing, begin states and counters, weight packing, modifiers, initializers and
errors (MXNet 1.9.1's behaviour, learnt from its docs, tests and runs)."""
import warnings

import numpy as np
import pytest

import gluonlite as mx


def test_namespaces():
    assert mx.rnn.rnn_cell.LSTMCell is mx.rnn.LSTMCell
    assert mx.rnn.rnn.save_rnn_checkpoint is mx.rnn.save_rnn_checkpoint
    assert mx.rnn.io.BucketSentenceIter is mx.rnn.BucketSentenceIter
    assert mx.rnn.encode_sentences is mx.rnn.io.encode_sentences
    for name in ("RNNParams", "BaseRNNCell", "RNNCell", "LSTMCell", "GRUCell", "FusedRNNCell",
                 "SequentialRNNCell", "BidirectionalCell", "DropoutCell", "ZoneoutCell",
                 "ResidualCell", "ModifierCell", "ConvRNNCell", "ConvLSTMCell",
                 "ConvGRUCell", "do_rnn_checkpoint", "load_rnn_checkpoint"):
        assert hasattr(mx.rnn, name), name


def test_rnn_params_share_variables():
    params = mx.rnn.RNNParams("shared_")
    a = mx.rnn.LSTMCell(4, prefix="a_", params=params)
    b = mx.rnn.LSTMCell(4, prefix="b_", params=params)
    assert a._iW is b._iW
    assert sorted(params._params) == ["shared_h2h_bias", "shared_h2h_weight",
                                      "shared_i2h_bias", "shared_i2h_weight"]
    out_a, _ = a.unroll(2, [mx.sym.var("x0"), mx.sym.var("x1")])
    out_b, _ = b.unroll(2, out_a)
    args = mx.sym.Group(out_b).list_arguments()
    assert args.count("shared_i2h_weight") == 1
    assert "b_t1_out_output" in mx.sym.Group(out_b).list_outputs()
    assert params.get("i2h_weight") is a._iW


def test_begin_state_names_counter_and_reset():
    cell = mx.rnn.LSTMCell(5, prefix="l_")
    first = cell.begin_state()
    second = cell.begin_state(func=mx.sym.Variable)
    assert [s.name for s in first] == ["l_begin_state_0", "l_begin_state_1"]
    assert [s.name for s in second] == ["l_begin_state_2", "l_begin_state_3"]
    assert second[0].attr("__layout__") == "NC"
    assert second[0].attr("__shape__") == "(0, 5)"
    assert cell.state_shape == [(0, 5), (0, 5)]
    cell.reset()
    assert cell.begin_state()[0].name == "l_begin_state_0"


def test_unroll_twice_reuses_step_names():
    cell = mx.rnn.GRUCell(3, prefix="g_")
    data = mx.sym.var("data")
    out1, _ = cell.unroll(2, data, merge_outputs=False)
    out2, _ = cell.unroll(2, data, merge_outputs=False)
    assert [o.name for o in out1] == [o.name for o in out2] == ["g_t0_out", "g_t1_out"]


def test_step_by_step_matches_unroll():
    cell = mx.rnn.SequentialRNNCell()
    cell.add(mx.rnn.RNNCell(3, prefix="s0_"))
    cell.add(mx.rnn.LSTMCell(3, prefix="s1_"))
    states = cell.begin_state(func=mx.sym.Variable)
    assert len(states) == 3
    out, new_states = cell(mx.sym.var("x"), states)
    assert out.name == "s1_t0_out" and len(new_states) == 3
    shapes = {"x": (2, 4)}
    shapes.update({s.name: (2, 3) for s in states})
    _, out_shapes, _ = mx.sym.Group([out] + new_states).infer_shape(**shapes)
    assert out_shapes == [(2, 3)] * 4


@pytest.mark.parametrize("cls, gates", [(mx.rnn.LSTMCell, "ifco"), (mx.rnn.GRUCell, "rzo"),
                                        (mx.rnn.RNNCell, "")])
def test_unpack_pack_weights_round_trip(cls, gates):
    cell = cls(3, prefix="c_")
    m = max(len(gates), 1)
    rng = np.random.RandomState(0)
    args = {"c_i2h_weight": rng.rand(3 * m, 5), "c_i2h_bias": rng.rand(3 * m),
            "c_h2h_weight": rng.rand(3 * m, 3), "c_h2h_bias": rng.rand(3 * m),
            "other": rng.rand(2)}
    args = {k: mx.nd.array(v) for k, v in args.items()}
    unpacked = cell.unpack_weights(args)
    assert "other" in unpacked and "c_i2h_weight" in args  # input left alone
    names = ["c_%s%s_%s" % (g, "_" + gate if gate else "", kind)
             for g in ("i2h", "h2h") for gate in (gates or [""]) for kind in ("weight", "bias")]
    assert sorted(unpacked) == sorted(names + ["other"])
    if gates:
        np.testing.assert_array_equal(unpacked["c_i2h_%s_weight" % gates[1]].asnumpy(),
                                      args["c_i2h_weight"].asnumpy()[3:6])
    packed = cell.pack_weights(unpacked)
    assert sorted(packed) == sorted(args)
    for key in args:
        np.testing.assert_array_equal(packed[key].asnumpy(), args[key].asnumpy())


def test_lstm_bias_initializer_attr_and_module_init():
    cell = mx.rnn.LSTMCell(4, prefix="l_", forget_bias=2.0)
    assert cell._iB.attr("__init__") == mx.init.LSTMBias(forget_bias=2.0).dumps()
    out, _ = cell.unroll(1, mx.sym.var("data"), merge_outputs=True)
    mod = mx.mod.Module(out, label_names=None, context=mx.cpu())
    mod.bind(data_shapes=[("data", (2, 1, 3))], label_shapes=None)
    mod.init_params()
    bias = mod.get_params()[0]["l_i2h_bias"].asnumpy()
    np.testing.assert_array_equal(bias, np.r_[np.zeros(4), 2 * np.ones(4), np.zeros(8)])


def test_fused_initializer_sets_forget_bias():
    cell = mx.rnn.FusedRNNCell(3, num_layers=1, mode="lstm", forget_bias=1.5, prefix="f_")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out, _ = cell.unroll(2, mx.sym.var("data"), merge_outputs=True)
    mod = mx.mod.Module(out, label_names=None, context=mx.cpu())
    mod.bind(data_shapes=[("data", (2, 2, 4))], label_shapes=None)
    mod.init_params(mx.init.Xavier())
    pieces = cell.unpack_weights(mod.get_params()[0])
    np.testing.assert_array_equal(pieces["f_l0_i2h_f_bias"].asnumpy(), 1.5 * np.ones(3))
    np.testing.assert_array_equal(pieces["f_l0_h2h_i_bias"].asnumpy(), np.zeros(3))
    assert pieces["f_l0_i2h_c_weight"].shape == (3, 4)
    assert pieces["f_l0_h2h_o_weight"].shape == (3, 3)


def test_fused_wrong_size_and_no_stepping():
    cell = mx.rnn.FusedRNNCell(3, mode="gru")
    with pytest.raises(AssertionError):
        cell.unpack_weights({"gru_parameters": mx.nd.zeros((7,))})
    with pytest.raises(NotImplementedError):
        cell(mx.sym.var("x"), cell.begin_state())
    assert cell._gate_names == ["_r", "_z", "_o"]
    assert cell.state_info == [{"shape": (1, 0, 3), "__layout__": "LNC"}]


def test_fused_next_state_layout_attr():
    cell = mx.rnn.FusedRNNCell(3, mode="lstm", get_next_state=True, bidirectional=True)
    out, states = cell.unroll(2, mx.sym.var("data"), layout="TNC", merge_outputs=True)
    assert [s.attr("__layout__") for s in states] == ["LNC", "LNC"]
    assert out.list_outputs() == ["lstm_rnn_output"]
    assert [s.list_outputs()[0] for s in states] == ["lstm_rnn_state_output",
                                                     "lstm_rnn_statecell_output"]


def test_bidirectional_cannot_step_and_state_nesting():
    cell = mx.rnn.BidirectionalCell(mx.rnn.GRUCell(2, prefix="l_"),
                                    mx.rnn.GRUCell(2, prefix="r_"))
    with pytest.raises(NotImplementedError):
        cell(mx.sym.var("x"), [])
    outs, states = cell.unroll(2, [mx.sym.var("a"), mx.sym.var("b")])
    assert [o.name for o in outs] == ["bi_t0", "bi_t1"]
    assert len(states) == 2 and all(isinstance(s, list) for s in states)


def test_modified_base_cell_is_locked():
    base = mx.rnn.RNNCell(3, prefix="b_")
    cell = mx.rnn.ResidualCell(base)
    with pytest.raises(AssertionError, match="modifier"):
        base.begin_state()
    assert [s.name for s in cell.begin_state()] == ["b_begin_state_0"]
    assert cell.params is base.params
    with pytest.raises(NotImplementedError):
        mx.rnn.ModifierCell(mx.rnn.RNNCell(2))(mx.sym.var("x"), [])


def test_zoneout_refuses_fused_and_bidirectional():
    with pytest.raises(AssertionError, match="FusedRNNCell"):
        mx.rnn.ZoneoutCell(mx.rnn.FusedRNNCell(2))
    with pytest.raises(AssertionError, match="BidirectionalCell"):
        mx.rnn.ZoneoutCell(mx.rnn.BidirectionalCell(mx.rnn.RNNCell(2, prefix="a_"),
                                                    mx.rnn.RNNCell(2, prefix="b_")))


def test_residual_and_dropout_names():
    cell = mx.rnn.ResidualCell(mx.rnn.GRUCell(4, prefix="rnn_"))
    outs, _ = cell.unroll(2, [mx.sym.var("a"), mx.sym.var("b")])
    assert mx.sym.Group(outs).list_outputs() == ["rnn_t0_out_plus_residual_output",
                                                 "rnn_t1_out_plus_residual_output"]
    drop = mx.rnn.DropoutCell(0.3)
    out, states = drop.unroll(2, mx.sym.var("data"), merge_outputs=True)
    assert states == [] and out.list_outputs()[0].startswith("dropout")
    with pytest.raises(AssertionError):
        mx.rnn.DropoutCell("0.3")


def test_unfuse_structure():
    stack = mx.rnn.FusedRNNCell(5, num_layers=3, mode="rnn_relu", dropout=0.2,
                                prefix="u_").unfuse()
    kinds = [type(c).__name__ for c in stack._cells]
    assert kinds == ["RNNCell", "DropoutCell", "RNNCell", "DropoutCell", "RNNCell"]
    assert stack._cells[0]._activation == "relu" and stack._cells[1]._prefix == "u__dropout0_"
    assert stack._cells[4]._prefix == "u_l2_"


def test_conv_lstm_state_shape():
    cell = mx.rnn.ConvLSTMCell((1, 3, 8, 6), 4, i2h_kernel=(3, 3), i2h_stride=(2, 2),
                               i2h_pad=(1, 1), prefix="c_")
    assert cell.state_shape == [(0, 4, 4, 3), (0, 4, 4, 3)]
    assert cell._gate_names == ["_i", "_f", "_c", "_o"]
    with pytest.raises(AssertionError, match="odd"):
        mx.rnn.ConvRNNCell((1, 3, 8, 6), 4, h2h_kernel=(2, 3))
