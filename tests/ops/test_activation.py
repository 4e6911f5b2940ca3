"""Activation and LeakyReLU: act types, inputs/outputs per act type, errors."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError
from gluonlite.ops.registry import get_op


def test_activation_requires_known_act_type():
    with pytest.raises(MXNetError, match="act_type"):
        mx.nd.Activation(mx.nd.ones((2,)), act_type="gelu")
    with pytest.raises(MXNetError, match="act_type"):
        mx.nd.Activation(mx.nd.ones((2,)))


def test_softrelu_is_stable():
    y = mx.nd.Activation(mx.nd.array([-1000.0, 0.0, 1000.0], dtype="float64"),
                         act_type="softrelu").asnumpy()
    np.testing.assert_allclose(y, [0.0, np.log(2), 1000.0])


def test_leaky_relu_inputs_and_outputs_depend_on_act_type():
    op = get_op("LeakyReLU")
    prelu = op.parse_attrs({"act_type": "prelu"})
    rrelu = op.parse_attrs({"act_type": "rrelu"})
    assert op.input_names(prelu) == ("data", "gamma")
    assert op.input_names(op.parse_attrs({})) == ("data",)
    assert op.num_visible_outputs(rrelu) == 2 and op.output_names(rrelu) == ("output", "mask")
    ins, outs = op.infer_shape(prelu, [(2, 5, 3), None])
    assert ins[1] == (5,) and outs == [(2, 5, 3)]
    with pytest.raises(MXNetError, match="LeakyReLU"):
        op.infer_shape(prelu, [(2, 5, 3), (4,)])


def test_rrelu_predict_uses_mean_slope():
    x = mx.nd.array([-1.0, 2.0])
    y, mask = mx.nd.LeakyReLU(x, act_type="rrelu", lower_bound=0.1, upper_bound=0.3)
    np.testing.assert_allclose(y.asnumpy(), [-0.2, 2.0], rtol=1e-6)
    assert not mask.asnumpy().any()


def test_rrelu_train_gradient_uses_drawn_slopes():
    x = mx.nd.array(-np.ones((4, 5)))
    x.attach_grad()
    with mx.autograd.record():
        y, mask = mx.nd.LeakyReLU(x, act_type="rrelu")
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), mask.asnumpy())
    assert np.all((mask.asnumpy() >= 0.125) & (mask.asnumpy() <= 0.334))
    assert len(np.unique(mask.asnumpy())) > 1


def test_nan_handling_of_relu_flavours_matches_mxnet():
    # MXNet 1.9.1: Activation(relu) maps NaN to 0, the relu operator keeps it
    nd = mx.nd
    x = nd.array([float("nan"), -1.0, 2.0])
    assert nd.Activation(x, act_type="relu").asnumpy().tolist() == [0.0, 0.0, 2.0]
    assert np.isnan(nd.relu(x).asnumpy()[0])
    assert nd.Activation(nd.array([1, -2], dtype="int32"), act_type="relu").dtype == np.int32
