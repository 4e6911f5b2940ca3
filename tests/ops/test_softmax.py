"""softmax family and the loss output layers: lengths, dtypes, head-gradient rules, errors."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError
from gluonlite.ops.registry import get_op


def _x(*shape, dtype="float64"):
    return mx.nd.array(np.random.default_rng(0).standard_normal(shape), dtype=dtype)


def test_softmax_length_input_only_with_use_length():
    op = get_op("softmax")
    assert op.input_names(op.parse_attrs({})) == ("data",)
    assert op.input_names(op.parse_attrs({"use_length": True})) == ("data", "length")
    y = mx.nd.softmax(_x(2, 4), mx.nd.array([1, 0], dtype="int32"), use_length=True)
    np.testing.assert_allclose(y.asnumpy(), [[1, 0, 0, 0], [0, 0, 0, 0]])
    with pytest.raises(MXNetError, match="integer"):
        mx.nd.softmax(_x(2, 4), mx.nd.array([1, 2]), use_length=True)
    with pytest.raises(MXNetError, match="log_softmax"):
        mx.nd.log_softmax(_x(2, 4), use_length=True)


def test_softmax_dtype_and_gradient_dtype():
    x = _x(2, 3, dtype="float16")
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.softmax(x, dtype="float32")
    y.backward()
    assert y.dtype == np.float32 and x.grad.dtype == np.float16
    with pytest.raises(MXNetError, match="softmax"):
        mx.nd.softmax(mx.nd.array([[1, 2]], dtype="int32"))


def test_softmax_output_ignores_head_gradient_and_label_gets_zero():
    x, label = _x(3, 4), mx.nd.array([0, 3, 1], dtype="float64")
    grads = []
    for head in (None, mx.nd.array(np.full((3, 4), 5.0))):
        x.attach_grad()
        label.attach_grad()
        with mx.autograd.record():
            y = mx.nd.SoftmaxOutput(x, label)
        y.backward(head)
        grads.append(x.grad.asnumpy())
        assert not label.grad.asnumpy().any()
    np.testing.assert_allclose(grads[0], grads[1])
    p = y.asnumpy()
    np.testing.assert_allclose(grads[0], p - np.eye(4)[[0, 3, 1]])
    assert get_op("Softmax") is get_op("SoftmaxOutput")


def test_softmax_output_label_shapes():
    op = get_op("SoftmaxOutput")
    infer = lambda attrs, shapes: op.infer_shape(op.parse_attrs(attrs), shapes)  # noqa: E731
    assert infer({}, [(2, 3), None])[0][1] == (2,)
    assert infer({"multi_output": True}, [(2, 3, 4, 5), None])[0][1] == (2, 20)
    assert infer({"multi_output": True}, [(2, 3, 4, 5), (2, 4, 5)])[0][1] == (2, 4, 5)
    assert infer({"preserve_shape": True}, [(2, 3, 4), None])[0][1] == (2, 3)
    with pytest.raises(MXNetError, match="SoftmaxOutput"):
        infer({}, [(2, 3), (3,)])


def test_regression_label_shapes():
    op = get_op("LinearRegressionOutput")
    attrs = op.parse_attrs({})
    assert op.infer_shape(attrs, [(4, 1), (4,)])[0][1] == (4,)
    assert op.infer_shape(attrs, [(4, 3), None])[0][1] == (4, 3)
    with pytest.raises(MXNetError, match="LinearRegressionOutput"):
        op.infer_shape(attrs, [(4, 3), (4,)])


def test_make_loss_variants():
    x = _x(2, 3)
    for fn, expected in ((lambda a: mx.nd.make_loss(a), 1.0),
                         (lambda a: mx.nd.MakeLoss(a, grad_scale=2.0, normalization="batch"),
                          1.0)):
        x.attach_grad()
        with mx.autograd.record():
            y = fn(x)
        y.backward(mx.nd.array(np.full((2, 3), 7.0)))
        np.testing.assert_allclose(x.grad.asnumpy(), np.full((2, 3), expected))
        np.testing.assert_allclose(y.asnumpy(), x.asnumpy())
