"""Optimizers and update operators on row_sparse gradients: lazy and standard updates.

Reference values come from MXNet 1.9.1 (``tests/fixtures/gen_optimizer_sparse.py``):
three steps of each optimizer on a dense and on a row_sparse weight.
"""
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import test_utils as tu
from gluonlite.base import MXNetError
from gluonlite.test_utils import compare_optimizer

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
with open(os.path.join(HERE, "optimizer_sparse.json")) as _f:
    MANIFEST = json.load(_f)
DATA = np.load(os.path.join(HERE, "optimizer_sparse.npz"))


def _flatten(state):
    if state is None:
        return []
    if isinstance(state, (tuple, list)):
        return [s for part in state for s in _flatten(part)]
    return [state]


def _grads():
    shape = DATA["w0"].shape
    step = 0
    while f"g{step}_values" in DATA:
        yield mx.nd.sparse.row_sparse_array(
            (DATA[f"g{step}_values"], DATA[f"g{step}_indices"]), shape=shape)
        step += 1


@pytest.mark.parametrize("case", sorted(MANIFEST))
def test_three_steps_match_mxnet(case):
    spec = MANIFEST[case]
    opt = mx.optimizer.create(spec["optimizer"], **spec["kwargs"])
    weight = mx.nd.array(DATA["w0"]).tostype(spec["w_stype"])
    state = opt.create_state_multi_precision(0, weight)
    for grad in _grads():
        opt.update_multi_precision(0, weight, grad, state)
    states = _flatten(state)
    assert weight.stype == spec["weight_stype"]
    assert [s.stype for s in states] == spec["state_stypes"]
    np.testing.assert_allclose(weight.asnumpy(), DATA[f"{case}/weight"], rtol=1e-5, atol=1e-6)
    for i, s in enumerate(states):
        np.testing.assert_allclose(s.asnumpy(), DATA[f"{case}/state{i}"], rtol=1e-5,
                                   atol=1e-6, err_msg=f"state {i}")


def _rsp_grad(shape=(4, 3), rows=(1, 3)):
    values = np.arange(1, 1 + len(rows) * shape[1], dtype=np.float32).reshape(len(rows), -1)
    return mx.nd.sparse.row_sparse_array((values, list(rows)), shape=shape)


@pytest.mark.parametrize("w_stype", ["default", "row_sparse"])
def test_lazy_sgd_leaves_other_rows_alone(w_stype):
    w0 = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
    w = mx.nd.array(w0).tostype(w_stype)
    mom = mx.nd.zeros((4, 3), stype=w_stype)
    mx.nd.sgd_mom_update(w, _rsp_grad(), mom, out=w, lr=0.1, wd=0.1, momentum=0.9)
    out = w.asnumpy()
    np.testing.assert_array_equal(out[[0, 2]], w0[[0, 2]])  # no weight decay either
    g = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(out[[1, 3]], w0[[1, 3]] - 0.1 * (g + 0.1 * w0[[1, 3]]),
                               rtol=1e-6)
    assert w.stype == w_stype and mom.stype == w_stype
    np.testing.assert_array_equal(mom.asnumpy()[[0, 2]], 0)


def test_std_sgd_updates_every_row():
    w0 = np.ones((4, 3), np.float32)
    w = mx.nd.array(w0).tostype("row_sparse")
    mx.nd.sgd_update(w, _rsp_grad(), out=w, lr=0.1, wd=0.1, lazy_update=False)
    np.testing.assert_allclose(w.asnumpy()[[0, 2]], 0.99, rtol=1e-6)
    assert w.stype == "row_sparse"


def test_empty_row_sparse_state_is_filled():
    w = mx.nd.ones((4, 3)).tostype("row_sparse")
    mean, var = (mx.nd.zeros((4, 3), stype="row_sparse") for _ in range(2))
    assert mean.indices.shape == (0,)
    mx.nd.adam_update(w, _rsp_grad(), mean, var, out=w, lr=0.01)
    assert mean.indices.asnumpy().tolist() == [0, 1, 2, 3]
    assert np.all(mean.asnumpy()[[1, 3]] > 0) and np.all(mean.asnumpy()[[0, 2]] == 0)


def test_row_sparse_weight_missing_rows_is_refused():
    w = mx.nd.sparse.row_sparse_array((np.ones((1, 3), np.float32), [1]), shape=(4, 3))
    with pytest.raises(MXNetError, match="sgd_update"):
        mx.nd.sgd_update(w, _rsp_grad(), out=w, lr=0.1)


def test_out_other_than_weight_keeps_weight():
    w = mx.nd.ones((4, 3))
    out = mx.nd.zeros((4, 3))
    mx.nd.sgd_update(w, _rsp_grad(), out=out, lr=0.1)
    np.testing.assert_array_equal(w.asnumpy(), 1)
    np.testing.assert_array_equal(out.asnumpy()[[0, 2]], 1)
    assert np.all(out.asnumpy()[[1, 3]] < 1)


def test_sparse_adagrad_refuses_weight_decay():
    w, h = mx.nd.ones((4, 3)), mx.nd.zeros((4, 3))
    with pytest.raises(MXNetError, match="_sparse_adagrad_update"):
        mx.nd.sparse.adagrad_update(w, _rsp_grad(), h, out=w, lr=0.1, wd=0.1)


def test_csr_weight_falls_back_to_dense():
    w_dense = np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]], np.float32)
    g_dense = np.array([[0.5, 0.0, 0.0], [0.0, 0.0, 1.0]], np.float32)
    w = mx.nd.sparse.csr_matrix(w_dense)
    mom = mx.nd.zeros((2, 3), stype="csr")
    mx.nd.sgd_mom_update(w, mx.nd.sparse.csr_matrix(g_dense), mom, out=w, lr=0.1,
                         momentum=0.9)
    assert w.stype == "csr"
    np.testing.assert_allclose(w.asnumpy(), w_dense - 0.1 * g_dense, rtol=1e-6)


def test_sgd_aggregates_dense_only():
    opt = mx.optimizer.SGD(learning_rate=0.1, momentum=0.9)
    weights = [mx.nd.ones((4, 3)).tostype("row_sparse"), mx.nd.ones((4, 3))]
    grads = [_rsp_grad(), mx.nd.ones((4, 3))]
    states = [opt.create_state(i, w) for i, w in enumerate(weights)]
    assert [s.stype for s in states] == ["row_sparse", "default"]
    opt.update_multi_precision([0, 1], weights, grads, states)
    np.testing.assert_array_equal(weights[0].asnumpy()[[0, 2]], 1)
    np.testing.assert_allclose(weights[1].asnumpy(), 0.9, rtol=1e-6)


@pytest.mark.parametrize("w_stype", ["default", "row_sparse"])
def test_compare_optimizer_sparse_paths(w_stype):
    np.random.seed(3)
    compare_optimizer(mx.optimizer.SGD(momentum=0.9, lazy_update=False),
                      mx.optimizer.SGD(momentum=0.9, lazy_update=False), (3, 4, 5),
                      np.float32, w_stype=w_stype, g_stype="row_sparse")


def test_rand_sparse_ndarray():
    np.random.seed(0)
    arr, (values, indices) = tu.rand_sparse_ndarray((5, 3), "row_sparse", density=0.6)
    assert arr.stype == "row_sparse" and arr.shape == (5, 3)
    np.testing.assert_array_equal(arr.indices.asnumpy(), indices)
    np.testing.assert_array_equal(arr.asnumpy()[indices], values)
    arr, _ = tu.rand_sparse_ndarray((5, 3), "row_sparse", rsp_indices=[0, 2], data_init=2.0)
    assert arr.indices.asnumpy().tolist() == [0, 2] and np.all(arr.data.asnumpy() == 2)
    full = tu.rand_ndarray((4, 3), "row_sparse", density=1)
    assert full.indices.shape == (4,)
    csr, (indptr, idx, data) = tu.rand_sparse_ndarray((4, 5), "csr", density=0.5,
                                                      shuffle_csr_indices=True)
    assert csr.stype == "csr" and data.shape == (10,) and indptr.shape == (5,)
    power, _ = tu.rand_sparse_ndarray((5, 16), "csr", density=0.5, distribution="powerlaw")
    counts = np.diff(power.indptr.asnumpy())
    assert counts[2] == 2 * counts[1] and counts[3] == 2 * counts[2]
    assert counts.sum() == 40
    tu.assert_almost_equal(csr, csr.tostype("default"))
