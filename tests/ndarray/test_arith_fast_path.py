"""``x + y``, ``x - y``, ``x * y`` outside autograd call the NumPy ufunc directly on the
CPU; the results must equal the registry operators' in every case."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd
from gluonlite.base import MXNetError

OPS = [("__add__", "broadcast_add", "_plus_scalar"), ("__sub__", "broadcast_sub", "_minus_scalar"),
       ("__mul__", "broadcast_mul", "_mul_scalar")]


@pytest.mark.parametrize("dunder, arr_op, scalar_op", OPS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int32", "uint8"])
def test_same_result_as_the_operator(dunder, arr_op, scalar_op, dtype):
    rng = np.random.default_rng(0)
    x = nd.array(rng.uniform(0, 9, (3, 4)), dtype=dtype)
    y = nd.array(rng.uniform(0, 9, (1, 4)), dtype=dtype)
    for other, expected in ((y, getattr(nd, arr_op)(x, y)),
                            (2.5, getattr(nd._internal, scalar_op)(x, scalar=2.5)),
                            (3, getattr(nd._internal, scalar_op)(x, scalar=3))):
        got = getattr(x, dunder)(other)
        assert got.dtype == expected.dtype and got.shape == expected.shape
        np.testing.assert_array_equal(got.asnumpy(), expected.asnumpy())


def test_int_array_with_float_scalar_keeps_mxnet_rule():
    assert (nd.array([1, 2], dtype="int32") * 2.5).asnumpy().tolist() == [2, 4]


def test_shape_mismatch_still_names_the_operator():
    with pytest.raises(MXNetError, match="broadcast_add"):
        nd.ones((2, 3)) + nd.ones((2, 4))


def test_dtype_mismatch_is_an_error_as_in_mxnet():
    with pytest.raises(MXNetError):
        nd.ones((2,), dtype="float32") + nd.ones((2,), dtype="float64")


def test_recording_still_builds_the_graph():
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        y = x * x + x - 1.0
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [3.0, 5.0])


@pytest.mark.parametrize("dunder, arr_op", [("__iadd__", "broadcast_add"),
                                            ("__isub__", "broadcast_sub"),
                                            ("__imul__", "broadcast_mul")])
def test_inplace_writes_the_same_values_into_the_same_storage(dunder, arr_op):
    x = nd.array([[1.0, 2.0], [3.0, 4.0]])
    y = nd.array([0.5, 2.0])
    expected = getattr(nd, arr_op)(x, y).asnumpy()
    storage = x._data
    view = x[0]  # first-axis slices are views in MXNet
    version = x._get_chunk().version
    res = getattr(x, dunder)(y)
    assert res is x and x._data is storage
    np.testing.assert_array_equal(x.asnumpy(), expected)
    np.testing.assert_array_equal(view.asnumpy(), expected[0])
    assert x._get_chunk().version > version
    getattr(x, dunder)(2.0)
    with pytest.raises(MXNetError):
        getattr(x, dunder)(nd.ones((3,)))


def test_inplace_on_recorded_input_is_still_detected():
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        y = x * x
    x -= 1.0
    with pytest.raises(MXNetError, match="modified"):
        y.backward()
