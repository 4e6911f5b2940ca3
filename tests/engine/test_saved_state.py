"""Per-call saved state (``OpDef.saved_state``): what a forward keeps reaches the backward
of the same call and no other, imperatively (invoke + tape) and through the CachedOp's
plans (default, ``static_alloc``, ``static_shape``, the Executor-style forward/backward
API), over a retained graph, next to ``create_graph``; and a forward whose backward
never runs holds its state only as long as its outputs."""
import gc
import itertools
import weakref

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, nd
from gluonlite.gluon import nn
from gluonlite.ops.registry import OpContext, get_op

_COUNTER = itertools.count(1)
_INSTANCES: list = []


class _PerCallScale(mx.operator.CustomOp):
    """``y = k x`` with ``k`` drawn afresh by every forward and kept on the instance:
    a backward run on another call's instance gives a visibly wrong gradient."""

    def __init__(self):
        super().__init__()
        _INSTANCES.append(weakref.ref(self))
        self.k = None

    def forward(self, is_train, req, in_data, out_data, aux):
        self.k = float(next(_COUNTER))
        self.assign(out_data[0], req[0], in_data[0] * self.k)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], out_grad[0] * self.k)


@mx.operator.register("t_per_call_scale")
class _PerCallScaleProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, in_shapes, in_dtypes):
        return _PerCallScale()


def _k_of(y, x):
    """The factor a call used, read off its output."""
    return float(y.asnumpy().ravel()[0] / x.asnumpy().ravel()[0])


class _Scale(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        return F.Custom(x, op_type="t_per_call_scale") * 1.0


FLAGS = [{}, {"static_alloc": True}, {"static_alloc": True, "static_shape": True}]
FLAG_IDS = ["default", "static_alloc", "static_shape"]


def _two_calls_reverse_backward(fn):
    x1, x2 = nd.array([1.0, 2.0]), nd.array([3.0, 5.0])
    x1.attach_grad()
    x2.attach_grad()
    with autograd.record():
        y1 = fn(x1)
        y2 = fn(x2)
    k1, k2 = _k_of(y1, x1), _k_of(y2, x2)
    assert k1 != k2
    y2.backward()
    y1.backward()
    np.testing.assert_allclose(x1.grad.asnumpy(), [k1, k1])
    np.testing.assert_allclose(x2.grad.asnumpy(), [k2, k2])


def test_imperative_two_calls_in_flight():
    _two_calls_reverse_backward(lambda x: nd.Custom(x, op_type="t_per_call_scale"))


@pytest.mark.parametrize("flags", FLAGS, ids=FLAG_IDS)
def test_hybridized_two_calls_in_flight(flags):
    net = _Scale()
    net.hybridize(**flags)
    _two_calls_reverse_backward(net)


@pytest.mark.parametrize("hybridize", [False, True])
def test_retained_graph_second_backward_gets_the_same_state(hybridize):
    net = _Scale()
    if hybridize:
        net.hybridize(static_alloc=True)
    x = nd.array([1.0, 2.0])
    x.attach_grad(grad_req="add")
    with autograd.record():
        y = net(x)
    k = _k_of(y, x)
    y.backward(retain_graph=True)
    with autograd.record():           # a later call in between must not take over
        other = net(nd.array([1.0, 1.0]))
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [2 * k, 2 * k])
    with pytest.raises(mx.base.MXNetError, match="freed"):
        y.backward()
    del other


def test_cached_op_forward_backward_api_keeps_states_apart():
    data = mx.sym.var("data")
    sym = mx.sym.Custom(data, op_type="t_per_call_scale")
    cop = nd.CachedOp(sym)
    x1, x2 = nd.array([1.0, 2.0]), nd.array([4.0, 4.0])
    (y1,), s1 = cop.forward([x1], is_train=True, need_grad=True)
    (y2,), s2 = cop.forward([x2], is_train=True, need_grad=True)
    g2 = cop.backward(s2, [nd.ones((2,))])
    g1 = cop.backward(s1, [nd.ones((2,))])
    np.testing.assert_allclose(g1[0], [_k_of(y1, x1)] * 2)
    np.testing.assert_allclose(g2[0], [_k_of(y2, x2)] * 2)


def _live_instances():
    gc.collect()
    return sum(ref() is not None for ref in _INSTANCES)


@pytest.mark.parametrize("hybridize", [False, True])
def test_unused_training_forward_does_not_hold_its_state(hybridize):
    net = _Scale()
    if hybridize:
        net.hybridize(static_alloc=True)
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    base = _live_instances()
    for _ in range(5):
        with autograd.record():
            y = net(x)                # never differentiated
    assert _live_instances() <= base + 1
    del y
    assert _live_instances() == base


def test_backward_drops_the_state_at_once():
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    base = _live_instances()
    with autograd.record():
        y = nd.Custom(x, op_type="t_per_call_scale")
    assert _live_instances() == base + 1
    y.backward()
    assert _live_instances() == base   # y is alive, its graph is freed


def test_create_graph_beside_a_stateful_call():
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = nd.Custom(x, op_type="t_per_call_scale")
        u = x * x
    k = _k_of(y, x)
    with autograd.record():
        g = autograd.grad(u, [x], create_graph=True)[0]     # 2 x, itself recorded
        total = g.sum() + y.sum()
    np.testing.assert_allclose(g.asnumpy(), [2.0, 4.0])
    total.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [2.0 + k, 2.0 + k])


def test_direct_calls_without_state_still_work():
    """Callers that carry no state (a backward called directly) get a fresh operator."""
    op = get_op("Custom")
    attrs = op.parse_attrs({"op_type": "t_per_call_scale"})
    oc = OpContext(np, True, mx.cpu())
    x = np.array([1.0, 2.0])
    outs = op.forward(oc, attrs, [x], None)
    assert isinstance(outs, list) and len(outs) == 1
    outs, state = op.forward(oc, attrs, [x], None, keep_state=True)
    assert isinstance(state, _PerCallScale)
    g = op.backward(oc, attrs, [x], outs, [np.ones(2)], state=state)
    np.testing.assert_allclose(g[0], [state.k] * 2)


# -- Convolution: the kept columns of every layout -----------------------------------------
CONV_CASES = {
    # name: (data shape, weight shape, attributes, layout path the state is tagged with)
    "channel_first": ((2, 1, 6, 6), (8, 1, 3, 3), {}, "whole"),
    "batch_last": ((2, 8, 6, 6), (4, 4, 3, 3), {"num_group": 2}, "whole"),
    "rows": ((3, 8, 6, 6), (4, 8, 3, 3), {"pad": (1, 1)}, "rows"),
    "batch_first": ((2, 1, 16, 16), (16, 1, 3, 3), {}, "chunked"),
    "channel_last": ((2, 6, 6, 8), (4, 3, 3, 8), {"layout": "NHWC"}, "rows"),
}


def _conv(x, w, b, attrs):
    return nd.Convolution(x, w, b, kernel=(3, 3), num_filter=w.shape[0], **attrs)


@pytest.mark.parametrize("case", sorted(CONV_CASES))
def test_convolution_state_per_call(case):
    xs, ws, attrs, path = CONV_CASES[case]
    rng = np.random.default_rng(0)
    op = get_op("Convolution")
    parsed = op.parse_attrs(dict(attrs, kernel=(3, 3), num_filter=ws[0]))
    oc = OpContext(np, True, mx.cpu())
    raw = [rng.standard_normal(xs), rng.standard_normal(ws), rng.standard_normal(ws[0])]
    _, state = op.forward(oc, parsed, raw, None, keep_state=True)
    assert state is not None and state[0] == path
    inputs = [[rng.standard_normal(xs), rng.standard_normal(ws), rng.standard_normal(ws[0])]
              for _ in range(2)]
    heads = [rng.standard_normal(_conv(nd.array(i[0]), nd.array(i[1]), nd.array(i[2]),
                                       attrs).shape) for i in inputs]

    def grads(which):
        arrs = [[nd.array(a) for a in inputs[k]] for k in which]
        for a in arrs:
            for v in a:
                v.attach_grad()
        with autograd.record():
            ys = [_conv(*a, attrs) for a in arrs]
        for k, y in reversed(list(zip(which, ys))):
            y.backward(nd.array(heads[k]))
        return [[v.grad.asnumpy() for v in a] for a in arrs]

    together = grads([0, 1])
    alone = grads([0]) + grads([1])
    for got, want in zip(together, alone):
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("flags", FLAGS, ids=FLAG_IDS)
def test_hybridized_conv_net_two_calls_in_flight(flags):
    def make():
        net = nn.HybridSequential()
        net.add(nn.Conv2D(8, 3, in_channels=1, activation="relu"),
                nn.Conv2D(6, 3, in_channels=8, padding=1))
        net.initialize(mx.init.Xavier(), force_reinit=True)
        return net
    mx.random.seed(3)
    net = make()
    rng = np.random.default_rng(1)
    xs = [nd.array(rng.standard_normal((4, 1, 10, 10))) for _ in range(2)]
    params = list(net.collect_params().values())

    def grads(calls):
        with autograd.record():
            ys = [net(xs[k]) for k in calls]
        got = []
        for y in reversed(ys):
            y.backward()
            got.append([p.grad().asnumpy().copy() for p in params])
        return got[::-1]

    want = [grads([0])[0], grads([1])[0]]
    net.hybridize(**flags)
    got = grads([0, 1])
    for g_call, w_call in zip(got, want):
        for g, w in zip(g_call, w_call):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_placed_cached_op_runs_groups_on_their_devices_with_state():
    """A CachedOp with ``group2ctx`` (model parallelism): outputs live on their node's
    device, gradients return to the inputs' devices, saved state still reaches backward
    (a Convolution in a group), and the numbers equal the unplaced graph's."""
    with mx.AttrScope(ctx_group="dev1"):
        x = mx.sym.var("x")
        conv = mx.sym.Convolution(x, kernel=(3, 3), num_filter=2, name="conv")
    with mx.AttrScope(ctx_group="dev2"):
        y = mx.sym.relu(conv) * 3
    rng = np.random.default_rng(2)
    args = [rng.normal(size=(2, 1, 5, 5)), rng.normal(size=(2, 1, 3, 3)),
            rng.normal(size=(2,))]
    results = []
    for flags in ([("group2ctx", {"dev1": mx.cpu(1), "dev2": mx.cpu(2)})], []):
        op = mx.nd.CachedOp(y, flags=flags)
        ctxs = [mx.cpu(1)] * 3 if flags else [mx.cpu(0)] * 3
        arrs = [mx.nd.array(a, ctx=c) for a, c in zip(args, ctxs)]
        for a in arrs:
            a.attach_grad()
        with mx.autograd.record():
            out = op(*arrs)
        out.backward(mx.nd.ones(out.shape, ctx=out.context))
        results.append((out, [a.grad for a in arrs]))
    (out, grads), (ref, ref_grads) = results
    assert out.context == mx.cpu(2)
    assert [g.context for g in grads] == [mx.cpu(1)] * 3
    np.testing.assert_allclose(out.asnumpy(), ref.asnumpy(), rtol=1e-6)
    for g, r in zip(grads, ref_grads):
        np.testing.assert_allclose(g.asnumpy(), r.asnumpy(), rtol=1e-6)
