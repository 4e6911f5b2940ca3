"""MXNet 1.x's deprecated ``NumpyOp``/``NDArrayOp`` (MXNet's test_python_op)."""
import warnings

import numpy as np

import gluonlite as mx


def _run(op):
    x = mx.sym.Variable("X")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = op.get_symbol(x, name="legacy_op")
    xa = mx.nd.array(np.arange(4.0))
    dx = mx.nd.zeros((4,))
    exe = s.bind(mx.cpu(), args=[xa], args_grad={"X": dx})
    exe.forward(is_train=True)
    out = exe.outputs[0].asnumpy()
    exe.backward(mx.nd.ones((4,)) * 3)
    return out, dx.asnumpy()


def test_numpy_op_defaults_copy_forward_and_write_ones_backward():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        op = mx.operator.NumpyOp()
    out, dx = _run(op)
    assert np.array_equal(out, np.arange(4.0))
    assert np.array_equal(dx, np.ones(4))


def test_numpy_op_subclass_sees_numpy_arrays():
    class Square(mx.operator.NumpyOp):
        def forward(self, in_data, out_data):
            assert isinstance(in_data[0], np.ndarray)
            out_data[0][:] = in_data[0] ** 2

        def backward(self, out_grad, in_data, out_data, in_grad):
            in_grad[0][:] = 2 * in_data[0] * out_grad[0]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        op = Square()
    out, dx = _run(op)
    assert np.array_equal(out, np.arange(4.0) ** 2)
    assert np.array_equal(dx, 6 * np.arange(4.0))


def test_ndarray_op_subclass_sees_ndarrays():
    class Double(mx.operator.NDArrayOp):
        def forward(self, in_data, out_data):
            assert isinstance(in_data[0], mx.nd.NDArray)
            out_data[0][:] = in_data[0] * 2

        def backward(self, out_grad, in_data, out_data, in_grad):
            in_grad[0][:] = out_grad[0] * 2

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        op = Double()
    out, dx = _run(op)
    assert np.array_equal(out, 2 * np.arange(4.0))
    assert np.array_equal(dx, np.full(4, 6.0))
