"""The ``RNN`` operator hands its BPTT caches from forward to backward as per-call saved
state (``OpDef.saved_state``): the state gives exactly the gradients of the recomputing
backward, is really taken (imperatively and in hybridized blocks), belongs to its own
call (two forwards in flight, backwards in reverse order), survives a retained graph,
is only made where a backward can follow, and is dropped with the graph."""
import gc
import weakref

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.ops.rnn import param_size

from .harness import get_op

CONFIGS = [
    dict(mode="lstm", num_layers=2, bidirectional=True, state_outputs=True, p=0.3),
    dict(mode="lstm", num_layers=1, lstm_state_clip_min=-0.2, lstm_state_clip_max=0.25),
    dict(mode="lstm", num_layers=1, bidirectional=True, use_sequence_length=True),
    dict(mode="gru", num_layers=2, state_outputs=True),
    dict(mode="rnn_tanh", num_layers=1, bidirectional=True),
]
T, N, I, H = 5, 3, 4, 6


def _ids(cfg):
    return "-".join(f"{k}={v}" for k, v in cfg.items())


def _inputs(cfg, seed=0):
    rng = np.random.default_rng(seed)
    dirs = 2 if cfg.get("bidirectional") else 1
    layers = cfg["num_layers"]
    arrs = [rng.standard_normal((T, N, I)),
            rng.uniform(-0.5, 0.5, param_size(cfg["mode"], layers, dirs, I, H)),
            rng.standard_normal((layers * dirs, N, H)) * 0.3]
    if cfg["mode"] == "lstm":
        arrs.append(rng.standard_normal((layers * dirs, N, H)) * 0.3)
    if cfg.get("use_sequence_length"):
        arrs.append(np.array([5, 2, 0], dtype=np.int32))
    return arrs


def _attrs(op, cfg):
    return op.parse_attrs({k: str(v) for k, v in dict(cfg, state_size=H).items()})


@pytest.fixture
def spy(monkeypatch):
    """Records, per call of the RNN operator, forward's ``keep_state`` and whether
    backward got a state."""
    op = get_op("RNN")
    log = []
    fwd, bwd = op.forward, op.backward

    def forward(oc, attrs, inputs, out, keep_state=False):
        log.append(("forward", keep_state))
        return fwd(oc, attrs, inputs, out, keep_state=keep_state)

    def backward(oc, attrs, inputs, outputs, out_grads, state=None):
        log.append(("backward", state is not None))
        return bwd(oc, attrs, inputs, outputs, out_grads, state=state)
    monkeypatch.setattr(op, "forward", forward)
    monkeypatch.setattr(op, "backward", backward)
    return log


@pytest.mark.parametrize("cfg", CONFIGS, ids=_ids)
def test_state_gives_the_recomputed_gradients(cfg):
    op = get_op("RNN")
    attrs = _attrs(op, cfg)
    inputs = _inputs(cfg)
    oc = mx.ops.OpContext(np, True, mx.cpu())
    mx.random.seed(7)                      # the same dropout masks in both forwards
    plain = op.forward(oc, attrs, inputs, None)
    mx.random.seed(7)
    outs, state = op.forward(oc, attrs, inputs, None, keep_state=True)
    assert state is not None
    for a, b in zip(plain, outs):
        np.testing.assert_array_equal(a, b)
    heads = [np.random.default_rng(3).standard_normal(o.shape) for o in outs]
    fast = op.backward(oc, attrs, inputs, outs, heads, state=state)
    slow = op.backward(oc, attrs, inputs, outs, heads)          # recomputes the forward
    again = op.backward(oc, attrs, inputs, outs, heads, state=state)  # state is read-only
    for a, b, c in zip(fast, slow, again):
        if a is None:
            assert b is None and c is None
            continue
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)


def test_recorded_call_hands_its_state_to_backward(spy):
    cfg = dict(mode="lstm", num_layers=2, state_outputs=True)
    arrs = [mx.nd.array(a) for a in _inputs(cfg)]
    arrs[1].attach_grad()
    with mx.autograd.record():
        outs = mx.nd.RNN(*arrs, state_size=H, **cfg)
    node = outs[0]._entry[0]
    assert node.state is not None
    mx.autograd.backward(outs[0])
    assert spy == [("forward", True), ("backward", True)]
    assert node.state is None              # dropped with the graph


def test_no_state_without_a_possible_backward(spy):
    cfg = dict(mode="gru", num_layers=1)
    arrs = [mx.nd.array(a) for a in _inputs(cfg)]
    mx.nd.RNN(*arrs, state_size=H, **cfg)                       # predict mode
    with mx.autograd.train_mode():
        mx.nd.RNN(*arrs, state_size=H, **cfg)                   # training, not recording
    with mx.autograd.record():
        mx.nd.RNN(*arrs, state_size=H, **cfg)                   # nothing wants a gradient
    assert spy == [("forward", False)] * 3


def test_two_calls_in_flight_backward_in_reverse_order():
    cfg = dict(mode="lstm", num_layers=2, bidirectional=True)
    op_inputs = [_inputs(cfg, seed=s) for s in (10, 11)]

    def grads_of(which):
        """Gradients of the calls in ``which``, recorded together, backward reversed."""
        arrs = [[mx.nd.array(a) for a in op_inputs[k]] for k in which]
        for a in arrs:
            for x in a:
                x.attach_grad()
        with mx.autograd.record():
            ys = [mx.nd.RNN(*a, state_size=H, **cfg) for a in arrs]
        for y in reversed(ys):
            y.backward(mx.nd.ones_like(y))
        return [[x.grad.asnumpy() for x in a] for a in arrs]

    both = grads_of([0, 1])
    alone = grads_of([0]) + grads_of([1])
    for got, want in zip(both, alone):
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)


def test_retained_graph_second_backward_uses_the_same_state(spy):
    x = mx.nd.array(np.random.default_rng(1).standard_normal((T, N, I)))
    p = mx.nd.array(np.random.default_rng(2).uniform(-0.3, 0.3, param_size("lstm", 1, 1, I, H)))
    p.attach_grad()
    h0, c0 = mx.nd.zeros((1, N, H)), mx.nd.zeros((1, N, H))
    with mx.autograd.record():
        y = mx.nd.RNN(x, p, h0, c0, state_size=H, num_layers=1, mode="lstm")
    y.backward(retain_graph=True)
    first = p.grad.asnumpy().copy()
    y.backward()
    assert spy == [("forward", True), ("backward", True), ("backward", True)]
    np.testing.assert_array_equal(p.grad.asnumpy(), first)


def test_writing_into_the_output_does_not_change_gradients():
    cfg = dict(mode="lstm", num_layers=2, state_outputs=True)
    op = get_op("RNN")
    attrs = _attrs(op, cfg)
    inputs = _inputs(cfg, seed=4)
    oc = mx.ops.OpContext(np, True, mx.cpu())
    outs, state = op.forward(oc, attrs, inputs, None, keep_state=True)
    heads = [np.random.default_rng(5).standard_normal(o.shape) for o in outs]
    outs[0][...] = 123.0                   # must not reach the saved caches
    fast = op.backward(oc, attrs, inputs, outs, heads, state=state)
    slow = op.backward(oc, attrs, inputs, outs, heads)
    for a, b in zip(fast, slow):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("flags", [{}, {"static_alloc": True},
                                   {"static_alloc": True, "static_shape": True}],
                         ids=["default", "static_alloc", "static_shape"])
def test_hybridized_layer_two_calls_in_flight(spy, flags):
    layer = mx.gluon.rnn.LSTM(H, num_layers=2, input_size=I)
    layer.initialize(mx.init.Uniform(0.3))
    rng = np.random.default_rng(8)
    xs = [mx.nd.array(rng.standard_normal((T, N, I))) for _ in range(2)]
    params = list(layer.collect_params().values())

    def grads(calls):
        with mx.autograd.record():
            ys = [layer(xs[k]) for k in calls]
        got = []
        for y in reversed(ys):             # the later call's backward first
            y.backward(mx.nd.ones_like(y) * 0.5)
            got.append([p.grad().asnumpy().copy() for p in params])
        return got[::-1]

    want = [grads([0])[0], grads([1])[0]]  # imperative, one call at a time
    layer.hybridize(**flags)
    del spy[:]
    got = grads([0, 1])
    assert ("backward", False) not in spy and ("backward", True) in spy
    for g_call, w_call in zip(got, want):
        for g, w in zip(g_call, w_call):
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


def test_state_is_freed_with_an_unused_graph(monkeypatch):
    """A training forward whose backward never runs holds its caches only as long as
    its outputs."""
    op = get_op("RNN")
    fwd = op.forward
    states = []

    class Caches(list):  # a weakly referable stand-in for the state tuple
        pass

    def forward(oc, attrs, inputs, out, keep_state=False):
        res = fwd(oc, attrs, inputs, out, keep_state=keep_state)
        if not keep_state:
            return res
        state = Caches(res[1])
        states.append(weakref.ref(state))
        return res[0], state
    monkeypatch.setattr(op, "forward", forward)
    cfg = dict(mode="gru", num_layers=1)
    arrs = [mx.nd.array(a) for a in _inputs(cfg)]
    arrs[0].attach_grad()
    for _ in range(3):
        with mx.autograd.record():
            y = mx.nd.RNN(*arrs, state_size=H, **cfg)
    assert len(states) == 3
    del y
    gc.collect()
    assert all(ref() is None for ref in states)
