"""The ``RNN`` operator's forward-to-backward cache hand-over (``gluonlite.ops.rnn_saved``):
the shortcut gives exactly the gradients of the recomputing backward, is really taken,
stays bounded, and is never fooled by other arrays or by writes into the output."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.ops import rnn_saved
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


def _grads(cfg, drop_saved, counter=None):
    """Gradients of every float input after one recorded forward and backward."""
    arrs = [mx.nd.array(a, dtype=a.dtype) for a in _inputs(cfg)]
    n_float = len(arrs) - (1 if cfg.get("use_sequence_length") else 0)
    for a in arrs[:n_float]:
        a.attach_grad()
    mx.random.seed(7)                      # the same dropout masks in both runs
    with mx.autograd.record():
        outs = mx.nd.RNN(*arrs, state_size=H, **cfg)
    outs = outs if isinstance(outs, (list, tuple)) else [outs]
    if drop_saved:
        rnn_saved.clear()
    heads = [mx.nd.array(np.random.default_rng(3).standard_normal(o.shape)) for o in outs]
    mx.autograd.backward(outs, heads)
    return [a.grad.asnumpy() for a in arrs[:n_float]]


@pytest.fixture
def takes(monkeypatch):
    """Counts of [hits, misses] of ``rnn_saved.take``."""
    counts = [0, 0]
    real = rnn_saved.take

    def counting(out0, inputs):
        r = real(out0, inputs)
        counts[r is None] += 1
        return r
    monkeypatch.setattr(rnn_saved, "take", counting)
    rnn_saved.clear()
    yield counts
    rnn_saved.clear()


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_saved_caches_give_the_recomputed_gradients(cfg, takes):
    fast = _grads(cfg, drop_saved=False)
    assert takes == [1, 0]
    slow = _grads(cfg, drop_saved=True)
    assert takes == [1, 1]
    for a, b in zip(fast, slow):
        np.testing.assert_array_equal(a, b)


def test_retained_graph_second_backward_recomputes(takes):
    x = mx.nd.array(np.random.default_rng(1).standard_normal((T, N, I)))
    p = mx.nd.array(np.random.default_rng(2).uniform(-0.3, 0.3, param_size("lstm", 1, 1, I, H)))
    p.attach_grad()
    h0, c0 = mx.nd.zeros((1, N, H)), mx.nd.zeros((1, N, H))
    with mx.autograd.record():
        y = mx.nd.RNN(x, p, h0, c0, state_size=H, num_layers=1, mode="lstm")
    y.backward(retain_graph=True)
    first = p.grad.asnumpy().copy()
    y.backward()
    assert takes == [1, 1]
    np.testing.assert_array_equal(p.grad.asnumpy(), first)


def test_predict_mode_saves_nothing_and_store_is_bounded(takes):
    cfg = dict(mode="gru", num_layers=1)
    arrs = [mx.nd.array(a) for a in _inputs(cfg)]
    mx.nd.RNN(*arrs, state_size=H, **cfg)                    # not training
    assert len(rnn_saved._entries) == 0
    with mx.autograd.train_mode():
        outs = [mx.nd.RNN(*arrs, state_size=H, **cfg)
                for _ in range(rnn_saved.MAX_ENTRIES + 3)]
    assert len(rnn_saved._entries) == rnn_saved.MAX_ENTRIES
    kept = {id(e[0]) for e in rnn_saved._entries.values()}
    assert kept == {id(o._data) for o in outs[-rnn_saved.MAX_ENTRIES:]}


def _raw_backward(op, attrs, inputs, outs, heads):
    oc = mx.ops.OpContext(np, True, mx.cpu())
    return op.backward(oc, attrs, inputs, outs, heads)


def test_writing_into_the_output_does_not_change_gradients(takes):
    cfg = dict(mode="lstm", num_layers=2, state_outputs=True)
    op = get_op("RNN")
    attrs = op.parse_attrs({k: str(v) for k, v in dict(cfg, state_size=H).items()})
    inputs = _inputs(cfg, seed=4)
    oc = mx.ops.OpContext(np, True, mx.cpu())
    outs = op.forward(oc, attrs, inputs, None)
    heads = [np.random.default_rng(5).standard_normal(o.shape) for o in outs]
    outs[0][...] = 123.0                   # must not reach the saved caches
    fast = _raw_backward(op, attrs, inputs, outs, heads)
    assert takes == [1, 0]
    slow = _raw_backward(op, attrs, inputs, outs, heads)   # entry was taken: recompute
    assert takes == [1, 1]
    for a, b in zip(fast, slow):
        np.testing.assert_array_equal(a, b)


def test_other_inputs_do_not_match(takes):
    cfg = dict(mode="lstm", num_layers=1)
    op = get_op("RNN")
    attrs = op.parse_attrs({k: str(v) for k, v in dict(cfg, state_size=H).items()})
    inputs = _inputs(cfg, seed=6)
    oc = mx.ops.OpContext(np, True, mx.cpu())
    outs = op.forward(oc, attrs, inputs, None)
    heads = [np.ones(outs[0].shape)]
    other = [a.copy() for a in inputs]
    other[1] *= 0.5                        # a different parameter array: recompute with it
    got = _raw_backward(op, attrs, other, outs, heads)
    assert takes == [0, 1]
    rnn_saved.clear()
    want = _raw_backward(op, attrs, other, outs, heads)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
