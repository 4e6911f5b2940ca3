"""Block / HybridBlock behaviours not covered by the recorded scenarios: contexts,
hooks, casting, the fast path of hybridized calls, and GPU runs."""
import os
import warnings

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, nd
from gluonlite.base import MXNetError

from . import block_defs

B = block_defs.make(mx)
IO = np.load(os.path.join(os.path.dirname(__file__), "..", "fixtures", "blocks",
                          "net_io.npz"))


def _lin(**kw):
    with mx.name.NameManager():
        lin = B["Lin"](3, in_units=4, **kw)
    return lin


def test_block_forward_must_be_overridden():
    with pytest.raises(NotImplementedError):
        mx.gluon.Block()(nd.ones(1))
    with pytest.raises(NotImplementedError):
        mx.gluon.HybridBlock()(nd.ones(1))


def test_zero_grad_and_reset_ctx():
    lin = _lin()
    lin.initialize()
    with autograd.record():
        y = lin(nd.ones((2, 4)))
    y.backward()
    assert np.abs(lin.weight.grad().asnumpy()).sum() > 0
    lin.zero_grad()  # (a Gluon 2.0 convenience; MXNet 1.9 has collect_params().zero_grad)
    assert np.abs(lin.weight.grad().asnumpy()).sum() == 0
    w = lin.weight.data().asnumpy()
    lin.reset_ctx(mx.cpu(1))
    assert lin.weight.list_ctx() == [mx.cpu(1)]
    np.testing.assert_array_equal(lin.weight.data(mx.cpu(1)).asnumpy(), w)


@pytest.mark.parametrize("hybrid", [False, True])
def test_multi_context_uses_the_inputs_copy(hybrid):
    lin = _lin()
    lin.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    if hybrid:
        lin.hybridize()
    x0 = nd.ones((2, 4), ctx=mx.cpu(0))
    x1 = nd.ones((2, 4), ctx=mx.cpu(1)) * 2
    with autograd.record():
        y0, y1 = lin(x0), lin(x1)
    autograd.backward([y0, y1])
    assert y1.context == mx.cpu(1)
    np.testing.assert_allclose(y1.asnumpy(), 2 * y0.asnumpy(), rtol=1e-6)
    g0, g1 = lin.weight.list_grad()
    np.testing.assert_allclose(g1.asnumpy(), 2 * g0.asnumpy(), rtol=1e-6)
    if hybrid:
        two = B["TwoIn"]()
        two.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
        two.hybridize()
        with pytest.raises(MXNetError, match="multiple contexts"):
            two(x0, nd.ones((2, 4), ctx=mx.cpu(1)))


def test_hooks_handles():
    lin = _lin()
    lin.initialize()
    seen = []
    with lin.register_forward_hook(lambda b, i, o: seen.append(o.shape)):
        lin(nd.ones((1, 4)))
    lin(nd.ones((1, 4)))
    assert seen == [(1, 3)]
    h = lin.register_forward_pre_hook(lambda b, i: seen.append(len(i)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lin.hybridize()
    assert "is being hybridized while still having forward hook/pre-hook" in \
        str(caught[0].message)
    h.detach()
    h.detach()


def test_symbolblock_cast_float16_keeps_batchnorm_float32():
    data = mx.sym.var("data")
    c = mx.sym.Convolution(data, num_filter=4, kernel=(3, 3), name="conv")
    sb = mx.gluon.SymbolBlock(mx.sym.BatchNorm(c, name="bn"), data)
    sb.initialize(mx.init.One())
    sb(nd.ones((1, 1, 5, 5)))
    sb.cast("float16")
    got = {k: np.dtype(p.dtype).name for k, p in sb.params.items()}
    assert got == {"conv_weight": "float16", "conv_bias": "float16", "bn_gamma": "float32",
                   "bn_beta": "float32", "bn_moving_mean": "float32",
                   "bn_moving_var": "float32"}


def test_fast_path_falls_back_for_other_structures():
    with mx.name.NameManager():
        two = B["TwoIn"]()
    two.initialize()
    two.hybridize()
    a, b = nd.ones((2, 5)), nd.ones((2, 4))
    first = two(a, b)
    assert two._fast_n == 2
    again = two(a, b)
    np.testing.assert_array_equal(first[0].asnumpy(), again[0].asnumpy())
    with pytest.raises(MXNetError, match="argument structure"):
        two(a, [b, b])
    with pytest.raises(MXNetError, match="When hybridized"):
        two(a, 3)


def test_op_hook_reports_every_operator():
    x = nd.array(IO["x"])
    with mx.name.NameManager():
        net = B["Net"]()
    net.initialize()
    net.hybridize()
    seen = []
    net.register_op_hook(lambda name, op, arr: seen.append((name, op, arr.shape)))
    net(x)
    ops = [op for _, op, _ in seen]
    assert ops == ["Convolution", "BatchNorm", "relu", "Pooling", "FullyConnected", "relu",
                   "FullyConnected"]
    assert seen[-1] == ("net0_lin1_fullyconnected0_output", "FullyConnected", (2, 3))


@pytest.mark.gpu
@pytest.mark.parametrize("hybrid", [False, True])
def test_net_on_gpu_matches_mxnet(hybrid):
    ctx = mx.gpu(0)
    x = nd.array(IO["x"], ctx=ctx)
    with mx.name.NameManager():
        net = B["Net"]()
    net.initialize(ctx=ctx)
    net(x)
    for name, p in net._collect_params_with_prefix().items():
        p.set_data(nd.array(IO["param:" + name], ctx=ctx))
    if hybrid:
        net.hybridize(static_alloc=True)
    np.testing.assert_allclose(net(x).asnumpy(), IO["pred0"], rtol=1e-4, atol=1e-4)
    with autograd.record():
        out = net(x)
        loss = (out * nd.array(IO["head"], ctx=ctx)).sum()
    loss.backward()
    np.testing.assert_allclose(out.asnumpy(), IO["train0"], rtol=1e-4, atol=1e-4)
    for name, p in net._collect_params_with_prefix().items():
        if p.grad_req != "null":
            np.testing.assert_allclose(p.grad().asnumpy(), IO["grad:" + name], rtol=1e-3,
                                       atol=1e-4, err_msg=name)
