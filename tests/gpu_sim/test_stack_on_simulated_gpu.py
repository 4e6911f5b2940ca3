"""NDArray, autograd, CachedOp, Executor and Gluon on the simulated GPU, against the CPU."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd
from gluonlite.gluon import nn

from .simulated import simulated_gpu

RNG = np.random.default_rng(0)


@pytest.fixture
def gpu():
    with simulated_gpu() as cp:
        yield cp


def _net():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(4, 3, padding=1), nn.BatchNorm(), nn.Activation("relu"),
                nn.MaxPool2D(2), nn.Conv2D(3, 3, groups=1, strides=2),
                nn.GlobalAvgPool2D(), nn.Flatten(), nn.Dense(5), nn.Dropout(0.0),
                nn.Dense(3, activation="tanh"))
    return net


@pytest.mark.parametrize("hybridize", [False, True], ids=["imperative", "hybridized"])
def test_gluon_training_step_matches_cpu(gpu, hybridize):
    x = RNG.standard_normal((2, 3, 8, 8)).astype(np.float32)
    runs = []
    for ctx in (mx.cpu(), mx.gpu(0)):
        mx.random.seed(5)
        net = _net()
        net.initialize(mx.init.Xavier(), ctx=mx.cpu())
        net(nd.array(x))  # finish deferred initialization on the CPU, then move
        net.collect_params().reset_ctx(ctx)
        if hybridize:
            net.hybridize()
        data = nd.array(x, ctx=ctx)
        with mx.autograd.record():
            y = net(data)
            loss = (y * y).sum()
        loss.backward()
        params = net.collect_params()
        assert all(p.data(ctx).context == ctx for p in params.values())
        grads = [p.grad(ctx).asnumpy() for p in params.values() if p.grad_req != "null"]
        runs.append({"grads": grads, "values": [y.asnumpy(), loss.asnumpy()]
                     + [p.data(ctx).asnumpy() for p in params.values()]  # BN running stats
                     + [net(data).asnumpy()]})  # predict mode uses the running stats
    cpu, sim = runs
    # The simulated GPU sums in other orders (its own convolution and GEMM layouts), and
    # float32 sums in different orders differ by a few ulp of the terms summed.  Gradient
    # terms are of the scale of the largest gradient, however small the sum: BatchNorm's
    # backward cancels them (the first convolution's bias has an exact gradient of 0).
    grad_scale = max(float(np.abs(g).max()) for g in cpu["grads"])
    for c, g in zip(cpu["grads"], sim["grads"]):
        np.testing.assert_allclose(g, c, rtol=1e-5, atol=1e-5 * grad_scale)
    for c, g in zip(cpu["values"], sim["values"]):
        np.testing.assert_allclose(g, c, rtol=1e-5, atol=1e-6)


def test_executor_on_gpu_takes_cpu_head_gradients(gpu):
    """``exe.backward(nd.ones(...))`` with a CPU head gradient, as MXNet scripts do."""
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc")
    res = []
    for ctx in (mx.cpu(), mx.gpu(0)):
        exe = net.simple_bind(ctx, data=(2, 4))
        for i, arr in enumerate(exe.arg_arrays):
            arr[:] = np.arange(arr.size, dtype=np.float32).reshape(arr.shape) * 0.1 - i
        exe.forward(is_train=True)
        exe.backward(nd.array(np.linspace(-1, 1, 6).reshape(2, 3)))  # on the CPU
        res.append([exe.outputs[0].asnumpy()] + [g.asnumpy() for g in exe.grad_arrays])
        assert exe.outputs[0].context == ctx
    for c, g in zip(*res):
        np.testing.assert_allclose(g, c, rtol=1e-6)


def test_ndarray_api_on_gpu(gpu):
    base = RNG.standard_normal((4, 5)).astype(np.float32)
    ctx = mx.gpu(0)
    x = nd.array(base, ctx=ctx)
    assert type(x._data) is gpu.ndarray
    np.testing.assert_allclose(x[1].asnumpy(), base[1])
    np.testing.assert_allclose(x[1:3, ::2].asnumpy(), base[1:3, ::2])
    np.testing.assert_allclose(x[[0, 2]].asnumpy(), base[[0, 2]])
    np.testing.assert_allclose(x[nd.array([3, 1], ctx=ctx)].asnumpy(), base[[3, 1]])
    y = x.copy()
    y[0] = np.arange(5)  # host values are copied over
    y[1, :] = 2.0
    y[2:4] = nd.ones((2, 5))  # an NDArray on the CPU
    expected = base.copy()
    expected[0], expected[1], expected[2:4] = np.arange(5), 2.0, 1.0
    np.testing.assert_allclose(y.asnumpy(), expected)
    z = (x * 2 + 1 - x / 4) ** 2
    np.testing.assert_allclose(z.asnumpy(), (base * 2 + 1 - base / 4) ** 2, rtol=1e-6)
    assert ((x > 0).asnumpy() == (base > 0)).all()
    assert x.sum().asscalar() == pytest.approx(float(base.sum()), rel=1e-5)
    assert float(x[0, 0].asscalar()) == pytest.approx(float(base[0, 0]))
    c = nd.concat(x, x.astype("float64").astype("float32"), dim=0)
    assert c.shape == (8, 5) and c.context == ctx
    back = x.copyto(mx.cpu())
    assert back.context == mx.cpu() and isinstance(back._data, np.ndarray)
    np.testing.assert_allclose(back.asnumpy(), base)


def test_save_and_load_gpu_arrays(gpu, tmp_path):
    base = RNG.standard_normal((3, 2)).astype(np.float32)
    path = str(tmp_path / "a.params")
    nd.save(path, {"w": nd.array(base, ctx=mx.gpu(0))})
    loaded = nd.load(path)
    np.testing.assert_array_equal(loaded["w"].asnumpy(), base)


def test_sorting_ties_are_stable_on_gpu(gpu):
    """CuPy's sort is always stable; ties keep their order as on the CPU (and MXNet)."""
    x = np.array([[1.0, 3.0, 3.0, 0.0, 3.0], [2.0, 2.0, 1.0, 2.0, 0.0]], dtype=np.float32)
    for kw in ({"k": 3, "ret_typ": "indices"}, {"k": 2, "is_ascend": True, "ret_typ": "both"}):
        cpu = nd.topk(nd.array(x), **kw)
        gpu_res = nd.topk(nd.array(x, ctx=mx.gpu(0)), **kw)
        for c, g in zip(cpu if isinstance(cpu, list) else [cpu],
                        gpu_res if isinstance(gpu_res, list) else [gpu_res]):
            np.testing.assert_array_equal(g.asnumpy(), c.asnumpy())
    np.testing.assert_array_equal(nd.argsort(nd.array(x, ctx=mx.gpu(0))).asnumpy(),
                                  nd.argsort(nd.array(x)).asnumpy())


def test_random_streams_on_gpu_are_seeded(gpu):
    ctx = mx.gpu(0)
    mx.random.seed(11)
    a = nd.random.uniform(shape=(6,), ctx=ctx).asnumpy()
    b = nd.random.normal(shape=(6,), ctx=ctx).asnumpy()
    mx.random.seed(11)
    np.testing.assert_array_equal(nd.random.uniform(shape=(6,), ctx=ctx).asnumpy(), a)
    np.testing.assert_array_equal(nd.random.normal(shape=(6,), ctx=ctx).asnumpy(), b)
    assert ((a >= 0) & (a < 1)).all() and not np.array_equal(a, b)


def test_forward_on_gpu_leaves_the_default_context_alone(gpu):
    """Nested blocks enter their input's context instance again while it is active; the
    default context must come back afterwards (it used to stay ``gpu(0)``)."""
    net = _net()
    net.initialize(ctx=mx.gpu(0))
    net(nd.array(RNG.standard_normal((1, 3, 8, 8)), ctx=mx.gpu(0)))
    assert mx.current_context() == mx.cpu()
    assert nd.zeros((1,)).context == mx.cpu()


def test_reentering_one_context_instance_restores_the_outer_one():
    ctx = mx.cpu(1)
    with ctx:
        with ctx:
            assert mx.current_context() is ctx
        assert mx.current_context() is ctx
    assert mx.current_context() == mx.cpu(0)


@pytest.mark.parametrize("key", [[5], [0, -4], (slice(None), [3]), "nd"])
@pytest.mark.parametrize("recording", [False, True])
def test_out_of_bounds_index_arrays_raise_on_gpu(gpu, key, recording):
    """CuPy wraps out-of-bounds integer-array indices around; NDArray indexing must raise
    as on the CPU (and in MXNet) instead of reading or writing the wrong element."""
    for ctx in (mx.cpu(), mx.gpu(0)):
        x = nd.array(np.arange(9.0).reshape(3, 3), ctx=ctx)
        k = nd.array([3], ctx=ctx) if key == "nd" else key
        if recording:
            x.attach_grad()
        with mx.autograd.record() if recording else mx.autograd.pause():
            with pytest.raises(mx.base.MXNetError, match="out of bounds"):
                x[k]
        with pytest.raises(mx.base.MXNetError, match="out of bounds"):
            x[k] = 1.0
        np.testing.assert_array_equal(x.asnumpy(), np.arange(9.0).reshape(3, 3))


def test_autograd_takes_head_gradients_from_another_device(gpu):
    """As in MXNet, ``y.backward(g)`` and ``autograd.grad(..., head_grads=g)`` copy a head
    gradient that lives on another device (here the CPU) to the head's device."""
    for ctx in (mx.gpu(0), mx.cpu(1)):
        x = nd.array([[1.0, 2.0], [3.0, 4.0]], ctx=ctx)
        x.attach_grad()
        with mx.autograd.record():
            y = x * x
        y.backward(nd.array([[1.0, 0.5], [2.0, 0.0]]))
        np.testing.assert_allclose(x.grad.asnumpy(), [[2.0, 2.0], [12.0, 0.0]])
        with mx.autograd.record():
            z = x * 3
        g = mx.autograd.grad(z, [x], head_grads=nd.ones((2, 2)) * 2)[0]
        assert g.context == ctx
        np.testing.assert_allclose(g.asnumpy(), np.full((2, 2), 6.0))


def test_bind_refuses_arrays_on_another_device(gpu):
    """MXNet: 'Input array is in cpu(0) while binding with ctx=gpu(0)' (an error at bind,
    not a failure inside forward)."""
    y = mx.sym.var("x") * 2
    with pytest.raises(mx.base.MXNetError, match="Input array"):
        y.bind(mx.gpu(0), {"x": nd.ones((2,))})
    with pytest.raises(mx.base.MXNetError, match="Gradient array"):
        y.bind(mx.gpu(0), {"x": nd.ones((2,), ctx=mx.gpu(0))}, args_grad={"x": nd.zeros((2,))})
    exe = y.bind(mx.gpu(0), {"x": nd.ones((2,), ctx=mx.gpu(0))})
    assert exe.forward()[0].context == mx.gpu(0)


@pytest.mark.parametrize("case", ["foreach_fc", "foreach_lists", "while_loop", "cond",
                                  "nested"])
def test_control_flow_graphs_match_cpu(gpu, case):
    """``_foreach``/``_while_loop``/``_cond`` subgraphs run their plans on the device."""
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "fixtures"))
    import control_flow_cases as cases
    sym, shapes = cases.build(mx, case)
    args = cases.inputs(case, shapes)
    runs = []
    for ctx in (mx.cpu(), mx.gpu(0)):
        grads = {k: nd.zeros(v.shape, ctx=ctx) for k, v in args.items()}
        ex = sym.bind(ctx, {k: nd.array(v, ctx=ctx) for k, v in args.items()},
                      args_grad=grads)
        outs = ex.forward(is_train=True)
        ex.backward([nd.ones(o.shape, ctx=ctx) for o in outs])
        runs.append([o.asnumpy() for o in outs] + [grads[k].asnumpy() for k in sorted(grads)])
    for c, g in zip(*runs):
        np.testing.assert_allclose(g, c, rtol=1e-5, atol=1e-6)


def test_softmax_nan_rows_on_gpu_follow_mxnets_own_kernel(gpu):
    # MXNet's GPU softmax is its own kernel, never oneDNN's: a row whose exponentials sum
    # to NaN is NaN throughout (on the CPU, float32 over the last axis follows oneDNN)
    rows = [[np.nan, 1, 2], [np.inf, 1, 2], [1, 2, 3]]
    out = nd.softmax(nd.array(rows, ctx=mx.gpu(0))).asnumpy()
    assert np.isnan(out[:2]).all()
    np.testing.assert_allclose(out[2], nd.softmax(nd.array(rows[2:])).asnumpy()[0], rtol=1e-6)
    cpu = nd.softmax(nd.array(rows)).asnumpy()
    assert np.isnan(cpu[0, 0]) and (cpu[0, 1:] == 0).all()
