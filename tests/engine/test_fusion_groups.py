"""Grouping (``fusion.find_groups``), the fused group's CPU path against autograd, the
generated multi-op kernels on the host, and (``gpu``) the CuPy kernels."""
from __future__ import annotations

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.engine.fused_kernel import FusedGroup
from gluonlite.engine.fusion import find_groups
from gluonlite.ndarray.invoke import invoke
from gluonlite.ops._binary_math import reduce_to

from .fusion_util import (compile_host, compile_ptx, cpu_oc, cuda_function, host_function,
                          infer, nvcc_path, op, run_host, var)


def _names(group):
    return [n.name for n in group.nodes]


def _groups(heads, shapes, dtypes=None, pinned=None):
    nodes, sh, dt = infer(heads, shapes, dtypes or {})
    return find_groups(nodes, set(pinned or heads), sh, dt), sh, dt


# -- grouping ----------------------------------------------------------------------------
def test_unary_chain_is_one_group_with_one_output():
    x = var("x")
    a = op("exp", x)
    b = op("_mul_scalar", a, scalar=3.0)
    c = op("tanh", b)
    groups, _, _ = _groups([c], {"x": (3, 4)})
    assert len(groups) == 1
    g = groups[0]
    assert [n.op.name for n in g.nodes] == ["exp", "_mul_scalar", "tanh"]
    assert g.inputs == [x] and g.outputs == [c] and g.shape == (3, 4)


def test_pinned_and_externally_used_intermediates_are_outputs():
    x = var("x")
    a = op("exp", x)
    b = op("sigmoid", a)
    c = op("negative", b)
    s = op("sum", b)  # not fusable: needs b materialised
    groups, _, _ = _groups([c, s], {"x": (3, 4)}, pinned=[c, s, a])
    (g,) = groups
    assert g.outputs == [a, b, c]


def test_group_is_convex():
    # t2 -> sum -> t3 and t2 -> t3: t3 may not join t2's group (the path leaves and re-enters)
    x = var("x")
    t1 = op("sigmoid", x)
    t2 = op("exp", t1)
    s = op("sum", t2, axis=(0, 1), keepdims=True)
    t3 = op("broadcast_mul", t2, s)
    t4 = op("relu", t3)
    groups, _, _ = _groups([t4], {"x": (3, 4)})
    assert [_names(g) for g in groups] == [["sigmoid", "exp"], ["broadcast_mul", "relu"]]
    assert groups[0].outputs == [t2]
    assert groups[1].inputs == [t2, s]


def test_branches_merge_into_one_group():
    x, y = var("x"), var("y")
    a = op("exp", x)
    b = op("sin", y)
    c = op("elemwise_add", a, b)
    d = op("elemwise_mul", c, a)
    groups, _, _ = _groups([d], {"x": (5,), "y": (5,)})
    (g,) = groups
    assert sorted(_names(g)) == ["elemwise_add", "elemwise_mul", "exp", "sin"]
    assert g.inputs == [x, y] and g.outputs == [d]


def test_smaller_intermediate_only_inside_the_group():
    x, b = var("x"), var("b")
    eb = op("exp", b)
    s = op("broadcast_add", x, eb)
    r = op("relu", s)
    groups, _, _ = _groups([r], {"x": (4, 5), "b": (5,)})
    (g,) = groups
    assert _names(g) == ["exp", "broadcast_add", "relu"] and g.inputs == [b, x]
    assert g.shape == (4, 5)
    # once exp(b) must be materialised, it cannot be an output of a (4, 5) group
    groups, _, _ = _groups([r, eb], {"x": (4, 5), "b": (5,)})
    (g,) = groups
    assert _names(g) == ["broadcast_add", "relu"] and g.inputs == [x, eb]
    # the same when a non-fused node reads it
    total = op("sum", eb)
    groups, _, _ = _groups([r, total], {"x": (4, 5), "b": (5,)})
    (g,) = groups
    assert _names(g) == ["broadcast_add", "relu"] and g.inputs == [x, eb]


def test_dtype_rules():
    x = var("x")
    chain = op("elemwise_add", op("_mul_scalar", x, scalar=2.5), x)
    groups, _, _ = _groups([chain], {"x": (6,)}, {"x": np.int32})
    assert len(groups) == 1  # integer-safe ops fuse
    e = op("exp", op("_mul_scalar", x, scalar=2.5))
    assert _groups([e], {"x": (6,)}, {"x": np.int32})[0] == []  # exp on int32 does not
    assert _groups([e], {"x": (6,)}, {"x": np.float16})[0] == []
    cast = op("relu", op("Cast", op("exp", x), dtype="float64"))
    assert _groups([cast], {"x": (6,)})[0] == []


def test_where_with_1d_condition_is_not_fused():
    c, x, y = var("c"), var("x"), var("y")
    w = op("relu", op("where", c, op("exp", x), y))
    groups, _, _ = _groups([w], {"c": (3,), "x": (3, 4), "y": (3, 4)})
    assert all("where" not in _names(g) for g in groups)
    groups, _, _ = _groups([w], {"c": (3, 4), "x": (3, 4), "y": (3, 4)})
    assert _names(groups[0]) == ["exp", "where", "relu"]


def test_fusion_can_be_disabled(monkeypatch):
    x = var("x")
    c = op("tanh", op("exp", x))
    monkeypatch.setenv("GLUONLITE_FUSION", "0")
    assert _groups([c], {"x": (3,)})[0] == []
    monkeypatch.setenv("GLUONLITE_FUSION", "1")
    assert len(_groups([c], {"x": (3,)})[0]) == 1


# -- a chain with broadcasting, two outputs and a shared input -----------------------------
def _chain():
    x, b = var("x"), var("b")
    t1 = op("_mul_scalar", x, scalar=1.5)
    t2 = op("broadcast_add", t1, op("exp", b))
    t3 = op("sigmoid", t2)
    t4 = op("elemwise_mul", t3, x)
    t5 = op("LeakyReLU", t4, act_type="elu", slope=0.3)
    t6 = op("_power_scalar", op("Activation", t5, act_type="tanh"), scalar=3.0)
    return [t6, t3], {"x": (6, 7), "b": (7,)}


def _autograd_reference(heads, nodes, values, head_grads):
    """Outputs and input gradients of the graph run op by op through nd + autograd."""
    env = {}
    for n in nodes:
        if n.op is None:
            a = mx.nd.array(values[n.name], dtype=values[n.name].dtype)
            a.attach_grad()
            env[(n, 0)] = a
    with mx.autograd.record():
        for n in nodes:
            if n.op is not None:
                env[(n, 0)] = invoke(n.op, [env[e] for e in n.inputs], n.attrs)
    outs = [env[h] for h in heads]
    mx.autograd.backward(outs, [mx.nd.array(g, dtype=g.dtype) for g in head_grads])
    return env


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cpu_fused_group_matches_autograd(dtype):
    heads, shapes = _chain()
    groups, sh, dt = _groups(heads, shapes, {"x": dtype, "b": dtype})
    (g,) = groups
    assert len(g.nodes) == 8 and g.outputs == [heads[1], heads[0]]
    fg = FusedGroup(g, dt)
    rng = np.random.default_rng(0)
    values = {k: rng.uniform(-1, 1, s).astype(dtype) for k, s in shapes.items()}
    ins = [values[e[0].name] for e in g.inputs]
    head_grads = [rng.uniform(-1, 1, sh[h]).astype(dtype) for h in g.outputs]
    nodes = [n for n in infer(heads, shapes, {})[0]]
    env = _autograd_reference(g.outputs, nodes, values, head_grads)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-12)
    outs = fg.forward(cpu_oc(), None, ins, None)
    for o, h in zip(outs, g.outputs):
        np.testing.assert_allclose(o, env[h].asnumpy(), **tol)
    bufs = [np.empty(sh[h], dtype) for h in g.outputs]
    outs2 = fg.forward(cpu_oc(), None, ins, bufs)
    assert all(a is b for a, b in zip(outs2, bufs))
    grads = fg.backward(cpu_oc(), None, ins, None, head_grads)
    for gr, e in zip(grads, g.inputs):
        assert gr.shape == sh[e]
        np.testing.assert_allclose(gr, env[e].grad.asnumpy(), **tol)


def _host_run(fg, sh, ins, head_grads, lib, tag):
    """The generated forward/backward kernels of ``fg`` run on the host."""
    full = fg.group.shape
    wide = [np.broadcast_to(x, full) for x in ins]
    outs = run_host(lib, f"f{tag}", fg.forward_spec, wide)
    spec, positions = fg.backward_spec
    gouts = run_host(lib, f"b{tag}", spec, wide + list(head_grads))
    grads = [np.zeros_like(x) if p is None else reduce_to(gouts[p], x.shape)
             for x, p in zip(ins, positions)]
    return outs, grads


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_generated_chain_kernels_match_unfused(dtype):
    heads, shapes = _chain()
    groups, sh, dt = _groups(heads, shapes, {"x": dtype, "b": dtype})
    fg = FusedGroup(groups[0], dt)
    lib = compile_host([host_function(fg.forward_spec, "f0"),
                        host_function(fg.backward_spec[0], "b0")])
    rng = np.random.default_rng(1)
    ins = [rng.uniform(-1, 1, sh[e]).astype(dtype) for e in fg.group.inputs]
    head_grads = [rng.uniform(-1, 1, sh[h]).astype(dtype) for h in fg.group.outputs]
    outs, grads = _host_run(fg, sh, ins, head_grads, lib, "0")
    want_outs = fg.forward(cpu_oc(), None, ins, None)
    want_grads = fg.backward(cpu_oc(), None, ins, None, head_grads)
    tol = dict(rtol=2e-5, atol=2e-6) if dtype == np.float32 else dict(rtol=1e-11, atol=1e-13)
    for a, b in zip(outs + grads, want_outs + want_grads):
        np.testing.assert_allclose(a, b, **tol)


def test_input_used_twice_accumulates_its_gradient():
    x = var("x")
    sq = op("elemwise_mul", x, x)
    h = op("elemwise_add", op("sin", sq), x)
    groups, sh, dt = _groups([h], {"x": (9,)}, {"x": np.float64})
    fg = FusedGroup(groups[0], dt)
    lib = compile_host([host_function(fg.forward_spec, "f1"),
                        host_function(fg.backward_spec[0], "b1")])
    xv = np.linspace(-1, 1, 9)
    g = np.ones(9)
    _, (gx,) = _host_run(fg, sh, [xv], [g], lib, "1")
    np.testing.assert_allclose(gx, np.cos(xv * xv) * 2 * xv + 1, rtol=1e-12)


@pytest.mark.skipif(nvcc_path() is None, reason="nvcc not installed")
def test_chain_kernels_compile_with_nvcc():
    funcs = []
    for k, dtype in enumerate((np.float32, np.float64)):
        heads, shapes = _chain()
        groups, _, dt = _groups(heads, shapes, {"x": dtype, "b": dtype})
        fg = FusedGroup(groups[0], dt)
        funcs += [cuda_function(fg.forward_spec, f"f{k}"),
                  cuda_function(fg.backward_spec[0], f"b{k}")]
    ptx = compile_ptx(funcs)
    assert ".entry f0(" in ptx and ".entry b1(" in ptx


# -- GPU -----------------------------------------------------------------------------------
def _chain10(x, b):
    t = op("_mul_scalar", x, scalar=2.0)
    t = op("_plus_scalar", t, scalar=1.0)
    t = op("sigmoid", t)
    t = op("elemwise_mul", t, b)
    t = op("_minus_scalar", t, scalar=0.5)
    t = op("tanh", t)
    t = op("relu", t)
    t = op("elemwise_add", t, x)
    t = op("exp", t)
    return op("_div_scalar", t, scalar=3.0)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gpu_fused_matches_unfused(dtype):
    import cupy as cp
    from gluonlite.ops.registry import OpContext
    oc = OpContext(cp, False, mx.gpu(0))
    heads, shapes = _chain()
    groups, sh, dt = _groups(heads, shapes, {"x": dtype, "b": dtype})
    fg = FusedGroup(groups[0], dt)
    rng = np.random.default_rng(2)
    ins = [rng.uniform(-1, 1, sh[e]).astype(dtype) for e in fg.group.inputs]
    hg = [rng.uniform(-1, 1, sh[h]).astype(dtype) for h in fg.group.outputs]
    outs = fg.forward(oc, None, [cp.asarray(a) for a in ins], None)
    grads = fg.backward(oc, None, [cp.asarray(a) for a in ins], None,
                        [cp.asarray(a) for a in hg])
    want_o = fg.forward(cpu_oc(), None, ins, None)
    want_g = fg.backward(cpu_oc(), None, ins, None, hg)
    tol = dict(rtol=2e-5, atol=2e-6) if dtype == np.float32 else dict(rtol=1e-11, atol=1e-13)
    for a, b in zip(outs + grads, want_o + want_g):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(cp.asnumpy(a), b, **tol)
    bufs = [cp.empty(sh[h], dtype) for h in fg.group.outputs]
    res = fg.forward(oc, None, [cp.asarray(a) for a in ins], bufs)
    assert all(r is b for r, b in zip(res, bufs))


@pytest.mark.gpu
def test_gpu_chain10_is_one_kernel_matching_the_unfused_ops():
    """The 10-op chain fuses into one group whose kernel gives the unfused result.

    Its speed (against the unfused ops and the copy bandwidth) is measured by
    ``bench/bench_gpu.py``, never asserted here: a timed test fails on the next
    machine.
    """
    import cupy as cp
    from gluonlite.ops.registry import OpContext
    oc = OpContext(cp, False, mx.gpu(0))
    x, b = var("x"), var("b")
    head = _chain10(x, b)
    n = 1 << 20
    groups, sh, dt = _groups([head], {"x": (n,), "b": (n,)})
    assert len(groups) == 1 and len(groups[0].nodes) == 10
    fg = FusedGroup(groups[0], dt)
    xs = [cp.random.uniform(-1, 1, n, dtype=cp.float32) for _ in fg.group.inputs]
    out = [cp.full(n, cp.nan, cp.float32)]          # poisoned: every element must be written
    nodes = infer([head], {"x": (n,), "b": (n,)}, {})[0]
    env = {(nd_, 0): a for nd_, a in zip([e[0] for e in fg.group.inputs], xs)}
    for node in nodes:
        if node.op is not None:
            env[(node, 0)] = node.op.forward(oc, node.attrs, [env[e] for e in node.inputs],
                                             None)[0]
    np.testing.assert_allclose(cp.asnumpy(fg.forward(oc, None, xs, out)[0]),
                               cp.asnumpy(env[head]), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cupy_branch_with_a_host_elementwise_kernel(dtype):
    """FusedGroup's CuPy code path (argument order, two outputs, out buffers, gradient
    positions, reduction of broadcast inputs) with ElementwiseKernel run on the host."""
    from gluonlite.engine import fused_kernel
    from gluonlite.ops.registry import OpContext

    from .fusion_util import _HostElementwiseKernel, fake_cupy
    oc = OpContext(fake_cupy(), False, mx.cpu())
    heads, shapes = _chain()
    groups, sh, dt = _groups(heads, shapes, {"x": dtype, "b": dtype})
    fg = FusedGroup(groups[0], dt)
    rng = np.random.default_rng(4)
    ins = [rng.uniform(-1, 1, sh[e]).astype(dtype) for e in fg.group.inputs]
    hg = [rng.uniform(-1, 1, sh[h]).astype(dtype) for h in fg.group.outputs]
    saved = dict(fused_kernel._KERNELS)
    fused_kernel._KERNELS.clear()
    try:
        calls = _HostElementwiseKernel.calls
        outs = fg.forward(oc, None, ins, None)
        bufs = [np.empty(sh[h], dtype) for h in fg.group.outputs]
        outs2 = fg.forward(oc, None, ins, bufs)
        grads = fg.backward(oc, None, ins, None, hg)
        assert _HostElementwiseKernel.calls - calls == 3  # one kernel per call
        assert fused_kernel.kernel_cache_size() == 2      # compiled once per source
    finally:
        fused_kernel._KERNELS.clear()
        fused_kernel._KERNELS.update(saved)
    assert all(a is b for a, b in zip(outs2, bufs))
    want_o = fg.forward(cpu_oc(), None, ins, None)
    want_g = fg.backward(cpu_oc(), None, ins, None, hg)
    tol = dict(rtol=2e-5, atol=2e-6) if dtype == np.float32 else dict(rtol=1e-11, atol=1e-13)
    for a, b in zip(outs + outs2 + grads, want_o + want_o + want_g):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(a, b, **tol)
