"""Executor against MXNet 1.9 (fixture from ``tests/fixtures/gen_executor.py``)."""
import os

import numpy as np
import pytest

import gluonlite as mx

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "executor_net.npz")
ARGS = ("data", "fc_weight", "fc_bias", "bn_gamma", "bn_beta", "sm_label")
AUX = ("bn_moving_mean", "bn_moving_var")


@pytest.fixture(scope="module")
def ref():
    return dict(np.load(FIXTURE))


def _bind(ref, req):
    data = mx.sym.var("data")
    fc = mx.sym.FullyConnected(data, num_hidden=4, name="fc")
    bn = mx.sym.BatchNorm(fc, fix_gamma=False, momentum=0.8, name="bn")
    act = mx.sym.Activation(bn, act_type="tanh", name="act")
    net = mx.sym.SoftmaxOutput(act, name="sm", normalization="batch")
    exe = net.simple_bind(mx.cpu(), grad_req=req, data=(6, 5))
    exe.copy_params_from({k: mx.nd.array(ref["in_" + k]) for k in ARGS},
                         {k: mx.nd.array(ref["in_" + k]) for k in AUX})
    return exe


def test_train_step_matches_mxnet(ref):
    exe = _bind(ref, "write")
    exe.forward(is_train=True)
    np.testing.assert_allclose(exe.outputs[0].asnumpy(), ref["train_output"], rtol=1e-5,
                               atol=1e-6)
    for k in AUX:  # MXNet updates BatchNorm's moving statistics in backward
        np.testing.assert_allclose(exe.aux_dict[k].asnumpy(), ref["after_forward_" + k],
                                   rtol=1e-6)
    exe.backward()
    for k in AUX:
        np.testing.assert_allclose(exe.aux_dict[k].asnumpy(), ref["after_backward_" + k],
                                   rtol=1e-5, atol=1e-6)
    for k in ARGS:
        np.testing.assert_allclose(exe.grad_dict[k].asnumpy(), ref["grad_" + k], rtol=1e-4,
                                   atol=1e-6, err_msg=k)
    exe.forward(is_train=False)
    np.testing.assert_allclose(exe.outputs[0].asnumpy(), ref["predict_output"], rtol=1e-5,
                               atol=1e-6)


def test_grad_req_add_matches_mxnet(ref):
    exe = _bind(ref, "add")
    for _ in range(2):
        exe.forward(is_train=True)
        exe.backward()
    for k in ARGS:
        np.testing.assert_allclose(exe.grad_dict[k].asnumpy(), ref["grad_add_" + k], rtol=1e-4,
                                   atol=1e-6, err_msg=k)
