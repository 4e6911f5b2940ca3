"""``hybridize(inline_limit=N)``: a recorded call of a graph of at most N operators
(without ``static_alloc``) goes on the tape operator by operator; a larger one is one
``_CachedOp`` entry.  ``autograd.get_symbol`` shows which, as MXNet 1.9.1 does
(``fixtures/inline_symbols.json``, from ``fixtures/gen_inline_symbols.py``)."""
import json
import os

import numpy as np
import pytest

import gluonlite as mx

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "inline_symbols.json")
with open(FIXTURE) as _f:
    CASES = json.load(_f)


def _net(n_dense):
    net = mx.gluon.nn.HybridSequential()
    with net.name_scope():
        for _ in range(n_dense):
            net.add(mx.gluon.nn.Dense(4))
    net.initialize()
    return net


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['n_dense']}-{c['flags']}")
def test_get_symbol_inlines_as_mxnet(case):
    net = _net(case["n_dense"])
    net.hybridize(**case["flags"])
    with mx.autograd.record():
        y = net(mx.nd.ones((2, 3)))
    nodes = json.loads(mx.autograd.get_symbol(y).tojson())["nodes"]
    y.backward()
    assert [n["op"] for n in nodes if n["op"] != "null"] == case["ops"]
    assert len(nodes) == case["n_nodes"]


@pytest.mark.parametrize("limit", [0, 3])
def test_inlined_and_whole_calls_agree(limit):
    """Outputs and gradients are the same whichever way the call is recorded."""
    net = _net(2)
    x = mx.nd.array(np.random.RandomState(0).randn(2, 3))
    net.hybridize()
    with mx.autograd.record():
        ref = net(x)
    ref.backward()
    ref_grads = {k: p.grad().asnumpy().copy() for k, p in net.collect_params().items()}
    net.hybridize(inline_limit=limit)
    with mx.autograd.record():
        y = net(x)
    y.backward()
    np.testing.assert_allclose(y.asnumpy(), ref.asnumpy(), rtol=1e-6)
    for k, p in net.collect_params().items():
        np.testing.assert_allclose(p.grad().asnumpy(), ref_grads[k], rtol=1e-6)


def test_cached_op_node_of_get_symbol_evaluates():
    """The ``_CachedOp`` node of ``get_symbol`` runs the block's graph."""
    net = _net(2)
    net.hybridize(inline_limit=0)
    x = mx.nd.ones((2, 3))
    with mx.autograd.record():
        y = net(x)
    sym = mx.autograd.get_symbol(y)
    params = [p.data() for p in net.collect_params().values()]
    args = dict(zip(sym.list_arguments(), [x] + params))
    np.testing.assert_allclose(sym.eval(ctx=mx.cpu(), **args)[0].asnumpy(), y.asnumpy(),
                               rtol=1e-6)
    assert sym.infer_shape(**{k: v.shape for k, v in args.items()})[1] == [(2, 4)]
