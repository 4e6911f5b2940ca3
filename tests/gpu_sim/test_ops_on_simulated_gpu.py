"""Every op-harness sample on the simulated GPU (fake CuPy), against the CPU.

Imperatively and through a CachedOp (the operator between copies, so it reads and
writes planned buffers given as ``out``, with the GPU fusion rewrite on), forward
outputs and input gradients (random head gradients) must match the NumPy run; any
NumPy/CuPy mixing in an operator raises inside the fake CuPy.  Random operators
(samples with ``check``) are run and checked but not compared.
"""
import dataclasses

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.ndarray import _api
from gluonlite.ops.registry import get_op

from gluonlite.engine import CachedOp

from ..engine.graphs import cached_run, grad_inputs, sandwich_symbol
from ..ops.harness import _as_list, _grad_inputs, run_forward
from ..ops.samples import all_samples
from .simulated import simulated_gpu

SAMPLES = all_samples()
CASES = [(name, i) for name in sorted(SAMPLES) for i in range(len(SAMPLES[name]))]


@pytest.fixture
def gpu():
    with simulated_gpu() as cp:
        yield cp


def _backward(op_name, sample, ctx, which, heads):
    arrs = [mx.nd.array(a, ctx=ctx, dtype=a.dtype) for a in sample.inputs]
    for i in which:
        arrs[i].attach_grad()
    with ctx, mx.autograd.record(train_mode=sample.train):
        outs = _as_list(_api.function(op_name)(*arrs, **sample.attrs))
    if heads is None:
        heads = [np.random.default_rng(1).uniform(-1, 1, size=o.shape).astype(o.dtype)
                 for o in outs]
    mx.autograd.backward(outs, [mx.nd.array(h, ctx=ctx, dtype=h.dtype) for h in heads])
    return [arrs[i].grad.asnumpy() for i in which], heads


@pytest.mark.parametrize("name,index", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_sample_on_simulated_gpu(gpu, monkeypatch, name, index):
    """Imperatively, then through CachedOps with fusion on and off; one test per sample
    (not per run) keeps the suite's per-test overhead down."""
    _reseed()
    _imperative_parity(gpu, name, index)
    for fusion in ("fused", "unfused"):
        _reseed()
        _cached_op_parity(monkeypatch, name, index, fusion)


def _reseed():
    """The state every test starts from (``conftest.py``), before each run of the sample."""
    mx.random.seed(20261123)
    np.random.seed(20261123)


def _imperative_parity(gpu, name, index):
    sample = SAMPLES[name][index]
    ctx = mx.gpu(0)
    cpu_outs, _ = run_forward(name, sample)
    with ctx:  # operators without inputs (creation, sampling) use the current context
        gpu_outs, _ = run_forward(name, sample, ctx=ctx)
    assert len(gpu_outs) == len(cpu_outs)
    for g in gpu_outs:
        assert g.context == ctx and type(g._data) is gpu.ndarray, f"{name}: output left the GPU"
    got = [g.asnumpy() for g in gpu_outs]
    if sample.check is not None:
        sample.check(got, [a.copy() for a in sample.inputs])
    else:
        for c, g in zip(cpu_outs, got):
            assert g.dtype == c.dtype, f"{name}: gpu dtype {g.dtype}, cpu {c.dtype}"
            np.testing.assert_allclose(g, c.asnumpy(), rtol=1e-5, atol=1e-7,
                                       err_msg=f"{name} simulated-gpu forward")
    op = get_op(name)
    which = _grad_inputs(op, op.parse_attrs(dict(sample.attrs)), sample)
    if not op.differentiable or not which:
        return
    if sample.check is not None or sample.grad_ref is not None and sample.train:
        _backward(name, sample, ctx, which, None)  # random: must run, cannot be compared
        return
    cpu_grads, heads = _backward(name, sample, mx.cpu(), which, None)
    gpu_grads, _ = _backward(name, sample, ctx, which, heads)
    for i, c, g in zip(which, cpu_grads, gpu_grads):
        np.testing.assert_allclose(g, c, rtol=1e-5, atol=1e-7,
                                   err_msg=f"{name}: simulated-gpu gradient of input {i}")


def _cached_op_parity(monkeypatch, name, index, fusion):
    """Fused: the GPU rewrite groups the copies with elementwise operators (their members
    run one by one here, as no CUDA kernel can be compiled); unfused: every operator
    writes into its planned ``out`` buffers."""
    monkeypatch.setenv("GLUONLITE_FUSION", "1" if fusion == "fused" else "0")
    sample = SAMPLES[name][index]
    which = grad_inputs(name, sample)
    use_hg = sample.grad_ref is None
    runs = []
    for ctx in (mx.cpu(), mx.gpu(0)):
        cop = CachedOp(sandwich_symbol(name, sample), {"static_alloc": True})
        with ctx:
            runs.append(cached_run(cop, sample, which, use_hg))
            if sample.check is None:
                runs[-1][0].extend(cached_run(cop, sample, [], False)[0])  # inference plan
    if sample.check is not None:
        sample.check(runs[1][0], [a.copy() for a in sample.inputs])
        return
    (c_out, c_grads, c_ins), (g_out, g_grads, g_ins) = runs
    for what, cs, gs in (("forward", c_out, g_out), ("inputs after the call", c_ins, g_ins),
                         ("gradients", [c_grads[i] for i in which],
                          [g_grads[i] for i in which])):
        for c, g in zip(cs, gs):
            assert g.dtype == c.dtype, \
                f"{name} cached ({fusion}) {what}: dtype {g.dtype}, cpu {c.dtype}"
            np.testing.assert_allclose(g, c, rtol=1e-5, atol=1e-7,
                                       err_msg=f"{name} simulated-gpu CachedOp ({fusion}) {what}")


def _index_like(a) -> bool:
    """Small non-negative integer values: indices, labels, lengths."""
    return (a.size > 0 and a.dtype.kind in "iuf" and bool(np.all(np.mod(a, 1) == 0))
            and a.min() >= 0 and a.max() <= 64)


OOB_CASES = [(n, i, j) for n, i in CASES if SAMPLES[n][i].check is None
             for j, a in enumerate(SAMPLES[n][i].inputs) if _index_like(a)]


def _outcome(name, sample, ctx):
    try:
        with ctx:
            outs, _ = run_forward(name, sample, ctx=ctx)
        return [o.asnumpy() for o in outs]
    except mx.base.MXNetError:
        return "error"


@pytest.mark.parametrize("name,index,j", OOB_CASES,
                         ids=[f"{n}-{i}-in{j}" for n, i, j in OOB_CASES])
def test_out_of_range_indices_behave_as_on_cpu(gpu, name, index, j):
    """CuPy wraps out-of-bounds gathers around where NumPy raises: an index-like input
    set far out of range must give the CPU's outcome (the same error, or the same
    clipped/ignored result) on the GPU."""
    sample = SAMPLES[name][index]
    for bad in (1000, -1000):
        a = sample.inputs[j].copy()
        a.reshape(-1)[0] = bad
        if a.dtype.kind == "u" and bad < 0:
            continue
        s = dataclasses.replace(sample, inputs=[*sample.inputs[:j], a, *sample.inputs[j + 1:]])
        cpu, gpu_res = _outcome(name, s, mx.cpu()), _outcome(name, s, mx.gpu(0))
        if isinstance(cpu, str) or isinstance(gpu_res, str):
            assert cpu == gpu_res, f"{name}: cpu gives {cpu!s:.60}, gpu {gpu_res!s:.60}"
            continue
        for c, g in zip(cpu, gpu_res):
            np.testing.assert_array_equal(g, c, err_msg=f"{name} with index {bad}")
