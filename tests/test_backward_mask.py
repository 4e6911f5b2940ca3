"""Operators with ``backward_mask`` get told which input gradients are wanted, by the
imperative tape and by the CachedOp, and skip the others (a first layer's data)."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, nd
from gluonlite.ops.registry import get_op


@pytest.fixture
def fc_needs(monkeypatch):
    op = get_op("FullyConnected")
    seen = []
    original = op.backward

    def spy(*args, **kwargs):
        seen.append(kwargs.get("need"))
        return original(*args, **kwargs)
    monkeypatch.setattr(op, "backward", spy)
    return seen


def _fc_graph():
    x = mx.sym.var("x")
    return mx.sym.FullyConnected(x, num_hidden=3, name="fc")


def test_imperative_tape_passes_the_mask(fc_needs):
    x = nd.array(np.ones((2, 4)))
    w = nd.array(np.full((3, 4), 0.5))
    b = nd.zeros((3,))
    w.attach_grad()
    with autograd.record():
        y = nd.FullyConnected(x, w, b, num_hidden=3)
    y.backward()
    assert fc_needs == [(False, True, False)]
    np.testing.assert_allclose(w.grad.asnumpy(), np.full((3, 4), 2.0))


def test_cached_op_passes_the_mask(fc_needs):
    cop = mx.nd.CachedOp(_fc_graph())
    x = nd.array(np.ones((2, 4)))
    w = nd.array(np.full((3, 4), 0.5))
    b = nd.zeros((3,))
    w.attach_grad()
    b.attach_grad()
    with autograd.record():
        y = cop(x, w, b)
    y.backward()
    assert fc_needs == [(False, True, True)]
    np.testing.assert_allclose(b.grad.asnumpy(), [2.0, 2.0, 2.0])


def test_all_gradients_when_all_are_wanted():
    x = nd.array(np.arange(8.0).reshape(2, 4))
    w = nd.array(np.full((3, 4), 0.5))
    for a in (x, w):
        a.attach_grad()
    with autograd.record():
        y = nd.FullyConnected(x, w, num_hidden=3, no_bias=True)
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), np.full((2, 4), 1.5))
