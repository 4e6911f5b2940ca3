"""MXNet 1.9.1's legacy shape rules in creation functions and min/max reductions.

Outside ``np_shape`` a shape ``()`` or a 0 dimension means "unknown": ``nd.zeros`` and
``nd.ones`` refuse them (``nd.empty`` and ``nd.array`` do not), ``nd.full`` refuses
``()``.  Under ``np_shape`` they are a 0-d array and a zero-size axis.  ``min``/``max``
of a zero-size input raise in both modes (MXNet's "Reduction input's size should >
0"); ``argmax`` raises only when the reduced axis is empty.  Checked on MXNet 1.9.1
(``test_scalar_tensor_creation``, ``test_zero_size_tensor_creation``,
``test_zero_size_min_max``).
"""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError


@pytest.mark.parametrize("shape", [(), (0,), (2, 0), (0, 1, 3, 0)])
@pytest.mark.parametrize("fn", ["zeros", "ones"])
def test_zeros_ones_refuse_unknown_shapes_outside_np_shape(fn, shape):
    with pytest.raises(MXNetError, match="_" + fn):  # MXNet names the operator
        getattr(mx.nd, fn)(shape=shape)
    with pytest.raises(MXNetError):
        getattr(mx.nd, fn)(shape, out=mx.nd.empty(shape))
    with mx.np_shape():
        a = getattr(mx.nd, fn)(shape=shape)
        assert a.shape == shape and a.dtype == np.float32
        np.testing.assert_array_equal(a.asnumpy(), np.full(shape, fn == "ones", np.float32))


def test_int_shape_zero_and_full_and_empty():
    with pytest.raises(MXNetError):
        mx.nd.zeros(0)
    with pytest.raises(MXNetError, match="_full"):
        mx.nd.full((), 3)
    assert mx.nd.full((0, 2), 3).shape == (0, 2)  # MXNet: empty, then out[:] = val
    for shape in [(), (0,), (2, 0)]:
        assert mx.nd.empty(shape).shape == shape
        assert mx.nd.array(np.zeros(shape)).shape == shape
    with mx.np_shape():
        np.testing.assert_array_equal(mx.nd.full((), 3).asnumpy(), np.float32(3))
    assert mx.nd.zeros((3,)).shape == (3,)


@pytest.mark.parametrize("np_shape", [False, True])
@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("fn", ["min", "max"])
def test_min_max_of_zero_size_raise(fn, axis, np_shape):
    with mx.np_shape(np_shape):
        x = mx.nd.array(np.zeros((5, 0), np.float32))
        # MXNet's message differs outside np_shape (its shape inference fails first)
        with pytest.raises(MXNetError, match="size should > 0" if np_shape else None):
            getattr(mx.nd, fn)(x, axis=axis)
        with pytest.raises(MXNetError):
            getattr(x, fn)()


def test_min_max_symbolic_zero_size_raise():
    with mx.np_shape():
        y = mx.sym.min(mx.sym.var("a"))
        with pytest.raises(MXNetError, match="size should > 0"):
            y.eval(a=mx.nd.zeros((5, 0)))[0].asnumpy()


def test_argmax_zero_size_only_over_an_empty_axis():
    with mx.np_shape():
        x = mx.nd.zeros((5, 0))
        assert mx.nd.argmax(x, axis=0).shape == (0,)   # MXNet 1.9.1: shape (0,)
        assert mx.nd.argmin(x, axis=0).shape == (0,)
        for axis in (None, 1):
            with pytest.raises(MXNetError):
                mx.nd.argmax(x, axis=axis).asnumpy()  # MXNet raises on the read


def test_sum_of_zero_size_still_works():
    x = mx.nd.array(np.zeros((5, 0), np.float32))
    np.testing.assert_array_equal(mx.nd.sum(x).asnumpy(), [0])   # MXNet: [0.] in legacy
    with mx.np_shape():
        assert mx.nd.sum(mx.nd.zeros((5, 0)), axis=0).shape == (0,)
