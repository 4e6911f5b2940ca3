"""Autograd: recording scopes, gradient requests, the tape, version checks, Function."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, nd
from gluonlite.base import MXNetError


def test_scopes():
    assert not autograd.is_recording() and not autograd.is_training()
    with autograd.record():
        assert autograd.is_recording() and autograd.is_training()
        with autograd.pause():
            assert not autograd.is_recording() and not autograd.is_training()
        with autograd.predict_mode():
            assert not autograd.is_training() and autograd.is_recording()
    with autograd.record(train_mode=False):
        assert not autograd.is_training()
    with autograd.train_mode():
        assert autograd.is_training() and not autograd.is_recording()
    assert not autograd.is_recording() and not autograd.is_training()
    assert autograd.set_recording(True) is False
    assert autograd.set_recording(False) is True


def test_simple_gradient_and_ones_head():
    x = nd.array([[1.0, 2.0], [3.0, 4.0]])
    x.attach_grad()
    with autograd.record():
        y = x * x + 2 * x
    y.backward()  # non-scalar head: gradient of ones
    np.testing.assert_allclose(x.grad.asnumpy(), 2 * x.asnumpy() + 2)


def test_head_gradient_and_write_overwrites():
    x = nd.array([1.0, 2.0, 3.0])
    x.attach_grad()
    for _ in range(2):
        with autograd.record():
            y = nd.exp(x)
        y.backward(nd.array([1.0, 0.5, 0.0]))
    np.testing.assert_allclose(x.grad.asnumpy(), np.exp([1, 2, 3]) * [1, 0.5, 0], rtol=1e-6)


def test_grad_req_add_accumulates():
    x = nd.array([1.0, 2.0])
    x.attach_grad(grad_req="add")
    for _ in range(3):
        with autograd.record():
            y = x * 3
        y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [9, 9])


def test_grad_req_null_and_unmarked_inputs():
    x = nd.array([1.0, 2.0])
    w = nd.array([3.0, 4.0])
    x.attach_grad(grad_req="null")
    w.attach_grad()
    with autograd.record():
        y = x * w
    y.backward()
    np.testing.assert_allclose(w.grad.asnumpy(), [1, 2])
    # as MXNet 1.9.1: the backward that freed the graph dropped the null variable's buffer
    assert x.grad is None


def test_variable_used_twice_sums():
    x = nd.array([2.0])
    x.attach_grad()
    with autograd.record():
        y = x * x * x
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [12.0])


def test_retain_graph():
    x = nd.array([1.0, 2.0])
    x.attach_grad(grad_req="add")
    with autograd.record():
        y = nd.square(x)
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [4, 8])
    with pytest.raises(MXNetError, match="already freed"):
        y.backward()


def test_not_in_graph():
    x = nd.array([1.0])
    with pytest.raises(MXNetError, match="not in a computational graph"):
        x.backward()


def test_inplace_modification_after_record_raises():
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = nd.exp(x)
        z = y * 2
    y[:] = 0  # y was saved by exp's backward (it reads its output)
    with pytest.raises(MXNetError, match="modified in-place"):
        z.backward()


def test_inplace_on_view_is_detected():
    x = nd.array([[1.0, 2.0], [3.0, 4.0]])
    x.attach_grad()
    with autograd.record():
        y = nd.log(x)
    view = x[0]  # a view sharing x's storage
    view[:] = 5
    with pytest.raises(MXNetError, match="modified in-place"):
        y.backward()


def test_autograd_grad_does_not_write():
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = nd.square(x)
    g = autograd.grad(y, x)
    assert isinstance(g, list) and len(g) == 1  # MXNet returns a list for one variable too
    np.testing.assert_allclose(g[0].asnumpy(), [2, 4])
    assert x.grad.asnumpy().tolist() == [0, 0]


def test_higher_order_gradient():
    x = nd.array([0.5, 1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = nd.sin(x) * x
        dy = autograd.grad(y, x, create_graph=True)[0]  # cos(x) x + sin(x)
    dy.backward()  # d/dx: -sin(x) x + 2 cos(x)
    v = x.asnumpy()
    np.testing.assert_allclose(dy.asnumpy(), np.cos(v) * v + np.sin(v), rtol=1e-6)
    np.testing.assert_allclose(x.grad.asnumpy(), -np.sin(v) * v + 2 * np.cos(v), rtol=1e-5)


def test_higher_order_gradient_of_custom_function():
    class Cube(autograd.Function):
        def forward(self, x):
            self.save_for_backward(x)
            return x * x * x

        def backward(self, dy):
            x, = self.saved_tensors
            return dy * 3 * x * x

    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        dy = autograd.grad(Cube()(x), x, create_graph=True)[0]
    dy.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [6.0, 12.0])


def test_higher_order_without_support_names_operator():
    x = nd.array([[1.0, 2.0]])
    x.attach_grad()
    with autograd.record():
        y = nd.sort(x)
    with pytest.raises(MXNetError, match="sort does not support higher-order"):
        autograd.grad(y, x, create_graph=True)


def test_mark_variables():
    x = nd.array([1.0, 2.0])
    g = nd.zeros((2,))
    autograd.mark_variables([x], [g])
    with autograd.record():
        y = x * 5
    y.backward()
    np.testing.assert_allclose(g.asnumpy(), [5, 5])


def test_detach_stops_gradient():
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = x * x.detach()
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [1, 2])


def test_multiple_heads():
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        a = x * 2
        b = nd.square(x)
    autograd.backward([a, b])
    np.testing.assert_allclose(x.grad.asnumpy(), [4, 6])


def test_train_mode_reaches_ops():
    seen = []

    class Probe(autograd.Function):
        def forward(self, x):
            seen.append(autograd.is_training())
            return x * 1

        def backward(self, dy):
            return dy

    x = nd.ones((1,))
    with autograd.record():
        Probe()(x)
    with autograd.record(train_mode=False):
        Probe()(x)
    assert seen == [True, False]


def test_custom_function():
    class Sigmoid(autograd.Function):
        def forward(self, x):
            y = 1 / (1 + nd.exp(-x))
            self.save_for_backward(y)
            return y

        def backward(self, dy):
            y, = self.saved_tensors
            return dy * y * (1 - y)

    x = nd.array([0.0, 1.0, -2.0])
    x.attach_grad()
    with autograd.record():
        z = Sigmoid()(x) * 3
    z.backward()
    s = 1 / (1 + np.exp(-x.asnumpy()))
    np.testing.assert_allclose(x.grad.asnumpy(), 3 * s * (1 - s), rtol=1e-6)


def test_gradient_through_first_axis_index_while_recording():
    x = nd.array([[1.0, 2.0], [3.0, 4.0]])
    x.attach_grad()
    with autograd.record():
        y = x[1] * 2
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [[0, 0], [2, 2]])


def test_get_symbol_rebuilds_the_recorded_graph():
    """MXNet's test_get_symbol counts the arguments; the graph also computes the same."""
    x = mx.nd.ones((1,))
    x.attach_grad()
    with mx.autograd.record():
        y = x * x + 2 * x - 1
    assert len(mx.autograd.get_symbol(y).list_arguments()) == 1
    z = mx.nd.ones((1,))
    z.attach_grad()
    with mx.autograd.record():
        y = x * x + 2 * z - 1
    sym = mx.autograd.get_symbol(y)
    assert sym.list_arguments() == ["var0", "var1"]
    out = sym.eval(var0=mx.nd.array([3.0]), var1=mx.nd.array([5.0]))[0]
    assert out.asnumpy().tolist() == [18.0]


def test_star_import_gives_mxnets_names():
    namespace = {}
    exec("from gluonlite.autograd import *", namespace)
    assert namespace["NDArray"] is mx.nd.NDArray and namespace["Symbol"] is mx.sym.Symbol


def test_sparse_arrays_get_gradients_of_their_own_storage():
    """MXNet 1.9.1: attach_grad on a csr/row_sparse array gives a gradient of that type."""
    for stype in ("csr", "row_sparse"):
        x = mx.nd.zeros((1, 1), stype=stype)
        x.attach_grad()
        assert x.grad.stype == stype
        assert x.detach().stype == stype
    rhs = mx.nd.ones((8, 3)).tostype("row_sparse")
    rhs.attach_grad()
    lhs = mx.nd.ones((2, 8)).tostype("csr")
    with mx.autograd.record():
        y = mx.nd.dot(lhs, rhs)
    y.backward()
    assert rhs.grad.stype == "row_sparse" and rhs.grad.asnumpy().sum() == 48.0


def test_outputs_of_a_freed_graph_are_constants_in_the_next_recording():
    """MXNet's test_cached: after backward (no retain_graph) its arrays are constants."""
    w = mx.nd.ones((3,))
    w.attach_grad()
    b = mx.nd.ones((3,))
    b.attach_grad()
    with mx.autograd.record():
        b = b + 1
        (w * b).backward()
    with mx.autograd.record():
        b = b + 1           # b's graph was freed: a constant (3, 3, 3) now
        y = w * b
    y.backward()
    assert w.grad.asnumpy().tolist() == [3.0, 3.0, 3.0]
    with mx.autograd.record():
        z = w * 2
    z.backward()
    with pytest.raises(mx.MXNetError, match="already freed"):
        z.backward()
