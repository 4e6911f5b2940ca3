"""Focused checks of ``mx.np`` behaviour closed against MXNet 1.9.1's own unit tests,
where MXNet cannot serve as a fixture (it errors or has no gradient there)."""
import numpy as onp
import pytest

import gluonlite as mx
from gluonlite import np


def test_insert_matches_numpy_and_has_gradient():
    a = onp.arange(12.).reshape(3, 4).astype("float32")
    for args, kw in [((slice(0, 2), 9), dict(axis=1)), ((1, [5, 6, 7]), dict(axis=1)),
                     (([0, 4], [-1, -2]), dict(axis=1)), ((3, [7, 8]), {})]:
        got = np.insert(np.array(a), *args, **kw).asnumpy()
        onp.testing.assert_allclose(got, onp.insert(a, *args, **kw))
    x = np.array(a)
    x.attach_grad()
    with mx.autograd.record():
        y = (np.insert(x, 1, np.array([1., 2, 3, 4]), axis=0) * 3).sum()
    y.backward()
    onp.testing.assert_allclose(x.grad.asnumpy(), onp.full((3, 4), 3.0))


def test_errors_have_numpy_types():
    with pytest.raises(ValueError):
        np.split(np.arange(10), 3)
    with pytest.raises(ValueError):
        np.dsplit(np.ones((2, 2)), 2)
    with pytest.raises(IndexError):
        np.ones((5, 4, 3))[np.array([True], dtype=bool)]
    with pytest.raises(NotImplementedError):
        np.empty((2,), order="F")
    with pytest.raises(NotImplementedError):
        np.ones(2).copy(order="F")
    with pytest.raises(TypeError):
        "{:30}".format(np.ones(2))
    assert "{:0.3g}".format(np.array(onp.pi)) == "3.14"
    with pytest.raises(ValueError):
        np.ones(2).clip()


def test_fortran_order_reshape_and_unravel_match_numpy():
    # MXNet 1.9.1's mx.np.reshape ignores order='F' (a bug); gluonlite follows NumPy
    a = onp.arange(24.).reshape(2, 3, 4)
    for shape in [(4, 6), (3, -1), (24,), (2, 2, 2, 3)]:
        onp.testing.assert_array_equal(np.reshape(np.array(a), shape, order="F").asnumpy(),
                                       a.reshape(shape, order="F"))
        onp.testing.assert_array_equal(np.array(a).reshape(shape, order="F").asnumpy(),
                                       a.reshape(shape, order="F"))
    onp.testing.assert_array_equal(np.reshape(np.array(a), (4, 6), order="A").asnumpy(),
                                   a.reshape(4, 6))
    x = np.array(a)
    x.attach_grad()
    w = onp.linspace(-1, 1, 24).reshape(4, 6)
    with mx.autograd.record():
        (x.reshape((4, 6), order="F") * np.array(w)).sum().backward()
    onp.testing.assert_allclose(x.grad.asnumpy(), w.reshape((2, 3, 4), order="F"))
    with pytest.raises(ValueError):
        np.reshape(np.array(a), (4, 6), order="K")
    idx = onp.array([0, 5, 11, 23])
    got = np.unravel_index(np.array(idx, dtype="int64"), (3, 4, 2), order="F")
    for g, w in zip(got, onp.unravel_index(idx, (3, 4, 2), order="F")):
        onp.testing.assert_array_equal(g.asnumpy(), w)
    with pytest.raises(ValueError):
        np.unravel_index(np.array(idx, dtype="int64"), (3, 8), order="K")


def test_qr_complete_and_raw_modes_match_numpy():
    # MXNet 1.9.1 computes these through NumPy's own qr (its fallback), without gradient
    a = onp.random.default_rng(3).uniform(-1, 1, (2, 4, 3)).astype("float32")
    for mode in ("complete", "raw"):
        want = onp.linalg.qr(a, mode=mode)
        got = np.linalg.qr(np.array(a), mode=mode)
        assert all(isinstance(g, np.ndarray) for g in got)
        for g, w in zip(got, want):
            assert g.shape == w.shape
            onp.testing.assert_allclose(g.asnumpy(), w, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError):
        np.linalg.qr(np.array(a), mode="full")


def test_array_wraps_out_of_range_ints_like_mxnet():
    assert np.array([1621], dtype="uint8").item() == 1621 % 256


def test_dispatch_protocol_lists():
    from gluonlite.numpy_dispatch_protocol import (_NUMPY_ARRAY_FUNCTION_LIST,
                                                   _NUMPY_ARRAY_UFUNC_LIST)
    for name in _NUMPY_ARRAY_FUNCTION_LIST:
        mod = np.linalg if name.startswith("linalg.") else np
        assert hasattr(mod, name.split(".")[-1]), name
    for name in _NUMPY_ARRAY_UFUNC_LIST:
        assert hasattr(np, name), name
    x = np.array([[1., -2], [3, 4]])
    assert isinstance(onp.sum(x), np.ndarray)
    assert isinstance(onp.add(x, 1), np.ndarray)


def test_creation_num_errors_are_mxnet_errors():
    # MXNet's parameter parser rejects a non-integer num (even 2.0) and a negative one
    for fn in (np.linspace, np.logspace):
        for num in (2.5, 2.0, -1, True):
            with pytest.raises(mx.base.MXNetError):
                fn(0, 1, num)
        with pytest.raises(NotImplementedError):
            fn(0, 1, 3, axis=-1)
    assert np.linspace(0, 1, onp.int64(3)).shape == (3,)


def test_block_outputs_of_mixed_types_raise_type_error():
    class Mixed(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return x.as_nd_ndarray() * 2, F.np.multiply(x, x)

    mx.npx.set_np()
    try:
        for hybridize in (False, True):
            net = Mixed()
            if hybridize:
                net.hybridize()
            with pytest.raises(TypeError):
                net(np.ones((2, 3)))
    finally:
        mx.npx.reset_np()


def test_null_grad_req_grad_cleared_by_freeing_backward():
    """MXNet drops the gradient buffer of a ``grad_req='null'`` variable when a backward
    frees the graph it took part in; ``retain_graph=True`` keeps it."""
    for retain in (False, True):
        x, w = np.array([1., 2.]), np.array([3., 4.])
        x.attach_grad(grad_req="null")
        w.attach_grad()
        with mx.autograd.record():
            y = (x * w).sum()
        y.backward(retain_graph=retain)
        assert (x.grad is None) != retain
        onp.testing.assert_allclose(w.grad.asnumpy(), [1., 2.])
    x.attach_grad(grad_req="null")
    assert x.grad is not None


def test_kron_of_different_ranks_is_numpys():
    rng = onp.random.default_rng(0)
    for sa, sb in (((2,), (3, 2)), ((2, 3), (4,)), ((2, 1, 3), (2, 2)), ((2, 2), (3, 2))):
        a, b = rng.standard_normal(sa), rng.standard_normal(sb)
        got = mx.np.kron(mx.np.array(a, dtype="float64"), mx.np.array(b, dtype="float64"))
        onp.testing.assert_allclose(got.asnumpy(), onp.kron(a, b))


def test_symbolic_linspace_retstep_is_numpy_step():
    # MXNet's sym.np.linspace returns (symbol, step); its step ignores endpoint=False,
    # ours is NumPy's
    for kw in [dict(num=5), dict(num=4, endpoint=False), dict(num=1)]:
        sym, step = mx.sym.np.linspace(2, 3, retstep=True, **kw)
        want, want_step = onp.linspace(2, 3, retstep=True, **kw)
        onp.testing.assert_allclose(sym.as_nd_ndarray().eval()[0].asnumpy(), want,
                                    rtol=1e-6)
        onp.testing.assert_equal(step, want_step)
    with pytest.raises(NotImplementedError):  # MXNet supports axis 0 only, too
        mx.sym.np.linspace(0, 1, 5, axis=1)
