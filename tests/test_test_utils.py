"""gluonlite.test_utils: MXNet 1.9's helpers (defaults checked against MXNet 1.9.1)."""
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd
from gluonlite import test_utils as tu
from gluonlite.base import MXNetError


def nd(v, dtype=np.float32):
    return mx.nd.NDArray(np.asarray(v, dtype=dtype))


# ----------------------------------------------------------------------------- defaults
def test_default_tolerances_match_mxnet():
    f16, f32, f64 = np.dtype("float16"), np.dtype("float32"), np.dtype("float64")
    assert tu.default_rtols()[f16] == 1e-2 and tu.default_atols()[f16] == 1e-1
    assert tu.default_rtols()[f32] == 1e-4 and tu.default_atols()[f32] == 1e-3
    assert tu.default_rtols()[f64] == 1e-5 and tu.default_atols()[f64] == 1e-20
    assert tu.default_numeric_eps() == {f16: 2 ** -6, f32: 2 ** -9, f64: 2 ** -14}
    assert tu.get_rtol() == 1e-5 and tu.get_atol() == 1e-20
    assert tu.get_rtol(None, f32) == 1e-4 and tu.get_rtol(0.5) == 0.5
    assert tu.get_rtol(None, np.float32) == 1e-4
    assert tu.get_etol() == 0 and tu.get_etol(0.1) == 0.1
    assert tu.default_dtype() is np.float32


def test_get_tolerance_and_get_tols():
    assert tu.get_tolerance(np.ones(2, np.float16), None, tu.default_rtols()) == 1e-2
    assert tu.get_tolerance(np.ones(2, np.int32), None, tu.default_rtols()) == 0
    assert tu.get_tolerance(nd([1]), None, tu.default_rtols()) == 1e-4
    assert tu.get_tolerance(np.ones(2), 0.3, tu.default_rtols()) == 0.3
    a16, a32, a64 = np.ones(2, np.float16), np.ones(2, np.float32), np.ones(2)
    assert tu.get_tols(a32, a16, None, None) == (1e-2, 1e-1)
    assert tu.get_tols(a32, a64, None, None) == (1e-4, 1e-3)
    assert tu.get_tols(a32, a64, 1e-3, None) == (1e-3, 1e-3)
    assert tu.get_tols(np.ones(2, np.int32), a32, None, None) == (1e-4, 1e-3)
    assert tu.get_tols(np.ones(2, np.int8), np.ones(2, np.int8), None, None) == (0, 0)
    assert tu.get_tols(a64, 2.0, None, None) == (1e-5, 1e-20)
    assert tu.get_tols(a32, 2.0, None, None) == (1e-4, 1e-3)
    assert tu.effective_dtype(nd([1])) == np.float32


def test_default_context():
    assert tu.default_context() == mx.current_context()
    old = tu.default_context()
    try:
        tu.set_default_context(mx.cpu(1))
        assert tu.default_context() == mx.cpu(1)
    finally:
        tu.set_default_context(old)
    assert tu.default_context() == old


# ----------------------------------------------------------------------------- comparisons
def test_assert_almost_equal_passes_with_dtype_tolerances():
    tu.assert_almost_equal(nd([1, 1, 1]), nd([1, 1, 1]).asnumpy() * 1.001)
    tu.assert_almost_equal(nd([1, 1], np.float16), np.ones(2) * 1.01)
    tu.assert_almost_equal(1.0, 1.000001)
    tu.assert_almost_equal(np.ones((2, 3)), np.ones(3))        # broadcast
    tu.assert_almost_equal(np.array([np.nan]), np.array([np.nan]), equal_nan=True)


def test_assert_almost_equal_failure_report(capsys):
    with pytest.raises(AssertionError) as info:
        tu.assert_almost_equal(np.array([1., 2., 3.]), np.array([1., 2.5, 3.]), names=("x", "y"))
    msg = str(info.value)
    assert "Error 20000.000000 exceeds tolerance rtol=1.000000e-05, atol=1.000000e-20" in msg
    assert "mismatch 33.333333%" in msg
    assert "Location of maximum error: (1,), x=2.00000000, y=2.50000000" in msg
    assert "ACTUAL" in msg and "DESIRED" in msg
    assert "Maximum errors for vector of size 3" in capsys.readouterr().out
    with pytest.raises(AssertionError, match="Error 9.08"):
        tu.assert_almost_equal(nd([1, 1, 1]), np.ones(3) * 1.01)       # float32 tolerances
    with pytest.raises(AssertionError, match="rtol=0.000000e"):
        tu.assert_almost_equal(np.ones(3, np.int32), np.ones(3, np.int32) + 1)
    with pytest.raises(AssertionError, match="Error nan"):
        tu.assert_almost_equal(np.array([np.nan]), np.array([np.nan]))
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(np.array([True]), np.array([False]))


def test_mismatches_limits_printed_errors(capsys):
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(np.arange(30.), np.arange(30.) * 1.1, mismatches=(10, 3))
    out = capsys.readouterr().out
    assert "  3: Error" in out and "  4: Error" not in out


def test_shape_checks():
    with pytest.raises(AssertionError, match=r"a.shape = \(2, 3\) and b.shape = \(3,\)"):
        tu.assert_almost_equal(np.ones((2, 3)), np.ones(3), use_broadcast=False)
    with pytest.raises(ValueError):
        tu.assert_almost_equal(np.ones(2), np.ones(3))
    with pytest.raises(AssertionError):
        tu.almost_equal(np.ones((2, 3)), np.ones(3), use_broadcast=False)
    with pytest.raises(AssertionError):
        tu.checkShapes(np.ones(2), np.ones(3))


def test_almost_equal_uses_float64_defaults():
    assert tu.almost_equal(np.ones((2, 3)), np.ones(3))
    assert not tu.almost_equal(np.ones(3, np.float32), np.ones(3) * 1.0001)
    assert tu.almost_equal(nd([1, 2]), np.array([1., 2.]))
    assert not tu.almost_equal(np.array([1., np.nan]), np.array([1., np.nan]))
    assert tu.almost_equal(np.array([1., np.nan]), np.array([1., np.nan]), equal_nan=True)


def test_ignore_nan_allclose_and_err():
    tu.assert_almost_equal_ignore_nan(np.array([1., np.nan]), np.array([1., 5.]))
    with pytest.raises(AssertionError):
        tu.assert_almost_equal_ignore_nan(np.array([1., np.nan]), np.array([2., 5.]))
    tu.assert_allclose(np.array([1., np.nan]), np.array([1., np.nan]))
    with pytest.raises(AssertionError, match="rtol=1.000000e-07"):
        tu.assert_allclose(np.ones(2), np.ones(2) * (1 + 1e-6))
    a, b = np.array([1., 2., 3., 4.]), np.array([1., 2., 3., 5.])
    tu.assert_almost_equal_with_err(a, b, etol=0.3)
    with pytest.raises(AssertionError):
        tu.assert_almost_equal_with_err(a, b, etol=0.2)
    with pytest.raises(AssertionError):
        tu.assert_almost_equal_with_err(a, b)


def test_same_and_friends():
    assert tu.same(np.ones(3), np.ones(3))
    assert not tu.same(np.ones(3), np.ones((1, 3)))
    assert not tu.same(np.array([np.nan]), np.array([np.nan]))
    assert tu.same(nd([1, 2]), np.array([1., 2.]))
    x = nd([1, 2])
    assert tu.same_array(x, x) and not tu.same_array(x, nd([1, 2]))
    tu.compare_ndarray_tuple((np.ones(2), (np.zeros(1), None)), (np.ones(2), (np.zeros(1), 3)))
    np.testing.assert_array_equal(tu.assign_each(np.array([1, 2]), lambda v: v * 3), [3, 6])
    np.testing.assert_array_equal(tu.assign_each2(np.array([1, 2]), np.array([3, 4]),
                                                  lambda u, v: u + v), [4, 6])
    # MXNet's helpers: float64 results, and a copy of the input for function=None
    assert tu.assign_each(np.array([1, 2]), lambda v: v // 2).dtype == np.float64
    same = tu.assign_each(np.array([1.5, 2.5], np.float32), None)
    assert same.dtype == np.float32 and same.tolist() == [1.5, 2.5]
    assert tu.assign_each2(np.array([1, 2]), np.array([3, 4]), None).tolist() == [1, 2]
    np.testing.assert_array_equal(tu.collapse_sum_like(np.ones((2, 3, 4)), (3, 1)),
                                  np.full((3, 1), 8.0))


def test_assert_exception():
    assert tu.assert_exception(lambda x: 1 / x, ZeroDivisionError, 0) is None
    with pytest.raises(AssertionError):
        tu.assert_exception(lambda x: x, ZeroDivisionError, 0)
    tu.assert_exception(mx.nd.load_frombuffer, MXNetError, b"junk")


def test_environment_and_set_env_var():
    key = "GLUONLITE_TEST_UTILS_VAR"
    os.environ.pop(key, None)
    with tu.environment(key, "1"):
        assert os.environ[key] == "1"
        with tu.environment({key: None, key + "_B": 2}):
            assert key not in os.environ and os.environ[key + "_B"] == "2"
        assert os.environ[key] == "1" and key + "_B" not in os.environ
    assert key not in os.environ
    with pytest.raises(AssertionError):
        with tu.environment("A", "B", "C"):
            pass
    try:
        assert tu.set_env_var(key, 5, default_val="none") == "none"
        assert tu.set_env_var(key, 6) == "5" and os.environ[key] == "6"
    finally:
        os.environ.pop(key, None)


# ----------------------------------------------------------------------------- random data
def test_random_shapes_and_arrays():
    np.random.seed(0)
    for _ in range(20):
        s = tu.rand_shape_2d()
        assert len(s) == 2 and all(1 <= d <= 10 for d in s)
        assert all(1 <= d <= 2 for d in tu.rand_shape_3d(2, 2, 2))
        s = tu.rand_shape_nd(4, 3)
        assert len(s) == 4 and all(1 <= d <= 3 for d in s)
        assert all(0 <= d <= 1 for d in tu.rand_shape_nd(3, 1, allow_zero_size=True))
        x, y = tu.rand_coord_2d(0, 3, 5, 6)
        assert 0 <= x <= 3 and 5 <= y <= 6
    a, b = tu.random_arrays((2, 3), (1,))
    assert a.shape == (2, 3) and b.shape == (1,) and a.dtype == np.float32
    assert isinstance(tu.random_arrays((2,)), np.ndarray)
    assert np.shape(tu.random_arrays(())) == ()
    s = tu.random_sample([1, 2, 3, 4], 2)
    assert len(s) == 2 and len(set(s)) == 2 and set(s) <= {1, 2, 3, 4}


def test_rand_ndarray():
    r = tu.rand_ndarray((2, 3))
    assert isinstance(r, mx.nd.NDArray) and r.shape == (2, 3) and r.dtype == np.float32
    assert tu.rand_ndarray((2, 3), dtype="float64").dtype == np.float64
    assert tu.rand_ndarray((4,), dtype=np.int32).dtype == np.int32
    csr = tu.rand_ndarray((2, 3), "csr", density=0.5)
    assert csr.stype == "csr" and csr.shape == (2, 3) and csr.data.shape == (3,)


def test_np_reduce():
    d = np.arange(24.).reshape(2, 3, 4)
    np.testing.assert_array_equal(tu.np_reduce(d, 1, True, np.sum), d.sum(1, keepdims=True))
    np.testing.assert_array_equal(tu.np_reduce(d, (0, 2), False, np.max), d.max((0, 2)))
    np.testing.assert_array_equal(tu.np_reduce(d, -1, True, np.sum), d.sum(-1, keepdims=True))
    assert tu.np_reduce(d, None, False, np.sum) == d.sum()
    assert tu.np_reduce(d, None, True, np.sum).shape == (1, 1, 1)
    np.testing.assert_array_equal(tu.np_reduce(d, [], True, np.sum), d)


# ----------------------------------------------------------------------------- gradients
class _Square(autograd.Function):
    """y = x**2 computed with NumPy; ``slope`` 2 is right, anything else is a wrong gradient."""

    def __init__(self, slope=2.0):
        super().__init__()
        self.slope = slope

    def forward(self, x):
        self.save_for_backward(x)
        return mx.nd.NDArray(x.asnumpy() ** 2)

    def backward(self, dy):
        (x,) = self.saved_tensors
        return mx.nd.NDArray((self.slope * x.asnumpy() * dy.asnumpy()).astype(dy.dtype))


def test_check_numeric_gradient_callable():
    loc = [np.array([[1., -2.], [0.5, 3.]])]
    tu.check_numeric_gradient(lambda x: _Square()(x), loc)
    tu.check_numeric_gradient(lambda x: _Square()(x), loc, dtype=np.float64)
    tu.check_numeric_gradient(lambda x: _Square()(x), [nd([1.5, 2.0])], numeric_eps=1e-3)
    with pytest.raises(AssertionError, match="NUMERICAL_arg0"):
        tu.check_numeric_gradient(lambda x: _Square(slope=2.5)(x), loc)


def test_check_numeric_gradient_dict_and_grad_nodes():
    def f(a, b):
        return (_Square()(a), _Square(slope=0.0)(b))     # b's gradient is wrong
    loc = {"a": np.array([1., 2.]), "b": np.array([3., 4.])}
    tu.check_numeric_gradient(f, loc, grad_nodes=["a"])
    with pytest.raises(AssertionError, match="NUMERICAL_b"):
        tu.check_numeric_gradient(f, loc)
    with pytest.raises(ValueError):
        tu.check_numeric_gradient(f, loc, grad_nodes=["c"])


def test_numeric_grad():
    g = tu.numeric_grad(lambda x: _Square()(x), [np.array([1., 2.])], eps=1e-3, dtype=np.float64)
    np.testing.assert_allclose(g["arg0"], [2., 4.], rtol=1e-6)


def test_check_symbolic_forward_backward_callable():
    outs = tu.check_symbolic_forward(lambda x: _Square()(x), [np.array([1., 3.])],
                                     [np.array([1., 9.])])
    assert isinstance(outs[0], mx.nd.NDArray)
    with pytest.raises(AssertionError, match="EXPECTED_output0"):
        tu.check_symbolic_forward(lambda x: _Square()(x), [np.array([1., 3.])], [np.ones(2)])
    g = tu.check_symbolic_backward(lambda x: _Square()(x), [np.array([1., 3.])],
                                   [np.array([1., 2.])], [np.array([2., 12.])])
    assert isinstance(g["arg0"], mx.nd.NDArray)
    np.testing.assert_allclose(g["arg0"].asnumpy(), [2., 12.])
    tu.check_symbolic_backward(lambda x: _Square()(x), {"x": np.array([1., 3.])}, None,
                               {"x": np.array([2., 6.])}, grad_req="add")
    with pytest.raises(AssertionError, match="BACKWARD_arg0"):
        tu.check_symbolic_backward(lambda x: _Square()(x), [np.array([1., 3.])], None,
                                   [np.array([2., 7.])])


class _FakeExecutor:
    def __init__(self, args, args_grad, grad_req):
        self.args, self.args_grad, self.grad_req = args, args_grad or {}, grad_req

    def forward(self, is_train=False):
        a, b = self.args["a"].asnumpy(), self.args["b"].asnumpy()
        self.outputs = [mx.nd.NDArray(a * b)]

    def backward(self, out_grads):
        a, b = self.args["a"].asnumpy(), self.args["b"].asnumpy()
        g = out_grads[0].asnumpy()
        for name, val in (("a", g * b), ("b", g * a)):
            req = self.grad_req[name] if isinstance(self.grad_req, dict) else self.grad_req
            if name in self.args_grad and req != "null":
                old = self.args_grad[name].asnumpy() if req == "add" else 0
                self.args_grad[name]._data[...] = old + val


class _FakeSymbol:
    """The slice of MXNet's Symbol API the checkers use: a * b."""

    def list_arguments(self):
        return ["a", "b"]

    def list_outputs(self):
        return ["mul_output"]

    def list_auxiliary_states(self):
        return []

    def bind(self, ctx, args, args_grad=None, grad_req="write", aux_states=None):
        return _FakeExecutor(args, args_grad, grad_req)


def test_checkers_with_symbol_api():
    sym = _FakeSymbol()
    loc = [np.array([1., 2.]), np.array([3., -1.])]
    tu.check_numeric_gradient(sym, loc)
    tu.check_symbolic_forward(sym, loc, {"mul_output": np.array([3., -2.])})
    tu.check_symbolic_backward(sym, {"a": loc[0], "b": loc[1]}, [np.ones(2)],
                               {"a": loc[1], "b": loc[0]})
    tu.check_symbolic_backward(sym, loc, [np.ones(2)], [loc[1], loc[0]], grad_req="add")
    tu.check_symbolic_backward(sym, loc, [np.ones(2)], {"a": loc[1]},
                               grad_req={"a": "write", "b": "null"})
    with pytest.raises(ValueError):
        tu.check_symbolic_forward(sym, [loc[0]], [np.zeros(2)])


def test_symbol_like_object_without_bind_is_refused():
    class NoBind:
        def list_arguments(self):
            return ["x"]
    with pytest.raises(MXNetError, match="no bind"):
        tu.check_numeric_gradient(NoBind(), [np.ones(2)])


def test_misc_helpers():
    assert list(tu.list_gpus()) == list(range(mx.num_gpus()))
    assert tu.is_cd_run() is False and tu.has_tvm_ops() is False and tu.is_op_runnable()
    calls = []

    @tu.retry(3)
    def flaky():
        calls.append(1)
        assert len(calls) >= 2
    flaky()
    assert len(calls) == 2
    with tu.discard_stderr():
        os.write(2, b"this goes nowhere\n")


def test_checkers_with_real_symbols():
    x, y = mx.sym.var("x"), mx.sym.var("y")
    s = x * y + mx.sym.sin(x)
    rng = np.random.default_rng(3)
    a, b = rng.random((3, 4)), rng.random((3, 4))
    tu.check_symbolic_forward(s, [a, b], [a * b + np.sin(a)])
    tu.check_symbolic_backward(s, {"x": a, "y": b}, [np.ones((3, 4))],
                               {"x": b + np.cos(a), "y": a})
    with pytest.raises(AssertionError):
        tu.check_symbolic_forward(s, [a, b], [a * b])
    tu.check_numeric_gradient(s, [a, b])
    bn = mx.sym.BatchNorm(x, name="bn", fix_gamma=False)
    tu.check_numeric_gradient(bn, [a, np.ones(4), np.zeros(4)],
                              aux_states=[np.zeros(4), np.ones(4)])
