"""``gluon.contrib.nn.SparseEmbedding``: row_sparse weight and gradient; a Trainer step
changes only the looked-up rows (as MXNet's ``test_sparse_embedding``)."""
import numpy as np

import gluonlite as mx
from gluonlite import gluon


def test_trainer_updates_only_the_looked_up_rows():
    layer = gluon.contrib.nn.SparseEmbedding(10, 4, weight_initializer=mx.init.One())
    layer.initialize()
    trainer = gluon.Trainer(layer.collect_params(), "sgd", {"learning_rate": 1.0})
    x = mx.nd.array([3, 4, 3])
    with mx.autograd.record():
        y = layer(x)
        y.backward()
    assert layer.weight.grad().stype == "row_sparse"
    np.testing.assert_array_equal(layer.weight.grad().indices.asnumpy(), [3, 4])
    trainer.step(1)
    weight = layer.weight.row_sparse_data(mx.nd.arange(10)).asnumpy()
    expected = np.ones((10, 4), np.float32)
    expected[3], expected[4] = -1, 0
    np.testing.assert_array_equal(weight, expected)
    assert repr(layer) == "SparseEmbedding(10 -> 4, float32)"
