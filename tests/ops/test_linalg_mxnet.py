"""The ``_linalg_*`` operators (``nd.linalg.*``)
against MXNet 1.9.1 (fixture from ``tests/fixtures/gen_linalg.py``).

Each case replays one recorded call: visible outputs and input gradients for the
stored head gradients.
"""

import pytest

from . import mxnet_replay

DATA, CASES = mxnet_replay.load("linalg.npz")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_against_mxnet(case):
    mxnet_replay.check(case, DATA)
