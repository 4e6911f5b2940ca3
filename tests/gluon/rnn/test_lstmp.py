"""LSTM with projection (LSTMP): the fused ``RNN`` operator against MXNet 1.9.1 (fixture
``rnn_lstmp.npz`` from ``tests/fixtures/gen_rnn_lstmp.py``, forward only: MXNet's CPU
build has no LSTMP backward), and ``gluon.rnn.LSTM(projection_size=...)`` against a
stack of ``contrib.rnn.LSTMPCell`` (an independent path through FullyConnected),
outputs, states and gradients."""
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, gluon
from gluonlite.ops.rnn import param_size

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "rnn_lstmp.npz")
DATA = np.load(FIXTURE)
CASES = json.loads(str(DATA["__cases__"]))


@pytest.mark.parametrize("train", [False, True], ids=["predict", "train"])
@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_operator_matches_mxnet(case, train):
    name = case["name"]
    inputs = [DATA[f"{name}/in{i}"] for i in range(case["n_in"])]
    arrs = [mx.nd.array(a, dtype=a.dtype) for a in inputs]
    with autograd.record(train_mode=train):
        outs = mx.nd.RNN(*arrs, **case["attrs"])
    assert len(outs) == case["n_out"]
    for i, o in enumerate(outs):
        expected = DATA[f"{name}/out{i}"]
        assert o.dtype == expected.dtype and o.shape == expected.shape
        np.testing.assert_allclose(o.asnumpy(), expected, rtol=case["rtol"],
                                   atol=case["atol"], err_msg=f"{name} output {i}")


def test_operator_shapes_and_errors():
    op_attrs = dict(state_size=5, num_layers=2, bidirectional=True, mode="lstm",
                    projection_size=3, state_outputs=True)
    # MXNet's numbers for (T, N, I) = (3, 2, 4)
    assert param_size("lstm", 2, 2, 4, 5, 3) == 2 * (20 * 4 + 20 * 3 + 15 + 40) + \
        2 * (20 * 6 + 20 * 3 + 15 + 40)
    sym = mx.sym.RNN(mx.sym.var("x"), mx.sym.var("p"), mx.sym.var("h"), mx.sym.var("c"),
                     **op_attrs)
    args, outs, _ = sym.infer_shape(x=(3, 2, 4))
    assert args == [(3, 2, 4), (param_size("lstm", 2, 2, 4, 5, 3),), (4, 2, 3), (4, 2, 5)]
    assert outs == [(3, 2, 6), (4, 2, 3), (4, 2, 5)]
    x = mx.nd.ones((3, 2, 4))
    p = mx.nd.zeros((param_size("lstm", 2, 2, 4, 5, 3),))
    with pytest.raises(mx.MXNetError, match=r"RNN.*states must have shape \(4, 2, 3\)"):
        mx.nd.RNN(x, p, mx.nd.zeros((4, 2, 5)), mx.nd.zeros((4, 2, 5)), **op_attrs)
    with pytest.raises(mx.MXNetError, match=r"RNN.*parameters must have shape"):
        mx.nd.RNN(x, p[:10], mx.nd.zeros((4, 2, 3)), mx.nd.zeros((4, 2, 5)), **op_attrs)
    with pytest.raises(mx.MXNetError, match="RNN.*only supported for mode 'lstm'"):
        mx.nd.RNN(x, p, mx.nd.zeros((4, 2, 3)), state_size=5, num_layers=2,
                  bidirectional=True, mode="gru", projection_size=3)


def test_dropout_between_projected_layers():
    """Masks have the projected width; backward sees the forward's masks."""
    rng = np.random.default_rng(5)
    attrs = dict(state_size=4, num_layers=3, mode="lstm", projection_size=2, p=0.5)
    arrs = [mx.nd.array(rng.standard_normal((4, 3, 2))),
            mx.nd.array(rng.uniform(-0.5, 0.5, param_size("lstm", 3, 1, 2, 4, 2))),
            mx.nd.zeros((3, 3, 2)), mx.nd.zeros((3, 3, 4))]
    for a in arrs[:2]:
        a.attach_grad()
    mx.random.seed(3)
    with autograd.record():
        out = mx.nd.RNN(*arrs, **attrs)
    out.backward()
    grads = [a.grad.asnumpy() for a in arrs[:2]]
    mx.random.seed(3)
    with autograd.record():
        again = mx.nd.RNN(*arrs, **attrs)
    again.backward()
    np.testing.assert_allclose(again.asnumpy(), out.asnumpy())
    for a, g in zip(arrs[:2], grads):
        np.testing.assert_allclose(a.grad.asnumpy(), g)
    with autograd.predict_mode():
        assert not np.allclose(mx.nd.RNN(*arrs, **attrs).asnumpy(), out.asnumpy())


def _stack(num_layers, bidirectional, hidden, proj):
    stack = gluon.rnn.HybridSequentialRNNCell(prefix="lstm0_")
    with stack.name_scope():
        for i in range(num_layers):
            cells = [gluon.contrib.rnn.LSTMPCell(hidden, projection_size=proj,
                                                 prefix=f"{d}{i}_")
                     for d in ("l", "r")[:2 if bidirectional else 1]]
            stack.add(gluon.rnn.BidirectionalCell(*cells) if bidirectional else cells[0])
    return stack


@pytest.mark.parametrize("hybridize", [False, True], ids=["imperative", "hybridized"])
@pytest.mark.parametrize("num_layers,bidirectional", [(1, False), (2, False), (2, True)])
def test_layer_matches_lstmp_cells(num_layers, bidirectional, hybridize):
    hidden, proj, t_len, batch, in_size = 6, 4, 5, 3, 7
    rng = np.random.default_rng(num_layers * 2 + bidirectional)
    fused = gluon.rnn.LSTM(hidden, projection_size=proj, num_layers=num_layers,
                           bidirectional=bidirectional, prefix="lstm0_")
    stack = _stack(num_layers, bidirectional, hidden, proj)
    fused.initialize()
    stack.initialize()
    x = mx.nd.array(rng.standard_normal((t_len, batch, in_size)))
    fused_states = [mx.nd.array(rng.standard_normal(s.shape) * 0.3)
                    for s in fused.begin_state(batch)]
    dirs = 2 if bidirectional else 1
    assert [s.shape for s in fused_states] == [(num_layers * dirs, batch, proj),
                                               (num_layers * dirs, batch, hidden)]
    fused.infer_shape(x, fused_states)
    stack_params = stack.collect_params()
    for name, param in fused.collect_params().items():
        value = mx.nd.array(rng.uniform(-0.4, 0.4, param.shape))
        param.set_data(value)
        stack_params[name].set_data(value)
    # the stack's begin states: (h, c) per cell, cells ordered layer by layer, l then r
    stack_states = []
    for k in range(num_layers * dirs):
        stack_states += [fused_states[0][k], fused_states[1][k]]
    if hybridize:
        fused.hybridize()
    head = mx.nd.array(rng.standard_normal((t_len, batch, dirs * proj)))
    results = []
    for run in ("fused", "stack"):
        xx = x.copy()
        xx.attach_grad()
        with autograd.record():
            if run == "fused":
                out, states = fused(xx, fused_states)
            else:
                out, states = stack.unroll(t_len, xx, begin_state=stack_states,
                                           layout="TNC", merge_outputs=True)
                states = [mx.nd.stack(*states[0::2]), mx.nd.stack(*states[1::2])]
            loss = (out * head).sum() + (states[0] * 0.5).sum() + (states[1] * 0.25).sum()
        loss.backward()
        params = fused.collect_params() if run == "fused" else stack_params
        results.append((out.asnumpy(), [s.asnumpy() for s in states], xx.grad.asnumpy(),
                        {n: p.grad().asnumpy() for n, p in params.items()}))
    (out_f, st_f, dx_f, g_f), (out_s, st_s, dx_s, g_s) = results
    assert out_f.shape == (t_len, batch, dirs * proj)
    np.testing.assert_allclose(out_f, out_s, rtol=1e-5, atol=1e-6)
    for a, b in zip(st_f, st_s):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dx_f, dx_s, rtol=1e-4, atol=1e-5)
    assert sorted(g_f) == sorted(g_s)
    for name in g_f:
        np.testing.assert_allclose(g_f[name], g_s[name], rtol=1e-4, atol=1e-5, err_msg=name)


def test_layer_parameters_and_states():
    layer = gluon.rnn.LSTM(5, projection_size=3, num_layers=2, bidirectional=True,
                           prefix="lstm0_")
    shapes = {n: p.shape for n, p in layer.collect_params().items()}
    assert shapes["lstm0_l0_h2r_weight"] == (3, 5)
    assert shapes["lstm0_r1_h2h_weight"] == (20, 3)
    assert shapes["lstm0_l1_i2h_weight"] == (20, 6)
    assert "lstm0_l0_h2r_bias" not in shapes
    assert "_unfused.1.r_cell.h2r_weight" in layer._collect_params_with_prefix()
    assert [s.shape for s in layer.begin_state(2)] == [(4, 2, 3), (4, 2, 5)]
    layer.initialize()
    out, states = layer(mx.nd.ones((4, 2, 7)), layer.begin_state(2))
    assert out.shape == (4, 2, 6) and layer.l0_i2h_weight.shape == (20, 7)
    assert [s.shape for s in states] == [(4, 2, 3), (4, 2, 5)]
    assert repr(layer) == "LSTM(7 -> 5, TNC, num_layers=2, bidirectional)"
