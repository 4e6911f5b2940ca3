"""Convolution, deconvolution, pooling, resizing, LRN, embedding and dot operators
against MXNet 1.9.1 (fixture from ``tests/fixtures/gen_conv_pool.py``).

Each case replays one recorded call: visible outputs and input gradients for the
stored head gradients.
"""

import pytest

from . import mxnet_replay

DATA, CASES = mxnet_replay.load("conv_pool.npz")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_against_mxnet(case):
    mxnet_replay.check(case, DATA)
