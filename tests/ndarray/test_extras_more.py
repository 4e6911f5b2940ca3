"""``nd.histogram`` and ``nd.contrib.multi_lamb_update`` / ``multi_mp_lamb_update``: the
Python functions MXNet writes over ``_histogram`` and the aggregated LAMB operators."""
import numpy as np
import pytest

import gluonlite as mx

A = [0.1, 0.5, 0.7, 1.2, 2.5, 2.9]


def test_histogram_as_mxnet():
    a = mx.nd.array(A)
    # MXNet 1.9.1's results for these calls
    counts, edges = mx.nd.histogram(a, bins=3, range=(0, 3))
    assert counts.asnumpy().tolist() == [3, 1, 2] and edges.asnumpy().tolist() == [0, 1, 2, 3]
    counts, edges = mx.nd.histogram(a, bins=mx.nd.array([0, 1, 2.5, 3]))
    assert counts.asnumpy().tolist() == [3, 1, 2]
    assert edges.asnumpy().tolist() == [0, 1, 2.5, 3]
    with pytest.warns(UserWarning, match="range is not specified"):
        counts, edges = mx.nd.histogram(a, bins=4)
    want_counts, want_edges = np.histogram(np.array(A, np.float32), bins=4)
    np.testing.assert_array_equal(counts.asnumpy(), want_counts)
    np.testing.assert_allclose(edges.asnumpy(), want_edges)
    with pytest.raises(ValueError, match="integer or an NDArray"):
        mx.nd.histogram(a, bins=[0, 1])


def test_symbol_histogram_needs_a_range():
    x = mx.sym.var("x")
    out = mx.sym.histogram(x, bins=3, range=(0, 3))
    counts, edges = out.eval(x=mx.nd.array(A))
    assert counts.asnumpy().tolist() == [3, 1, 2] and edges.asnumpy().tolist() == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="null range"):
        mx.sym.histogram(x, bins=3)


@pytest.mark.parametrize("mixed", [False, True])
def test_multi_lamb_wrappers_call_the_aggregated_operators(mixed):
    rng = np.random.RandomState(0)
    shapes = [(3, 2), (4,)]

    def arrays(dtype="float32"):
        return [mx.nd.array(rng.uniform(-1, 1, s), dtype=dtype) for s in shapes]

    weights, grads, mean = arrays(), arrays(), arrays()
    var = [mx.nd.array(rng.uniform(0.1, 1, s)) for s in shapes]
    extra = [[w.copy() for w in weights]] if mixed else []
    kwargs = dict(step_count=(1, 3), lrs=(0.1, 0.2), wds=(0.0, 0.01))
    groups = [weights, grads, mean, var] + extra
    fn = mx.nd.contrib.multi_mp_lamb_update if mixed else mx.nd.contrib.multi_lamb_update
    got = fn(*[[g.copy() for g in group] for group in groups], **kwargs)
    op = mx.nd._internal._multi_mp_lamb_update if mixed else mx.nd._internal._multi_lamb_update
    flat = [x.copy() for group in zip(*groups) for x in group]
    want = op(*flat, num_tensors=2, step_count=(1, 3), learning_rates=(0.1, 0.2),
              wds=(0.0, 0.01))
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.asnumpy(), w.asnumpy())
    assert not np.array_equal(got[0].asnumpy(), weights[0].asnumpy())
