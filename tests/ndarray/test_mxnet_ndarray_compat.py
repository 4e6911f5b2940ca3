"""NDArray behaviours MXNet 1.9.1's ``test_ndarray.py`` relies on; the expected values
were read off MXNet 1.9.1 itself."""
import pickle
from itertools import permutations, product

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, nd

from ..fresh_interpreter import assert_runs_ok


def test_reshape_to_another_size_raises_value_error():
    t = nd.arange(30).reshape(2, 3, 5)
    with pytest.raises(ValueError):
        t.reshape((2, 3))
    with pytest.raises(mx.MXNetError):  # still MXNet's error for the operator
        t.reshape(7, 5)
    assert t.reshape(-1, 0, reverse=True).shape == (6, 5)
    assert t.reshape(-1, 15).reshape(0, -4, 3, -1).shape == (2, 3, 5)


@pytest.mark.parametrize("method, args, shape", [
    ("flatten", {}, (1, 6)),
    ("squeeze", {}, (2, 3)),
    ("squeeze", {"axis": (0, 3)}, (2, 3)),
    ("expand_dims", {"axis": -1}, (1, 2, 3, 1, 1)),
    ("expand_dims", {"axis": 0}, (1, 1, 2, 3, 1)),
])
def test_inplace_shape_methods_give_views(method, args, shape):
    x = nd.arange(6).reshape(1, 2, 3, 1)
    copy = getattr(x, method)(**args)
    view = getattr(x, method)(inplace=True, **args)
    assert copy.shape == view.shape == shape
    x[:] = -1
    assert (view.asnumpy() == -1).all() and (copy.asnumpy() >= 0).all()


def test_inplace_squeeze_keeps_one_axis_and_checks_axes():
    assert nd.ones((1, 1)).squeeze(inplace=True).shape == (1,)
    with pytest.raises(ValueError):
        nd.ones((2, 1)).squeeze(axis=0, inplace=True)


def test_fill_element_0index_onehot_encode_crop_assign():
    filled = nd.fill_element_0index(nd.zeros((3, 4)), nd.array([7, 8, 9]), nd.array([1, 0, 5]))
    assert filled.asnumpy().tolist() == [[0, 7, 0, 0], [8, 0, 0, 0], [0, 0, 0, 0]]
    out = nd.ones((3, 4))
    assert nd.onehot_encode(nd.array([1, 0, 5]), out) is out
    assert out.asnumpy().tolist() == [[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0]]
    x = nd.ones((2, 3))
    nd._internal._crop_assign(x, nd.array([[5, 6]]), begin=(1, 0), end=(2, 2), out=x)
    assert x.asnumpy().tolist() == [[1, 1, 1], [5, 6, 1]]
    y = nd._internal._crop_assign_scalar(nd.ones((2, 3)), scalar=3, begin=(None, 1),
                                         end=(None, None), step=(1, 2))
    assert y.asnumpy().tolist() == [[1, 3, 1], [1, 3, 1]]


def test_sorting_dtype_as_numpy_type():
    a = nd.array([[3, 1, 2]])
    top = nd.topk(a, k=2, dtype=np.float64)
    assert top.dtype == np.float64 and top.asnumpy().tolist() == [[0, 2]]
    assert nd.argsort(a, dtype=np.int32).dtype == np.int32


def test_creation_functions_fill_out():
    out = nd.zeros((2, 2))
    assert nd.ones((2, 2), out=out) is out and out.asnumpy().sum() == 4
    nd.full((2, 2), 2, out=out)
    assert out.asnumpy().tolist() == [[2, 2], [2, 2]]
    nd.zeros((2, 2), out=out)
    assert out.asnumpy().sum() == 0


def test_split_v2():
    x = nd.arange(12).reshape(2, 6)
    parts = nd.split_v2(x, (1, 3, 5), axis=1)
    assert [p.shape for p in parts] == [(2, 1), (2, 2), (2, 2), (2, 1)]
    assert [p.asnumpy().ravel().tolist() for p in x.split_v2(3, axis=1)] == \
        [[0, 1, 6, 7], [2, 3, 8, 9], [4, 5, 10, 11]]
    with pytest.raises(ValueError):
        nd.split_v2(x, 4, axis=1)
    y = nd.array([1, 2, 3, 4])
    y.attach_grad()
    with autograd.record():
        first, _ = nd.split_v2(y, (1,))
        (first * 2).sum().backward()
    assert y.grad.asnumpy().tolist() == [2, 0, 0, 0]


def test_basic_slice_contiguity_matches_numpy():
    shape = (3, 4, 5)
    x_np = np.arange(60).reshape(shape)
    slices = [slice(None), slice(2), slice(1, 3), slice(None, None, 2), slice(0, 1),
              slice(None, None, -1), slice(20)]
    check = nd.NDArray._basic_indexing_slice_is_contiguous
    for key in product(slices, repeat=3):
        assert check(key, shape) == x_np[key].flags.c_contiguous, key


@pytest.mark.parametrize("key, changed", [
    ((slice(0, 1), slice(1, 2)), 4), ((1, slice(1, 3)), 8), ((slice(None), slice(1, 2)), 0),
    ((1, 2), 4), ((slice(1, 2), 1, slice(None)), 4), ((slice(None, None, -1),), 0),
    ((0, slice(None), slice(1, 3)), 0), ((Ellipsis, 1), 0), ((None, 0), 12),
])
def test_contiguous_basic_indexing_is_a_view(key, changed):
    # MXNet 1.9.1: how many elements of x change after ``y = x[key]; y[:] = -1``
    x = nd.arange(24).reshape(2, 3, 4)
    y = x[key]
    y[:] = -1
    assert int((x.asnumpy() == -1).sum()) == changed


@pytest.mark.parametrize("key, raises", [
    (0, True), (slice(0, 1), True), ([0], True), ((0, None), True),
    (None, False), (slice(None), False), (Ellipsis, False),
])
def test_setitem_of_recorded_value_while_recording(key, raises):
    x = nd.ones((3, 4))
    y = nd.ones(x[key].shape)
    y.attach_grad()
    with autograd.record():
        if raises:
            with pytest.raises(mx.MXNetError, match="Inplace operations"):
                x[key] = y
        else:
            x[key] = y
    plain = nd.ones(x[key].shape)
    with autograd.record():
        x[key] = plain  # a value outside the graph may be written anywhere


def test_from_numpy_takes_the_memory():
    a = np.array([[1, 2], [3, 4], [5, 6]], dtype="float32")
    x = nd.from_numpy(a)
    with pytest.raises(ValueError):
        a[2, 1] = 0
    x[2, 1] = 100
    assert a[2, 1] == 100
    with pytest.raises(ValueError):
        nd.from_numpy(np.ones((3, 2)).T)
    assert nd.from_numpy(np.ones((3, 2)).T, zero_copy=False).shape == (2, 3)


def test_numpy_functions_on_ndarrays():
    a = nd.array([50000001], dtype="int32").round()
    assert np.all(a == 50000001)
    assert isinstance(np.ones(2) + nd.ones(2), nd.NDArray)
    assert isinstance(np.float32(2) * nd.ones(2), nd.NDArray)


def test_setstate_reads_mxnet_pickled_state():
    # MXNet 1.9.1: nd.array([[1, 2], [3, 4]], dtype='int32').__getstate__()
    state = {"handle": bytearray(
        b"\xc9\xfa\x93\xf9\x00\x00\x00\x00\x02\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00"
        b"\x02\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00"
        b"\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00\x04\x00\x00\x00")}
    x = nd.arange(1)
    x.__setstate__(state)
    assert x.dtype == np.int32 and x.asnumpy().tolist() == [[1, 2], [3, 4]]
    # MXNet 1.9.1: nd.arange(1, ctx=mx.gpu()).__getstate__(), read where no GPU may be
    gpu_state = {"handle": bytearray(
        b"\xc9\xfa\x93\xf9\x00\x00\x00\x00\x01\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00"
        b"\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00")}
    x.__setstate__(gpu_state)
    assert x.asnumpy().tolist() == [0.0]
    with pytest.raises(mx.MXNetError):
        x.__setstate__({"handle": bytearray(b"\x00" * 8)})
    y = pickle.loads(pickle.dumps(nd.array([1, 2])))  # gluonlite's own state still loads
    assert y.asnumpy().tolist() == [1, 2]


def test_alias_restores_names_numpy2_removed():
    code = (
        "import math, numpy as np, gluonlite\n"
        "own_product = vars(np).get('product')\n"
        "gluonlite.install_mxnet_alias()\n"
        "assert math.isnan(np.NaN) and math.isnan(np.NAN)\n"
        "assert np.Inf == np.Infinity == np.PINF == np.infty == np.inf\n"
        "assert np.NINF == -np.inf and np.float_ is np.float64\n"
        "assert np.complex_ is np.complex128 and np.product([2, 3]) == 6\n"
        # NumPy 1.x still has its own (deprecated) product, which is left alone
        "assert np.product is (own_product or np.prod)\n"
        "print('ok')\n"
    )
    assert_runs_ok(code)


def test_permuted_contiguous_slices_write_through():
    x = nd.arange(60).reshape(3, 4, 5)
    for key in permutations((slice(None), slice(0, 1), 1)):
        y = x.copy()
        if nd.NDArray._basic_indexing_slice_is_contiguous(
                tuple(k if isinstance(k, slice) else slice(k, k + 1) for k in key), x.shape):
            view = y[key]
            view[:] = 0
            assert (y[key].asnumpy() == 0).all(), key

