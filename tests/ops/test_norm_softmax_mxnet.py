"""Normalization, activation, softmax, loss-output, CTC and sequence operators
against MXNet 1.9.1 (fixture from ``tests/fixtures/gen_norm_softmax.py``).

Each case replays one recorded call: visible outputs, input gradients for the
stored head gradients, and the auxiliary inputs afterwards (BatchNorm's moving
statistics, which MXNet updates in the backward pass).
"""

import pytest

from . import mxnet_replay

DATA, CASES = mxnet_replay.load("norm_softmax.npz")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_against_mxnet(case):
    mxnet_replay.check(case, DATA)
