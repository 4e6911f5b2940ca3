"""row_sparse parameters and gradients in Gluon, the Trainer and the kvstore.

Reference values come from MXNet 1.9.1 (``tests/fixtures/gen_sparse_params.py``).
"""
import json
import os
import sys
import warnings

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, gluon
from gluonlite.base import MXNetError

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
HERE = os.path.join(FIXTURES, "sparse_params")
sys.path.insert(0, FIXTURES)
import sparse_params_cases as cases  # noqa: E402

VOCAB = cases.VOCAB


@pytest.fixture(scope="module")
def fixture():
    with open(os.path.join(HERE, "manifest.json")) as f:
        manifest = json.load(f)
    return manifest, dict(np.load(os.path.join(HERE, "train.npz")))


def _all_rows(param):
    return cases.all_rows(mx, param)


def _train(name, case, store):
    init = {k[len(f"{name}/init/"):]: v for k, v in store.items()
            if k.startswith(f"{name}/init/")}
    batches = []
    while f"x{len(batches)}" in store:
        batches.append((store[f"x{len(batches)}"], store[f"y{len(batches)}"]))
    return cases.train(mx, case["kind"], case["devices"], case["optimizer"],
                       case["optimizer_params"], case["trainer_kwargs"], init, batches)


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_training_matches_mxnet(fixture, name):
    manifest, store = fixture
    case = manifest["cases"][name]
    net, trainer = _train(name, case, store)
    assert trainer._update_on_kvstore == case["update_on_kvstore"]
    assert (trainer._kvstore.type if trainer._kvstore is not None else None) == case["kvstore"]
    for pname, p in net.collect_params().items():
        short = pname[len("net_"):]
        np.testing.assert_allclose(_all_rows(p), store[f"{name}/{short}"], rtol=1e-5,
                                   atol=1e-6, err_msg=f"{name}: {short}")
        g = p.grad(p.list_ctx()[0])
        expect = case["last_grads"][short]
        assert g.stype == expect["stype"], (short, g.stype)
        if expect["rows"] is not None:
            assert sorted(g.indices.asnumpy().tolist()) == expect["rows"], short


def test_load_mxnet_saved_row_sparse_parameters(fixture):
    manifest, store = fixture
    net = cases.sparse_weight_net(mx)
    net.load_parameters(os.path.join(HERE, "mxnet_trained.params"), ctx=mx.cpu(0))
    w = net.embed_weight
    assert w._data[0].stype == "row_sparse"
    trainer = gluon.Trainer(net.collect_params(), "sgd")
    np.testing.assert_allclose(_all_rows(w), store["sparse_weight_two_ctx/embed_weight"],
                               rtol=1e-6)
    assert trainer._update_on_kvstore is True
    np.testing.assert_allclose(net.dense.weight.data().asnumpy(),
                               store["sparse_weight_two_ctx/dense0_weight"], rtol=1e-6)


def test_save_load_parameters_round_trip(tmp_path, fixture):
    manifest, store = fixture
    case = manifest["cases"]["sparse_weight_two_ctx"]
    net, _ = _train("sparse_weight_two_ctx", case, store)
    path = str(tmp_path / "net.params")
    net.save_parameters(path)
    saved = mx.nd.load(path)
    assert {k: v.stype for k, v in saved.items()} == manifest["mxnet_trained"]
    assert saved["embed_weight"].indices.asnumpy().tolist() == list(range(VOCAB))
    ref = mx.nd.load(os.path.join(HERE, "mxnet_trained.params"))
    for k in ref:
        np.testing.assert_allclose(saved[k].asnumpy(), ref[k].asnumpy(), rtol=1e-5, atol=1e-6)
    # loading into a trained net resets the kvstore, which then holds the loaded value
    net2 = cases.sparse_weight_net(mx)
    net2.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    trainer2 = gluon.Trainer(net2.collect_params(), "sgd")
    _all_rows(net2.embed_weight)
    assert trainer2._kv_initialized
    net2.load_parameters(path, ctx=[mx.cpu(0), mx.cpu(1)])
    assert not trainer2._kv_initialized
    np.testing.assert_allclose(_all_rows(net2.embed_weight), saved["embed_weight"].asnumpy())


# -- Parameter --------------------------------------------------------------------------


def test_parameter_storage_types():
    p = gluon.Parameter("x", shape=(6, 2), stype="row_sparse", grad_stype="row_sparse")
    p.initialize(ctx=[mx.cpu(0), mx.cpu(1)], init="ones")
    assert p.stype == "row_sparse"
    for d, g in zip(p._data, p.list_grad()):
        assert isinstance(d, mx.nd.sparse.RowSparseNDArray)
        assert d.indices.asnumpy().tolist() == list(range(6))  # initializers fill all rows
        assert isinstance(g, mx.nd.sparse.RowSparseNDArray)
    with pytest.raises(RuntimeError, match="Please use row_sparse_data"):
        p.data()
    with pytest.raises(RuntimeError, match="Please use row_sparse_data"):
        p.list_data()
    with pytest.raises(RuntimeError, match="when no Trainer is created"):
        p.row_sparse_data(mx.nd.array([0]))
    with pytest.raises(TypeError, match="row_id must have NDArray type"):
        p.list_row_sparse_data([0, 1])
    with pytest.raises(RuntimeError, match="no Trainer"):
        p._reduce()
    dense = gluon.Parameter("d", shape=(2,))
    dense.initialize()
    with pytest.raises(RuntimeError, match="Please use data"):
        dense.row_sparse_data(mx.nd.array([0]))
    with pytest.raises(AssertionError, match="grad_stype"):
        gluon.Parameter("bad", shape=(2,), grad_stype="sparse")


def test_dense_parameter_with_sparse_grad():
    p = gluon.Parameter("e", shape=(4, 2), grad_stype="row_sparse", init="ones")
    p.initialize()
    with autograd.record():
        y = (p.data()[1:3] * 2).sum()
    y.backward()
    g = p.grad()
    assert g.stype == "row_sparse"
    assert g.indices.asnumpy().tolist() == [1, 2]
    np.testing.assert_array_equal(g.asnumpy(), [[0, 0], [2, 2], [2, 2], [0, 0]])
    p.zero_grad()
    assert p.grad().stype == "row_sparse" and p.grad().indices.size == 0
    p.cast("float64")
    assert p.grad().stype == "row_sparse" and p.grad().dtype == np.float64


def test_one_trainer_per_sparse_parameter():
    x = gluon.Parameter("x", shape=(10,), stype="row_sparse")
    x.initialize()
    t0 = gluon.Trainer([x], "sgd")
    assert x._trainer is t0
    x._set_trainer(None)
    assert x._trainer is None
    x._set_trainer(t0)
    with pytest.raises(RuntimeError, match="More than one trainers"):
        gluon.Trainer([x], "sgd")
    # dense parameters may move between trainers
    d = gluon.Parameter("d", shape=(2,))
    d.initialize()
    gluon.Trainer([d], "sgd")
    t2 = gluon.Trainer([d], "sgd")
    assert d._trainer is t2


def test_row_sparse_data_pulls_requested_rows():
    x = gluon.Parameter("x", shape=(5, 2), stype="row_sparse", grad_stype="row_sparse")
    x.initialize(ctx=[mx.cpu(0), mx.cpu(1)], init="ones")
    trainer = gluon.Trainer([x], "sgd", {"learning_rate": 1.0})
    ws = x.list_row_sparse_data(mx.nd.array([3, 1, 1]))
    for w, ctx in zip(ws, [mx.cpu(0), mx.cpu(1)]):
        assert w.context == ctx
        assert w.indices.asnumpy().tolist() == [1, 3]
    w1 = x.row_sparse_data(mx.nd.array([4], ctx=mx.cpu(1)))
    assert w1 is ws[1] and w1.indices.asnumpy().tolist() == [4]
    assert trainer._kvstore.type == "device" and trainer._update_on_kvstore is True
    with pytest.raises(MXNetError, match="was not initialized on context"):
        x.row_sparse_data(mx.nd.array([0], ctx=mx.cpu(2)))
    # a step updates the store; devices see it on the next pull
    ws = x.list_row_sparse_data(mx.nd.arange(0, 5))
    with autograd.record():
        for w in ws:
            (w * mx.nd.array([[1], [0], [2], [0], [0]], ctx=w.context)).sum().backward()
    trainer.step(1)
    got = x.row_sparse_data(mx.nd.arange(0, 5)).asnumpy()
    np.testing.assert_allclose(got[:, 0], [-1, 1, -3, 1, 1])


def test_sparse_weight_trainer_states_plain(tmp_path):
    x = gluon.Parameter("x", shape=(10, 1), lr_mult=1.0, stype="row_sparse",
                        grad_stype="row_sparse")
    x.initialize(ctx=[mx.cpu(0)], init="zeros")
    trainer = gluon.Trainer([x], "sgd", {"learning_rate": 0.1})
    with autograd.record():
        for w in x.list_row_sparse_data(mx.nd.arange(0, 10)):
            (w * 1).backward()
    trainer.step(1)
    assert trainer._kvstore._updater.optimizer._get_lr(0) == pytest.approx(0.1)
    path = str(tmp_path / "t.states")
    trainer.save_states(path)
    trainer.load_states(path)
    x.lr_mult = 2.0
    assert trainer._kvstore._updater.optimizer._get_lr(0) == pytest.approx(0.2)


def test_sparse_weight_trainer_states(tmp_path):
    x = gluon.Parameter("x", shape=(4, 2), stype="row_sparse", grad_stype="row_sparse")
    x.initialize(ctx=[mx.cpu(0)], init="zeros")
    trainer = gluon.Trainer([x], "sgd", {"learning_rate": 0.1, "momentum": 0.5})
    for _ in range(2):
        with autograd.record():
            for w in x.list_row_sparse_data(mx.nd.arange(0, 4)):
                (w * 1).sum().backward()
        trainer.step(1)
    path = str(tmp_path / "t.states")
    trainer.save_states(path)
    state = trainer._kvstore._updater.states[0]
    before = state.asnumpy()
    trainer.load_states(path)
    np.testing.assert_allclose(trainer._kvstore._updater.states[0].asnumpy(), before)
    x.lr_mult = 2.0
    assert trainer._kvstore._updater.optimizer._get_lr(0) == pytest.approx(0.2)


@pytest.mark.parametrize("stype,grad_stype,update_on_kv,expected", [
    ("default", "row_sparse", None, False),
    ("default", "row_sparse", True, True),
    ("default", "row_sparse", False, False),
    ("row_sparse", "row_sparse", None, True),
    ("row_sparse", "row_sparse", False, ValueError),
])
def test_update_on_kvstore_choice(stype, grad_stype, update_on_kv, expected):
    x = gluon.Parameter("x", shape=(10, 1), stype=stype, grad_stype=grad_stype)
    x.initialize(ctx=[mx.cpu(0), mx.cpu(1)], init="zeros")
    trainer = gluon.Trainer([x], "sgd", {"learning_rate": 0.1}, kvstore="local",
                            update_on_kvstore=update_on_kv)
    if expected is ValueError:
        with pytest.raises(ValueError, match="update_on_kvstore=False"):
            trainer._init_kvstore()
        return
    rows = mx.nd.arange(0, 10)
    ws = x.list_data() if stype == "default" else x.list_row_sparse_data(rows)
    with autograd.record():
        for w in ws:
            (w + 1).backward()
    trainer.step(1)
    assert trainer._update_on_kvstore is expected
    got = x.data(mx.cpu(1)) if stype == "default" else x.row_sparse_data(rows)
    np.testing.assert_allclose(got.asnumpy(), -0.2)


def test_single_device_sparse_grad_has_no_kvstore():
    x = gluon.Parameter("x", shape=(10,), grad_stype="row_sparse")
    x.initialize(ctx=[mx.cpu(0)], init="zeros")
    trainer = gluon.Trainer([x], "sgd", {"learning_rate": 1.0})
    with autograd.record():
        (x.data() + 1).backward()
    trainer.step(1)
    assert trainer._kvstore is None and trainer._update_on_kvstore is None
    np.testing.assert_array_equal(x.data().asnumpy(), -1)


# -- KVStore ----------------------------------------------------------------------------


def _rsp(values, rows, shape, ctx=None):
    return mx.nd.sparse.row_sparse_array((np.asarray(values, dtype=np.float32), rows),
                                         shape=shape, ctx=ctx)


def test_kvstore_row_sparse_pull():
    kv = mx.kv.create("local")
    kv.init(3, _rsp(np.ones((2, 2)), [1, 3], (5, 2)))
    out = mx.nd.sparse.zeros("row_sparse", (5, 2))
    kv.row_sparse_pull(3, out=out, row_ids=mx.nd.array([2, 1, 0, 1]))
    assert out.indices.asnumpy().tolist() == [0, 1, 2]   # unique, sorted, as MXNet
    np.testing.assert_array_equal(out.data.asnumpy(), [[0, 0], [1, 1], [0, 0]])
    o1 = mx.nd.sparse.zeros("row_sparse", (5, 2), ctx=mx.cpu(1))
    o2 = mx.nd.sparse.zeros("row_sparse", (5, 2), ctx=mx.cpu(2))
    kv.row_sparse_pull(3, out=[o1, o2], row_ids=[mx.nd.array([1]), mx.nd.array([3, 4])])
    assert o1.indices.asnumpy().tolist() == [1] and o1.context == mx.cpu(1)
    assert o2.indices.asnumpy().tolist() == [3, 4] and o2.context == mx.cpu(2)
    kv.row_sparse_pull(3, out=[o1, o2], row_ids=mx.nd.array([3]))   # one row_ids for all
    assert o1.indices.asnumpy().tolist() == [3] == o2.indices.asnumpy().tolist()
    kv.init(5, mx.nd.ones((5, 2)))
    with pytest.raises(MXNetError, match="expects a row_sparse stored value"):
        kv.row_sparse_pull(5, out=mx.nd.sparse.zeros("row_sparse", (5, 2)),
                           row_ids=mx.nd.array([0]))
    with pytest.raises(MXNetError, match="expected row_sparse outputs"):
        kv.row_sparse_pull(3, out=mx.nd.zeros((5, 2)), row_ids=mx.nd.array([0]))
    with pytest.raises(MXNetError, match="row ids must be in"):
        kv.row_sparse_pull(3, out=out, row_ids=mx.nd.array([7]))


def test_kvstore_sparse_push_and_pull():
    kv = mx.kv.create("local")
    kv.init(3, _rsp(np.ones((2, 2)), [1, 3], (5, 2)))
    # without an updater the sum (union of rows) replaces the stored value
    kv.push(3, [_rsp([[1, 1]], [0], (5, 2)), _rsp([[1, 1]], [2], (5, 2), ctx=mx.cpu(1))])
    o = mx.nd.sparse.zeros("row_sparse", (5, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kv.pull(3, out=o)                        # ignore_sparse: nothing written
    assert o.indices.size == 0
    kv.pull(3, out=o, ignore_sparse=False)
    assert o.indices.asnumpy().tolist() == [0, 2]
    np.testing.assert_array_equal(o.asnumpy(), [[1, 1], [0, 0], [1, 1], [0, 0], [0, 0]])
    # a dense stored value takes the storage type of a sparse push
    kv.init(4, mx.nd.ones((5, 2)))
    kv.push(4, _rsp([[3, 3]], [0], (5, 2)))
    d = mx.nd.zeros((5, 2))
    kv.pull(4, out=d)
    np.testing.assert_array_equal(d.asnumpy()[:, 0], [3, 0, 0, 0, 0])
    kv.row_sparse_pull(4, out=o, row_ids=mx.nd.array([0]))
    assert o.indices.asnumpy().tolist() == [0]
    # with an updater, the updater receives the row_sparse sum
    seen = []
    kv2 = mx.kv.create("local")
    kv2.init(0, mx.nd.ones((5, 2)).tostype("row_sparse"))

    def updater(key, grad, weight):
        seen.append((grad.stype, grad.indices.asnumpy().tolist(), weight.stype))
        weight[:] = weight - grad

    kv2._set_updater(updater)
    kv2.push(0, [_rsp([[1, 1]], [0], (5, 2)), _rsp([[1, 1]], [2], (5, 2), ctx=mx.cpu(1))])
    assert seen == [("row_sparse", [0, 2], "row_sparse")]
    kv2.pull(0, out=d, ignore_sparse=False)
    np.testing.assert_array_equal(d.asnumpy()[:, 0], [0, 1, 0, 1, 1])


def test_kvstore_push_does_not_alias_the_pushed_value():
    kv = mx.kv.create("local")
    kv.init(0, mx.nd.zeros((2, 2)).tostype("row_sparse"))
    g = _rsp([[1, 1]], [1], (2, 2))
    kv.push(0, g)
    g[:] = mx.nd.ones((2, 2)) * 5
    out = mx.nd.zeros((2, 2))
    kv.pull(0, out=out)
    np.testing.assert_array_equal(out.asnumpy(), [[0, 0], [1, 1]])
