"""``mx.sym._internal._CachedOp(*inputs, subgraph=<graph JSON>)`` (MXNet 1.9's way of
making a subgraph node, as its test_subgraph does): same outputs and gradients as the
graph itself, and the subgraph's mutated inputs (BatchNorm's moving statistics) are
the node's auxiliary states."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError


def _node(graph, inputs):
    return mx.sym._internal._CachedOp(*inputs, subgraph=graph.tojson())


def test_outputs_and_gradients_match_the_graph():
    data = mx.sym.Variable("data")
    conv = mx.sym.Convolution(data, kernel=(3, 3), num_filter=4, no_bias=True, name="c")
    orig = mx.sym.BatchNorm(conv, fix_gamma=False, name="bn") * 2.0
    names = orig.list_inputs()
    node = _node(orig, [mx.sym.Variable(n) for n in names])
    assert node.list_arguments() == orig.list_arguments()
    assert node.list_auxiliary_states() == orig.list_auxiliary_states()
    rng = np.random.default_rng(0)
    shapes = dict(zip(names, orig.infer_shape(data=(2, 3, 6, 6))[0]
                      + orig.infer_shape(data=(2, 3, 6, 6))[2]))
    arrays = {n: mx.nd.array(rng.uniform(-1, 1, shapes[n])) for n in orig.list_arguments()}
    aux = {n: mx.nd.ones(shapes[n]) for n in orig.list_auxiliary_states()}
    results = []
    for sym in (orig, node):
        grads = {n: mx.nd.zeros(a.shape) for n, a in arrays.items()}
        exe = sym.bind(mx.cpu(), args=arrays, args_grad=grads,
                       aux_states={k: v.copy() for k, v in aux.items()})
        out = exe.forward(is_train=True)[0].asnumpy()
        exe.backward([mx.nd.ones(out.shape)])
        results.append((out, {n: g.asnumpy() for n, g in grads.items()}))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-5, atol=1e-6)
    for n in arrays:
        np.testing.assert_allclose(results[0][1][n], results[1][1][n], rtol=1e-4, atol=1e-5)


def test_subgraph_must_be_json():
    x = mx.sym.Variable("x")
    with pytest.raises(MXNetError, match="subgraph"):
        mx.sym._internal._CachedOp(x, subgraph=5)
