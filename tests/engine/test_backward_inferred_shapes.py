"""Shapes the engine learns only from the graph's two-way inference (MXNet's behaviour):
``zeros(shape=(0, H))`` takes its 0 from what it is added to (the default begin state of
MXNet's RNN cells), and a FullyConnected's data takes its batch size from the output."""
import numpy as np

import gluonlite as mx


def test_zeros_with_unknown_dim_runs_in_a_graph():
    out = mx.sym.var("x") + mx.sym.zeros(shape=(0, 5))
    res = out.eval(x=mx.nd.ones((3, 5)))[0]
    np.testing.assert_array_equal(res.asnumpy(), np.ones((3, 5)))
    # a second signature keeps its own shape (the completed attribute is per plan)
    block = mx.gluon.SymbolBlock(out, [mx.sym.var("x")])
    block.hybridize()
    assert block(mx.nd.ones((3, 5))).shape == (3, 5)
    assert block(mx.nd.ones((7, 5))).shape == (7, 5)


def test_fully_connected_data_batch_from_output():
    h = mx.sym.var("h", shape=(0, 20))
    x = mx.sym.var("x")
    out = mx.sym.FullyConnected(x, num_hidden=8, name="i2h") + \
        mx.sym.FullyConnected(h, num_hidden=8, name="h2h")
    arg_shapes, out_shapes, _ = out.infer_shape(x=(5, 10))
    assert dict(zip(out.list_arguments(), arg_shapes))["h"] == (5, 20)
    assert out_shapes == [(5, 8)]
    flat3 = mx.sym.FullyConnected(mx.sym.var("d", shape=(0, 2, 3)), num_hidden=4,
                                  flatten=False) + mx.sym.var("y")
    arg_shapes, _, _ = flat3.infer_shape(y=(6, 2, 4))
    assert arg_shapes[0] == (6, 2, 3)
