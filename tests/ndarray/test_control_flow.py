"""``nd.contrib.foreach``/``while_loop``/``cond`` (MXNet 1.9's imperative control flow,
its documentation's examples) with autograd through the loop.  The symbolic versions are
tested in ``tests/symbol/test_control_flow*.py``."""
import numpy as np
import pytest

import gluonlite as mx


def test_foreach_stacks_outputs_and_carries_states():
    data = mx.nd.array(np.arange(6, dtype=np.float32).reshape(3, 2))
    states = [mx.nd.ones((2,))]
    data.attach_grad()
    with mx.autograd.record():
        outs, last = mx.nd.contrib.foreach(
            lambda x, s: (x + s[0], [s[0] * 2]), data, states)
        outs.sum().backward()
    np.testing.assert_array_equal(outs.asnumpy(), [[1, 2], [4, 5], [8, 9]])
    np.testing.assert_array_equal(last[0].asnumpy(), [8, 8])
    np.testing.assert_array_equal(data.grad.asnumpy(), np.ones((3, 2)))


def test_foreach_nested_lists():
    a, b = mx.nd.ones((2, 3)), mx.nd.zeros((2, 1))
    outs, states = mx.nd.contrib.foreach(
        lambda xs, s: ([xs[0] * 2, [xs[1] + 1]], s), [a, b], [mx.nd.zeros((1,))])
    assert outs[0].shape == (2, 3) and outs[1][0].shape == (2, 1)
    np.testing.assert_array_equal(outs[1][0].asnumpy(), np.ones((2, 1)))


def test_while_loop_pads_to_max_iterations():
    i, s = mx.nd.array([0]), mx.nd.array([1])
    outputs, (i_end, s_end) = mx.nd.contrib.while_loop(
        cond=lambda i, s: i <= 5,
        func=lambda i, s: ([i + s], [i + 1, s + i]),
        loop_vars=(i, s), max_iterations=10)
    assert outputs[0].shape == (10, 1)
    np.testing.assert_array_equal(outputs[0].asnumpy()[:6, 0], [1, 2, 4, 7, 11, 16])
    assert i_end.asscalar() == 6 and s_end.asscalar() == 16
    with pytest.raises(ValueError, match="max_iterations"):
        mx.nd.contrib.while_loop(lambda i: i < 1, lambda i: (None, [i + 1]), [i])


def test_cond_picks_a_branch():
    a, b = mx.nd.array([1]), mx.nd.array([2])
    out = mx.nd.contrib.cond(a * b < 5, lambda: (a + 5) * (b + 5), lambda: (a - 5) * (b - 5))
    assert out.asscalar() == 42
    out = mx.nd.contrib.cond(a * b > 5, lambda: (a + 5) * (b + 5), lambda: (a - 5) * (b - 5))
    assert out.asscalar() == 12

