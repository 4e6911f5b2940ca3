"""Every op-harness sample on the simulated GPU (fake CuPy), against the CPU.

Forward outputs and input gradients (random head gradients) must match the NumPy
run; any NumPy/CuPy mixing in an operator raises inside the fake CuPy.  Random
operators (samples with ``check``) are run and checked but not compared.
"""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.ndarray import _api
from gluonlite.ops.registry import get_op

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
def test_simulated_gpu_parity(gpu, name, index):
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
