"""``fusion.rewrite``, the CachedOp's fusion hook, run through a real ``ForwardPlan``
(on NumPy: the fused units run their members, so the numbers must not change)."""
from __future__ import annotations

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.engine.fused_kernel import FusedGroup
from gluonlite.engine.fusion import rewrite
from gluonlite.engine.graph_info import GraphInfo
from gluonlite.engine.plan import ForwardPlan, PlanOptions
from gluonlite.ops.registry import OpContext

OC = OpContext(np, False, mx.cpu())


def _net():
    x, w, b = mx.sym.var("x"), mx.sym.var("w"), mx.sym.var("b")
    h = mx.sym.FullyConnected(x, w, b, num_hidden=6, name="fc")
    t = mx.sym.Activation(h * 2.0 + 1.0, act_type="sigmoid")
    t = mx.sym.broadcast_mul(t, mx.sym.exp(b))
    s = mx.sym.sum(t, axis=1, keepdims=True)      # not fusable, reads t
    u = mx.sym.broadcast_add(mx.sym.relu(mx.sym.tanh(t - 0.5)), x.sum(axis=1, keepdims=True))
    out = mx.sym.broadcast_div(u, s + 10.0)
    return mx.sym.Group([out, mx.sym.LeakyReLU(t, act_type="elu")])


def _plans(sym, shapes, grad_mask, options=None):
    info = GraphInfo(sym._heads)
    dtypes = [np.float64] * len(shapes)
    plain = ForwardPlan(info, shapes, dtypes, OC, grad_mask, options)
    fused = ForwardPlan(info, shapes, dtypes, OC, grad_mask, options, rewrite=rewrite)
    return info, plain, fused


def _inputs(info, shapes):
    rng = np.random.default_rng(0)
    return [rng.uniform(-1, 1, s) for s in shapes]


def test_rewrite_replaces_groups_and_keeps_results():
    sym = _net()
    shapes = [(4, 5), (6, 5), (6,)]
    info, plain, fused = _plans(sym, shapes, [True, True, True])
    kinds = [type(u.op).__name__ for u in fused.units]
    assert kinds.count("FusedGroup") >= 2 and len(fused.units) < len(plain.units)
    datas = _inputs(info, shapes)
    h1, saved1 = plain.run(datas, keep=True)
    h2, saved2 = fused.run(datas, keep=True)
    for a, b in zip(h2, h1):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    rng = np.random.default_rng(1)
    hg = [rng.uniform(-1, 1, h.shape) for h in h1]
    g1 = plain.backward(saved1, hg)
    g2 = fused.backward(saved2, hg)
    for a, b in zip(g2, g1):
        np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-14)
    # a second run through the same (memory-planned) buffers gives the same numbers
    h3, _ = fused.run([d * 0.5 for d in datas], keep=True)
    h4, _ = plain.run([d * 0.5 for d in datas], keep=True)
    np.testing.assert_allclose(h3[0], h4[0], rtol=1e-12)


def test_rewrite_keeps_topological_order():
    # exp(x) feeds sum (not fusable), and tanh(exp(x)) comes after sum in the DFS order:
    # the fused unit must move before sum
    x = mx.sym.var("x")
    a = mx.sym.exp(x)
    out = mx.sym.Group([mx.sym.sum(a), mx.sym.tanh(a)])
    info, plain, fused = _plans(out, [(3, 2)], None)
    names = [u.op.name for u in fused.units]
    assert names.index("sum") > [i for i, u in enumerate(fused.units)
                                 if isinstance(u.op, FusedGroup)][0]
    datas = _inputs(info, [(3, 2)])
    for a_, b_ in zip(fused.run(datas)[0], plain.run(datas)[0]):
        np.testing.assert_allclose(a_, b_, rtol=1e-12)


def test_monitor_and_disabled_fusion_leave_units_alone(monkeypatch):
    sym = _net()
    shapes = [(4, 5), (6, 5), (6,)]
    seen = []
    opts = PlanOptions(monitor=lambda name, data: seen.append(name))
    _, plain, fused = _plans(sym, shapes, None, opts)
    assert len(fused.units) == len(plain.units)
    monkeypatch.setenv("GLUONLITE_FUSION", "0")
    _, plain, fused = _plans(sym, shapes, None)
    assert len(fused.units) == len(plain.units)


@pytest.mark.gpu
def test_cached_op_fuses_on_gpu():
    from gluonlite.engine import CachedOp
    sym = _net()
    shapes = [(4, 5), (6, 5), (6,)]
    datas = _inputs(None, shapes)
    results = []
    for ctx in (mx.cpu(), mx.gpu(0)):
        op = CachedOp(sym)
        xs = [mx.nd.array(d, ctx=ctx, dtype="float64") for d in datas]
        for x in xs:
            x.attach_grad()
        with mx.autograd.record():
            outs = op(*xs)
        mx.autograd.backward(outs, [mx.nd.ones_like(o) for o in outs])
        results.append(([o.asnumpy() for o in outs], [x.grad.asnumpy() for x in xs], op))
    (o_cpu, g_cpu, _), (o_gpu, g_gpu, gop) = results
    for a, b in zip(o_gpu + g_gpu, o_cpu + g_cpu):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-13)
    plan = next(iter(gop.plans.values()))
    assert any(isinstance(u.op, FusedGroup) for u in plan.units)
