"""Executor (``bind``/``simple_bind``) over the CachedOp, checked against imperative autograd."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError
from gluonlite.ops.registry import get_op

from ..ops.test_op_harness import CASES, SAMPLES
from .graphs import assert_close, grad_inputs, head_grads, imperative_run, one_node_symbol

rng = np.random.default_rng(3)


@pytest.fixture(autouse=True)
def _debug_mode(monkeypatch):
    """Freed planned buffers are poisoned (NaN) in every test here."""
    monkeypatch.setenv("GLUONLITE_ENGINE_DEBUG", "1")


def _bind_sample(name, sample, which, req="write"):
    sym = one_node_symbol(name, sample)
    op = get_op(name)
    aux = set(op.aux_indices(op.parse_attrs(dict(sample.attrs))))
    arrays = [mx.nd.array(a, dtype=a.dtype) for a in sample.inputs]
    args = [a for i, a in enumerate(arrays) if i not in aux]
    arg_pos = [i for i in range(len(arrays)) if i not in aux]
    auxs = [a for i, a in enumerate(arrays) if i in aux]
    grads = [mx.nd.array(np.zeros(a.shape, a.dtype), dtype=a.dtype) if i in which else None
             for i, a in zip(arg_pos, args)]
    reqs = [req if i in which else "null" for i in arg_pos]
    exe = sym.bind(mx.cpu(), args, grads, reqs, auxs)
    return exe, arrays, arg_pos


@pytest.mark.parametrize("name,index", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_executor_matches_imperative(name, index):
    sample = SAMPLES[name][index]
    if sample.check is not None:
        return  # random operators: the one-node CachedOp test checks their properties
    which = grad_inputs(name, sample)
    exe, arrays, arg_pos = _bind_sample(name, sample, which)
    outs = exe.forward(is_train=sample.train)
    use_hg = sample.grad_ref is None
    exp_out, exp_grads, exp_inputs = imperative_run(name, sample, which, use_hg)
    assert_close([o.asnumpy() for o in outs], exp_out, f"{name} executor forward")
    if which:
        exe.backward(head_grads(outs) if use_hg else None)
    # BatchNorm updates its moving statistics in backward, as MXNet does
    assert_close([a.asnumpy() for a in arrays], exp_inputs, f"{name} aux states")
    if not which:
        return
    grads = dict(zip(arg_pos, exe.grad_arrays))
    for i in which:
        assert_close([grads[i].asnumpy()], [exp_grads[i]], f"{name} executor grad {i}")


def _net():
    data = mx.sym.var("data")
    fc = mx.sym.FullyConnected(data, num_hidden=4, name="fc")
    bn = mx.sym.BatchNorm(fc, fix_gamma=False, name="bn")
    act = mx.sym.Activation(bn, act_type="tanh", name="act")
    return mx.sym.SoftmaxOutput(act, name="sm")


def _params(exe):
    for name, arr in exe.arg_dict.items():
        if name not in ("data", "sm_label"):
            arr[:] = rng.standard_normal(arr.shape) * 0.5
    exe.aux_dict["bn_moving_var"][:] = 1


def test_simple_bind_train_step_matches_autograd_with_aux_update():
    net = _net()
    exe = net.simple_bind(mx.cpu(), data=(5, 3))
    assert [a.shape for a in exe.arg_arrays] == [(5, 3), (4, 3), (4,), (4,), (4,), (5,)]
    assert list(exe.aux_dict) == ["bn_moving_mean", "bn_moving_var"]
    _params(exe)
    x = rng.standard_normal((5, 3))
    label = np.array([0, 1, 2, 3, 0], dtype=np.float32)
    d = {k: mx.nd.array(v.asnumpy()) for k, v in exe.arg_dict.items()}
    aux = {k: mx.nd.array(v.asnumpy()) for k, v in exe.aux_dict.items()}
    out = exe.forward(is_train=True, data=x, sm_label=label)
    exe.backward()
    for k in ("fc_weight", "fc_bias", "bn_gamma", "bn_beta"):
        d[k].attach_grad()
    with mx.autograd.record():
        y = mx.nd.FullyConnected(mx.nd.array(x), d["fc_weight"], d["fc_bias"], num_hidden=4)
        y = mx.nd.BatchNorm(y, d["bn_gamma"], d["bn_beta"], aux["bn_moving_mean"],
                            aux["bn_moving_var"], fix_gamma=False)
        y = mx.nd.SoftmaxOutput(mx.nd.Activation(y, act_type="tanh"), mx.nd.array(label))
    y.backward()
    np.testing.assert_allclose(out[0].asnumpy(), y.asnumpy(), rtol=1e-6, atol=1e-7)
    for k in ("fc_weight", "fc_bias", "bn_gamma", "bn_beta"):
        np.testing.assert_allclose(exe.grad_dict[k].asnumpy(), d[k].grad.asnumpy(),
                                   rtol=1e-5, atol=1e-6, err_msg=k)
    for k in aux:
        np.testing.assert_allclose(exe.aux_dict[k].asnumpy(), aux[k].asnumpy(), rtol=1e-6)
    assert not np.allclose(exe.aux_dict["bn_moving_var"].asnumpy(), 1)


def test_outputs_persist_and_output_dict():
    exe = _net().simple_bind(mx.cpu(), data=(2, 3))
    _params(exe)
    first = exe.outputs[0]
    exe.forward(data=np.ones((2, 3)))
    v1 = first.asnumpy().copy()
    exe.forward(data=-np.ones((2, 3)))
    assert exe.outputs[0] is first
    assert not np.allclose(first.asnumpy(), v1)
    assert list(exe.output_dict) == ["sm_output"]


def test_grad_req_add_and_null():
    net = _net()
    exe = net.simple_bind(mx.cpu(), grad_req="add", data=(4, 3))
    _params(exe)
    kw = dict(data=rng.standard_normal((4, 3)), sm_label=np.array([0, 1, 2, 3]))
    exe.forward(is_train=True, **kw)
    exe.backward()
    once = exe.grad_dict["fc_weight"].asnumpy().copy()
    exe.forward(is_train=True, **kw)
    exe.backward()
    np.testing.assert_allclose(exe.grad_dict["fc_weight"].asnumpy(), 2 * once, rtol=1e-6)
    req = {"fc_weight": "write", "data": "null"}
    exe2 = net.simple_bind(mx.cpu(), grad_req=req, data=(4, 3))
    assert exe2.grad_dict["data"] is None and exe2.grad_dict["fc_bias"] is None
    exe2.copy_params_from({k: v for k, v in exe.arg_dict.items()
                           if k not in ("data", "sm_label")}, exe.aux_dict)
    exe2.forward(is_train=True, **kw)
    exe2.backward()
    np.testing.assert_allclose(exe2.grad_dict["fc_weight"].asnumpy(), once, rtol=1e-6)
    null = net.simple_bind(mx.cpu(), grad_req="null", data=(4, 3))
    assert null.grad_arrays == [None] * 6
    null.forward(is_train=True)
    null.backward()  # nothing to do, as in MXNet


def test_bind_argument_forms_and_errors():
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc")
    args = [mx.nd.ones((3, 4)), mx.nd.ones((2, 4)), mx.nd.zeros(2)]
    exe = net.bind(mx.cpu(), args)
    assert exe.grad_arrays is None and exe.grad_dict["fc_bias"] is None
    np.testing.assert_allclose(exe.forward()[0].asnumpy(), np.full((3, 2), 4.0))
    exe = net.bind(mx.cpu(), dict(zip(["data", "fc_weight", "fc_bias"], args)),
                   args_grad={"fc_weight": mx.nd.zeros((2, 4))})
    exe.forward(is_train=True)
    exe.backward(mx.nd.ones((3, 2)))
    np.testing.assert_allclose(exe.grad_dict["fc_weight"].asnumpy(), np.full((2, 4), 3.0))
    assert exe.grad_dict["fc_bias"] is None
    with pytest.raises(ValueError, match="Length of args"):
        net.bind(mx.cpu(), args[:1])
    with pytest.raises(ValueError, match="fc_weight"):
        net.bind(mx.cpu(), {"data": args[0]})
    with pytest.raises(TypeError, match="Unknown argument"):
        exe.forward(zzz=np.ones(3))
    with pytest.raises(ValueError, match="Shape not match"):
        exe.forward(data=np.ones((2, 4)))


def test_reshape_shares_and_checks():
    exe = _net().simple_bind(mx.cpu(), data=(4, 3))
    _params(exe)
    small = exe.reshape(data=(2, 3), sm_label=(2,))
    assert small.arg_dict["fc_weight"] is exe.arg_dict["fc_weight"]
    assert small.arg_dict["data"].shape == (2, 3) and small.outputs[0].shape == (2, 4)
    x = rng.standard_normal((2, 3))
    big = exe.forward(data=np.concatenate([x, x]))[0].asnumpy()
    # train-mode BatchNorm would mix the batch; compare in predict mode
    np.testing.assert_allclose(small.forward(data=x)[0].asnumpy(), big[:2], rtol=1e-6)
    with pytest.raises(MXNetError, match="allow_up_sizing"):
        exe.reshape(data=(8, 3), sm_label=(8,))
    assert exe.reshape(allow_up_sizing=True, data=(8, 3), sm_label=(8,)).outputs[0].shape == (8, 4)
    with pytest.raises(MXNetError, match="partial_shaping"):
        exe.reshape(data=(2, 3))
    assert exe.reshape(partial_shaping=True, data=(2, 3)).arg_dict["sm_label"].shape == (2,)


def test_copy_params_from():
    exe = _net().simple_bind(mx.cpu(), data=(2, 3))
    w = mx.nd.array(rng.standard_normal((4, 3)))
    with pytest.raises(ValueError, match="zzz"):
        exe.copy_params_from({"fc_weight": w, "zzz": mx.nd.ones(1)})
    exe.copy_params_from({"fc_weight": w, "zzz": mx.nd.ones(1)},
                         {"bn_moving_var": mx.nd.ones(4) * 2}, allow_extra_params=True)
    np.testing.assert_array_equal(exe.arg_dict["fc_weight"].asnumpy(), w.asnumpy())
    np.testing.assert_array_equal(exe.aux_dict["bn_moving_var"].asnumpy(), 2)


def test_monitor_callback_names():
    exe = _net().simple_bind(mx.cpu(), data=(2, 3))
    names = []
    exe.set_monitor_callback(lambda n, a: names.append(n))
    exe.forward(is_train=True)
    assert names == ["fc_output", "bn_output", "bn_mean", "bn_var", "act_output", "sm_output"]
    names.clear()
    exe.set_monitor_callback(lambda n, a: names.append(n), monitor_all=True)
    exe.forward()
    assert "fc_weight" in names and "bn_gamma" in names and names[-1] == "sm_output"
    assert "Op:BatchNorm, Name=bn" in exe.debug_str()


def test_shared_exec_shares_parameters():
    net = _net()
    exe = net.simple_bind(mx.cpu(), data=(4, 3))
    other = net.simple_bind(mx.cpu(), data=(4, 3), shared_exec=exe)
    assert other.arg_dict["fc_weight"] is exe.arg_dict["fc_weight"]
    assert other.arg_dict["data"] is not exe.arg_dict["data"]
