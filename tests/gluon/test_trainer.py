"""``gluon.Trainer`` against MXNet 1.9.1 (fixture ``training/trainer``): five steps per
optimizer, imperative and hybridized, on one and two devices; stale gradients,
states files, learning rates and errors."""
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, gluon

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "training")
with open(os.path.join(HERE, "trainer.json")) as _f:
    SPEC = json.load(_f)
DATA = np.load(os.path.join(HERE, "trainer.npz"))
INIT = os.path.join(HERE, "trainer_init.params")


def _build():
    net = gluon.nn.HybridSequential()
    with net.name_scope():
        net.add(gluon.nn.Conv2D(4, 3, padding=1, use_bias=False), gluon.nn.BatchNorm(),
                gluon.nn.Activation("relu"), gluon.nn.Dense(3))
    return net


def _kwargs(kwargs):
    kwargs = dict(kwargs)
    sched = kwargs.pop("lr_scheduler", None)
    if sched is not None:
        kwargs["lr_scheduler"] = getattr(mx.lr_scheduler, sched[0])(**sched[1])
    return kwargs


def _train(name, kwargs, options, dtype="float32"):
    ctxs = [mx.cpu(i) for i in range(options.get("devices", 1))]
    net = _build()
    net.load_parameters(INIT, ctx=ctxs)
    if dtype != "float32":
        net.cast(dtype)
    if options.get("hybridize"):
        net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), name, _kwargs(kwargs))
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    for step in range(5):
        xs = np.array_split(DATA[f"x{step}"], len(ctxs))
        ys = np.array_split(DATA[f"y{step}"], len(ctxs))
        with autograd.record():
            losses = [loss_fn(net(mx.nd.array(x, ctx=c, dtype=dtype)),
                              mx.nd.array(y, ctx=c, dtype=dtype))
                      for x, y, c in zip(xs, ys, ctxs)]
        autograd.backward(losses)
        trainer.step(DATA[f"x{step}"].shape[0])
    return net, trainer, ctxs


@pytest.mark.parametrize("case", sorted(SPEC))
def test_five_steps_match_mxnet(case):
    name, kwargs, options = SPEC[case]
    net, _, ctxs = _train(name, kwargs, options)
    for key, param in net._collect_params_with_prefix().items():
        want = DATA[f"{case}/{key}"]
        # running statistics are per device (each sees its part of the batch); the
        # fixture holds the first device's; trainable copies must agree everywhere.
        # atol 1e-4: AdaGrad/RMSProp divide tiny gradients by their own size, which
        # turns float32 summation-order noise of the convolution into ~1e-4 steps
        for ctx in (ctxs if param.grad_req != "null" else ctxs[:1]):
            np.testing.assert_allclose(param.data(ctx).asnumpy(), want, rtol=1e-4, atol=1e-4,
                                       err_msg=f"{key} on {ctx}")


@pytest.mark.parametrize("name", ["sgd", "adam"])
def test_multi_precision_float16_follows_the_float32_run(name):
    kwargs = dict(learning_rate=0.01, momentum=0.9) if name == "sgd" else \
        dict(learning_rate=0.01)
    net16, trainer, _ = _train(name, dict(kwargs, multi_precision=True), {}, dtype="float16")
    net32, _, _ = _train(name, kwargs, {})
    state = trainer._updaters[0].states[0]
    assert any(s.dtype == np.float32 for s in state if hasattr(s, "dtype"))
    for key, param in net16._collect_params_with_prefix().items():
        # BatchNorm keeps float32 parameters under cast('float16'), as in MXNet
        assert param.data().dtype == (np.float32 if key.startswith("1.") else np.float16)
        np.testing.assert_allclose(param.data().asnumpy().astype(np.float32),
                                   net32._collect_params_with_prefix()[key].data().asnumpy(),
                                   rtol=3e-2, atol=3e-2, err_msg=key)


def _tiny():
    net = gluon.nn.Dense(2, in_units=3)
    net.initialize()
    return net


def _backward(net, x=None):
    x = mx.nd.ones((4, 3)) if x is None else x
    with autograd.record():
        loss = net(x).sum()
    loss.backward()


def test_stale_gradient_is_mxnets_user_warning():
    net = _tiny()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    before = net.weight.data().asnumpy()
    with pytest.raises(UserWarning, match="has not been updated by backward since last"):
        trainer.step(4)  # no backward yet
    np.testing.assert_array_equal(net.weight.data().asnumpy(), before)
    _backward(net)
    trainer.step(4)
    with pytest.raises(UserWarning, match="ignore_stale_grad=True"):
        trainer.step(4)
    trainer.step(4, ignore_stale_grad=True)  # nothing fresh: nothing changes


def test_allreduce_then_update_with_clipping():
    net = _tiny()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 1.0})
    _backward(net)
    trainer.allreduce_grads()
    grads = [p.grad() for p in net.collect_params().values()]
    gluon.utils.clip_global_norm(grads, 0.1)
    before = net.bias.data().asnumpy()
    trainer.update(1)
    step = before - net.bias.data().asnumpy()
    assert np.linalg.norm(step) <= 0.1 + 1e-6


def test_learning_rate_and_optimizer_instance():
    net = _tiny()
    sgd = mx.optimizer.SGD(learning_rate=0.5)
    trainer = gluon.Trainer(net.collect_params(), sgd)
    assert trainer.optimizer is sgd and trainer.learning_rate == 0.5
    trainer.set_learning_rate(0.25)
    assert sgd.lr == 0.25
    with pytest.raises(mx.MXNetError, match="optimizer_params must be None"):
        gluon.Trainer(net.collect_params(), sgd, {"learning_rate": 1})
    with pytest.raises(ValueError, match="Cannot find optimizer"):
        gluon.Trainer(net.collect_params(), "nosuch")
    with pytest.raises(ValueError, match="list or dict of Parameters"):
        gluon.Trainer(net, "sgd")


def test_states_round_trip_and_wrong_model(tmp_path):
    net = _tiny()
    trainer = gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.1})
    _backward(net)
    trainer.step(1)
    path = str(tmp_path / "t.states")
    trainer.save_states(path)
    other = gluon.Trainer(_tiny().collect_params(), "sgd")
    other.load_states(path)
    assert isinstance(other.optimizer, mx.optimizer.Adam)
    assert other.optimizer.param_dict[0] is other._params[0]
    wrong = gluon.nn.Dense(5, in_units=7)
    wrong.initialize()
    with pytest.raises(mx.MXNetError, match="another model"):
        gluon.Trainer(wrong.collect_params(), "sgd").load_states(path)


def test_mxnet_written_states_load():
    weight = gluon.Parameter("w", shape=(2,))
    weight.initialize()
    trainer = gluon.Trainer([weight], "adam")
    trainer.load_states(os.path.join(HERE, "mxnet_sgd.states"))
    assert type(trainer.optimizer) is mx.optimizer.SGD and trainer.optimizer.momentum == 0.9


def test_kvstore_local_and_device():
    for kind in ("local", "device"):
        kv = mx.kv.create(kind)
        assert kv.type == kind and kv.rank == 0 and kv.num_workers == 1
        kv.init(3, mx.nd.ones((2, 2)))
        kv.push(3, [mx.nd.ones((2, 2)), mx.nd.full((2, 2), 2.0)])
        out = [mx.nd.zeros((2, 2)), mx.nd.zeros((2, 2))]
        kv.pull(3, out=out)
        for o in out:
            np.testing.assert_array_equal(o.asnumpy(), 3.0)
    kv = mx.kv.create("local")
    kv.init(["a", "b"], [mx.nd.zeros(2), mx.nd.zeros(3)])
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.5))
    kv.push("a", mx.nd.ones(2))
    out = mx.nd.zeros(2)
    kv.pull("a", out=out)
    np.testing.assert_allclose(out.asnumpy(), [-0.5, -0.5])
    value = mx.nd.ones(3)
    kv.pushpull("b", value)
    np.testing.assert_allclose(value.asnumpy(), -0.5)
    with pytest.raises(mx.MXNetError, match="int"):
        kv.init(7, mx.nd.ones(1))
    with pytest.raises(mx.MXNetError, match="not been initialized"):
        kv.push("zz", mx.nd.ones(1))
    with pytest.raises(mx.MXNetError, match="single-process"):
        mx.kv.create("dist_sync")


def test_kvstore_optimizer_states_file(tmp_path):
    kv = mx.kv.create("device")
    kv.init(0, mx.nd.ones(2))
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9))
    kv.push(0, mx.nd.ones(2))
    path = str(tmp_path / "kv.states")
    kv.save_optimizer_states(path, dump_optimizer=True)
    other = mx.kv.create("device")
    other.set_optimizer(mx.optimizer.Adam())
    other.load_optimizer_states(path)
    assert type(other._updater.optimizer) is mx.optimizer.SGD
    np.testing.assert_allclose(other._updater.states[0].asnumpy(), [-0.1, -0.1])


def test_registered_python_store_without_optimizer():
    x = gluon.Parameter("x", shape=(3,))
    x.initialize(ctx=[mx.cpu(0), mx.cpu(1)], init="zeros")
    trainer = gluon.Trainer([x], "sgd", {"learning_rate": 1.0}, kvstore=mx.kv.create("teststore"))
    with autograd.record():
        for w in x.list_data():
            (w + 1).backward()
    trainer.step(1)
    assert trainer._update_on_kvstore is False  # TestStore cannot run optimizers
    for ctx in (mx.cpu(0), mx.cpu(1)):
        np.testing.assert_array_equal(x.data(ctx).asnumpy(), -2.0)  # both gradients summed
    strict = gluon.Trainer([x], "sgd", kvstore=mx.kv.create("teststore"), update_on_kvstore=True)
    with pytest.raises(ValueError, match="update_on_kvstore=False"):
        strict._init_kvstore()
    on_store = gluon.Trainer([x], "sgd", {"learning_rate": 1.0})
    with autograd.record():
        for w in x.list_data():
            (w + 1).backward()
    on_store.step(1)
    assert on_store._update_on_kvstore
    with pytest.raises(AssertionError):
        on_store.update(1)
