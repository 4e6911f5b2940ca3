"""LayerNorm's gamma/beta gradients sum over the whole batch: in float32 they must
stay as exact as MXNet's (its test_layer_norm checks a 4096-row batch at 1e-4)."""
import numpy as np

import gluonlite as mx


def test_layer_norm_param_grads_over_many_rows_float32():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4096, 64)).astype(np.float32)
    dy = rng.normal(size=(4096, 64)).astype(np.float32)
    gamma = rng.normal(size=64).astype(np.float32)
    beta = rng.normal(size=64).astype(np.float32)
    data, g, b = mx.nd.array(x), mx.nd.array(gamma), mx.nd.array(beta)
    for a in (g, b):
        a.attach_grad()
    with mx.autograd.record():
        y = mx.nd.LayerNorm(data, g, b, axis=-1, eps=1e-3)
    y.backward(mx.nd.array(dy))
    x64 = x.astype(np.float64)
    xhat = (x64 - x64.mean(-1, keepdims=True)) / np.sqrt(x64.var(-1, keepdims=True) + 1e-3)
    np.testing.assert_allclose(g.grad.asnumpy(), (dy * xhat).sum(0), rtol=0, atol=2e-5)
    np.testing.assert_allclose(b.grad.asnumpy(), dy.astype(np.float64).sum(0), rtol=0,
                               atol=2e-5)
