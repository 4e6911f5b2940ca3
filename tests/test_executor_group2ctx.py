"""``Symbol.bind``/``simple_bind`` with ``group2ctx`` (MXNet's model parallelism):
arguments may live on their groups' devices, ``simple_bind`` allocates them there,
and results and gradients equal those of a single-device executor."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError


def _chain():
    d1, d2, d3 = (mx.sym.Variable(f"data{i}") for i in (1, 2, 3))
    with mx.AttrScope(ctx_group="dev1"):
        net = (d1 + d2) * 3.0
    with mx.AttrScope(ctx_group="dev2"):
        net = net + d3
    return net


def test_bind_across_devices_matches_one_device():
    net = _chain()
    shape = (4, 5)
    vals = [np.full(shape, v, np.float32) for v in (1.0, 2.0, 3.0)]
    ctxs = [mx.cpu(0), mx.cpu(0), mx.cpu(1)]
    args = [mx.nd.array(v, ctx=c) for v, c in zip(vals, ctxs)]
    grads = [mx.nd.zeros(shape, ctx=c) for c in ctxs]
    exe = net.bind(mx.cpu(0), args=args, args_grad=grads,
                   group2ctx={"dev1": mx.cpu(0), "dev2": mx.cpu(1)})
    ref_grads = [mx.nd.zeros(shape) for _ in ctxs]
    ref = net.bind(mx.cpu(0), args=[mx.nd.array(v) for v in vals], args_grad=ref_grads)
    np.testing.assert_array_equal(exe.forward(is_train=True)[0].asnumpy(),
                                  ref.forward(is_train=True)[0].asnumpy())
    head = mx.nd.array(np.arange(20, dtype=np.float32).reshape(shape))
    exe.backward([head])
    ref.backward([head])
    for g, r, c in zip(grads, ref_grads, ctxs):
        assert g.context == c
        np.testing.assert_array_equal(g.asnumpy(), r.asnumpy())


def test_bind_without_group2ctx_checks_the_context():
    net = _chain()
    args = [mx.nd.ones((2,)), mx.nd.ones((2,)), mx.nd.ones((2,), ctx=mx.cpu(1))]
    with pytest.raises(MXNetError, match="data3"):
        net.bind(mx.cpu(0), args=args)


def test_simple_bind_places_arrays_by_group():
    with mx.AttrScope(ctx_group="stage1"):
        data = mx.sym.Variable("data")
        fc1 = mx.sym.FullyConnected(data, name="fc1", num_hidden=8)
    with mx.AttrScope(ctx_group="stage2"):
        out = mx.sym.BatchNorm(mx.sym.FullyConnected(fc1, name="fc2", num_hidden=3),
                               name="bn")
    g2c = {"stage1": mx.cpu(1), "stage2": mx.cpu(2)}
    exe = out.simple_bind(mx.cpu(0), group2ctx=g2c, data=(2, 6))
    stage1 = set(fc1.list_arguments())
    for name, arr, grad in zip(out.list_arguments(), exe.arg_arrays, exe.grad_arrays):
        want = g2c["stage1" if name in stage1 else "stage2"]
        assert arr.context == want and grad.context == want, name
    assert all(a.context == mx.cpu(2) for a in exe.aux_arrays)
    for a in exe.arg_arrays:
        a[:] = 0.5
    exe.aux_arrays[1][:] = 1.0
    y = exe.forward(is_train=False)[0].asnumpy()
    plain = out.simple_bind(mx.cpu(0), data=(2, 6))
    for a in plain.arg_arrays:
        a[:] = 0.5
    plain.aux_arrays[1][:] = 1.0
    np.testing.assert_allclose(y, plain.forward(is_train=False)[0].asnumpy(), rtol=1e-6)
