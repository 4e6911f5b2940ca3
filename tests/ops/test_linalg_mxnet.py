"""The ``_linalg_*`` operators (``nd.linalg.*``)
against MXNet 1.9.1 (fixture from ``tests/fixtures/gen_linalg.py``).

Each case replays one recorded call: visible outputs and input gradients for the
stored head gradients.
"""
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.ndarray import _api

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "linalg.npz")
DATA = np.load(FIXTURE)
CASES = json.loads(str(DATA["__cases__"]))


def _run(case):
    name = case["name"]
    inputs = [DATA[f"{name}/in{i}"] for i in range(case["n_in"])]
    arrs = [mx.nd.array(a, dtype=a.dtype) for a in inputs]
    for i in case["grad"]:
        arrs[i].attach_grad()
    with mx.autograd.record():
        outs = _api.function(case["op"])(*arrs, **case["attrs"])
    outs = outs if isinstance(outs, (list, tuple)) else [outs]
    heads = [DATA[f"{name}/head{i}"] for i in range(case["n_out"])]
    if case["grad"]:
        mx.autograd.backward(outs, [mx.nd.array(h, dtype=h.dtype) for h in heads])
    return arrs, outs


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_against_mxnet(case):
    name = case["name"]
    tol = dict(rtol=case["rtol"], atol=case["atol"])
    arrs, outs = _run(case)
    assert len(outs) == case["n_out"], f"{name}: {len(outs)} visible outputs"
    for i, o in enumerate(outs):
        expected = DATA[f"{name}/out{i}"]
        assert o.dtype == expected.dtype, f"{name}: output {i} dtype {o.dtype}"
        np.testing.assert_allclose(o.asnumpy(), expected, err_msg=f"{name} output {i}", **tol)
    for i in case["grad"]:
        np.testing.assert_allclose(arrs[i].grad.asnumpy(), DATA[f"{name}/grad{i}"],
                                   err_msg=f"{name} gradient of input {i}", **tol)
