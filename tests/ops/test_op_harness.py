"""Walk the whole registry with the op harness (see ``harness.py``)."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.ops.registry import all_ops, get_op

from .harness import (check_backward_graph, check_forward, check_gpu_parity, check_gradient,
                      check_inference, check_math, check_raw_inputs, check_saved_state)
from .samples import all_samples

SAMPLES = all_samples()
CASES = [(name, i) for name in sorted(SAMPLES) for i in range(len(SAMPLES[name]))]


def test_every_operator_has_samples():
    missing = sorted(op.name for op in all_ops() if op.name not in SAMPLES)
    assert not missing, f"operators without harness samples: {missing}"


def test_samples_name_registered_operators():
    names = {op.name for op in all_ops()}
    unknown = sorted(set(SAMPLES) - names)
    assert not unknown, f"samples for unknown (or non-canonical) operators: {unknown}"


def _reseed():
    """The state every test starts from (``conftest.py``), before each check of a sample."""
    mx.random.seed(20261123)
    np.random.seed(20261123)


MATH_OPS = {n for n, _ in CASES if get_op(n).math is not None}


def test_elementwise_operators_state_their_math():
    assert len(MATH_OPS) >= 100


@pytest.mark.parametrize("name,index", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_operator_sample(name, index):
    """One sample through every check: forward against the reference, shape/type
    inference against forward, gradients against finite differences, inputs left
    unchanged and strided inputs, the recorded (second-order) backward against the
    plain one, and the NumPy kernels against the operator's expression.  One test per
    sample (not per check) keeps the suite's per-test overhead down."""
    sample = SAMPLES[name][index]
    op = get_op(name)
    checks = [check_forward, check_inference, check_gradient, check_raw_inputs]
    if op.backward_graph is not None:
        checks.append(check_backward_graph)
    if op.math is not None:
        checks.append(check_math)
    for check in checks:
        _reseed()
        check(name, sample)


STATE_CASES = [(n, i) for n, i in CASES if get_op(n).saved_state]


def test_saved_state_operators_have_samples():
    assert {n for n, _ in STATE_CASES} >= {"Convolution", "RNN", "Custom"}


@pytest.mark.parametrize("name,index", STATE_CASES, ids=[f"{n}-{i}" for n, i in STATE_CASES])
def test_saved_state(name, index):
    check_saved_state(name, SAMPLES[name][index])


@pytest.mark.gpu
@pytest.mark.parametrize("name,index", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_gpu_parity(name, index):
    check_gpu_parity(name, SAMPLES[name][index])
