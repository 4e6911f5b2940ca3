"""test_utils checkers as MXNet 1.9.1's: ``dtype='asnumpy'``, NDArray locations keep
their dtype, surplus head gradients are ignored, positive random projections."""
import numpy as np

import gluonlite as mx
from gluonlite.test_utils import (check_numeric_gradient, check_symbolic_backward,
                                  check_symbolic_forward)


def test_asnumpy_dtype_keeps_the_given_dtypes():
    data = mx.sym.var("data")
    length = mx.sym.var("length")
    y = mx.sym.SequenceMask(data, length, use_sequence_length=True)
    x = np.ones((3, 2, 2), dtype=np.float64)
    lens = np.array([1, 3], dtype=np.int32)
    want = x.copy()
    want[1:, 0] = 0
    outs = check_symbolic_forward(y, [x, lens], [want], dtype="asnumpy")
    assert outs[0].dtype == np.float64
    check_symbolic_backward(y, [x, lens], [np.ones_like(x)], [want, np.zeros(2)],
                            grad_req={"data": "write", "length": "null"}, dtype="asnumpy")


def test_surplus_head_gradients_are_ignored():
    x = mx.sym.var("x")
    check_symbolic_backward(x * 2, [np.ones(3)], [np.ones(3), np.ones(5)], [np.full(3, 2.0)])


def test_ndarray_location_keeps_its_dtype():
    x = mx.sym.var("x")
    outs = check_symbolic_forward(x + 1, [mx.nd.array([1, 2], dtype="int32")],
                                  [np.array([2, 3])])
    assert outs[0].dtype == np.int32


def test_numeric_gradient_of_large_linear_map_float32():
    # MXNet's test_bilinear_resize_op: thousands of outputs, float32, atol 1e-4
    rng = np.random.RandomState(0)
    data = mx.sym.var("data")
    y = mx.sym.contrib.BilinearResize2D(data, None, scale_height=5, scale_width=10,
                                        mode="odd_scale")
    check_numeric_gradient(y, [rng.uniform(size=(1, 1, 6, 6))], rtol=1e-2, atol=1e-4)


def test_surplus_locations_are_ignored():
    # MXNet's test_mkldnn.py::test_Deconvolution passes data, weight and bias to a
    # Deconvolution whose no_bias defaults to True: MXNet zips and drops the bias
    data = mx.sym.var("data")
    y = mx.sym.Deconvolution(data=data, kernel=(3,), stride=(2,), num_filter=2)
    rng = np.random.RandomState(0)
    loc = [rng.normal(size=(1, 2, 4)), rng.normal(0, 0.1, size=(2, 2, 3)), np.zeros(2)]
    check_numeric_gradient(y, loc, numeric_eps=1e-3, rtol=1e-2, atol=1e-4, dtype=np.float64)
    check_symbolic_forward(data * 2, [np.ones(3), np.ones(4)], [np.full(3, 2.0)])


def test_too_few_locations_raise():
    x = mx.sym.var("x")
    try:
        check_symbolic_forward(x + mx.sym.var("y"), [np.ones(3)], [np.ones(3)])
    except ValueError as err:
        assert "location has 1 arrays" in str(err)
    else:
        raise AssertionError("expected ValueError")


def test_numeric_gradient_of_a_zero_dim_output():
    """A NumPy-semantics reduction to a 0-d output (MXNet's test_numpy_op checks
    np.sum(x) this way)."""
    from gluonlite.test_utils import check_numeric_gradient
    with mx.util.np_shape(True):
        x = mx.sym.var("x")
        check_numeric_gradient(mx.sym.sum(x), [np.random.rand(3, 4).astype(np.float32)],
                               numeric_eps=1e-3, rtol=1e-2, atol=1e-3)
