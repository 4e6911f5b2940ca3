"""The Executor's handling of head gradients and argument dtypes, as MXNet 1.9.1's
graph executor (found by MXNet's test_operator: shape_array, repeat, Cast, mod)."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError


def test_unread_head_gradient_is_neither_needed_nor_checked():
    # shape_array has a zero gradient: MXNet never reads (or checks) its head gradient
    x = mx.sym.var("x")
    xa = mx.nd.ones((3, 4, 5))
    xg = mx.nd.ones((3, 4, 5))
    exe = mx.sym.shape_array(x).bind(mx.cpu(), args={"x": xa}, args_grad={"x": xg})
    exe.forward(is_train=True)
    exe.backward([mx.nd.ones((3, 4, 5))])  # not the output's shape (3,)
    assert np.array_equal(xg.asnumpy(), np.zeros((3, 4, 5)))


def test_read_head_gradient_of_wrong_shape_raises():
    x = mx.sym.var("x")
    exe = (x * 2).bind(mx.cpu(), args={"x": mx.nd.ones((3,))},
                       args_grad={"x": mx.nd.zeros((3,))})
    exe.forward(is_train=True)
    with pytest.raises(MXNetError, match="head gradient 0"):
        exe.backward([mx.nd.ones((4,))])


def test_backward_without_forward_uses_the_bound_arguments():
    data = mx.sym.var("data")
    grad = mx.nd.zeros((3, 4))
    exe = mx.sym.repeat(data, repeats=2, axis=0).bind(
        mx.cpu(), args=[mx.nd.ones((3, 4))], args_grad=[grad])
    exe.backward(mx.nd.ones((6, 4)))
    assert np.array_equal(grad.asnumpy(), np.full((3, 4), 2.0))


def test_head_gradient_takes_the_output_dtype():
    # float head gradients for an int32 output truncate (0.7 -> 0), as MXNet's copy does
    a, b = mx.sym.var("a"), mx.sym.var("b")
    y = mx.sym.cast(a, dtype="int32") * mx.sym.cast(b, dtype="int32")
    ga, gb = mx.nd.zeros((2,)), mx.nd.zeros((2,))
    exe = y.bind(mx.cpu(), args={"a": mx.nd.array([2, 3]), "b": mx.nd.array([4, 5])},
                 args_grad=[ga, gb])
    exe.forward(is_train=True)
    exe.backward([mx.nd.array([0.7, 1.9])])
    assert np.array_equal(ga.asnumpy(), [0.0, 5.0])
    assert np.array_equal(gb.asnumpy(), [0.0, 3.0])


def test_integer_mod_has_zero_gradients():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    for y in (mx.sym.cast(a, dtype="int32") % mx.sym.cast(b, dtype="int32"),
              mx.sym.broadcast_mod(mx.sym.cast(a, dtype="int32"),
                                   mx.sym.cast(b, dtype="int32"))):
        ga, gb = mx.nd.ones((3,)), mx.nd.ones((3,))
        exe = y.bind(mx.cpu(), args={"a": mx.nd.array([5, -7, 3]),
                                     "b": mx.nd.array([2, 2, 0])}, args_grad=[ga, gb])
        exe.forward(is_train=True)
        exe.backward([mx.nd.array([1, 1, 1])])
        assert np.array_equal(ga.asnumpy(), np.zeros(3))
        assert np.array_equal(gb.asnumpy(), np.zeros(3))


@pytest.mark.parametrize("src", [np.int32, np.float16, np.float32])
@pytest.mark.parametrize("dst", [np.int32, np.float16])
def test_simple_bind_keeps_declared_variable_dtype(src, dst):
    x = mx.sym.Variable("x", dtype=src)
    exe = mx.sym.Cast(x, dtype=dst).simple_bind(ctx=mx.cpu(), x=(2, 3))
    assert exe.arg_arrays[0].dtype == src
    assert exe.outputs[0].dtype == dst


def test_simple_bind_type_dict_replaces_defaults():
    x = mx.sym.Variable("x")
    exe = (x * 2).simple_bind(ctx=mx.cpu(), x=(2,), type_dict={"x": np.float64})
    assert exe.arg_arrays[0].dtype == np.float64
    exe = (x * 2).simple_bind(ctx=mx.cpu(), x=(2,))
    assert exe.arg_arrays[0].dtype == np.float32

