"""``mx.sym.random``: MXNet's composition rules for sampling symbols."""
import numpy as np

import gluonlite as mx


def test_symbol_keyword_inputs_of_random_nodes_are_ignored():
    # MXNet's test_random builds randn(..., data=sym): a _random_* node has no inputs and
    # MXNet's composition ignores the Symbol; its shape then comes from the graph
    s = mx.sym.random.randn(loc=10.0, scale=0.5, dtype="float32", data=mx.sym.ones((2, 2)))
    assert s.list_arguments() == []
    y = s + mx.sym.var("X")
    exe = y.bind(mx.cpu(), {"X": mx.nd.zeros((2, 2))})
    out = exe.forward()[0].asnumpy()
    assert out.shape == (2, 2) and np.all(np.abs(out - 10.0) < 5)


def test_randn_shapes():
    assert mx.sym.random.randn(2, 3).infer_shape()[1] == [(2, 3)]
    assert mx.sym.random.randn((2, 3)).infer_shape()[1] == [(2, 3)]
