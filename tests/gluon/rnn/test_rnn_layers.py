"""``gluon.rnn`` layers against MXNet 1.9.1 (fixture ``gluon_rnn``): MXNet's parameter
files load, outputs, states and gradients match, imperative and hybridized."""
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, gluon

HERE = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "gluon_rnn")
with open(os.path.join(HERE, "gluon_rnn.json")) as _f:
    CASES = json.load(_f)
DATA = np.load(os.path.join(HERE, "gluon_rnn.npz"))


@pytest.mark.parametrize("hybridize", [False, True], ids=["imperative", "hybridized"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_layer_matches_mxnet(case, hybridize):
    cls, kwargs, layout, with_states = CASES[case]
    layer = getattr(gluon.rnn, cls)(**kwargs)
    layer.load_parameters(os.path.join(HERE, f"{case}.params"))
    if hybridize:
        layer.hybridize()
    x = mx.nd.array(DATA[f"{case}/x"])
    states = [mx.nd.array(DATA[f"{case}/state{i}"]) for i in range(2)
              if f"{case}/state{i}" in DATA] or None
    # MXNet 1.9.1's CPU build runs a projected LSTM forward only: no gradients recorded
    trains = f"{case}/dx" in DATA
    x.attach_grad()
    with autograd.record(train_mode=trains):
        out = layer(x, states) if states else layer(x)
        new_states = None
        if states:
            out, new_states = out
        loss = (out * mx.nd.array(DATA[f"{case}/w"])).sum() if trains else out.sum()
    np.testing.assert_allclose(out.asnumpy(), DATA[f"{case}/out"], rtol=1e-5, atol=1e-6)
    if new_states is not None:
        for i, s in enumerate(new_states):
            np.testing.assert_allclose(s.asnumpy(), DATA[f"{case}/out_state{i}"], rtol=1e-5,
                                       atol=1e-6)
    if not trains:
        return
    loss.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), DATA[f"{case}/dx"], rtol=1e-4, atol=1e-6)
    for name, param in layer._collect_params_with_prefix().items():
        np.testing.assert_allclose(param.grad().asnumpy(), DATA[f"{case}/grad/{name}"],
                                   rtol=1e-4, atol=1e-6, err_msg=name)


def test_names_shapes_states_and_repr():
    layer = gluon.rnn.LSTM(5, num_layers=2, bidirectional=True, prefix="lstm0_")
    assert sorted(layer.collect_params().keys())[:3] == [
        "lstm0_l0_h2h_bias", "lstm0_l0_h2h_weight", "lstm0_l0_i2h_bias"]
    assert "_unfused.1.r_cell.i2h_weight" in layer._collect_params_with_prefix()
    layer.initialize()
    out = layer(mx.nd.ones((3, 2, 7)))  # deferred: the input size comes from the data
    assert out.shape == (3, 2, 10) and layer.l0_i2h_weight.shape == (20, 7)
    assert layer.r1_i2h_weight.shape == (20, 10)
    assert [s.shape for s in layer.begin_state(2)] == [(4, 2, 5), (4, 2, 5)]
    assert repr(layer) == "LSTM(7 -> 5, TNC, num_layers=2, bidirectional)"
    with pytest.raises(ValueError, match="Invalid recurrent state shape"):
        layer(mx.nd.ones((3, 2, 7)), [mx.nd.zeros((1, 2, 5)), mx.nd.zeros((1, 2, 5))])
    with pytest.raises(AssertionError):
        gluon.rnn.GRU(3, layout="CTN")


def test_inside_a_hybridized_network_with_input_size():
    net = gluon.nn.HybridSequential()
    with net.name_scope():
        net.add(gluon.nn.Embedding(10, 6), gluon.rnn.LSTM(8, input_size=6, layout="NTC"),
                gluon.nn.Dense(3, flatten=False))
    net.initialize()
    tokens = mx.nd.array([[1, 2, 3, 4], [5, 6, 7, 8]])
    eager = net(tokens).asnumpy()
    net.hybridize()
    np.testing.assert_allclose(net(tokens).asnumpy(), eager, rtol=1e-5, atol=1e-6)
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    with autograd.record():
        loss = net(tokens).sum()
    loss.backward()
    trainer.step(2)
