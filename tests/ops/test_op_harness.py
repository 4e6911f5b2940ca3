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


@pytest.mark.parametrize("name,index", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_forward(name, index):
    check_forward(name, SAMPLES[name][index])


@pytest.mark.parametrize("name,index", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_inference(name, index):
    check_inference(name, SAMPLES[name][index])


@pytest.mark.parametrize("name,index", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_gradient(name, index):
    check_gradient(name, SAMPLES[name][index])


@pytest.mark.parametrize("name,index", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_inputs_unchanged_and_strided(name, index):
    check_raw_inputs(name, SAMPLES[name][index])


GRAPH_CASES = [(n, i) for n, i in CASES if get_op(n).backward_graph is not None]


@pytest.mark.parametrize("name,index", GRAPH_CASES, ids=[f"{n}-{i}" for n, i in GRAPH_CASES])
def test_backward_graph_equals_backward(name, index):
    check_backward_graph(name, SAMPLES[name][index])


MATH_CASES = [(n, i) for n, i in CASES if get_op(n).math is not None]


def test_elementwise_operators_state_their_math():
    assert len({n for n, _ in MATH_CASES}) >= 43


@pytest.mark.parametrize("name,index", MATH_CASES, ids=[f"{n}-{i}" for n, i in MATH_CASES])
def test_kernels_equal_expression(name, index):
    check_math(name, SAMPLES[name][index])


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
