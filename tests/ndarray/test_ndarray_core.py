"""NDArray basics: creation, dtype rules, properties, conversion, views, pickling, DLPack."""
import pickle

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd
from gluonlite.base import MXNetError


def test_creation_defaults_to_float32():
    assert nd.array([1, 2]).dtype is np.float32
    for dt in ("int32", "uint8", "float16", "float64", "int64", "bool"):
        assert nd.array(np.array([1, 0], dtype=dt)).dtype is np.float32
    assert nd.array([1, 2], dtype="int32").dtype is np.int32
    assert nd.array(nd.array([1, 2], dtype="float16")).dtype is np.float16
    assert nd.zeros((2, 3)).dtype is np.float32 and nd.ones(4).shape == (4,)
    assert nd.empty((2,), dtype="int64").dtype is np.int64
    f = nd.full((2, 2), 7)
    assert f.dtype is np.float32 and f.asnumpy().tolist() == [[7, 7], [7, 7]]
    a = nd.arange(5)
    assert a.dtype is np.float32 and a.asnumpy().tolist() == [0, 1, 2, 3, 4]
    assert nd.array(3).shape == ()


def test_properties_and_conversion():
    x = nd.array([[1, 2, 3], [4, 5, 6]])
    assert x.shape == (2, 3) and x.size == 6 and x.ndim == 2
    assert x.context == mx.cpu() and x.ctx == mx.cpu() and x.stype == "default"
    np.testing.assert_array_equal(np.asarray(x), [[1, 2, 3], [4, 5, 6]])
    assert x.T.shape == (3, 2)
    assert nd.array([2.5]).asscalar() == np.float32(2.5)
    with pytest.raises(MXNetError, match="exactly one element"):
        x.asscalar()
    assert x.astype("int32").dtype is np.int32
    same = x.astype("float32", copy=False)
    assert same is x
    c = x.copy()
    c[:] = 0
    assert x.asnumpy().sum() == 21


def test_asnumpy_is_a_copy():
    x = nd.ones((2,))
    a = x.asnumpy()
    a[0] = 5
    assert x.asnumpy()[0] == 1


def test_copyto_and_as_in_context():
    x = nd.array([1, 2])
    y = nd.zeros((2,))
    assert x.copyto(y) is y and y.asnumpy().tolist() == [1, 2]
    with pytest.raises(MXNetError, match="shape mismatch"):
        x.copyto(nd.zeros((3,)))
    z = x.copyto(mx.cpu(1))
    assert z.context == mx.cpu(1)
    assert x.as_in_context(mx.cpu()) is x


def test_reshape_is_a_view_with_codes():
    x = nd.arange(24).reshape((2, 3, 4))
    v = x.reshape((0, -1))
    assert v.shape == (2, 12)
    v[:] = 1
    assert x.asnumpy().sum() == 24
    assert x.reshape(-3, -2).shape == (6, 4)
    assert x.reshape(shape=(-4, 1, 2, -2)).shape == (1, 2, 3, 4)
    assert x.reshape((-1, 0), reverse=True).shape == (6, 4)
    with pytest.raises(MXNetError, match="cannot reshape"):
        x.reshape((5, -1))


def test_first_axis_indexing_is_a_view():
    x = nd.arange(12).reshape((3, 4))
    row = x[1]
    row[:] = 7
    assert x.asnumpy()[1].tolist() == [7, 7, 7, 7]
    block = x[0:2]
    block[:] = 0
    assert x.asnumpy()[:2].sum() == 0
    assert nd.array([1, 2, 3])[1].shape == (1,)


def test_other_slices_copy():
    x = nd.arange(12).reshape((3, 4))
    col = x[:, 1]
    col[:] = -1
    assert (x.asnumpy() >= 0).all()
    assert x[1:3, 1:3].shape == (2, 2)


def test_setitem_forms():
    x = nd.zeros((3, 4))
    x[:] = 1
    x[0] = 2
    x[1, 2] = 5
    x[2] = nd.array([1, 2, 3, 4])
    x[:, 0] = np.array([9, 9, 9])
    assert x.asnumpy().tolist() == [[9, 2, 2, 2], [9, 1, 5, 1], [9, 2, 3, 4]]
    with pytest.raises(MXNetError):
        x[0] = nd.ones((5,))


def test_setitem_drops_leading_one_axes_of_the_value():
    # MXNet 1.9.1: Y[i, j] = <shape (1,)> and Y[i, :] = <shape (1, n)> broadcast
    y = nd.zeros((3, 3))
    y[0, 1] = nd.array([5])
    y[1] = nd.array([7])
    y[2, :] = nd.array([[1, 2, 3]])
    y[0, 0] = np.ones((1, 1)) * 4
    assert y.asnumpy().tolist() == [[4, 5, 0], [7, 7, 7], [1, 2, 3]]
    with pytest.raises(MXNetError, match=r"shape \(2,\) to index \(0, 0\)"):
        y[0, 0] = nd.array([1, 2])
    with pytest.raises(MXNetError, match=r"shape \(2, 3\)"):
        y[1, :] = nd.ones((2, 3))


def test_pickle_roundtrip():
    x = nd.array([[1, 2], [3, 4]], dtype="int32")
    y = pickle.loads(pickle.dumps(x))
    assert y.dtype is np.int32 and y.context == mx.cpu()
    np.testing.assert_array_equal(y.asnumpy(), x.asnumpy())


def test_dlpack_shares_memory():
    x = nd.array([1, 2, 3])
    y = nd.from_dlpack(x.to_dlpack_for_write())
    y[0] = 10
    assert x.asnumpy()[0] == 10
    z = nd.from_dlpack(x)
    assert z.asnumpy().tolist() == [10, 2, 3]
    t = np.from_dlpack(x)
    assert t.tolist() == [10, 2, 3]


def test_from_numpy_zero_copy():
    # as in MXNet the NDArray takes the memory: writes through it show in the source,
    # which becomes read-only
    a = np.arange(4, dtype=np.float32)
    x = nd.from_numpy(a)
    x[0] = 5
    assert a[0] == 5 and not a.flags.writeable


def test_repr_matches_mxnet_layout():
    text = repr(nd.array([[1, 2], [3, 4]]))
    assert text.endswith("<NDArray 2x2 @cpu(0)>") and text.startswith("\n[[1. 2.]")


def test_len_iter_bool():
    x = nd.arange(6).reshape((3, 2))
    assert len(x) == 3 and [r.shape for r in x] == [(2,)] * 3
    assert bool(nd.array([1])) and not bool(nd.array([0]))
    with pytest.raises(ValueError):
        bool(x)


def test_inplace_operators_keep_identity_and_bump_version():
    x = nd.ones((2, 2))
    chunk = x._get_chunk()
    before = chunk.version
    x_id = id(x)
    x += 1
    x *= 3
    assert id(x) == x_id and x.asnumpy().tolist() == [[6, 6], [6, 6]]
    assert chunk.version == before + 2


def test_waitall_and_wait_to_read():
    x = nd.ones((2,))
    x.wait_to_read()
    nd.waitall()


def test_mismatched_devices_raise():
    a = nd.ones((2,), ctx=mx.cpu(0))
    b = nd.ones((2,), ctx=mx.cpu(1))
    with pytest.raises(MXNetError, match="different devices"):
        nd.elemwise_add(a, b)


def test_linspace_and_eye_follow_mxnet():
    np.testing.assert_allclose(nd.linspace(0, 1, 5).asnumpy(), [0, 0.25, 0.5, 0.75, 1])
    y = nd.linspace(0, 1, 4, endpoint=False, dtype="float64")
    assert y.dtype == np.float64 and y.asnumpy().tolist() == [0, 0.25, 0.5, 0.75]
    e = nd.eye(2, 3, 1, dtype="int32")
    assert e.dtype == np.int32 and e.asnumpy().tolist() == [[0, 1, 0], [0, 0, 1]]
    assert nd.eye(2).dtype == np.float32 and nd.eye(2).shape == (2, 2)


def test_recorded_indexing_does_not_fill_the_attribute_cache():
    from gluonlite import autograd
    from gluonlite.ops.registry import get_op
    op = get_op("_index")
    before = len(op._attr_cache)
    x = nd.ones((4, 3))
    x.attach_grad()
    with autograd.record():
        for i in range(20):
            y = x[nd.array([i % 4])]
    assert len(op._attr_cache) == before
    y.backward()
