"""stop_gradient in compiled graphs: nothing kept for backward behind it (MXNet's zero
propagation), and the gradients it blocks are written as zeros, as MXNet writes them."""
import re

import numpy as np

import gluonlite as mx
from gluonlite.gluon import nn


def _total_mb(exe) -> float:
    return float(re.search(r"Total (\S+) MB allocated", exe.debug_str()).group(1))


def test_stop_gradient_keeps_nothing_for_backward():
    data = mx.sym.Variable("data")
    for _ in range(10):
        data = data * data
    big = _total_mb(data.simple_bind(mx.cpu(), data=(10, 3, 64, 64)))
    small1 = _total_mb(data.simple_bind(mx.cpu(), data=(10, 3, 64, 64), grad_req="null"))
    blocked = mx.sym.stop_gradient(data)
    exe = blocked.simple_bind(mx.cpu(), data=(10, 3, 64, 64))
    small2 = _total_mb(exe)
    assert big > small2 and small1 == small2
    exe.arg_dict["data"][:] = 0.5
    exe.grad_dict["data"][:] = 7
    exe.forward(is_train=True)
    exe.backward()
    assert not exe.grad_dict["data"].asnumpy().any()


class _TwoBranches(nn.HybridBlock):
    def __init__(self):
        super().__init__()
        self.a = nn.Dense(3, in_units=2)
        self.b = nn.Dense(3, in_units=2)

    def hybrid_forward(self, F, x):
        return F.stop_gradient(self.a(x)) + self.b(x)


def test_blocked_parameters_get_zero_gradients_hybridized_or_not():
    """MXNet 1.9.1 writes zeros into dense0's gradients (both modes); dense1 gets 4."""
    for hybridize in (False, True):
        net = _TwoBranches()
        net.initialize()
        if hybridize:
            net.hybridize()
        for p in net.collect_params().values():
            p.grad()[:] = 7
        with mx.autograd.record():
            y = net(mx.nd.ones((4, 2)))
        y.backward()
        grads = [np.abs(p.grad().asnumpy()).max() for p in net.collect_params().values()]
        assert grads == [0.0, 0.0, 4.0, 4.0], (hybridize, grads)
