"""The fused ``RNN`` operator against MXNet 1.9.1 (fixture from
``tests/fixtures/gen_rnn.py``): outputs, final states and the gradients of data,
packed parameters and initial states for every mode."""
import json
import os

import numpy as np
import pytest

import gluonlite as mx

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "rnn.npz")
DATA = np.load(FIXTURE)
CASES = json.loads(str(DATA["__cases__"]))


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_rnn_against_mxnet(case):
    name = case["name"]
    tol = dict(rtol=case["rtol"], atol=case["atol"])
    inputs = [DATA[f"{name}/in{i}"] for i in range(case["n_in"])]
    arrs = [mx.nd.array(a, dtype=a.dtype) for a in inputs]
    for a in arrs:
        a.attach_grad()
    with mx.autograd.record():
        outs = mx.nd.RNN(*arrs, **case["attrs"])
    outs = outs if isinstance(outs, (list, tuple)) else [outs]
    assert len(outs) == case["n_out"]
    heads = [DATA[f"{name}/head{i}"] for i in range(case["n_out"])]
    mx.autograd.backward(outs, [mx.nd.array(h, dtype=h.dtype) for h in heads])
    for i, o in enumerate(outs):
        expected = DATA[f"{name}/out{i}"]
        assert o.dtype == expected.dtype
        np.testing.assert_allclose(o.asnumpy(), expected, err_msg=f"{name} output {i}", **tol)
    for i, a in enumerate(arrs):
        np.testing.assert_allclose(a.grad.asnumpy(), DATA[f"{name}/grad{i}"],
                                   err_msg=f"{name} gradient of input {i}", **tol)
