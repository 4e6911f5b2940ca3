"""Elementwise unary operators and small elementwise utilities against MXNet 1.9.1
(fixture from ``tests/fixtures/gen_unary.py``): outputs, dtypes and input
gradients for stored head gradients, float64, float32 and integer inputs."""
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.ndarray import _api

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "unary.npz")
DATA = np.load(FIXTURE)
CASES = json.loads(str(DATA["__cases__"]))


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_against_mxnet(case):
    name = case["name"]
    inputs = [DATA[f"{name}/in{i}"] for i in range(case["n_in"])]
    arrs = [mx.nd.array(a, dtype=a.dtype) for a in inputs]
    for i in case["grad"]:
        arrs[i].attach_grad()
    with np.errstate(all="ignore"), mx.autograd.record():
        outs = _api.function(case["op"])(*arrs, **case["attrs"])
    outs = outs if isinstance(outs, (list, tuple)) else [outs]
    heads = [DATA[f"{name}/head{i}"] for i in range(case["n_out"])]
    if case["grad"]:
        mx.autograd.backward(outs, [mx.nd.array(h, dtype=h.dtype) for h in heads])
    tol = dict(rtol=case["rtol"], atol=case["atol"])
    for i, o in enumerate(outs):
        expected = DATA[f"{name}/out{i}"]
        got = o.asnumpy()
        assert got.dtype == expected.dtype, f"{name}: dtype {got.dtype}, MXNet {expected.dtype}"
        if expected.dtype.kind in "iu":
            np.testing.assert_array_equal(got, expected, err_msg=name)
        else:
            np.testing.assert_allclose(got, expected, equal_nan=True, err_msg=name, **tol)
            # signed zeros of the rounding ops
            np.testing.assert_array_equal(np.signbit(got[expected == 0]),
                                          np.signbit(expected[expected == 0]),
                                          err_msg=f"{name} signed zeros")
    for i in case["grad"]:
        expected = DATA[f"{name}/grad{i}"]
        got = arrs[i].grad.asnumpy()
        finite = np.isfinite(expected)
        np.testing.assert_allclose(got[finite], expected[finite], err_msg=f"{name} grad",
                                   **tol)
