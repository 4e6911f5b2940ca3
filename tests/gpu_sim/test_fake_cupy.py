"""The fake CuPy refuses what CuPy refuses, and the simulated-GPU hook restores state."""
import operator

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import backend
from gluonlite.ops.registry import OpContext

from . import fake_cupy as cp
from .simulated import simulated_gpu


@pytest.fixture
def strict():
    old = cp.is_strict()
    cp.set_strict(True)
    yield
    cp.set_strict(old)


def test_arrays_are_not_numpy_arrays():
    x = cp.arange(6.0).reshape(2, 3)
    assert not isinstance(x, np.ndarray)
    assert type(x.sum()) is cp.ndarray and x.sum().ndim == 0  # 0-d, never a scalar
    assert type(x[0, 1]) is cp.ndarray
    np.testing.assert_array_equal(cp.asnumpy(x), np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(x.get(), np.arange(6.0).reshape(2, 3))


def test_implicit_host_conversion_is_refused():
    x = cp.ones((2, 3))
    with pytest.raises(TypeError, match="Implicit conversion"):
        np.asarray(x)
    with pytest.raises(TypeError, match="Implicit conversion"):
        np.array([x, x])


@pytest.mark.parametrize("expr", [
    lambda x, h: x + h,
    lambda x, h: h * x,
    lambda x, h: cp.maximum(x, h),
    lambda x, h: cp.where(x > 0, h, x),
    lambda x, h: cp.concatenate([x, h]),
    lambda x, h: cp.matmul(x, h.T),
    lambda x, h: cp.exp(x, out=h),
])
def test_host_arrays_are_refused(expr):
    with pytest.raises(TypeError, match="numpy.ndarray"):
        expr(cp.ones((2, 3)), np.ones((2, 3)))


def test_setitem_rules():
    x = cp.zeros((2, 3))
    with pytest.raises(ValueError):
        x[...] = np.ones((2, 3))  # basic indexing: CuPy's fill refuses host arrays
    x[...] = np.float32(2)  # scalars are fine
    x[np.array([1])] = np.ones((1, 3))  # advanced indexing converts host data
    x[cp.asarray(np.array([0]))] = cp.full((1, 3), 5.0)
    np.testing.assert_array_equal(x.get(), [[5, 5, 5], [1, 1, 1]])
    assert float(x[cp.asarray(np.array([1]))][0, 0]) == 1.0  # host index arrays too


def test_numpy_functions_on_device_arrays(strict):
    x = cp.ones((2, 3))
    with pytest.raises(TypeError, match="strict"):
        np.exp(x)
    with pytest.raises(TypeError, match="strict"):
        np.sum(x)
    with pytest.raises(TypeError):
        np.add.at(x, [0], 1.0)
    assert type(np.float32(2) * x) is cp.ndarray  # NumPy scalars' operators are allowed
    cp.set_strict(False)  # CuPy's own behaviour: NEP 13/18 dispatch to cupy.<name>
    assert type(np.exp(x)) is cp.ndarray and float(np.sum(x)) == 6.0
    with pytest.raises(TypeError):
        np.lib.stride_tricks.sliding_window_view(x, 2)  # CuPy has no such function


def test_scalar_conversions_and_syncs():
    x = cp.asarray(np.array([2.5]))
    cp.SYNCS.clear()
    assert float(x[0]) == 2.5 and int(x.sum()) == 2 and bool(x) and x.item() == 2.5
    assert x.tolist() == [2.5]
    assert [w for w, _ in cp.SYNCS] == ["__float__", "__int__", "__bool__", "item", "tolist"]
    with pytest.raises(TypeError):
        operator.index(cp.asarray(np.array(3)))  # no __index__ on cupy.ndarray
    with pytest.raises(TypeError):
        range(cp.asarray(np.array(3)))


def test_unsupported_features():
    with pytest.raises(TypeError, match="dtype"):
        cp.array([1, "a"], dtype=object)
    with pytest.raises(TypeError, match="lists"):
        cp.exp([1.0, 2.0])
    with pytest.raises(TypeError, match="where"):
        cp.add(cp.ones(2), 1.0, where=cp.ones(2) > 0)
    with pytest.raises(NotImplementedError):
        cp.multiply.at(cp.ones(3), [0], 2.0)
    with pytest.raises(NotImplementedError):
        cp.ElementwiseKernel("T x", "T y", "y = x", "k")
    with pytest.raises(AttributeError):
        cp.errstate  # noqa: B018 - CuPy has cupyx.errstate only


def test_scatter_add_accumulates_repeated_indices():
    a = cp.zeros(3)
    cp.add.at(a, cp.asarray(np.array([0, 0, 2])), 1.0)
    cp.scatter_add(a, np.array([1, 1]), cp.ones(2))
    np.testing.assert_array_equal(a.get(), [2, 2, 1])
    with pytest.raises(TypeError):
        cp.scatter_add(cp.zeros(3, dtype=np.int64), [0], 1)  # CuPy's atomicAdd dtypes


def test_stride_tricks_view_shares_memory():
    x = cp.arange(6.0)
    v = cp.lib.stride_tricks.as_strided(x, shape=(2, 3), strides=(24, 8))
    v[0, 0] = 7.0
    assert float(x[0]) == 7.0


def test_simulated_gpu_patches_and_restores_backend():
    before = (backend._cupy, backend._cupy_checked, backend._gpu_count)
    with simulated_gpu():
        assert mx.num_gpus() == 1 and mx.gpu(0).xp is cp
        x = mx.nd.array(np.arange(4.0), ctx=mx.gpu(0))
        assert type(x._data) is cp.ndarray and x.context == mx.gpu(0)
        np.testing.assert_array_equal((x * 2).asnumpy(), np.arange(4.0) * 2)
        import cupyx.scipy.special as sp  # the fake one
        assert type(sp.erf(cp.zeros(2))) is cp.ndarray
    assert (backend._cupy, backend._cupy_checked, backend._gpu_count) == before


def test_a_mixed_module_operator_is_caught(strict):
    """Negative control: operator code calling NumPy on its inputs fails on the fake GPU."""
    def bad_forward(oc, attrs, inputs, out):
        return [np.exp(inputs[0]) * np.ones(inputs[0].shape)]

    def good_forward(oc, attrs, inputs, out):
        return [oc.xp.exp(inputs[0]) * oc.xp.ones(inputs[0].shape)]

    with simulated_gpu():
        oc = OpContext(cp, False, mx.gpu(0))
        x = cp.asarray(np.arange(3.0))
        with pytest.raises(TypeError):
            bad_forward(oc, None, [x], None)
        np.testing.assert_allclose(good_forward(oc, None, [x], None)[0].get(),
                                   np.exp(np.arange(3.0)))
