"""Every op-harness sample as a one-node CachedOp graph, in debug (poison) mode:
forward equals the imperative op, gradients equal imperative autograd's."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.engine import CachedOp
from gluonlite.ops.registry import get_op

from ..ops.test_op_harness import CASES, SAMPLES
from .graphs import (assert_close, cached_run, grad_inputs, imperative_run, one_node_symbol,
                     sandwich_symbol)


@pytest.fixture(autouse=True)
def _debug_mode(monkeypatch):
    monkeypatch.setenv("GLUONLITE_ENGINE_DEBUG", "1")


@pytest.mark.parametrize("name,index", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_sample_in_cached_ops(name, index):
    """The sample as a one-node CachedOp, then between copies in planned buffers
    (dynamic and ``static_alloc``); one test per sample keeps per-test overhead down."""
    _reseed()
    _one_node(name, index)
    for static in (False, True):
        _reseed()
        _sandwiched(name, index, static)


def _reseed():
    """The state every test starts from (``conftest.py``), before each run of the sample."""
    mx.random.seed(20261123)
    np.random.seed(20261123)


def _one_node(name, index):
    sample = SAMPLES[name][index]
    cop = CachedOp(one_node_symbol(name, sample))
    assert cop._debug
    which = grad_inputs(name, sample)
    use_hg = sample.grad_ref is None
    got_out, got_grads, got_inputs = cached_run(cop, sample, which, use_hg)
    if sample.check is not None:  # random operator: properties only
        sample.check(got_out, [a.copy() for a in sample.inputs])
        return
    exp_out, exp_grads, exp_inputs = imperative_run(name, sample, which, use_hg)
    assert_close(got_out, exp_out, f"{name} forward")
    assert_close(got_inputs, exp_inputs, f"{name} inputs after the call (aux states)")
    for i in which:
        assert_close([got_grads[i]], [exp_grads[i]], f"{name} gradient of input {i}")
    # a second call reuses the plan and gives the same result
    again, _, _ = cached_run(cop, sample, which, use_hg)
    assert len(cop.plans) == 1
    assert_close(again, got_out, f"{name} second call")


def _sandwiched(name, index, static):
    """The op between copies: its inputs and outputs live in planned, reused buffers
    (poisoned when freed); inference forward, then recorded forward and backward."""
    sample = SAMPLES[name][index]
    label = f"{name} ({'static_alloc' if static else 'dynamic'})"
    if sample.check is not None:
        return  # random: values differ between calls, covered by the one-node test
    cop = CachedOp(sandwich_symbol(name, sample), {"static_alloc": static})
    exp_out, _, _ = imperative_run(name, sample, [], False)
    got_out, _, _ = cached_run(cop, sample, [], False)
    assert_close(got_out, exp_out, f"{label} forward (inference)")
    plan = next(iter(cop.plans.values()))
    # no floating input (no copy before the op) and outputs whose size only the values
    # decide (unique, nonzero, bincount): nothing has a shape to plan
    value_sized = not any(a.dtype.kind == "f" for a in sample.inputs) and any(
        s is None or 0 in s for s in get_op(name).infer_shape(
            get_op(name).parse_attrs(dict(sample.attrs)), [a.shape for a in sample.inputs])[1])
    # zero-size inputs: the copies and the op's outputs are empty, no buffer to plan
    empty = all(a.size == 0 for a in sample.inputs)
    assert any(plan.planned) or value_sized or empty, \
        f"{label}: the sandwich must plan some buffers"
    which = grad_inputs(name, sample)
    if which:
        use_hg = sample.grad_ref is None
        got_out, got_grads, _ = cached_run(cop, sample, which, use_hg)
        exp_out, exp_grads, _ = imperative_run(name, sample, which, use_hg)
        assert_close(got_out, exp_out, f"{label} forward (recorded)")
        for i in which:
            assert_close([got_grads[i]], [exp_grads[i]], f"{label} gradient of input {i}")
