"""Keywords MXNet accepts on operator calls beyond their parameters: ``lr_mult``,
``wd_mult`` and ``ctx_group`` on a symbolic operator (stored as ``__lr_mult__`` ...
and inherited by the weight/bias variables created for it), and unknown keywords on
operators without parameters (ignored, as MXNet does; MXNet 1.9.1's behaviour)."""
import numpy as np
import pytest

import gluonlite as mx


def test_lr_and_wd_mult_on_an_operator_reach_its_variables():
    data = mx.sym.var("data")
    bias = mx.sym.var("fc1_bias", lr_mult=1.0)
    fc1 = mx.sym.FullyConnected(data=data, bias=bias, name="fc1", num_hidden=10, lr_mult=0)
    fc2 = mx.sym.FullyConnected(data=fc1, name="fc2", num_hidden=10, wd_mult=0.5,
                                ctx_group="dev1")
    attrs = fc2.attr_dict()
    assert attrs["fc1_weight"]["__lr_mult__"] == "0"
    assert attrs["fc1_bias"]["__lr_mult__"] == "1.0"  # an explicit variable keeps its own
    assert attrs["fc2_bias"]["__wd_mult__"] == "0.5"
    assert attrs["fc2_weight"]["wd_mult"] == "0.5"
    assert attrs["fc2"]["__ctx_group__"] == "dev1"
    assert '"__lr_mult__": "0"' in fc2.tojson()
    assert '"lr_mult"' not in fc2.tojson()


def test_dunder_keywords_are_node_attributes():
    sym = mx.sym.Activation(mx.sym.var("data"), act_type="relu", __layout__="TNC")
    assert sym.attr("__layout__") == "TNC"
    assert sym[sym.list_outputs()[0]].attr("__layout__") == "TNC"


def test_operators_without_parameters_ignore_unknown_keywords():
    out = mx.nd.broadcast_maximum(mx.nd.array([0]), mx.nd.array([[1, -1]]), axis=1)
    np.testing.assert_array_equal(out.asnumpy(), [[1, 0]])
    sym = mx.sym.zeros_like(mx.sym.var("x"), dtype="int64")
    assert sym.list_attr() == {"dtype": "int64"}  # kept in the graph, unread
    np.testing.assert_array_equal(sym.eval(x=mx.nd.ones((2,)))[0].asnumpy(), [0, 0])
    roundtrip = mx.sym.load_json(sym.tojson())
    np.testing.assert_array_equal(roundtrip.eval(x=mx.nd.ones((3,)))[0].asnumpy(), [0, 0, 0])


def test_operators_with_parameters_still_reject_unknown_keywords():
    with pytest.raises(mx.base.MXNetError, match="FullyConnected.*'bogus'"):
        mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=2, bogus=1)
    with pytest.raises(mx.base.MXNetError, match="sum.*'bogus'"):
        mx.nd.sum(mx.nd.ones((2,)), bogus=1)
