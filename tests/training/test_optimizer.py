"""``mx.optimizer``: five updates of every optimizer against MXNet 1.9.1 (fixture
``training/optimizer``), the Optimizer API, the Updater and its states."""
import json
import os
import pickle

import numpy as np
import pytest

import gluonlite as mx

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "training")
with open(os.path.join(HERE, "optimizer.json")) as _f:
    SPEC = json.load(_f)
DATA = np.load(os.path.join(HERE, "optimizer.npz"))
NAMES = {0: "fc_weight", 1: "fc_bias", 2: "conv_weight"}


def _kwargs(kwargs):
    kwargs = dict(kwargs)
    sched = kwargs.pop("lr_scheduler", None)
    if sched is not None:
        kwargs["lr_scheduler"] = getattr(mx.lr_scheduler, sched[0])(**sched[1])
    return kwargs


def _run(case):
    name, kwargs, dtype, mode = SPEC[case]
    opt = mx.optimizer.create(name, param_idx2name=NAMES, **_kwargs(kwargs))
    updater = mx.optimizer.get_updater(opt)
    idx = [0] if mode == "single2d" else [0, 1, 2]
    weights = [mx.nd.array(DATA[f"w{i}"], dtype=dtype) for i in idx]
    for step in range(5):
        grads = [mx.nd.array(DATA[f"g{step}_{i}"], dtype=dtype) for i in idx]
        if mode in ("single", "single2d"):
            for i, g, w in zip(idx, grads, weights):
                updater(i, g, w)
        else:
            updater(idx, grads, weights)
    return idx, weights, updater


@pytest.mark.parametrize("case", sorted(SPEC))
def test_five_updates_match_mxnet(case):
    idx, weights, _ = _run(case)
    for i, w in zip(idx, weights):
        want = DATA[f"{case}/w{i}"]
        tol = 2e-3 if want.dtype == np.float16 else 1e-5
        assert w.dtype == want.dtype
        np.testing.assert_allclose(w.asnumpy(), want, rtol=tol, atol=tol, err_msg=f"weight {i}")


def test_every_mxnet_optimizer_is_registered():
    for name in ("sgd", "nag", "adam", "rmsprop", "adagrad", "adadelta", "adamax", "nadam",
                 "ftrl", "ftml", "signum", "lamb", "lars", "lbsgd", "dcasgd", "sgld", "ccsgd",
                 "test", "groupadagrad"):
        assert name in mx.optimizer.Optimizer.opt_registry, name
    with pytest.raises(ValueError, match="Cannot find optimizer nosuch"):
        mx.optimizer.create("nosuch")


def test_sgld_adds_noise_of_variance_lr():
    mx.random.seed(1)
    opt = mx.optimizer.SGLD(learning_rate=0.01)
    w = mx.nd.zeros((200, 200))
    opt.update(0, w, mx.nd.zeros((200, 200)), None)
    values = w.asnumpy().ravel()
    # zero gradient: the step is pure N(0, lr) noise
    assert abs(values.mean()) < 4 * 0.1 / 200
    assert abs(values.var() - 0.01) < 0.01 * 4 * np.sqrt(2 / values.size)


def test_lr_and_wd_multipliers():
    sym = mx.sym.var("a_weight", lr_mult=2.0, wd_mult=0.5)
    opt = mx.optimizer.SGD(learning_rate=0.1, wd=0.1, sym=mx.sym.Group([sym]),
                           param_idx2name={0: "a_weight", 1: "b_bias"})
    assert opt._get_lr(0) == pytest.approx(0.2)
    assert opt._get_wd(0) == pytest.approx(0.05)
    assert opt._get_wd(1) == 0.0  # biases get no weight decay
    opt.set_lr_mult({1: 3.0})
    assert opt._get_lr(1) == pytest.approx(0.3)


def test_learning_rate_and_scheduler():
    opt = mx.optimizer.SGD(learning_rate=0.5)
    opt.set_learning_rate(0.25)
    assert opt.learning_rate == 0.25
    sched = mx.lr_scheduler.FactorScheduler(step=1, factor=0.5, base_lr=1.0)
    opt = mx.optimizer.SGD(lr_scheduler=sched)
    with pytest.raises(UserWarning):
        opt.set_learning_rate(0.1)
    opt._update_count(0)
    opt._update_count(0)
    assert opt.learning_rate == pytest.approx(0.5)


def test_begin_num_update_and_update_counts():
    opt = mx.optimizer.Adam(begin_num_update=10)
    opt._update_count([0, 1])
    assert opt.num_update == 11 and opt._index_update_count == {0: 11, 1: 11}


def test_multi_precision_keeps_float32_master():
    opt = mx.optimizer.SGD(learning_rate=0.1, momentum=0.9, multi_precision=True)
    w = mx.nd.ones((4,), dtype="float16")
    state = opt.create_state_multi_precision(0, w)
    assert state[1].dtype == np.float32 and state[0].dtype == np.float32
    g = mx.nd.full((4,), 1e-4, dtype="float16")
    for _ in range(10):
        opt.update_multi_precision(0, w, g, state)
    # 10 tiny steps are lost in float16 without a master copy, kept with one
    assert state[1].asnumpy()[0] < 1.0


def test_updater_states_round_trip_and_optimizer_dump():
    _, weights, updater = _run("sgd_mom_wd")
    blob = updater.get_states(dump_optimizer=True)
    fresh = mx.optimizer.get_updater(mx.optimizer.SGD())
    fresh.set_states(blob)
    assert isinstance(fresh.optimizer, mx.optimizer.SGD) and fresh.optimizer.momentum == 0.9
    for key, value in updater.states.items():
        np.testing.assert_array_equal(fresh.states[key].asnumpy(), value.asnumpy())


def test_set_states_refuses_code():
    class Evil:
        def __reduce__(self):
            return (os.system, ("echo owned",))
    updater = mx.optimizer.get_updater(mx.optimizer.SGD())
    with pytest.raises(mx.MXNetError, match="refusing"):
        updater.set_states(pickle.dumps({0: Evil()}))
    with pytest.raises(mx.MXNetError, match="cannot read"):
        updater.set_states(b"not a pickle")


# Bytes of an Updater state pickled by MXNet 1.9.1 (SGD, momentum 0.9, one weight of
# shape (2,) after one update of gradient 1, lr 0.1): dump_optimizer=True, protocol 2.
MXNET_STATES = os.path.join(HERE, "mxnet_sgd.states")


def test_loads_states_written_by_mxnet():
    updater = mx.optimizer.get_updater(mx.optimizer.Adam())
    with open(MXNET_STATES, "rb") as f:
        updater.set_states(f.read())
    assert type(updater.optimizer) is mx.optimizer.SGD
    assert updater.optimizer.momentum == 0.9 and updater.optimizer.lr == 0.1
    np.testing.assert_allclose(updater.states[0].asnumpy(), [-0.1, -0.1])
