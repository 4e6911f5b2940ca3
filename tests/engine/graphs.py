"""Test helpers: one-node graphs from op-harness samples, and run helpers."""
from __future__ import annotations

import numpy as np

import gluonlite as mx
from gluonlite.ndarray import _api
from gluonlite.ops.registry import get_op
from gluonlite.symbol import graph
from gluonlite.symbol.symbol import Symbol


def as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def one_node_symbol(op_name: str, sample) -> Symbol:
    """``op(v0, v1, ...)`` with uniquely named variables, all visible outputs as heads."""
    op = get_op(op_name)
    attrs = op.parse_attrs(dict(sample.attrs))
    names = op.input_names(attrs)
    vars_ = [graph.variable_node(f"v{i}_{n}") for i, n in enumerate(names)]
    node = graph.op_node(op, "node", [(v, 0) for v in vars_], attrs)
    return Symbol([(node, i) for i in range(op.num_visible_outputs(attrs))])


def sandwich_symbol(op_name: str, sample) -> Symbol:
    """``_copy`` before each floating non-aux input and after each visible output, so the
    operator reads and writes planned (reused, poisoned) buffers."""
    op = get_op(op_name)
    attrs = op.parse_attrs(dict(sample.attrs))
    names = op.input_names(attrs)
    aux = set(op.aux_indices(attrs))
    ins = []
    for i, n in enumerate(names):
        v = graph.variable_node(f"v{i}_{n}")
        if i in aux or sample.inputs[i].dtype.kind != "f":
            ins.append((v, 0))
        else:
            ins.append((graph.op_node("_copy", f"pre{i}", [(v, 0)]), 0))
    node = graph.op_node(op, "node", ins, attrs)
    heads = [(graph.op_node("_copy", f"post{k}", [(node, k)]), 0)
             for k in range(op.num_visible_outputs(attrs))]
    return Symbol(heads)


def grad_inputs(op_name: str, sample) -> list:
    """Inputs whose gradient the harness checks."""
    op = get_op(op_name)
    attrs = op.parse_attrs(dict(sample.attrs))
    if not op.differentiable or sample.check is not None:
        return []
    aux = set(op.aux_indices(attrs))
    if sample.grad is True:
        return [i for i, a in enumerate(sample.inputs) if i not in aux and a.dtype.kind == "f"]
    if sample.grad is False:
        return []
    return list(sample.grad)


def head_grads(outs, seed: int = 0):
    rng = np.random.default_rng(seed)
    return [mx.nd.array(rng.uniform(-1, 1, size=o.shape), dtype=o.dtype) for o in outs]


def imperative_run(op_name: str, sample, which, use_head_grads: bool):
    """Outputs, input gradients and final inputs (aux states) of the imperative op."""
    arrs = [mx.nd.array(a, dtype=a.dtype) for a in sample.inputs]
    for i in which:
        arrs[i].attach_grad()
    fn = _api.function(op_name)
    if which:
        with mx.autograd.record(train_mode=sample.train):
            outs = as_list(fn(*arrs, **sample.attrs))
        hg = head_grads(outs) if use_head_grads else None
        mx.autograd.backward(outs, hg)
    else:
        scope = mx.autograd.train_mode() if sample.train else mx.autograd.predict_mode()
        with scope:
            outs = as_list(fn(*arrs, **sample.attrs))
    return ([o.asnumpy() for o in outs], {i: arrs[i].grad.asnumpy() for i in which},
            [a.asnumpy() for a in arrs])


def cached_run(cop, sample, which, use_head_grads: bool):
    """The same through a CachedOp call (one tape entry when recording)."""
    arrs = [mx.nd.array(a, dtype=a.dtype) for a in sample.inputs]
    for i in which:
        arrs[i].attach_grad()
    if which:
        with mx.autograd.record(train_mode=sample.train):
            outs = as_list(cop(*arrs))
        hg = head_grads(outs) if use_head_grads else None
        mx.autograd.backward(outs, hg)
    else:
        scope = mx.autograd.train_mode() if sample.train else mx.autograd.predict_mode()
        with scope:
            outs = as_list(cop(*arrs))
    return ([o.asnumpy() for o in outs], {i: arrs[i].grad.asnumpy() for i in which},
            [a.asnumpy() for a in arrs])


def assert_close(got, expected, what: str, rtol=1e-5, atol=1e-6):
    assert len(got) == len(expected), f"{what}: {len(got)} arrays, expected {len(expected)}"
    for g, e in zip(got, expected):
        if {g.shape, e.shape} == {(), (1,)}:
            # an mx.np reduction: the graph gives it 0-d, nd.<op> shape (1,) (MXNet's rule)
            g = g.reshape(e.shape)
        assert g.shape == e.shape, f"{what}: shape {g.shape}, expected {e.shape}"
        if g.dtype.kind in "fc":
            np.testing.assert_allclose(g, e, rtol=rtol, atol=atol, err_msg=what)
        else:
            np.testing.assert_array_equal(g, e, err_msg=what)
