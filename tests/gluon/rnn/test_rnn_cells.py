"""``gluon.rnn`` cells' ``unroll`` against MXNet 1.9.1 (fixture ``gluon_rnn/cells.npz``):
outputs, final states and gradients with merged and split outputs, both layouts and
``valid_length``; symbolic unrolling and the cells' errors."""
import os
import sys

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd

HERE = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures")
sys.path.insert(0, HERE)
from rnn_cell_cases import CASES, T, build as _build  # noqa: E402  (the fixture's set-ups)


def build(case):
    return _build(mx, case)

DATA = np.load(os.path.join(HERE, "gluon_rnn", "cells.npz"))


@pytest.mark.parametrize("case", sorted(CASES))
def test_unroll_matches_mxnet(case):
    layout, merge, valid = CASES[case]
    cell = build(case)
    cell.load_parameters(os.path.join(HERE, "gluon_rnn", f"cell_{case}.params"))
    x = mx.nd.array(DATA[f"{case}/x"])
    valid_length = mx.nd.array([4, 2, 3]) if valid else None
    x.attach_grad()
    with autograd.record():
        outputs, states = cell.unroll(T, x, layout=layout, merge_outputs=merge,
                                      valid_length=valid_length)
        if not merge:
            assert isinstance(outputs, list) and len(outputs) == T
            outputs = mx.nd.stack(*outputs, axis=layout.find("T"))
        loss = (outputs * mx.nd.array(DATA[f"{case}/w"])).sum() + sum(s.sum() for s in states)
    loss.backward()
    np.testing.assert_allclose(outputs.asnumpy(), DATA[f"{case}/out"], rtol=1e-5, atol=1e-6)
    for i, s in enumerate(states):
        np.testing.assert_allclose(s.asnumpy(), DATA[f"{case}/state{i}"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(x.grad.asnumpy(), DATA[f"{case}/dx"], rtol=1e-4, atol=1e-6)
    for name, param in cell._collect_params_with_prefix().items():
        np.testing.assert_allclose(param.grad().asnumpy(), DATA[f"{case}/grad/{name}"],
                                   rtol=1e-4, atol=1e-6, err_msg=name)


def test_symbolic_unroll_names_and_shapes():
    cell = mx.gluon.rnn.LSTMCell(4, prefix="rnn_")
    outputs, states = cell.unroll(3, mx.sym.var("data"), merge_outputs=False)
    assert [o.list_outputs() for o in outputs] == [["rnn_t0_out_output"],
                                                   ["rnn_t1_out_output"],
                                                   ["rnn_t2_out_output"]]
    group = mx.sym.Group(outputs)
    assert sorted(group.list_arguments()) == ["data", "rnn_h2h_bias", "rnn_h2h_weight",
                                              "rnn_i2h_bias", "rnn_i2h_weight"]
    assert group.infer_shape(data=(2, 3, 5))[1] == [(2, 4)] * 3


def test_hybridized_stack_equals_imperative():
    cell = mx.gluon.rnn.HybridSequentialRNNCell()
    cell.add(mx.gluon.rnn.LSTMCell(4))
    cell.add(mx.gluon.rnn.GRUCell(4))
    cell.initialize()
    x = mx.nd.random.normal(shape=(2, 3, 5))
    eager, _ = cell.unroll(3, x, merge_outputs=True)
    cell.hybridize()
    hybrid, _ = cell.unroll(3, x, merge_outputs=True)
    np.testing.assert_allclose(hybrid.asnumpy(), eager.asnumpy(), rtol=1e-5, atol=1e-6)


def test_cell_errors_and_state_info():
    cell = mx.gluon.rnn.GRUCell(3)
    assert cell.state_info(2) == [{"shape": (2, 3), "__layout__": "NC"}]
    bi = mx.gluon.rnn.BidirectionalCell(mx.gluon.rnn.RNNCell(2), mx.gluon.rnn.RNNCell(2))
    with pytest.raises(NotImplementedError, match="unroll"):
        bi(mx.nd.ones((1, 2)), bi.begin_state(batch_size=1))
    base = mx.gluon.rnn.RNNCell(2)
    mx.gluon.rnn.ZoneoutCell(base, 0.5)
    with pytest.raises(AssertionError, match="modifier"):
        base.begin_state(1)
    with pytest.raises(mx.MXNetError, match="length 5"):
        mx.gluon.rnn.RNNCell(2).unroll(5, mx.nd.ones((1, 3, 2)))
