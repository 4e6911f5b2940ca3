"""The parts of ``mx.test_utils`` beyond assertion helpers, and its star-import."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import test_utils as tu

# what ``from mxnet.test_utils import *`` gives in MXNet 1.9.1 (recorded with it), less the
# names gluonlite leaves out: sparse storage, downloads, the numpy-interface symbol,
# MNIST/CIFAR fetchers, im2rec and requests
MXNET_STAR_NAMES = {
    "Context", "OrderedDict", "Symbol", "Features", "array", "assert_allclose",
    "assert_almost_equal", "assert_almost_equal_ignore_nan", "assert_almost_equal_with_err",
    "assert_exception", "assign_each", "assign_each2", "bz2", "checkShapes",
    "check_consistency", "check_gluon_hybridize_consistency", "check_numeric_gradient",
    "check_speed", "check_symbolic_backward", "check_symbolic_forward", "chi_square_check",
    "collapse_sum_like", "compare_ndarray_tuple", "compare_optimizer", "contextmanager",
    "create_2d_tensor", "create_vector", "current_context", "default_atols", "default_context",
    "default_dtype", "default_numeric_eps", "default_rtols", "discard_stderr",
    "effective_dtype", "environment", "errno", "gen_buckets_probs_with_ppf", "getenv",
    "get_atol", "get_cuda_compute_capability", "get_etol", "get_identity_mat",
    "get_identity_mat_batch", "get_rtol", "get_tolerance", "get_tols", "gzip", "has_tvm_ops",
    "is_aarch64_run", "is_cd_run", "is_op_runnable", "json", "list_gpus", "locationError",
    "logging", "mean_check", "mx", "new_matrix_with_real_eigvals_2d",
    "new_matrix_with_real_eigvals_nd", "new_orthonormal_matrix_2d",
    "new_sym_matrix_with_real_eigvals_2d", "new_sym_matrix_with_real_eigvals_nd", "np",
    "np_reduce", "npt", "numbers", "numeric_grad", "os", "platform", "rand_coord_2d",
    "rand_ndarray", "rand_shape_2d", "rand_shape_3d", "rand_shape_nd", "rand_sparse_ndarray",
    "random_arrays", "random_sample", "random_uniform_arrays", "retry", "rnd",
    "same", "same_array", "same_symbol_structure", "set_default_context", "setenv",
    "simple_forward", "ss", "struct", "sys", "time", "traceback", "use_np", "var_check",
    "verify_generator", "zipfile", "almost_equal",
}


def test_star_import_gives_mxnet_names():
    ns = {}
    exec("from gluonlite.test_utils import *", ns)
    missing = MXNET_STAR_NAMES - set(ns)
    assert not missing, sorted(missing)
    assert ns["mx"] is mx and ns["np"] is np
    assert ns["Symbol"] is mx.sym.Symbol


def test_data_makers():
    t = tu.create_2d_tensor(3, 2)
    assert t.shape == (3, 2) and t.dtype == np.int64
    np.testing.assert_array_equal(t.asnumpy(), [[0, 0], [1, 1], [2, 2]])
    np.testing.assert_array_equal(tu.create_vector(4).asnumpy(), [0, 1, 2, 3])
    np.testing.assert_array_equal(tu.get_identity_mat_batch(2).asnumpy(),
                                  np.stack([np.eye(2)] * 2))
    a, b = tu.random_uniform_arrays((2, 3), (4,), low=-1, high=0)
    assert a.shape == (2, 3) and b.shape == (4,) and a.dtype == np.float32
    assert (a <= 0).all() and (a >= -1).all()
    single = tu.random_uniform_arrays((5,))  # a list of one, as MXNet's
    assert isinstance(single, list) and single[0].shape == (5,)
    with pytest.raises(TypeError):
        tu.random_uniform_arrays((2,), scale=3)


def test_matrix_generators():
    m = tu.new_matrix_with_real_eigvals_2d(4)
    assert np.allclose(np.linalg.eigvals(m).imag, 0, atol=1e-6)
    s = tu.new_sym_matrix_with_real_eigvals_nd((2, 3, 3))
    assert s.shape == (2, 3, 3) and np.allclose(s, s.transpose(0, 2, 1))
    q = tu.new_orthonormal_matrix_2d(5)
    assert np.allclose(q.T @ q, np.eye(5), atol=1e-8)
    assert tu.new_matrix_with_real_eigvals_nd((2, 2, 3, 3)).shape == (2, 2, 3, 3)


def test_mean_and_variance_checks():
    good = lambda n: np.random.normal(0, 1, size=n)  # noqa: E731
    bad = lambda n: np.random.normal(0.5, 1, size=n)  # noqa: E731
    assert tu.mean_check(good, 0, 1, nsamples=20000)
    assert not tu.mean_check(bad, 0, 1, nsamples=20000)
    assert tu.var_check(good, 1, nsamples=20000)
    assert not tu.var_check(lambda n: np.random.normal(0, 2, size=n), 1, nsamples=20000)


def test_chi_square_checks_accept_good_and_reject_bad_generators():
    ss = pytest.importorskip("scipy.stats")  # chi-square needs scipy, as in MXNet
    buckets, probs = tu.gen_buckets_probs_with_ppf(lambda p: ss.norm.ppf(p, 0, 1), 5)
    assert len(buckets) == 5 and probs == [0.2] * 5
    good = lambda n: np.random.normal(0, 1, size=n)  # noqa: E731
    bad = lambda n: np.random.normal(0.5, 1, size=n)  # noqa: E731
    tu.verify_generator(good, buckets, probs, nsamples=20000, nrepeat=5)
    with pytest.raises(AssertionError):
        tu.verify_generator(bad, buckets, probs, nsamples=20000, nrepeat=5)
    # discrete buckets
    p, obs, exp = tu.chi_square_check(lambda n: np.random.randint(0, 3, size=n), [0, 1, 2],
                                      [1 / 3] * 3, nsamples=30000)
    assert obs.sum() == 30000 and p > 1e-4
    p_bad, _, _ = tu.chi_square_check(lambda n: np.random.randint(0, 2, size=n), [0, 1, 2],
                                      [1 / 3] * 3, nsamples=30000)
    assert p_bad < 1e-6


def test_symbol_helpers():
    x = mx.sym.var("x")
    y = mx.sym.relu(x * 2)
    out = tu.simple_forward(y, x=np.array([-1.0, 2.0]))
    np.testing.assert_allclose(out, [0, 4])
    assert tu.same_symbol_structure(y, mx.sym.relu(mx.sym.var("z") * 3))
    assert not tu.same_symbol_structure(y, mx.sym.sigmoid(x * 2))


def test_check_consistency_catches_a_difference():
    x = mx.sym.var("x")
    w = mx.sym.var("w")
    net = mx.sym.FullyConnected(x, w, num_hidden=3, no_bias=True)
    ctx_list = [{"ctx": mx.cpu(), "x": (2, 4), "type_dict": {"x": np.float64, "w": np.float64}},
                {"ctx": mx.cpu(), "x": (2, 4), "type_dict": {"x": np.float32, "w": np.float32}}]
    results = tu.check_consistency(net, ctx_list)
    assert results[0]["w_grad"].shape == (3, 4)
    # a different graph on the second entry must be caught
    other = mx.sym.FullyConnected(x * 1.5, w, num_hidden=3, no_bias=True)
    with pytest.raises(AssertionError):
        tu.check_consistency([net, other], ctx_list)


class _PlainSGD:
    """Minimal optimizer protocol for compare_optimizer: w -= lr * g."""

    def __init__(self, lr):
        self.lr = lr

    def create_state_multi_precision(self, index, weight):
        return None

    def update_multi_precision(self, index, weight, grad, state):
        if isinstance(index, list):
            for w, g in zip(weight, grad):
                w[:] = w - self.lr * g
        else:
            weight[:] = weight - self.lr * grad


def test_compare_optimizer():
    tu.compare_optimizer(_PlainSGD(0.1), _PlainSGD(0.1), (3, 4), np.float32)
    tu.compare_optimizer(_PlainSGD(0.1), _PlainSGD(0.1), [(3,), (2, 2)], np.float32,
                         ntensors=2)
    with pytest.raises(AssertionError):
        tu.compare_optimizer(_PlainSGD(0.1), _PlainSGD(0.2), (3, 4), np.float32)


def test_check_gluon_hybridize_consistency():
    def builder(prefix):
        net = mx.gluon.nn.HybridSequential(prefix=prefix)
        with net.name_scope():
            net.add(mx.gluon.nn.Dense(3, activation="tanh"), mx.gluon.nn.Dense(2))
        return net
    data = [mx.nd.array(np.random.normal(size=(4, 5)))]
    tu.check_gluon_hybridize_consistency(builder, data)


def test_runtime_features():
    features = mx.runtime.Features()
    assert features is mx.runtime.Features()
    assert list(features)[:3] == ["CUDA", "CUDNN", "NCCL"]
    assert features.is_enabled("cuda") == (mx.num_gpus() > 0)
    assert not features.is_enabled("TENSORRT")
    with pytest.raises(RuntimeError, match="FOO"):
        features.is_enabled("FOO")
    assert [f.name for f in mx.runtime.feature_list()] == list(features)


def test_getenv_setenv():
    mx.util.setenv("GLUONLITE_TEST_VAR", "3")
    assert mx.util.getenv("GLUONLITE_TEST_VAR") == "3"
    mx.util.setenv("GLUONLITE_TEST_VAR", None)
    assert mx.util.getenv("GLUONLITE_TEST_VAR") is None
