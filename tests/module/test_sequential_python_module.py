"""``SequentialModule`` equals one Module over the whole network (same parameters,
same step); ``PythonLossModule`` hands ``grad_func``'s gradient to the module below."""
import numpy as np
import pytest

import gluonlite as mx

BATCH = 4


def _params():
    rng = np.random.RandomState(0)
    return {"fc1_weight": mx.nd.array(rng.randn(6, 5) * 0.4),
            "fc1_bias": mx.nd.array(rng.randn(6) * 0.1),
            "fc2_weight": mx.nd.array(rng.randn(3, 6) * 0.4),
            "fc2_bias": mx.nd.array(rng.randn(3) * 0.1)}


def _batch():
    rng = np.random.RandomState(1)
    return mx.io.DataBatch([mx.nd.array(rng.randn(BATCH, 5))],
                           [mx.nd.array(rng.randint(0, 3, BATCH))])


def _head(data_name):
    fc2 = mx.sym.FullyConnected(mx.sym.var(data_name), num_hidden=3, name="fc2")
    return mx.sym.SoftmaxOutput(fc2, name="softmax")


def _body():
    return mx.sym.relu(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=6, name="fc1"),
                       name="act")


def _trained(mod, label=True):
    mod.bind([("data", (BATCH, 5))], [("softmax_label", (BATCH,))] if label else None)
    mod.init_params(arg_params=_params(), allow_missing=False, allow_extra=True)
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.5})
    mod.forward_backward(_batch())
    mod.update()
    return mod


def test_sequential_equals_one_module():
    whole = _trained(mx.mod.Module(mx.sym.SoftmaxOutput(
        mx.sym.FullyConnected(_body(), num_hidden=3, name="fc2"), name="softmax")))
    seq = mx.mod.SequentialModule()
    seq.add(mx.mod.Module(_body(), label_names=None))
    seq.add(mx.mod.Module(_head("data")), take_labels=True, auto_wiring=True)
    _trained(seq)
    for a, b in zip(whole.get_params(), seq.get_params()):
        assert sorted(a) == sorted(b)
        for name in a:
            np.testing.assert_allclose(a[name].asnumpy(), b[name].asnumpy(), rtol=1e-6,
                                       err_msg=name)
    seq.forward(_batch(), is_train=False)
    whole.forward(_batch(), is_train=False)
    np.testing.assert_allclose(seq.get_outputs()[0].asnumpy(),
                               whole.get_outputs()[0].asnumpy(), rtol=1e-6)
    metric = mx.metric.Accuracy()
    seq.update_metric(metric, _batch().label)
    assert metric.num_inst == BATCH
    assert seq.output_shapes == [("softmax_output", (BATCH, 3))]


def test_python_loss_module_gradient_reaches_the_module_below():
    def grad(scores, labels):  # d/dscores of 0.5 * ||scores||^2
        return scores

    body = mx.mod.Module(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3,
                                               name="fc2"), label_names=None)
    seq = mx.mod.SequentialModule()
    seq.add(body).add(mx.mod.PythonLossModule(grad_func=grad, data_names=("fc2_output",)),
                      take_labels=True, auto_wiring=True)
    seq.bind([("data", (BATCH, 5))], [("softmax_label", (BATCH,))])
    params = {k: v for k, v in _params().items() if k.startswith("fc2")}
    params["fc2_weight"] = mx.nd.array(np.random.RandomState(2).randn(3, 5))
    seq.init_params(arg_params=params)
    seq.forward(_batch(), is_train=True)
    seq.backward()
    x = _batch().data[0].asnumpy()
    scores = x @ params["fc2_weight"].asnumpy().T + params["fc2_bias"].asnumpy()
    grads = body._exec_group.execs[0].grad_dict
    np.testing.assert_allclose(grads["fc2_weight"].asnumpy(), scores.T @ x, rtol=1e-5)
    with pytest.raises(AssertionError, match="out_grads should be None"):
        seq._modules[1].backward(out_grads=[mx.nd.ones((BATCH, 3))])


def test_sequential_errors():
    seq = mx.mod.SequentialModule()
    with pytest.raises(AssertionError, match="empty SequentialModule"):
        seq.bind([("data", (BATCH, 5))])
    with pytest.raises(AssertionError, match="Unknown meta"):
        seq.add(mx.mod.Module(_body(), label_names=None), take_label=True)
