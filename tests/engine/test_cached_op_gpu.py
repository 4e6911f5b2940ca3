"""CachedOp and Executor on a GPU against the CPU (skipped without a usable GPU)."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.engine import CachedOp

from .test_cached_op import _mlp_arrays, mlp

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("static", [False, True])
def test_mlp_gpu_matches_cpu(static):
    sym = mlp(4, 16, act="tanh", bn=True)
    base = _mlp_arrays(sym, 8, 16, 16)
    results = []
    for ctx in (mx.cpu(), mx.gpu(0)):
        cop = CachedOp(sym, {"static_alloc": static})
        ins = [a.copyto(ctx) for a in base]  # copies: BatchNorm updates aux states in place
        for a in ins[1:3]:
            a.attach_grad()
        with mx.autograd.record():
            y = cop(*ins)
        y.backward()
        y2 = cop(*ins)  # predict mode, second plan
        results.append([y.asnumpy(), y2.asnumpy()] + [a.grad.asnumpy() for a in ins[1:3]]
                       + [a.asnumpy() for a in ins])
    for c, g in zip(*results):
        np.testing.assert_allclose(g, c, rtol=1e-4, atol=1e-5)


def test_executor_gpu_matches_cpu():
    net = mx.sym.SoftmaxOutput(mlp(2, 8), name="sm")
    grads = []
    for ctx in (mx.cpu(), mx.gpu(0)):
        exe = net.simple_bind(ctx, data=(4, 8))
        for name, arr in exe.arg_dict.items():
            arr[:] = np.random.default_rng(1).standard_normal(arr.shape) * 0.3
        exe.arg_dict["sm_label"][:] = np.array([0, 1, 2, 3])
        exe.forward(is_train=True)
        exe.backward()
        grads.append([g.asnumpy() for g in exe.grad_arrays])
    for c, g in zip(*grads):
        np.testing.assert_allclose(g, c, rtol=1e-4, atol=1e-5)
