"""``mx.mod.Module`` against MXNet 1.9.1 (fixture ``module/``): one step and a
``fit`` give MXNet's parameters (Module's weight-decay and multiplier rules included),
``predict``/``score``, checkpoints both ways, several contexts, and the errors."""
import json
import os
import sys

import numpy as np
import pytest

import gluonlite as mx

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")
sys.path.insert(0, FIXTURES)
from module_cases import BATCH, OPTIMIZER_PARAMS, data, network, start_params  # noqa: E402

EXPECTED = np.load(os.path.join(FIXTURES, "module", "fit.npz"))
MXNET_PREFIX = os.path.join(FIXTURES, "module", "net")


def _nd(d):
    return {k: mx.nd.array(v) for k, v in d.items()}


def _iter():
    x, y = data()
    return mx.io.NDArrayIter(x, y, batch_size=BATCH)


def _bound(context=None, batch_norm=True):
    it = _iter()
    mod = mx.mod.Module(network(mx, batch_norm), context=context or mx.cpu())
    mod.bind(it.provide_data, it.provide_label)
    args, aux = start_params()
    if not batch_norm:
        args = {k: v for k, v in args.items() if not k.startswith("bn")}
        aux = {}
    mod.init_params(arg_params=_nd(args), aux_params=_nd(aux))
    mod.init_optimizer(optimizer="sgd", optimizer_params=OPTIMIZER_PARAMS)
    return mod, it


def _assert_params(mod, arg_prefix, aux_prefix, rtol=1e-5):
    args, aux = mod.get_params()
    for prefix, table in ((arg_prefix, args), (aux_prefix, aux)):
        if prefix is None:
            continue
        for name, value in table.items():
            np.testing.assert_allclose(value.asnumpy(), EXPECTED[f"{prefix}{name}"],
                                       rtol=rtol, atol=1e-6, err_msg=name)


def test_one_step_matches_mxnet_with_modules_optimizer_rules():
    mod, it = _bound()
    mod.forward_backward(next(it))
    mod.update()
    # (MXNet shows the BatchNorm statistics of a step only after the next one)
    _assert_params(mod, "step1:", None)
    assert mod._optimizer.lr_mult == json.loads(str(EXPECTED["lr_mult"]))
    assert mod._optimizer.wd_mult == json.loads(str(EXPECTED["wd_mult"]))
    assert mod._optimizer.wd_mult["fc1_bias"] == 0.0  # no decay for biases
    assert mod._optimizer.rescale_grad == 1.0 / BATCH


def test_fit_predict_score_match_mxnet():
    it = _iter()
    mod = mx.mod.Module(network(mx))
    args, aux = start_params()
    mod.fit(it, num_epoch=2, optimizer="sgd", optimizer_params=OPTIMIZER_PARAMS,
            arg_params=_nd(args), aux_params=_nd(aux), eval_metric="acc")
    _assert_params(mod, "arg:", "aux:", rtol=1e-4)
    np.testing.assert_allclose(mod.predict(it).asnumpy(), EXPECTED["predict"], rtol=1e-4,
                               atol=1e-6)
    assert mod.score(it, "acc")[0][1] == pytest.approx(float(EXPECTED["score"]))
    assert [name for name, _ in mod.output_shapes] == ["softmax_output"]
    assert mod.output_shapes[0][1] == (BATCH, 3)


def test_several_contexts_equal_one():
    # (without BatchNorm, whose batch statistics differ on half batches, in MXNet too)
    single, it = _bound(batch_norm=False)
    double, _ = _bound(context=[mx.cpu(0), mx.cpu(1)], batch_norm=False)
    for batch in it:
        for mod in (single, double):
            mod.forward_backward(batch)
            mod.update()
    for (a, b) in zip(single.get_params(), double.get_params()):
        for name in a:
            np.testing.assert_allclose(a[name].asnumpy(), b[name].asnumpy(), rtol=1e-5,
                                       atol=1e-6, err_msg=name)
    assert double.get_outputs()[0].shape == (BATCH, 3)
    assert len(double.get_outputs(merge_multi_context=False)[0]) == 2


def test_mxnet_checkpoint_loads_and_ours_is_the_same_format(tmp_path):
    mod = mx.mod.Module.load(MXNET_PREFIX, 1, load_optimizer_states=True)
    it = _iter()
    mod.bind(it.provide_data, it.provide_label)
    np.testing.assert_allclose(mod.predict(it).asnumpy(), EXPECTED["predict"], rtol=1e-4,
                               atol=1e-6)
    mod.init_optimizer(optimizer="sgd", optimizer_params=OPTIMIZER_PARAMS)
    prefix = str(tmp_path / "ours")
    mod.save_checkpoint(prefix, 1, save_optimizer_states=True)
    ours = mx.nd.load(prefix + "-0001.params")
    theirs = mx.nd.load(MXNET_PREFIX + "-0001.params")
    assert sorted(ours) == sorted(theirs)
    for key in theirs:
        np.testing.assert_allclose(ours[key].asnumpy(), theirs[key].asnumpy(), rtol=1e-6)
    sym, args, aux = mx.model.load_checkpoint(prefix, 1)
    assert sym.list_outputs() == ["softmax_output"] and "bn_moving_var" in aux
    with open(prefix + "-0001.states", "rb") as f, open(MXNET_PREFIX + "-0001.states",
                                                        "rb") as g:
        assert len(f.read()) > 0 and len(g.read()) > 0


def test_fixed_params_inputs_need_grad_and_states():
    it = _iter()
    mod = mx.mod.Module(network(mx), fixed_param_names=["fc1_weight"])
    mod.bind(it.provide_data, it.provide_label, inputs_need_grad=True)
    args, aux = start_params()
    mod.init_params(arg_params=_nd(args), aux_params=_nd(aux))
    mod.init_optimizer(optimizer="sgd", optimizer_params=OPTIMIZER_PARAMS)
    mod.forward_backward(next(it))
    mod.update()
    new_args, _ = mod.get_params()
    np.testing.assert_array_equal(new_args["fc1_weight"].asnumpy(), args["fc1_weight"])
    assert not np.allclose(new_args["fc2_weight"].asnumpy(), args["fc2_weight"])
    grad = mod.get_input_grads()[0]
    assert grad.shape == (BATCH, 5) and np.abs(grad.asnumpy()).sum() > 0


def test_prediction_bind_and_reshape():
    x, _ = data()
    mod = mx.mod.Module(network(mx))
    mod.bind([("data", (BATCH, 5))], for_training=False)
    args, aux = start_params()
    mod.set_params(_nd(args), _nd(aux))
    out = mod.predict(mx.nd.array(x[:BATCH]))
    assert out.shape == (BATCH, 3)
    mod.forward(mx.io.DataBatch([mx.nd.array(x[:7])]), is_train=False)  # new batch size
    assert mod.get_outputs()[0].shape == (7, 3)
    with pytest.raises(mx.base.MXNetError, match="for_training=False"):
        mod.backward()


def test_errors():
    with pytest.raises(ValueError, match="not found in symbol.list_arguments"):
        mx.mod.Module(network(mx), data_names=["pixels"])
    mod = mx.mod.Module(network(mx))
    mod.bind([("data", (BATCH, 5))], [("softmax_label", (BATCH,))])
    with pytest.raises(RuntimeError, match="bn_beta is not presented"):
        mod.init_params(arg_params={"fc1_weight": mx.nd.zeros((8, 5))})
    with pytest.raises(mx.base.MXNetError, match=r"'fc1_weight' has shape \(8, 5\)"):
        mod.init_params(arg_params={"fc1_weight": mx.nd.zeros((2, 2))}, allow_missing=True)
    with pytest.raises(ValueError, match="not in the arguments"):
        mod.init_params(arg_params={"bogus": mx.nd.zeros((1,))}, allow_missing=True,
                        force_init=True)


def test_checkpoint_callbacks_during_fit(tmp_path):
    it = _iter()
    mod = mx.mod.Module(network(mx))
    args, aux = start_params()
    plain, with_states = str(tmp_path / "plain"), str(tmp_path / "states")
    mod.fit(it, num_epoch=2, optimizer="sgd", optimizer_params=OPTIMIZER_PARAMS,
            arg_params=_nd(args), aux_params=_nd(aux),
            epoch_end_callback=[mx.callback.do_checkpoint(plain, period=2),
                                mx.callback.module_checkpoint(mod, with_states,
                                                              save_optimizer_states=True)])
    assert sorted(os.listdir(tmp_path)) == [
        "plain-0002.params", "plain-symbol.json", "states-0001.params", "states-0001.states",
        "states-0002.params", "states-0002.states", "states-symbol.json"]
    _, saved_args, saved_aux = mx.model.load_checkpoint(plain, 2)
    final_args, final_aux = mod.get_params()
    for name, value in {**final_args, **final_aux}.items():
        saved = saved_args.get(name, saved_aux.get(name))
        np.testing.assert_array_equal(saved.asnumpy(), value.asnumpy())


def test_sparse_variables_keep_their_storage_type_in_the_module_copies():
    """``var(stype='row_sparse')`` parameters are row_sparse in ``get_params`` (MXNet's
    ``_arg_params``) while the devices compute densely; a csr data input falls back."""
    x = mx.sym.var("data", stype="csr")
    v = mx.sym.var("v", shape=(6, 1), init=mx.init.Uniform(scale=0.1), stype="row_sparse")
    b = mx.sym.var("b_bias", shape=(1))  # an int shape, as MXNet's FM example writes it
    out = mx.sym.LinearRegressionOutput(mx.sym.broadcast_add(mx.sym.dot(x, v), b),
                                        mx.sym.var("label"))
    dense = np.eye(4, 6, dtype=np.float32)
    it = mx.io.NDArrayIter({"data": mx.nd.array(dense).tostype("csr")},
                           {"label": np.ones((4, 1), np.float32)}, 2,
                           last_batch_handle="discard")
    mod = mx.mod.Module(out, data_names=["data"], label_names=["label"])
    mod.bind(it.provide_data, it.provide_label)
    mod.init_params()
    args, _ = mod.get_params()
    assert args["v"].stype == "row_sparse" and args["b_bias"].stype == "default"
    assert np.abs(args["v"].asnumpy()).sum() > 0
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.5})
    before = args["v"].asnumpy().copy()
    for batch in it:
        mod.forward_backward(batch)
        mod.update()
    after, _ = mod.get_params()
    assert after["v"].stype == "row_sparse"
    changed = np.abs(after["v"].asnumpy() - before).ravel() > 0
    np.testing.assert_array_equal(changed, [True] * 4 + [False] * 2)


def _ctx_group_net():
    with mx.AttrScope(ctx_group="dev1"):
        a = mx.sym.var("a") * 2
    with mx.AttrScope(ctx_group="dev2"):
        b = mx.sym.var("b")
        c = mx.sym.FullyConnected(a + b, num_hidden=3, name="fc")
    return c


@pytest.mark.parametrize("contexts,group2ctxs,grad_ctxs", [
    ([mx.cpu(0)], {"dev1": mx.cpu(1), "dev2": mx.cpu(2)}, [mx.cpu(1), mx.cpu(2)]),
    ([mx.cpu(0), mx.cpu(1)], [{"dev1": mx.cpu(2), "dev2": mx.cpu(3)},
                              {"dev1": mx.cpu(4), "dev2": mx.cpu(5)}], None),
    ([mx.cpu(0), mx.cpu(1)], {"dev1": mx.cpu(2), "dev2": [mx.cpu(3)]}, None),
    ([mx.cpu(0), mx.cpu(1)], {"dev1": [mx.cpu(2), mx.cpu(4)], "dev2": mx.cpu(3)}, None),
])
def test_group2ctxs_places_groups_and_keeps_the_numbers(contexts, group2ctxs, grad_ctxs):
    """Model parallelism (MXNet's ``group2ctxs``): inputs of a ``ctx_group`` live on its
    device (their gradients too) and the results equal the unplaced module's."""
    shape = (4, 5)
    rng = np.random.default_rng(0)
    batch = mx.io.DataBatch(data=[mx.nd.array(rng.normal(size=shape)),
                                  mx.nd.array(rng.normal(size=shape))])
    results = []
    for g2c in (group2ctxs, None):
        mod = mx.mod.Module(_ctx_group_net(), context=contexts, data_names=["a", "b"],
                            label_names=None, group2ctxs=g2c)
        mod.bind(data_shapes=[("a", shape), ("b", shape)], inputs_need_grad=True)
        mod.init_params(initializer=mx.init.Constant(0.1))
        mod.forward(batch, is_train=True)
        mod.backward([mx.nd.ones((4, 3))])
        results.append((mod.get_outputs()[0].asnumpy(), mod.get_input_grads(),
                        mod._exec_group.grad_arrays))
    (out, grads, wgrads), (ref_out, ref_grads, ref_wgrads) = results
    np.testing.assert_allclose(out, ref_out, rtol=1e-6)
    for g, r in zip(grads, ref_grads):
        np.testing.assert_allclose(g.asnumpy(), r.asnumpy(), rtol=1e-6)
    for g, r in zip(wgrads, ref_wgrads):
        np.testing.assert_allclose(sum(x.asnumpy() for x in g), sum(x.asnumpy() for x in r),
                                   rtol=1e-6)
    if grad_ctxs is not None:
        assert [g.context for g in grads] == grad_ctxs


def test_group2ctxs_with_a_wrong_device_count_raises():
    with pytest.raises(mx.base.MXNetError, match="group2ctxs"):
        mod = mx.mod.Module(_ctx_group_net(), context=[mx.cpu(0), mx.cpu(1)],
                            data_names=["a", "b"], label_names=None,
                            group2ctxs={"dev1": [mx.cpu(1), mx.cpu(2), mx.cpu(3)]})
        mod.bind(data_shapes=[("a", (2, 5)), ("b", (2, 5))])
