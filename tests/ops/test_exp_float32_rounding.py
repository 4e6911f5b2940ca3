"""float32 ``exp`` on the CPU is rounded once from double precision, as MXNet's
``expf``: NumPy's SIMD float32 ``exp`` is 1 ulp off for many inputs (``exp(1)``).
MXNet 1.9.1's ``test_autograd.py::test_gradient`` checks ``exp(1) + 1`` to 1e-7."""
import numpy as np

import gluonlite as mx


def test_exp_of_one_is_correctly_rounded():
    x = mx.nd.ones((1,))
    assert mx.nd.exp(x).asnumpy()[0] == np.float32(2.7182817)  # MXNet 1.9.1's value
    x.attach_grad()
    with mx.autograd.record():
        z = mx.nd.elemwise_add(mx.nd.exp(x), x)
    dx, = mx.autograd.grad(z, [x], create_graph=True)
    assert abs(dx.asscalar() - 3.71828175) < 1e-7
    dx.backward()
    assert abs(x.grad.asscalar() - 2.71828175) < 1e-7


def test_exp_float32_matches_double_rounded_once():
    # MXNet 1.9.1's CPU exp agrees with this on all but ~0.05% of these inputs (1 ulp)
    x = np.random.RandomState(0).uniform(-20, 20, 4096).astype(np.float32)
    want = np.exp(x.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(mx.nd.exp(mx.nd.array(x)).asnumpy(), want)
    out = mx.nd.zeros((4096,))
    mx.nd.exp(mx.nd.array(x), out=out)
    np.testing.assert_array_equal(out.asnumpy(), want)
