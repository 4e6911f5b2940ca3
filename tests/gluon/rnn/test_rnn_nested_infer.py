"""Deferred initialization of an rnn layer without ``input_size`` nested in a hybridized
block: the graph's shape inference gets the ``i2h`` weights' input size back from the
``RNN`` operator's packed size through ``_rnn_param_concat`` and ``Reshape``."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, gluon


@pytest.mark.parametrize("cls,kwargs", [("LSTM", dict(bidirectional=True)),
                                        ("GRU", dict(num_layers=2)),
                                        ("LSTM", dict(projection_size=3, layout="NTC")),
                                        ("RNN", dict(num_layers=2, bidirectional=True))])
def test_nested_layer_infers_input_size(cls, kwargs):
    net = gluon.nn.HybridSequential()
    net.add(getattr(gluon.rnn, cls)(5, **kwargs))
    net.add(gluon.nn.Dense(3, flatten=False))
    net.initialize()
    net.hybridize()
    x = mx.nd.array(np.random.default_rng(0).standard_normal((4, 2, 7)))
    with autograd.record():
        out = net(x)
    out.backward()
    assert net[0].l0_i2h_weight.shape[1] == 7
    imperative = gluon.nn.HybridSequential()
    imperative.add(getattr(gluon.rnn, cls)(5, **kwargs))
    imperative.add(gluon.nn.Dense(3, flatten=False))
    imperative.initialize()
    imperative(x)
    for (_, a), (_, b) in zip(sorted(net._collect_params_with_prefix().items()),
                              sorted(imperative._collect_params_with_prefix().items())):
        assert a.shape == b.shape
        b.set_data(a.data())
    np.testing.assert_allclose(imperative(x).asnumpy(), out.asnumpy(), rtol=1e-5, atol=1e-6)


def test_reshape_infers_one_unknown_dim_back_from_its_output():
    w = mx.sym.var("w", shape=(6, 0))
    flat = mx.sym.reshape(w, shape=(-1,))
    total = mx.sym._internal._rnn_param_concat(flat, mx.sym.var("b", shape=(4,)),
                                              num_args=2, dim=0)
    out = mx.sym.elemwise_add(total, mx.sym.var("y"))
    args, outs, _ = out.infer_shape(y=(22,))
    assert args == [(6, 3), (4,), (22,)] and outs == [(22,)]
