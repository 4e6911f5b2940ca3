"""CachedOp on multi-node graphs: plans, memory, backward, monitor, lower-level API."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError
from gluonlite.engine import CachedOp
from gluonlite.engine import memory as memory_mod
from gluonlite.engine import plan as plan_mod

rng = np.random.default_rng(0)


def mlp(layers: int, hidden: int, act="relu", bn=False):
    """data -> [FullyConnected -> (BatchNorm) -> Activation] * layers."""
    cur = mx.sym.var("data")
    for i in range(layers):
        cur = mx.sym.FullyConnected(cur, num_hidden=hidden, name=f"fc{i}")
        if bn:
            cur = mx.sym.BatchNorm(cur, fix_gamma=False, name=f"bn{i}")
        cur = mx.sym.Activation(cur, act_type=act, name=f"act{i}")
    return cur


def _mlp_arrays(sym, batch, in_dim, hidden):
    out = []
    prev = in_dim
    for name in CachedOp(sym).list_inputs():
        if name == "data":
            a = rng.standard_normal((batch, in_dim))
        elif name.endswith("_weight"):
            a = rng.standard_normal((hidden, prev)) / np.sqrt(prev)
            prev = hidden
        elif name.endswith("_bias") or name.endswith("_beta") or name.endswith("_mean"):
            a = rng.standard_normal(hidden) * 0.1
        else:  # gamma, moving_var
            a = rng.uniform(0.5, 1.5, hidden)
        out.append(mx.nd.array(a))
    return out


def _imperative_mlp(inputs, names, layers, bn=False, act="relu"):
    d = dict(zip(names, inputs))
    cur = d["data"]
    for i in range(layers):
        cur = mx.nd.FullyConnected(cur, d[f"fc{i}_weight"], d[f"fc{i}_bias"],
                                   num_hidden=d[f"fc{i}_weight"].shape[0])
        if bn:
            cur = mx.nd.BatchNorm(cur, d[f"bn{i}_gamma"], d[f"bn{i}_beta"],
                                  d[f"bn{i}_moving_mean"], d[f"bn{i}_moving_var"], fix_gamma=False)
        cur = mx.nd.Activation(cur, act_type=act)
    return cur


def test_mlp_forward_and_plan_reuse():
    sym = mlp(5, 8, act="tanh")
    cop = CachedOp(sym)
    ins = _mlp_arrays(sym, 4, 6, 8)
    y = cop(*ins)
    ref = _imperative_mlp(ins, cop.list_inputs(), 5, act="tanh")
    np.testing.assert_allclose(y.asnumpy(), ref.asnumpy(), rtol=1e-6, atol=1e-7)
    cop(*ins)
    assert len(cop.plans) == 1
    # a new batch size is a new signature
    ins2 = [mx.nd.array(rng.standard_normal((3, 6)))] + ins[1:]
    y2 = cop(*ins2)
    assert len(cop.plans) == 2 and y2.shape == (3, 8)
    with mx.autograd.train_mode():
        cop(*ins)
    assert len(cop.plans) == 3


def test_mlp_memory_plan_peak_below_sum_of_intermediates():
    layers, batch, hidden = 20, 32, 64
    sym = mlp(layers, hidden)
    cop = CachedOp(sym)
    ins = _mlp_arrays(sym, batch, hidden, hidden)
    cop(*ins)
    plan = next(iter(cop.plans.values()))
    entry = batch * hidden * 4
    intermediates = (2 * layers - 1) * entry  # every output except the head
    assert plan.planned_bytes <= 2 * entry
    assert plan.planned_bytes < intermediates / 10
    np.testing.assert_allclose(cop(*ins).asnumpy(),
                               _imperative_mlp(ins, cop.list_inputs(), layers).asnumpy(),
                               rtol=1e-5, atol=1e-6)


def test_static_alloc_allocates_once():
    sym = mlp(4, 8)
    ins_a = _mlp_arrays(sym, 4, 8, 8)
    ins_b = [mx.nd.array(rng.standard_normal((2, 8)))] + ins_a[1:]
    static = CachedOp(sym, [("static_alloc", True), ("static_shape", True)])
    dynamic = CachedOp(sym)
    for c in (static, dynamic):
        c(*ins_a)
        c(*ins_b)
        c(*ins_a)
        c(*ins_a)
    key_a = next(iter(static.plans))
    assert static.plans[key_a].n_allocations == len(static.plans[key_a].memory.sizes)
    # without static_alloc, switching signatures drops the buffers of the previous one
    dyn_a = dynamic.plans[key_a]
    assert dyn_a.n_allocations == 2 * len(dyn_a.memory.sizes)
    np.testing.assert_allclose(static(*ins_a).asnumpy(), dynamic(*ins_a).asnumpy())


def test_outputs_are_not_overwritten_by_later_calls():
    sym = mlp(3, 8)
    cop = CachedOp(sym, {"static_alloc": True})
    ins = _mlp_arrays(sym, 4, 8, 8)
    y1 = cop(*ins)
    keep = y1.asnumpy()
    ins2 = [mx.nd.array(rng.standard_normal((4, 8)))] + ins[1:]
    cop(*ins2)
    np.testing.assert_array_equal(y1.asnumpy(), keep)


def _diamond():
    """Entries used several times, two heads (one of them an input), a hidden output."""
    x, w = mx.sym.var("x"), mx.sym.var("w")
    a = mx.sym.elemwise_mul(x, w, name="a")
    b = mx.sym.tanh(a, name="b")
    c = mx.sym.elemwise_add(b, a, name="c")
    d = mx.sym.elemwise_mul(c, b, name="d")
    e = mx.sym.sum(d, name="e")
    return mx.sym.Group([e, c, x])


def _diamond_imperative(x, w):
    a = x * w
    b = mx.nd.tanh(a)
    c = b + a
    d = c * b
    return [mx.nd.sum(d), c, x]


def test_multi_head_graph_gradients_match_autograd():
    cop = CachedOp(_diamond())
    xs = rng.standard_normal((3, 4))
    ws = rng.standard_normal((3, 4))
    hgs = [mx.nd.array(rng.standard_normal(s)) for s in [(1,), (3, 4), (3, 4)]]
    grads = []
    for fn in (cop, lambda x, w: _diamond_imperative(x, w)):
        x, w = mx.nd.array(xs), mx.nd.array(ws)
        x.attach_grad()
        w.attach_grad()
        with mx.autograd.record():
            outs = fn(x, w)
        mx.autograd.backward(outs, hgs)
        grads.append((x.grad.asnumpy(), w.grad.asnumpy(), [o.asnumpy() for o in outs]))
    for g, e in zip(grads[0][:2], grads[1][:2]):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-7)
    for g, e in zip(grads[0][2], grads[1][2]):
        np.testing.assert_allclose(g, e, rtol=1e-6)


def test_one_tape_entry_and_composition_with_imperative_ops():
    cop = CachedOp(_diamond())
    x, w = mx.nd.array(rng.standard_normal((2, 2))), mx.nd.array(rng.standard_normal((2, 2)))
    x.attach_grad()
    with mx.autograd.record():
        e, c, _ = cop(x * 2, w)
        loss = (e * 3).sum() + c.sum()
    assert e._entry[0] is c._entry[0], "one CachedOp call is one tape entry"
    loss.backward()
    x2 = mx.nd.array(x.asnumpy())
    x2.attach_grad()
    with mx.autograd.record():
        e2, c2, _ = _diamond_imperative(x2 * 2, w)
        loss2 = (e2 * 3).sum() + c2.sum()
    loss2.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), x2.grad.asnumpy(), rtol=1e-6, atol=1e-7)


def test_inputs_without_grad_get_no_gradient_work():
    sym = mlp(3, 8)
    cop = CachedOp(sym)
    ins = _mlp_arrays(sym, 4, 8, 8)
    names = cop.list_inputs()
    ins[names.index("fc2_weight")].attach_grad()  # only the last layer's weight
    with mx.autograd.record():
        y = cop(*ins)
    y.backward()
    plan = next(iter(cop.plans.values()))
    assert [s[-1] for s in plan.backward_plan.steps] == ["act2", "fc2"]
    assert ins[names.index("fc2_weight")].grad.asnumpy().any()


def test_batchnorm_aux_updated_in_training_like_imperative():
    sym = mlp(2, 5, bn=True)
    cop = CachedOp(sym)
    base = _mlp_arrays(sym, 6, 5, 5)
    names = cop.list_inputs()
    assert names[:5] == ["data", "fc0_weight", "fc0_bias", "bn0_gamma", "bn0_beta"]
    assert "bn0_moving_mean" in names
    a = [mx.nd.array(t.asnumpy()) for t in base]
    b = [mx.nd.array(t.asnumpy()) for t in base]
    for t in a[1:3] + b[1:3]:
        t.attach_grad()
    mm = a[names.index("bn1_moving_mean")]
    version = mm._get_chunk().version
    with mx.autograd.record():
        ya = cop(*a)
        yb = _imperative_mlp(b, names, 2, bn=True)
    assert mm._get_chunk().version > version
    ya.backward()
    yb.backward()
    for ta, tb in zip(a, b):
        np.testing.assert_allclose(ta.asnumpy(), tb.asnumpy(), rtol=1e-6, atol=1e-7)
    for ta, tb in zip(a[1:3], b[1:3]):
        np.testing.assert_allclose(ta.grad.asnumpy(), tb.grad.asnumpy(), rtol=1e-5, atol=1e-6)


def test_inplace_change_of_saved_input_raises():
    cop = CachedOp(_diamond())
    x, w = mx.nd.array(np.ones((2, 2))), mx.nd.array(np.ones((2, 2)))
    w.attach_grad()
    with mx.autograd.record():
        e, _, _ = cop(x, w)
    x[:] = 3
    with pytest.raises(MXNetError, match="modified"):
        e.backward()


def test_monitor_reports_every_node_output():
    sym = mlp(2, 4, bn=True)
    cop = CachedOp(sym)
    seen = []
    cop.set_monitor_callback(lambda name, arr: seen.append((name, arr.asnumpy().copy())))
    ins = _mlp_arrays(sym, 3, 4, 4)
    y = cop(*ins)
    names = [n for n, _ in seen]
    assert names == ["fc0_output", "bn0_output", "bn0_mean", "bn0_var", "act0_output",
                     "fc1_output", "bn1_output", "bn1_mean", "bn1_var", "act1_output"]
    np.testing.assert_array_equal(seen[-1][1], y.asnumpy())
    plan = next(iter(cop.plans.values()))
    assert not any(plan.planned)
    seen.clear()
    cop.set_monitor_callback(lambda name, arr: seen.append(name), monitor_all=True)
    cop(*ins)
    assert "fc0_weight" in seen and "fc0_data" in seen and seen[-1] == "act1_output"


def test_lower_level_forward_backward():
    cop = CachedOp(_diamond())
    x, w = mx.nd.array(rng.standard_normal((2, 3))), mx.nd.array(rng.standard_normal((2, 3)))
    outs, state = cop.forward([x, w], is_train=True, need_grad=[False, True])
    assert len(outs) == 3 and state is not None
    grads = cop.backward(state, [mx.nd.ones((1,)), None, None])
    assert grads[0] is None
    w2 = mx.nd.array(w.asnumpy())
    w2.attach_grad()
    with mx.autograd.record():
        e, _, _ = _diamond_imperative(x, w2)
    e.backward()
    np.testing.assert_allclose(grads[1], w2.grad.asnumpy(), rtol=1e-6, atol=1e-7)
    outs, state = cop.forward([x, w])
    assert state is None
    with pytest.raises(MXNetError):
        cop.backward(state, [None, None, None])


def test_errors_name_the_node():
    cop = CachedOp(mx.sym.elemwise_add(mx.sym.var("x"), mx.sym.var("y"), name="adder"))
    with pytest.raises(MXNetError, match="adder"):
        cop(mx.nd.ones((2, 3)), mx.nd.ones((3, 2)))
    with pytest.raises(MXNetError, match="expected 2 inputs"):
        cop(mx.nd.ones((2, 3)))


def test_out_argument_and_flags_forms():
    cop = CachedOp(_diamond(), [("static_alloc", "True"), ("data_indices", [0])])
    assert cop.static_alloc and cop.data_indices == [0]
    x, w = mx.nd.ones((2, 2)), mx.nd.ones((2, 2))
    outs = [mx.nd.zeros((1,)), mx.nd.zeros((2, 2)), mx.nd.zeros((2, 2))]
    res = cop(x, w, out=outs)
    assert res[0] is outs[0]
    np.testing.assert_allclose(outs[1].asnumpy(), np.tanh(1) + 1, rtol=1e-6)
    assert mx.nd.CachedOp is CachedOp


def _premature(step_ins, step_outs, planned, shapes, dtypes, reuse=True):
    """A wrong memory plan: every buffer is released right after it is written."""
    mp = memory_mod.plan_memory(step_ins, step_outs, planned, shapes, dtypes, reuse=False)
    mp.release_after = [[mp.slot_buffer[s] for s in outs if s in mp.slot_buffer]
                        for outs in step_outs]
    return mp


def test_debug_mode_poisons_freed_buffers(monkeypatch):
    """A liveness bug (buffers freed too early) shows up as NaN in debug mode."""
    monkeypatch.setattr(plan_mod, "plan_memory", _premature)
    sym = mlp(3, 4, act="tanh")
    ins = _mlp_arrays(sym, 2, 4, 4)
    assert np.isfinite(CachedOp(sym)(*ins).asnumpy()).all()
    assert np.isnan(CachedOp(sym, {"debug": True})(*ins).asnumpy()).all()


class _TanhScale:
    """A stand-in for a fused group: ``tanh`` then ``* scalar`` as one step."""

    name = "fake_group"
    differentiable = True
    random = False
    backward_uses = ("outputs",)

    def __init__(self, scalar):
        self.scalar = scalar

    def forward(self, oc, attrs, inputs, out):
        y = oc.xp.tanh(inputs[0]) * self.scalar
        if out is None:
            return [y]
        out[0][...] = y
        return out

    def backward(self, oc, attrs, inputs, outputs, out_grads):
        t = outputs[0] / self.scalar
        return [out_grads[0] * (1 - t * t) * self.scalar]


def _fake_rewrite(units, pinned, shapes, dtypes, oc, grad):
    """Fuse every ``tanh`` unit whose only reader is a ``_mul_scalar`` unit."""
    from gluonlite.engine.graph_info import OpUnit
    readers = {}
    for u in units:
        for s in u.ins:
            readers.setdefault(s, []).append(u)
    out, skip = [], set()
    for u in units:
        if id(u) in skip:
            continue
        nxt = readers.get(u.outs[0], [])
        if (u.op.name == "tanh" and len(nxt) == 1 and nxt[0].op.name == "_mul_scalar"
                and u.outs[0] not in pinned):
            m = nxt[0]
            out.append(OpUnit(_TanhScale(m.attrs.scalar), None, "fused", u.ins, m.outs))
            skip.add(id(m))
        else:
            out.append(u)
    return out


def test_rewrite_hook_runs_group_forward_and_backward():
    """The fusion hook: a unit whose op is any object with OpDef's forward/backward."""
    from gluonlite.engine.graph_info import GraphInfo
    from gluonlite.engine.plan import ForwardPlan
    from gluonlite.ops.registry import OpContext
    x = mx.sym.var("x")
    y = mx.sym.elemwise_add(x, mx.sym.tanh(x) * 3.0)
    info = GraphInfo(y._heads)
    oc = OpContext(np, False, mx.cpu())
    xs = rng.standard_normal((3, 4))
    plain = ForwardPlan(info, [xs.shape], [xs.dtype], oc, [True])
    fused = ForwardPlan(info, [xs.shape], [xs.dtype], oc, [True], rewrite=_fake_rewrite)
    assert len(fused.units) == len(plain.units) - 1
    assert "fused" in [s[-1] for s in fused.backward_plan.steps]
    (h1,), saved1 = plain.run([xs], keep=True)
    (h2,), saved2 = fused.run([xs], keep=True)
    np.testing.assert_allclose(h2, h1, rtol=1e-12)
    hg = rng.standard_normal((3, 4))
    np.testing.assert_allclose(fused.backward(saved2, [hg])[0], plain.backward(saved1, [hg])[0],
                               rtol=1e-12)


def test_equal_but_distinct_contexts_skip_the_full_input_check(monkeypatch):
    # every loaded parameter carries its own Context object equal to cpu(0): the per-call
    # check must compare them, not re-run the O(inputs) check once per input
    out = mx.sym.var("x")
    for i in range(20):
        out = out + mx.sym.var(f"w{i}")
    op = CachedOp(out)
    arrays = [mx.nd.ones((2,)) for _ in range(21)]
    for a in arrays:
        a._ctx = mx.Context("cpu", 0)  # distinct, equal objects
    calls = []
    original = CachedOp._check_inputs
    monkeypatch.setattr(CachedOp, "_check_inputs",
                        lambda self, inputs: calls.append(1) or original(self, inputs))
    res = op(*arrays)
    assert res.asnumpy().tolist() == [21.0, 21.0]
    assert calls == []
    arrays[3]._ctx = mx.Context("cpu", 1)
    with pytest.raises(mx.base.MXNetError, match="different devices"):
        op(*arrays)


def test_a_planned_buffer_that_cannot_be_allocated_raises_mxneterror():
    # the pooled output (about 16 TB) cannot be allocated: the plan names the operator,
    # the output's shape and the bytes (NumPy's MemoryError came through before)
    data = mx.sym.var("data")
    graph = mx.sym.relu(mx.sym.Pooling(data, kernel=(2, 2), pad=(1000000, 1000000),
                                       name="pool"), name="act") * 2
    for static in (False, True):
        op = CachedOp(graph, [("static_alloc", static)])
        with pytest.raises(mx.MXNetError, match=r"cannot allocate \d+ bytes for the output "
                                                r"of operator Pooling \(node pool\), shape "
                                                r"\(1, 1, 2000007, 2000007\) float32"):
            op(mx.nd.ones((1, 1, 8, 8)))
