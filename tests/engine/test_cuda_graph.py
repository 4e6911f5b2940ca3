"""CUDA-graph replay of static inference plans (``engine/cuda_graph.py``).

Every check compares the replayed calls with the same network run step by step
(``GLUONLITE_CUDA_GRAPHS=0``) on fresh random inputs.  Skipped without a GPU,
except the switches that need none.
"""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.engine import cuda_graph
from gluonlite.gluon import nn


def _cnn(dropout=False):
    net = nn.HybridSequential()
    net.add(nn.Conv2D(8, 3, padding=1), nn.BatchNorm(), nn.Activation("relu"),
            nn.MaxPool2D(2), nn.Conv2D(16, 3, strides=2), nn.Activation("tanh"))
    if dropout:
        net.add(nn.Dropout(0.5))
    net.add(nn.Flatten(), nn.Dense(32, activation="relu"), nn.Dense(5))
    return net


def _built(make, ctx, static=True, shape=(4, 3, 12, 12)):
    """A seeded network, run once so that deferred parameters are initialized here,
    not by a later network's draws."""
    mx.random.seed(3)
    net = make()
    net.initialize(mx.init.Xavier(), ctx=ctx)
    net.hybridize(static_alloc=static, static_shape=static)
    net(mx.nd.zeros(shape, ctx=ctx))
    return net


def _inputs(n, ctx, shape=(4, 3, 12, 12)):
    rng = np.random.default_rng(n)
    return [mx.nd.array(rng.standard_normal(shape), ctx=ctx) for _ in range(n)]


def _plans(net):
    return list(net._cached_op.plans.values())


@pytest.mark.gpu
@pytest.mark.parametrize("dropout", [False, True])
def test_replay_matches_step_by_step(monkeypatch, dropout):
    ctx = mx.gpu(0)
    xs = _inputs(6, ctx)
    monkeypatch.setenv("GLUONLITE_CUDA_GRAPHS", "0")
    plain = _built(lambda: _cnn(dropout), ctx)
    expected = [plain(x).asnumpy() for x in xs]
    monkeypatch.setenv("GLUONLITE_CUDA_GRAPHS", "1")
    net = _built(lambda: _cnn(dropout), ctx)
    kept = [net(x) for x in xs]          # results kept across calls must stay intact
    for k, e in zip(kept, expected):
        np.testing.assert_allclose(k.asnumpy(), e, rtol=1e-5, atol=1e-6)
    (plan,) = _plans(net)
    assert plan.graph is not None and plan.graph.n_graphs >= 1
    # the Dense layers' GEMMs (cuBLAS) run between graphs
    assert any(kind == "eager" for kind, _ in plan.graph.segments)


@pytest.mark.gpu
def test_non_contiguous_input_and_updated_parameters(monkeypatch):
    monkeypatch.setenv("GLUONLITE_CUDA_GRAPHS", "1")
    ctx = mx.gpu(0)
    net = _built(_cnn, ctx)
    ref = _built(_cnn, mx.cpu(), static=False)
    base = np.random.default_rng(0).standard_normal((4, 12, 12, 3))
    for step in range(4):
        x = mx.nd.array(base + step, ctx=ctx).transpose((0, 3, 1, 2))   # a strided view
        y = net(x)
        np.testing.assert_allclose(y.asnumpy(), ref(x.copyto(mx.cpu())).asnumpy(),
                                   rtol=1e-4, atol=1e-5, err_msg=f"call {step + 2}")
        # parameters changed in place (as an optimizer does) and rebound (set_data)
        for (name, p), (_, q) in zip(net.collect_params().items(),
                                     ref.collect_params().items()):
            if name.endswith("weight"):
                new = p.data() * 0.9
                if step % 2:
                    p.data()[:] = new
                else:
                    p.set_data(new)
                q.set_data(new.copyto(mx.cpu()))


@pytest.mark.gpu
def test_recorded_calls_run_step_by_step(monkeypatch):
    monkeypatch.setenv("GLUONLITE_CUDA_GRAPHS", "1")
    ctx = mx.gpu(0)
    net = _built(_cnn, ctx)
    x = _inputs(1, ctx)[0]
    for _ in range(3):
        net(x)
    with mx.autograd.record():
        y = net(x)
    y.backward()
    training = [p for p in _plans(net) if p.backward_plan is not None]
    assert training and all(p.graph is None for p in training)
    g = net[0].weight.grad().asnumpy()
    assert np.isfinite(g).all() and np.abs(g).sum() > 0


@pytest.mark.gpu
def test_without_static_shape_no_graph(monkeypatch):
    monkeypatch.setenv("GLUONLITE_CUDA_GRAPHS", "1")
    ctx = mx.gpu(0)
    net = _cnn()
    net.initialize(ctx=ctx)
    net.hybridize(static_alloc=True)
    for x in _inputs(3, ctx):
        net(x)
    assert all(p.graph is None for p in _plans(net))


def test_switch_and_stand_in():
    assert not cuda_graph.usable(np)

    class Stand:  # the test-only fake CuPy is not "cupy"
        __name__ = "fake_cupy"
    assert not cuda_graph.usable(Stand())


def test_cpu_plans_never_capture():
    net = _built(_cnn, mx.cpu())
    for x in _inputs(3, mx.cpu()):
        net(x)
    assert all(p.graph is None for p in _plans(net))
