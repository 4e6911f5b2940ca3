"""``mx.contrib.svrg_optimization``: SVRGModule and its optimizers against MXNet 1.9.1's
numbers (``tests/fixtures/svrg.npz``, written by ``tests/fixtures/gen_svrg.py``)."""
import logging
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError
from gluonlite.contrib.svrg_optimization import SVRGModule
from gluonlite.contrib.svrg_optimization.svrg_optimizer import (_AssignmentOptimizer,
                                                                _SVRGOptimizer)

FIXTURE = np.load(os.path.join(os.path.dirname(__file__), "..", "fixtures", "svrg.npz"))
RTOL, ATOL = 1e-5, 1e-5


@pytest.fixture(autouse=True)
def _quiet_logs():
    logging.disable(logging.CRITICAL)
    yield
    logging.disable(logging.NOTSET)


def network(name="fc1", num_hidden=1):
    data = mx.sym.Variable("data")
    label = mx.sym.Variable("lin_reg_label")
    fc = mx.sym.FullyConnected(data=data, name=name, num_hidden=num_hidden)
    return mx.sym.LinearRegressionOutput(data=fc, label=label, name="lro")


def make_iter(batch_size=8):
    return mx.io.NDArrayIter(FIXTURE["data"], FIXTURE["label"], batch_size=batch_size,
                             shuffle=False, label_name="lin_reg_label")


def init_args(prefix="fc1"):
    return {f"{prefix}_weight": mx.nd.array(FIXTURE["weight0"]),
            f"{prefix}_bias": mx.nd.array(FIXTURE["bias0"])}


def make_module(update_freq=2, **kwargs):
    return SVRGModule(symbol=kwargs.pop("symbol", network()), data_names=["data"],
                      label_names=["lin_reg_label"], update_freq=update_freq, **kwargs)


def bound_module(update_freq=1, kvstore="local", lr=0.02, **kwargs):
    di = make_iter()
    mod = make_module(update_freq, **kwargs)
    mod.bind(data_shapes=di.provide_data, label_shapes=di.provide_label)
    mod.init_params(arg_params=init_args())
    mod.init_optimizer(kvstore=kvstore, optimizer="sgd",
                       optimizer_params=(("learning_rate", lr),))
    return di, mod


def close(actual, expected):
    np.testing.assert_allclose(actual, expected, rtol=RTOL, atol=ATOL)


# -- numbers against MXNet ------------------------------------------------------------------
def test_fit_matches_mxnet():
    di = make_iter()
    mod = make_module(2)
    metric = mx.metric.MSE()
    rec = {"w": [], "b": [], "fw": [], "fb": [], "mse": []}

    def on_epoch(epoch, sym, arg, aux):
        rec["w"].append(arg["fc1_weight"].asnumpy())
        rec["b"].append(arg["fc1_bias"].asnumpy())
        rec["fw"].append(mod._param_dict[0]["fc1_weight"].asnumpy())
        rec["fb"].append(mod._param_dict[0]["fc1_bias"].asnumpy())
        rec["mse"].append(metric.get()[1])

    mod.fit(di, eval_metric=metric, optimizer="sgd",
            optimizer_params={"learning_rate": 0.01, "momentum": 0.9, "wd": 0.01},
            arg_params=init_args(), num_epoch=3, epoch_end_callback=on_epoch,
            kvstore="local")
    close(np.stack(rec["w"]), FIXTURE["fit_weight"])
    close(np.stack(rec["b"]), FIXTURE["fit_bias"])
    close(np.stack(rec["fw"]), FIXTURE["fit_full_weight"])
    close(np.stack(rec["fb"]), FIXTURE["fit_full_bias"])
    close(np.array(rec["mse"]), FIXTURE["fit_mse"])


def _run_steps(mod, di):
    mod.update_full_grads(di)
    full = (mod._param_dict[0]["fc1_weight"].asnumpy(),
            mod._param_dict[0]["fc1_bias"].asnumpy())
    rec = {"gw": [], "gb": [], "w": [], "aux": []}
    di.reset()
    for batch in di:
        mod.forward_backward(batch)
        mod.update()
        rec["gw"].append(mod._exec_group.grad_arrays[0][0].asnumpy())
        rec["gb"].append(mod._exec_group.grad_arrays[1][0].asnumpy())
        rec["w"].append(mod.get_params()[0]["fc1_weight"].asnumpy())
        rec["aux"].append(mod._mod_aux.get_params()[0]["fc1_weight"].asnumpy())
    return full, rec


def test_steps_match_mxnet():
    di, mod = bound_module()
    (full_w, full_b), rec = _run_steps(mod, di)
    close(full_w, FIXTURE["step_full_weight"])
    close(full_b, FIXTURE["step_full_bias"])
    # the gradient arrays hold SVRG's corrected gradients after update()
    close(np.stack(rec["gw"]), FIXTURE["step_grad_weight"])
    close(np.stack(rec["gb"]), FIXTURE["step_grad_bias"])
    close(np.stack(rec["w"]), FIXTURE["step_weight"])
    # the special weights stay those of the last full pass
    close(np.stack(rec["aux"]), FIXTURE["step_aux_weight"])


def test_full_grads_carry_over_like_mxnet():
    di, mod = bound_module(update_freq=2, lr=0.01)
    mod.update_full_grads(di)
    mod.update_full_grads(di)
    close(mod._param_dict[0]["fc1_weight"].asnumpy(), FIXTURE["full2_weight"])
    close(mod._param_dict[0]["fc1_bias"].asnumpy(), FIXTURE["full2_bias"])


def test_init_optimizer_zeroes_full_grads():
    di, mod = bound_module()
    mod.update_full_grads(di)
    mod.init_optimizer(optimizer="sgd", optimizer_params=(("learning_rate", 0.02),))
    assert not mod._param_dict[0]["fc1_weight"].asnumpy().any()
    mod.update_full_grads(di)
    close(mod._param_dict[0]["fc1_weight"].asnumpy(), FIXTURE["step_full_weight"])


def test_kvstore_object_gathers_full_grads():
    di, mod = bound_module(kvstore=mx.kv.create("local"))
    assert mod._kvstore is not None and mod._update_on_kvstore
    (full_w, full_b), rec = _run_steps(mod, di)
    close(full_w, FIXTURE["step_full_weight"])
    close(full_b, FIXTURE["step_full_bias"])
    close(np.stack(rec["w"]), FIXTURE["step_weight"])


def test_two_devices_match_one():
    di, mod = bound_module(context=[mx.cpu(0), mx.cpu(1)])
    assert mod._kvstore is not None
    (full_w, _), rec = _run_steps(mod, di)
    # each device holds its share of the full gradient; the shares sum to the whole
    total = sum(d["fc1_weight"].asnumpy() for d in mod._param_dict)
    close(total, FIXTURE["step_full_weight"])
    close(np.stack(rec["w"]), FIXTURE["step_weight"])


# -- the optimizers ---------------------------------------------------------------------------
def test_optimizers_registered():
    svrg = mx.optimizer.create("_svrgoptimizer", default_optimizer="sgd", learning_rate=-1.0)
    assert isinstance(svrg, _SVRGOptimizer)
    assert type(svrg.default_opt).__name__ == "SGD" and svrg.default_opt.lr == -1.0
    assert isinstance(svrg.aux_opt, _AssignmentOptimizer)
    assert isinstance(mx.optimizer.create("_assignmentoptimizer"), _AssignmentOptimizer)


def test_svrg_optimizer_dispatch_in_kvstore():
    svrg = _SVRGOptimizer(default_optimizer="sgd", learning_rate=1.0,
                          param_idx2name={0: "weight", 1: "weight_full"})
    kv = mx.kv.create("local")
    kv.set_optimizer(svrg)
    weight = mx.nd.array([0, 0, 0])
    kv.init(0, weight)
    kv.push(0, mx.nd.array([1, 1, 1]))
    kv.pull(0, weight)
    full = mx.nd.array([1, 1, 1])
    kv.init(1, full)
    kv.push(1, mx.nd.array([2, 2, 2]))
    kv.pull(1, full)
    np.testing.assert_array_equal(weight.asnumpy(), [-1, -1, -1])  # SGD
    np.testing.assert_array_equal(full.asnumpy(), [2, 2, 2])  # assignment


def test_svrg_optimizer_keeps_base_params_and_instance():
    sgd = mx.optimizer.SGD(learning_rate=0.5, momentum=0.9)
    svrg = _SVRGOptimizer(default_optimizer=sgd, learning_rate=0.1, momentum=0.3,
                          rescale_grad=0.25, param_idx2name={0: "a_weight"})
    assert svrg.default_opt is sgd
    assert svrg.lr == 0.1 and svrg.rescale_grad == 0.25
    assert not hasattr(svrg, "momentum")
    with pytest.raises(MXNetError):
        svrg.update(7, mx.nd.zeros(2), mx.nd.zeros(2), None)


def test_module_installs_svrg_optimizer():
    _, mod = bound_module()
    assert isinstance(mod._optimizer, _SVRGOptimizer)
    assert mod._optimizer.idx2name == {0: "fc1_weight", 1: "fc1_bias",
                                       2: "fc1_weight_full", 3: "fc1_bias_full"}
    assert mod._optimizer.rescale_grad == pytest.approx(1 / 8)
    assert mod._optimizer.default_opt.rescale_grad == pytest.approx(1 / 8)


def test_param_named_fully_connected_uses_default_optimizer():
    # MXNet's "full" in name test sends fullyconnected0_weight to the assignment
    # optimizer; only the <name>_full keys go there here
    di = make_iter()
    mod = make_module(1, symbol=network("fullyconnected0"))
    mod.bind(data_shapes=di.provide_data, label_shapes=di.provide_label)
    mod.init_params(arg_params=init_args("fullyconnected0"))
    mod.init_optimizer(optimizer="sgd", optimizer_params=(("learning_rate", 0.02),))
    mod.update_full_grads(di)
    di.reset()
    batch = next(iter(di))
    mod.forward_backward(batch)
    mod.update()
    close(mod.get_params()[0]["fullyconnected0_weight"].asnumpy(), FIXTURE["step_weight"][0])


# -- module behaviour ---------------------------------------------------------------------------
def test_bind_for_prediction_leaves_aux_unbound():
    di = make_iter()
    mod = make_module(2)
    mod.bind(data_shapes=di.provide_data, label_shapes=di.provide_label, for_training=False)
    assert mod.binded and not mod._mod_aux.binded
    mod.init_params(arg_params=init_args())
    out = mod.predict(di)
    expected = FIXTURE["data"] @ FIXTURE["weight0"].T + FIXTURE["bias0"]
    close(out.asnumpy(), expected)


def test_bind_and_reshape_both_modules():
    mod = SVRGModule(mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=4, name="fc"),
                     data_names=["data"], label_names=None, update_freq=2)
    mod.bind(data_shapes=[("data", (3, 4))])
    assert mod.binded and mod._mod_aux.binded
    mod.init_params()
    mod.init_optimizer(optimizer_params={"learning_rate": 1.0})
    mod.forward(mx.io.DataBatch(data=[mx.nd.ones((3, 4))], label=None))
    mod.backward([mx.nd.ones((3, 4))])
    mod.update()
    mod.reshape(data_shapes=[("data", (2, 4))])
    assert mod._mod_aux.data_shapes[0].shape == (2, 4)
    mod.forward(mx.io.DataBatch(data=[mx.nd.ones((2, 4))], label=None))
    assert mod.get_outputs()[0].shape == (2, 4)


def test_fixed_params_are_skipped():
    di = make_iter()
    mod = make_module(1, fixed_param_names=["fc1_bias"])
    mod.bind(data_shapes=di.provide_data, label_shapes=di.provide_label)
    mod.init_params(arg_params=init_args())
    mod.init_optimizer(optimizer="sgd", optimizer_params=(("learning_rate", 0.02),))
    mod.update_full_grads(di)
    di.reset()
    for batch in di:
        mod.forward_backward(batch)
        mod.update()
    arg = mod.get_params()[0]
    close(arg["fc1_bias"].asnumpy(), FIXTURE["bias0"])
    assert not np.allclose(arg["fc1_weight"].asnumpy(), FIXTURE["weight0"])


def test_forward_without_train_runs_main_module_only():
    di, mod = bound_module()
    mod.update_full_grads(di)
    di.reset()
    batch = next(iter(di))
    mod.forward(batch)  # is_train=None: the auxiliary module does not run (MXNet)
    assert not mod._aux_pending_backward
    mod.backward()
    mod.update()


# -- errors a user can cause ------------------------------------------------------------------
@pytest.mark.parametrize("freq", [0, -2])
def test_update_freq_not_positive(freq):
    with pytest.raises(MXNetError, match="positive integer") as info:
        make_module(freq)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("freq", [None, 1.5, "2"])
def test_update_freq_not_int(freq):
    with pytest.raises(MXNetError, match="must be an integer") as info:
        make_module(freq)
    assert isinstance(info.value, TypeError)


def test_calls_out_of_order():
    di = make_iter()
    mod = make_module(2)
    mod.bind(data_shapes=di.provide_data, label_shapes=di.provide_label)
    with pytest.raises(MXNetError, match="init_optimizer"):
        mod.init_optimizer()  # parameters not initialized
    mod.init_params(arg_params=init_args())
    with pytest.raises(MXNetError, match="init_optimizer"):
        mod.update_full_grads(di)
    with pytest.raises(MXNetError, match="init_optimizer"):
        mod.update()
    mod.init_optimizer()
    di.reset()
    with pytest.raises(MXNetError, match="update_full_grads"):
        mod.forward(next(iter(di)), is_train=True)


def test_bad_default_optimizer():
    with pytest.raises(MXNetError, match="default_optimizer"):
        _SVRGOptimizer(default_optimizer=3)


def test_import_paths_under_the_mxnet_alias():
    import importlib
    import warnings
    mx.install_mxnet_alias()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no second registration of the optimizers
        module = importlib.import_module("mxnet.contrib.svrg_optimization.svrg_module")
        optimizer = importlib.import_module("mxnet.contrib.svrg_optimization.svrg_optimizer")
    assert module.SVRGModule is SVRGModule
    assert optimizer._SVRGOptimizer is _SVRGOptimizer
    assert issubclass(SVRGModule, mx.mod.Module)


def test_fit_with_validation_and_callbacks():
    di = make_iter()
    mod = make_module(1)
    seen = []
    mod.fit(di, eval_data=make_iter(), eval_metric="mse", optimizer="sgd",
            optimizer_params=(("learning_rate", 0.01),), arg_params=init_args(), num_epoch=2,
            batch_end_callback=[lambda p: seen.append((p.epoch, p.nbatch)),
                                mx.callback.Speedometer(8, 1)])
    assert seen == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
    mse = dict(mod.score(make_iter(), "mse"))["mse"]
    assert mse < float(np.mean(FIXTURE["label"] ** 2))
