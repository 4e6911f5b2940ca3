"""``contrib.nn.SyncBatchNorm`` with ``num_devices=2`` over ``cpu(0)`` and ``cpu(1)``
against MXNet 1.9.1 (fixture ``sync2/*`` from ``tests/fixtures/gen_nn_layers.py``).

Each device's forward and backward run in their own thread, the way the statistics
can be shared without an asynchronous engine; outputs and input gradients equal
full-batch BatchNorm, parameter gradients are each device's share, and both
devices' running statistics are the global ones.
"""
import os
import threading

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd
from gluonlite.base import MXNetError
from gluonlite.gluon.contrib import nn as cnn
from gluonlite.ops import batch_norm_contrib

ARRAYS = np.load(os.path.join(os.path.dirname(__file__), "..", "fixtures", "nn_layers.npz"))


def _run_threads(fns):
    errors = []

    def wrap(fn):
        try:
            fn()
        except Exception as e:  # reported in the main thread
            errors.append(e)
    threads = [threading.Thread(target=wrap, args=(f,)) for f in fns]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    if errors:
        raise errors[0]


@pytest.mark.parametrize("hybridize", [False, True])
def test_two_devices_match_mxnet(hybridize):
    a = {k[len("sync2/"):]: ARRAYS[k] for k in ARRAYS.files if k.startswith("sync2/")}
    ctxs = [mx.cpu(0), mx.cpu(1)]
    net = cnn.SyncBatchNorm(in_channels=3, num_devices=2, momentum=0.8, prefix="synctest_")
    net.initialize(ctx=ctxs)
    net.gamma.set_data(mx.nd.array(a["gamma"]))
    net.beta.set_data(mx.nd.array(a["beta"]))
    if hybridize:
        net.hybridize()
    halves = [a["x"][:2], a["x"][2:]]
    heads = [a["dy"][:2], a["dy"][2:]]
    xs = [mx.nd.array(h, ctx=c) for h, c in zip(halves, ctxs)]
    for x in xs:
        x.attach_grad()
    ys = [None, None]

    def device(i):
        def run():
            with autograd.record():
                ys[i] = net(xs[i])
            ys[i].backward(mx.nd.array(heads[i], ctx=ctxs[i]))
        return run
    _run_threads([device(0), device(1)])
    for i in range(2):
        np.testing.assert_allclose(ys[i].asnumpy(), a[f"y{i}"], rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(xs[i].grad.asnumpy(), a[f"dx{i}"], rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(net.gamma.list_grad()[i].asnumpy(), a[f"dgamma{i}"],
                                   rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(net.beta.list_grad()[i].asnumpy(), a[f"dbeta{i}"],
                                   rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(net.running_mean.list_data()[i].asnumpy(),
                                   a[f"running_mean{i}"], rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(net.running_var.list_data()[i].asnumpy(),
                                   a[f"running_var{i}"], rtol=1e-4, atol=1e-6)


def test_sequential_calls_fail_clearly(monkeypatch):
    monkeypatch.setattr(batch_norm_contrib, "SYNC_TIMEOUT", 0.2)
    net = cnn.SyncBatchNorm(in_channels=3, num_devices=2, prefix="syncalone_")
    net.initialize()
    with pytest.raises(MXNetError, match="ndev=2.*concurrently"):
        with autograd.record():
            net(mx.nd.ones((2, 3, 4)))


def test_default_num_devices_warns():
    with pytest.warns(UserWarning, match="Caution using SyncBatchNorm"):
        net = cnn.SyncBatchNorm()
    assert net._kwargs["ndev"] == max(mx.context.num_gpus(), 1)
