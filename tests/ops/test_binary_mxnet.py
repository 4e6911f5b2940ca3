"""Binary, scalar and broadcast operators, ``add_n`` and ``where`` against MXNet 1.9.1
(outputs and gradients saved by ``tests/fixtures/gen_binary.py``)."""
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.ndarray import _api

_PATH = os.path.join(os.path.dirname(__file__), "..", "fixtures", "binary.npz")
_DATA = np.load(_PATH)
_SPECS = json.loads(str(_DATA["specs"]))


@pytest.mark.parametrize("i", range(len(_SPECS)),
                         ids=[f"{i}-{s['op']}" for i, s in enumerate(_SPECS)])
def test_matches_mxnet(i):
    spec = _SPECS[i]
    inputs = [_DATA[f"c{i}_in{k}"] for k in range(spec["n_in"])]
    arrs = [mx.nd.array(x, dtype=x.dtype) for x in inputs]
    for k in spec["grads"]:
        arrs[k].attach_grad()
    with mx.autograd.record():
        y = _api.function(spec["op"])(*arrs, **spec["attrs"])
    expected = _DATA[f"c{i}_out"]
    got = y.asnumpy()
    assert got.dtype == expected.dtype, f"{spec}: dtype {got.dtype}, MXNet {expected.dtype}"
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6, equal_nan=True,
                               err_msg=str(spec))
    if spec["grads"]:
        head = _DATA[f"c{i}_head"]
        y.backward(mx.nd.array(head, dtype=head.dtype))
        for k in spec["grads"]:
            np.testing.assert_allclose(arrs[k].grad.asnumpy(), _DATA[f"c{i}_grad{k}"],
                                       rtol=1e-5, atol=1e-6, equal_nan=True,
                                       err_msg=f"{spec} grad {k}")
