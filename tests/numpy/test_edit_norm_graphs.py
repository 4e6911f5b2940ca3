"""``insert``/``delete``/``append``/``repeat`` (array positions and counts) and
``linalg.norm`` (every order) give NumPy's results imperatively and in hybridized blocks,
zero-size inputs included."""
import itertools

import numpy as onp
import pytest

import gluonlite as mx
from gluonlite import np, npx
from gluonlite.gluon import HybridBlock


class _Fn(HybridBlock):
    def __init__(self, fn):
        super().__init__()
        self._fn = fn

    def hybrid_forward(self, F, *xs):
        return self._fn(F, *xs)


@pytest.fixture(autouse=True)
def _np_mode():
    npx.set_np()
    yield
    npx.reset_np()


def _run(fn, *xs, hybridize):
    block = _Fn(fn)
    if hybridize:
        block.hybridize()
    return block(*xs)


@pytest.mark.parametrize("hybridize", [False, True])
@pytest.mark.parametrize("shape", [(0, 2, 2), (2, 0, 2), (2, 2, 0)])
def test_zero_size_joins_and_splits(shape, hybridize):
    x = np.ones(shape)
    ref = onp.ones(shape)
    out = _run(lambda F, a: F.np.append(a, a, axis=0), x, hybridize=hybridize)
    assert out.shape == onp.append(ref, ref, axis=0).shape
    out = _run(lambda F, a: F.np.append(a, a), x, hybridize=hybridize)
    assert out.shape == (0,)
    out = _run(lambda F, a: F.np.dstack([a, a]), x, hybridize=hybridize)
    assert out.shape == onp.dstack([ref, ref]).shape
    out = _run(lambda F, a: F.np.split(a, [1, 2], axis=0), x, hybridize=hybridize)
    assert [o.shape for o in out] == [o.shape for o in onp.split(ref, [1, 2], axis=0)]
    out = _run(lambda F, a: F.np.delete(a, slice(0, 1), axis=2), x, hybridize=hybridize)
    assert out.shape == onp.delete(ref, slice(0, 1), axis=2).shape


@pytest.mark.parametrize("hybridize", [False, True])
@pytest.mark.parametrize("obj,vshape,axis", [
    (1, (2, 3), 1), (-2, (2,), None), (slice(0, 3), (3, 1), 1), ([1], (2,), None),
    ([1], (3, 2), 1), ([2, 0, -1], (3, 1), 0), ([3, 0], (1,), None)])
def test_insert(obj, vshape, axis, hybridize):
    a_np = onp.random.uniform(-1, 1, (3, 2))
    b_np = onp.random.uniform(-1, 1, vshape)
    a, b = np.array(a_np, dtype="float64"), np.array(b_np, dtype="float64")
    a.attach_grad()
    b.attach_grad()
    pos = obj
    if isinstance(obj, list):
        pos = np.array(obj, dtype="int64")

    def fn(F, x, v, *p):
        return F.np.insert(x, p[0] if p else pos, v, axis=axis)

    extra = [pos] if isinstance(obj, list) else []
    with mx.autograd.record():
        y = _run(fn, a, b, *extra, hybridize=hybridize)
    expected = onp.insert(a_np, onp.array(obj) if isinstance(obj, list) else obj, b_np,
                          axis=axis)
    assert y.shape == expected.shape
    onp.testing.assert_allclose(y.asnumpy(), expected)
    y.backward()
    onp.testing.assert_allclose(a.grad.asnumpy(), onp.ones((3, 2)))
    # the values' gradients sum to the number of elements inserted (broadcast ones count
    # once per place)
    assert b.grad.asnumpy().sum() == pytest.approx(expected.size - a_np.size)


def test_insert_scalar_value_and_dtype():
    a = np.arange(6, dtype="int32").reshape(3, 2)
    out = np.insert(a, [1, 1], 7.9, axis=0)
    assert out.dtype == onp.int32
    onp.testing.assert_array_equal(out.asnumpy(),
                                   onp.insert(onp.arange(6).reshape(3, 2), [1, 1], 7, axis=0))


@pytest.mark.parametrize("hybridize", [False, True])
def test_delete_positions(hybridize):
    x_np = onp.arange(12.0).reshape(3, 4)
    x = np.array(x_np)
    for obj, axis in [(1, 0), (-1, 1), (slice(None, None, 2), None), ([0, 2, 2], 1)]:
        extra = [np.array(obj, dtype="int64")] if isinstance(obj, list) else []

        def fn(F, a, *p):
            return F.np.delete(a, p[0] if p else obj, axis=axis)
        out = _run(fn, x, *extra, hybridize=hybridize)
        onp.testing.assert_array_equal(out.asnumpy(), onp.delete(x_np, obj, axis=axis))


def test_delete_out_of_range_raises():
    with pytest.raises(mx.base.MXNetError, match="_npi_delete"):
        np.delete(np.ones((2, 0)), 0, axis=1)


@pytest.mark.parametrize("hybridize", [False, True])
def test_repeat_array_counts(hybridize):
    x_np = onp.arange(6.0).reshape(3, 2)
    x = np.array(x_np)
    for reps, axis in [([1, 0, 2], 0), ((2,), 1), ([1, 2, 0, 1, 1, 1], None)]:
        out = _run(lambda F, a: F.np.repeat(a, reps, axis=axis), x, hybridize=hybridize)
        onp.testing.assert_array_equal(out.asnumpy(), onp.repeat(x_np, reps, axis=axis))
    onp.testing.assert_array_equal(np.repeat(x, np.array([2]), axis=1).asnumpy(),
                                   onp.repeat(x_np, 2, axis=1))


_NORMS = [((2, 3, 4), 1, (2, 1)), ((2, 3, 4), 2, (1, 2)), ((2, 3, 4), None, None),
          ((2, 3), 2, 1), ((2, 3, 4), 4, 1), ((2, 3, 0, 4), -2, 1), ((2, 3), -1, None),
          ((2, 3, 4), "inf", 1), ((2, 3, 4), "-inf", (1, 0)), ((2, 0, 4), "fro", (0, 2)),
          ((2, 3, 4), -3.2, 2), ((4, 4, 4), -2, (0, 2)), ((2, 3, 4), "nuc", (0, 2)),
          ((2, 2), "nuc", None), ((3,), 0, None)]


@pytest.mark.parametrize("hybridize,keepdims", list(itertools.product([False, True],
                                                                      [False, True])))
def test_norm_every_order(hybridize, keepdims):
    for shape, order, axis in _NORMS:
        x_np = onp.random.uniform(-3, 3, shape)
        x = np.array(x_np, dtype="float64")
        x.attach_grad()
        with mx.autograd.record():
            y = _run(lambda F, a: F.np.linalg.norm(a, ord=order, axis=axis,
                                                   keepdims=keepdims), x,
                     hybridize=hybridize)
        ord_np = {"inf": onp.inf, "-inf": -onp.inf}.get(order, order)
        expected = onp.linalg.norm(x_np, ord=ord_np, axis=axis, keepdims=keepdims)
        assert y.shape == expected.shape, (shape, order, axis)
        onp.testing.assert_allclose(y.asnumpy(), expected, rtol=1e-10)
        y.backward()
        if order in (2, "fro") and isinstance(axis, int):
            denom = onp.linalg.norm(x_np, ord=ord_np, axis=axis, keepdims=True)
            onp.testing.assert_allclose(x.grad.asnumpy(), x_np / denom, rtol=1e-8)
        assert x.grad.shape == x.shape
