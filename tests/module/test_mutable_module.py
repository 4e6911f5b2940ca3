"""``mx.mod.MutableModule``: outputs for each batch shape equal a Module bound to that
shape with the same parameters; training at several shapes moves the one set of
shared parameters; ``fixed_param_prefix`` freezes parameters."""
import numpy as np

import gluonlite as mx


def _net():
    data = mx.sym.var("data")
    conv = mx.sym.Convolution(data, num_filter=4, kernel=(3, 3), pad=(1, 1), name="conv")
    pool = mx.sym.Pooling(mx.sym.relu(conv), global_pool=True, kernel=(1, 1),
                          pool_type="avg", name="pool")
    fc = mx.sym.FullyConnected(mx.sym.flatten(pool), num_hidden=3, name="fc")
    return mx.sym.SoftmaxOutput(fc, name="softmax")


def _params():
    rng = np.random.RandomState(0)
    return {"conv_weight": mx.nd.array(rng.randn(4, 2, 3, 3) * 0.3),
            "conv_bias": mx.nd.array(rng.randn(4) * 0.1),
            "fc_weight": mx.nd.array(rng.randn(3, 4) * 0.3),
            "fc_bias": mx.nd.array(rng.randn(3) * 0.1)}


def _batch(h, w, n=2, seed=1):
    rng = np.random.RandomState(seed)
    return mx.io.DataBatch(
        [mx.nd.array(rng.randn(n, 2, h, w))], [mx.nd.array(rng.randint(0, 3, n))],
        provide_data=[mx.io.DataDesc("data", (n, 2, h, w))],
        provide_label=[mx.io.DataDesc("softmax_label", (n,))])


def test_each_shape_equals_a_module_bound_to_it():
    mut = mx.mod.MutableModule(_net(), ["data"], ["softmax_label"],
                               max_data_shapes=[("data", (2, 2, 12, 12))])
    mut.bind([("data", (2, 2, 6, 6))], [("softmax_label", (2,))], for_training=False)
    assert mut.data_shapes[0].shape == (2, 2, 12, 12)  # bound with the maximum
    mut.set_params(_params(), {})
    for h, w in [(5, 7), (12, 12), (5, 7), (9, 4)]:
        batch = _batch(h, w)
        ref = mx.mod.Module(_net())
        ref.bind(batch.provide_data, batch.provide_label, for_training=False)
        ref.set_params(_params(), {})
        mut.forward(batch, is_train=False)
        ref.forward(batch, is_train=False)
        np.testing.assert_allclose(mut.get_outputs()[0].asnumpy(),
                                   ref.get_outputs()[0].asnumpy(), rtol=1e-6)


def test_training_at_several_shapes_moves_shared_parameters():
    mut = mx.mod.MutableModule(_net(), ["data"], ["softmax_label"],
                               fixed_param_prefix=["conv"])
    mut.bind([("data", (2, 2, 8, 8))], [("softmax_label", (2,))])
    mut.set_params(_params(), {})
    mut.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.5})
    start = {k: v.asnumpy().copy() for k, v in mut.get_params()[0].items()}
    for h, w, n in [(5, 7, 2), (8, 8, 2), (6, 6, 3)]:
        mut.forward_backward(_batch(h, w, n))
        mut.update()
    end = mut.get_params()[0]
    np.testing.assert_array_equal(end["conv_weight"].asnumpy(), start["conv_weight"])
    assert not np.allclose(end["fc_weight"].asnumpy(), start["fc_weight"])
    assert mut.get_outputs()[0].shape == (3, 3)
