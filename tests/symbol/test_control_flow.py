"""``sym.contrib.foreach``/``while_loop``/``cond`` in gluonlite's graphs: hybridized blocks
against the same blocks run imperatively (outputs and gradients), deferred
initialization through a loop body, static plans called again, MXNet's errors, and
malformed ``subgraphs`` in JSON.  Numbers against MXNet itself are in
``test_control_flow_mxnet.py``."""
import json

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import gluon
from gluonlite.base import MXNetError


def _run_both(make, inputs, static=False):
    """Outputs and input gradients of ``make()`` run imperatively and hybridized."""
    results = []
    for hybridize in (False, True):
        net = make()
        net.initialize(mx.init.Uniform(0.5))
        arrs = [mx.nd.array(a) for a in inputs]
        net(*arrs)  # deferred initialization
        mx.random.seed(3)
        for p in net.collect_params().values():
            p.set_data(mx.nd.random.uniform(-0.5, 0.5, p.shape))
        if hybridize:
            net.hybridize(static_alloc=static, static_shape=static)
        for a in arrs:
            a.attach_grad()
        for _ in range(2):  # a second call reuses the plans
            with mx.autograd.record():
                outs = net(*arrs)
                outs = outs if isinstance(outs, (list, tuple)) else [outs]
                loss = sum((o * (k + 1)).sum() for k, o in enumerate(outs))
            loss.backward()
        results.append(([o.asnumpy() for o in outs], [a.grad.asnumpy() for a in arrs],
                        {k.split("_", 1)[1]: p.grad().asnumpy()
                         for k, p in net.collect_params().items()}))
    return results


def _assert_same(results):
    (o1, g1, p1), (o2, g2, p2) = results
    for a, b in zip(o1, o2):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    for a, b in zip(g1, g2):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert p1.keys() == p2.keys()
    for k in p1:
        np.testing.assert_allclose(p1[k], p2[k], rtol=1e-5, atol=1e-6, err_msg=k)


class _DenseLoop(gluon.HybridBlock):
    """A Dense layer (shape left to deferred initialization) inside a foreach body."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.dense = gluon.nn.Dense(4, flatten=False)

    def hybrid_forward(self, F, x, h):
        def step(xt, states):
            new = F.tanh(self.dense(F.concat(xt, states[0], dim=-1)))
            return new * 2, [new]
        outs, states = F.contrib.foreach(step, x, [h])
        return outs, states[0]


@pytest.mark.parametrize("static", [False, True])
def test_foreach_block_hybridized_equals_imperative(static):
    rng = np.random.RandomState(0)
    inputs = [rng.randn(5, 3, 2).astype(np.float32), rng.randn(3, 4).astype(np.float32)]
    results = _run_both(lambda: _DenseLoop(prefix="loop_"), inputs, static)
    _assert_same(results)
    # deferred initialization found the weight's shape through the body
    assert results[1][2]["dense0_weight"].shape == (4, 6)


class _WhileCond(gluon.HybridBlock):
    """A while loop whose step takes a branch, reading an outer parameter."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.scale = self.params.get("scale", shape=(3,))

    def hybrid_forward(self, F, x, scale):
        def cond(i, s):
            return i < 3

        def func(i, s):
            branch = F.contrib.cond(F.sum(s) > 0, lambda: F.broadcast_mul(s, scale),
                                    lambda: F.broadcast_sub(s, scale))
            return [F.tanh(branch)], [i + 1, branch]
        outs, (_, last) = F.contrib.while_loop(cond, func, [F.zeros((1,)), x],
                                               max_iterations=5)
        return outs[0], last


def test_while_loop_with_cond_hybridized_equals_imperative():
    x = np.array([[0.5, -0.25, 1.0], [0.1, 0.2, -0.9]], np.float32)
    results = _run_both(lambda: _WhileCond(prefix="wc_"), [x])
    (o1, g1, p1), (o2, g2, p2) = results
    # MXNet leaves the padding rows undefined: compare the rows that ran
    np.testing.assert_allclose(o1[0][:3], o2[0][:3], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(o1[1], o2[1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(g1[0], g2[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(p1["scale"], p2["scale"], rtol=1e-5, atol=1e-6)
    assert np.all(o2[0][3:] == 0)


def test_cond_branches_get_only_their_gradients():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    out = mx.sym.contrib.cond(mx.sym.sum(a) > 0, lambda: a * 3, lambda: b * 5)
    for sign, want_a, want_b in ((1, 3, 0), (-1, 0, 5)):
        args = {"a": mx.nd.array([sign, sign]), "b": mx.nd.array([1, 1])}
        grads = {"a": mx.nd.ones(2), "b": mx.nd.ones(2)}
        ex = out.bind(mx.cpu(), args, args_grad=grads)
        ex.forward(is_train=True)
        ex.backward([mx.nd.ones(2)])
        assert grads["a"].asnumpy().tolist() == [want_a] * 2
        assert grads["b"].asnumpy().tolist() == [want_b] * 2


def test_nested_lists_of_outputs_and_states_keep_their_shape():
    x = mx.sym.var("x")
    outs, states = mx.sym.contrib.foreach(
        lambda d, s: ([d * 2, [d + 1]], [[s[0][0] + d], s[1]]), x,
        [[mx.sym.var("s0")], mx.sym.var("s1")])
    assert isinstance(outs, list) and isinstance(outs[1], list)
    assert isinstance(states[0], list) and isinstance(states[1], mx.sym.Symbol)
    _, shapes, _ = mx.sym.Group([outs[0], outs[1][0], states[0][0], states[1]]).infer_shape(
        x=(4, 2), s0=(2,), s1=(3,))
    assert shapes == [(4, 2), (4, 2), (2,), (3,)]


def test_mxnet_errors():
    x, s = mx.sym.var("x"), mx.sym.var("s")
    with pytest.raises(AssertionError, match="data arrays"):
        mx.sym.contrib.foreach(lambda d, st: (st[0] * 2, st), x, [s])
    with pytest.raises(AssertionError, match="different format"):
        mx.sym.contrib.foreach(lambda d, st: (d, [st[0], st[0]]), x, [s])
    with pytest.raises(ValueError, match="max_iterations"):
        mx.sym.contrib.while_loop(lambda i: i < 3, lambda i: ([], [i + 1]), [x])
    with pytest.raises(ValueError, match="consistent"):
        mx.sym.contrib.while_loop(lambda i: i < 3, lambda i: ([], [i + 1, i]), [x],
                                  max_iterations=3)
    with pytest.raises(ValueError, match="2-th loop_var"):
        mx.sym.contrib.while_loop(lambda i, j: i < 3, lambda i, j: ([], [i + 1, x]), [x, s],
                                  max_iterations=3)
    with pytest.raises(ValueError, match="differs"):
        mx.sym.contrib.cond(x > 0, lambda: [x, s], lambda: x)


def test_foreach_data_of_different_lengths_raise():
    out, _ = mx.sym.contrib.foreach(lambda d, st: (d[0] + d[1], st), [mx.sym.var("a"),
                                                                      mx.sym.var("b")], [])
    with pytest.raises(MXNetError, match="different lengths"):
        out.infer_shape(a=(3, 2), b=(4, 2))


def test_subgraph_alone_cannot_run():
    out, _ = mx.sym.contrib.foreach(lambda d, st: (d * 2, st), mx.sym.var("x"), [])
    sub = out._heads[0][0].attrs.subgraphs[0]
    with pytest.raises(MXNetError, match="runs inside"):
        sub.run(None, [], False)


def _foreach_json():
    out, _ = mx.sym.contrib.foreach(lambda d, st: (d * 2, st), mx.sym.var("x"), [])
    return json.loads(out.tojson())


@pytest.mark.parametrize("mutate,match", [
    (lambda n: n.pop("subgraphs"), "needs 1 subgraph"),
    (lambda n: n.__setitem__("subgraphs", [{"nodes": 3}]), "subgraph 0"),
    (lambda n: n.__setitem__("subgraphs", [n["subgraphs"][0]] * 2), "needs 1 subgraph"),
    (lambda n: n["attrs"].__setitem__("num_args", "99999999999"), "num_args"),
])
def test_malformed_subgraphs_raise(mutate, match):
    graph = _foreach_json()
    node = next(n for n in graph["nodes"] if n["op"] == "_foreach")
    mutate(node)
    with pytest.raises(MXNetError, match=match):
        mx.sym.load_json(json.dumps(graph))


def test_subgraphs_on_other_operators_raise():
    graph = _foreach_json()
    loop = next(n for n in graph["nodes"] if n["op"] == "_foreach")
    graph["nodes"].append({"op": "relu", "name": "r", "inputs": [[0, 0, 0]],
                           "subgraphs": loop["subgraphs"]})
    with pytest.raises(MXNetError, match="no subgraphs"):
        mx.sym.load_json(json.dumps(graph))
