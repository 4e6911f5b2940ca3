"""CTCLoss and the sequence operators: inputs per flags, lengths, errors."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError
from gluonlite.ops.registry import get_op


def _data(t=5, n=2, c=4):
    return mx.nd.array(np.random.default_rng(0).standard_normal((t, n, c)))


def test_ctc_inputs_outputs_and_aliases():
    op = get_op("CTCLoss")
    for name in ("ctc_loss", "_contrib_CTCLoss", "_contrib_ctc_loss"):
        assert get_op(name) is op
    both = op.parse_attrs({"use_data_lengths": True, "use_label_lengths": True})
    assert op.input_names(both) == ("data", "label", "data_lengths", "label_lengths")
    assert op.input_names(op.parse_attrs({"use_label_lengths": True})) == (
        "data", "label", "label_lengths")
    assert op.num_outputs(both) == 2 and op.num_visible_outputs(both) == 1
    ins, outs = op.infer_shape(both, [(5, 2, 4), (2, 3), None, None])
    assert ins[2:] == [(2,), (2,)] and outs == [(2,), (5, 2, 4)]
    with pytest.raises(MXNetError, match="exceed"):
        op.infer_shape(both, [(2, 2, 4), (2, 3), None, None])


def test_ctc_gradient_scales_with_head_gradient():
    x = _data()
    label = mx.nd.array([[1, 2], [3, 0]])
    grads = []
    for head in ([1.0, 1.0], [2.0, -0.5]):
        x.attach_grad()
        with mx.autograd.record():
            loss = mx.nd.CTCLoss(x, label)
        loss.backward(mx.nd.array(head))
        grads.append(x.grad.asnumpy())
    np.testing.assert_allclose(grads[1], grads[0] * np.array([2.0, -0.5])[None, :, None],
                               rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(grads[0].sum(axis=2), 0, atol=1e-5)  # softmax gradient


def test_ctc_fractional_lengths_round_like_mxnet():
    x, label = _data(), mx.nd.array([[1, 2], [3, 3]])
    a = mx.nd.CTCLoss(x, label, mx.nd.array([3.7, 5.2]), use_data_lengths=True)
    b = mx.nd.CTCLoss(x, label, mx.nd.array([4, 5]), use_data_lengths=True)
    np.testing.assert_allclose(a.asnumpy(), b.asnumpy())


def test_sequence_axis_errors():
    x = mx.nd.ones((4, 3, 2))
    with pytest.raises(MXNetError, match="SequenceMask"):
        mx.nd.SequenceMask(x, mx.nd.array([1, 2]), use_sequence_length=True, axis=2)
    with pytest.raises(MXNetError, match="SequenceReverse"):
        mx.nd.SequenceReverse(x, mx.nd.array([1, 2, 3]), use_sequence_length=True, axis=1)


def test_sequence_length_input_and_truncation():
    op = get_op("SequenceLast")
    assert op.input_names(op.parse_attrs({})) == ("data",)
    ins, outs = op.infer_shape(op.parse_attrs({"use_sequence_length": True, "axis": 1}),
                               [(2, 5, 3), None])
    assert ins[1] == (2,) and outs == [(2, 3)]
    x = mx.nd.array(np.arange(8.0).reshape(4, 2))
    y = mx.nd.SequenceMask(x, mx.nd.array([2.7, 0.2]), use_sequence_length=True)
    np.testing.assert_array_equal(y.asnumpy(), [[0, 0], [2, 0], [0, 0], [0, 0]])
    last = mx.nd.SequenceLast(x, mx.nd.array([2.7, 4]), use_sequence_length=True)
    np.testing.assert_array_equal(last.asnumpy(), [2, 7])


def test_sequence_gradients_skip_sequence_length():
    x = mx.nd.array(np.arange(12.0).reshape(3, 2, 2))
    length = mx.nd.array([1, 3])
    x.attach_grad()
    length.attach_grad()
    with mx.autograd.record():
        y = mx.nd.SequenceReverse(x, length, use_sequence_length=True)
    y.backward(mx.nd.array(np.arange(12.0).reshape(3, 2, 2)))
    np.testing.assert_array_equal(x.grad.asnumpy(), y.asnumpy())
    assert not length.grad.asnumpy().any()
