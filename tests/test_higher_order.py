"""Higher-order gradients (``autograd.grad(..., create_graph=True)``): FullyConnected,
Dropout, and gradients that do not depend on their input differentiably (they stay in
the graph, so the next order gives zeros, as MXNet's)."""
import numpy as np
import pytest

from gluonlite import autograd, nd


def _second_order(f, x0, head1, head2):
    """``d/dx <head2, d/dx <head1, f(x)>>`` with constant (unrecorded) head gradients."""
    x = nd.array(x0)
    x.attach_grad()
    with autograd.record():
        y = f(x)
        h1 = nd.array(np.broadcast_to(head1.reshape(-1)[:1], y.shape)) \
            if y.shape != head1.shape else nd.array(head1)
        g = autograd.grad(y, x, head_grads=h1, create_graph=True,
                          retain_graph=True)[0]
        gg = autograd.grad(g, x, head_grads=nd.array(head2), create_graph=True,
                           retain_graph=True)[0]
    return g.asnumpy(), gg.asnumpy()


_X = np.array([[-1.0, 0.2, 0.7], [0.3, -0.4, 2.0]], dtype=np.float32)
_H1 = np.full(_X.shape, 3.0, dtype=np.float32)
_H2 = np.array([[1.0, -2.0, 0.5], [2.0, 1.5, -1.0]], dtype=np.float32)


@pytest.mark.parametrize("name,f,first", [
    ("clip", lambda x: nd.clip(x, -0.5, 0.5), lambda x: ((x >= -0.5) & (x <= 0.5)) * 3.0),
    ("relu", nd.relu, lambda x: (x > 0) * 3.0),
    ("abs", nd.abs, lambda x: np.sign(x) * 3.0),
    ("sign", nd.sign, lambda x: 0 * x),
    ("floor", nd.floor, lambda x: 0 * x),
    ("mul_scalar", lambda x: x * 2, lambda x: 0 * x + 6.0),
    ("reshape", lambda x: x.reshape(-1), lambda x: 0 * x + 3.0),
    ("sum", nd.sum, lambda x: 0 * x + 3.0),
    ("zeros_like", nd.zeros_like, lambda x: 0 * x),
])
def test_gradient_without_input_dependence_gives_zero_second_order(name, f, first):
    # the first-order gradient is a constant (mask or factor) times a constant head:
    # it must stay connected to x, else the second grad raises "not in a graph"
    g, gg = _second_order(f, _X, _H1, _H2)
    np.testing.assert_allclose(g, first(_X), err_msg=name)
    np.testing.assert_array_equal(gg, np.zeros_like(_X), err_msg=name)


def test_third_order_of_clip_is_zero_too():
    x = nd.array(_X)
    x.attach_grad()
    with autograd.record():
        y = nd.clip(x, -0.5, 0.5)
        for _ in range(3):
            y = autograd.grad(y, x, head_grads=nd.array(_H2), create_graph=True,
                              retain_graph=True)[0]
    np.testing.assert_array_equal(y.asnumpy(), np.zeros_like(_X))


def test_dropout_second_order_is_zero_and_first_order_is_the_mask():
    x = nd.array(np.random.default_rng(0).uniform(0.5, 2, size=(6, 7)).astype(np.float32))
    x.attach_grad()
    head = nd.array(_H1[:1, :1] * np.ones((6, 7), dtype=np.float32))
    with autograd.record():
        y = nd.Dropout(x, p=0.5)
        g = autograd.grad(y, x, head_grads=head, create_graph=True, retain_graph=True)[0]
        gg = autograd.grad(g, x, head_grads=nd.ones((6, 7)), create_graph=True,
                           retain_graph=True)[0]
    mask = y.asnumpy() / x.asnumpy()  # 0 or 1 / (1 - p)
    assert set(np.unique(mask).tolist()) <= {0.0, 2.0}
    np.testing.assert_allclose(g.asnumpy(), 3.0 * mask)
    np.testing.assert_array_equal(gg.asnumpy(), np.zeros((6, 7)))


@pytest.mark.parametrize("flatten,shape", [(True, (2, 3, 2)), (False, (2, 3, 2)),
                                           (True, (3, 4))])
@pytest.mark.parametrize("no_bias", [False, True])
def test_fully_connected_second_order(flatten, shape, no_bias):
    rng = np.random.default_rng(3)
    hidden = 3
    in_units = int(np.prod(shape[1:])) if flatten else shape[-1]
    x = nd.array(rng.normal(size=shape).astype(np.float32))
    w = nd.array(rng.normal(size=(hidden, in_units)).astype(np.float32))
    b = nd.array(rng.normal(size=(hidden,)).astype(np.float32))
    for a in (x, w, b):
        a.attach_grad()
    args = (x, w) if no_bias else (x, w, b)
    with autograd.record():
        y = nd.FullyConnected(*args, num_hidden=hidden, flatten=flatten, no_bias=no_bias)
        o_y = nd.array(rng.normal(size=y.shape).astype(np.float32))
        x_grad = autograd.grad(y, x, head_grads=o_y, create_graph=True, retain_graph=True)[0]
        o_x = nd.array(rng.normal(size=x.shape).astype(np.float32))
        w_grad_grad = autograd.grad(x_grad, w, head_grads=o_x, create_graph=False,
                                    retain_graph=True)[0]
        w_grad = autograd.grad(y, w, head_grads=o_y, create_graph=True, retain_graph=True)[0]
        o_w = nd.array(rng.normal(size=w.shape).astype(np.float32))
        x_grad_grad = autograd.grad(w_grad, x, head_grads=o_w, create_graph=False,
                                    retain_graph=True)[0]
    dy = o_y.asnumpy().reshape(-1, hidden)
    x2 = x.asnumpy().reshape(shape[0], -1) if flatten else x.asnumpy().reshape(-1, in_units)
    ox2 = o_x.asnumpy().reshape(x2.shape)
    np.testing.assert_allclose(x_grad.asnumpy(), (dy @ w.asnumpy()).reshape(shape), rtol=1e-5)
    np.testing.assert_allclose(w_grad.asnumpy(), dy.T @ x2, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(w_grad_grad.asnumpy(), dy.T @ ox2, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(x_grad_grad.asnumpy(), (dy @ o_w.asnumpy()).reshape(shape),
                               rtol=1e-5, atol=1e-6)


def test_arcsinh_second_order_is_the_true_derivative():
    # d2/dx2 arcsinh(x) = -x / (1 + x^2)^1.5.  MXNet 1.9.1's is the negative of this, and
    # its test_higher_order_grad::test_arcsinh checks that wrong sign; gluonlite follows
    # the mathematics (and finite differences of the first derivative)
    x = _X.astype(np.float64)
    g, gg = _second_order(nd.arcsinh, x, _H1, _H2)
    np.testing.assert_allclose(g, 3.0 / np.sqrt(1 + x * x), rtol=1e-6)
    np.testing.assert_allclose(gg, _H2 * 3.0 * -x / (1 + x * x) ** 1.5, rtol=1e-6)
    step = 1e-6
    finite = (3.0 / np.sqrt(1 + (x + step) ** 2) - 3.0 / np.sqrt(1 + (x - step) ** 2)) / (2 * step)
    np.testing.assert_allclose(gg, _H2 * finite, rtol=1e-5)
