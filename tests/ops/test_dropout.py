"""Dropout: modes, shared-axis masks, the gradient mask and reproducibility."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.ops.registry import get_op


def _x(shape=(6, 50)):
    return mx.nd.array(np.random.default_rng(0).uniform(1, 2, shape))


def test_predict_mode_is_identity_and_always_mode_drops():
    x = _x()
    np.testing.assert_array_equal(mx.nd.Dropout(x, p=0.5).asnumpy(), x.asnumpy())
    y = mx.nd.Dropout(x, p=0.5, mode="always").asnumpy()
    assert (y == 0).any() and np.allclose(y[y != 0], 2 * x.asnumpy()[y != 0])


def test_gradient_uses_the_forward_mask():
    x = _x()
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Dropout(x, p=0.3)
    y.backward()
    kept = y.asnumpy() != 0
    assert 0 < kept.mean() < 1
    expected = np.where(kept, np.float32(1 / np.float32(0.7)), 0)
    np.testing.assert_allclose(x.grad.asnumpy(), expected, rtol=1e-6)


def test_predict_mode_gradient_is_identity():
    x = _x((3, 4))
    x.attach_grad()
    with mx.autograd.record(train_mode=False):
        y = mx.nd.Dropout(x, p=0.7)
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), np.ones((3, 4)))


@pytest.mark.parametrize("axes", [(0,), (1,), (0, 2)])
def test_axes_share_the_mask(axes):
    x = mx.nd.ones((8, 30, 4))
    with mx.autograd.train_mode():
        kept = mx.nd.Dropout(x, p=0.5, axes=axes).asnumpy() != 0
    for a in axes:
        assert np.all(kept == kept.take([0], axis=a))


def test_seed_reproduces_the_mask():
    x = _x()
    masks = []
    for _ in range(2):
        mx.random.seed(7)
        with mx.autograd.train_mode():
            masks.append(mx.nd.Dropout(x, p=0.5).asnumpy())
    np.testing.assert_array_equal(masks[0], masks[1])


def test_structure():
    op = get_op("Dropout")
    attrs = op.parse_attrs({"p": "0.2", "axes": "(1, 2)"})
    assert attrs.axes == (1, 2) and op.num_outputs(attrs) == 2
    assert op.num_visible_outputs(attrs) == 1 and op.output_names(attrs) == ("output", "mask")
    assert list(op.attrs) == ["p", "mode", "axes", "cudnn_off"]
