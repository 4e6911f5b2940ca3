"""Reductions, shape, join/split and sorting operators against MXNet 1.9.1 fixtures
(``tests/fixtures/reduce_shape.npz``, made by ``gen_reduce_shape.py``)."""
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.ndarray import _api
from gluonlite.ops.registry import get_op

_PATH = os.path.join(os.path.dirname(__file__), "..", "fixtures", "reduce_shape.npz")
_DATA = np.load(_PATH)
_META = json.loads(str(_DATA["meta"]))


def _attrs(raw):
    return {k: tuple(v) if isinstance(v, list) else v for k, v in raw.items()}


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


@pytest.mark.parametrize("case", _META, ids=[f"{c['id']}-{c['op']}" for c in _META])
def test_matches_mxnet(case):
    i = case["id"]
    inputs = [_DATA[f"c{i}_in{j}"] for j in range(case["n_in"])]
    attrs = _attrs(case["attrs"])
    fn = _api.function(case["op"])
    arrs = [mx.nd.array(a, dtype=a.dtype) for a in inputs]
    op = get_op(case["op"])
    grad = case["grad"] and op.differentiable
    if grad:
        for a in arrs:
            a.attach_grad()
    with mx.autograd.record():
        outs = _as_list(fn(*arrs, **attrs))
    assert len(outs) == case["n_out"]
    for j, o in enumerate(outs):
        want = _DATA[f"c{i}_out{j}"]
        got = o.asnumpy()
        assert got.shape == want.shape, f"output {j}: shape {got.shape}, MXNet {want.shape}"
        assert got.dtype == want.dtype, f"output {j}: dtype {got.dtype}, MXNet {want.dtype}"
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, equal_nan=True)
    if not case["grad"]:
        return
    if not grad:  # MXNet gives zeros for these operators' inputs
        for j in range(case["n_in"]):
            assert not np.any(_DATA[f"c{i}_grad{j}"])
        return
    heads = [mx.nd.array(_DATA[f"c{i}_head{j}"], dtype=o.dtype) for j, o in enumerate(outs)]
    mx.autograd.backward(outs, heads)
    for j, a in enumerate(arrs):
        np.testing.assert_allclose(a.grad.asnumpy(), _DATA[f"c{i}_grad{j}"], rtol=1e-5,
                                   atol=1e-5, equal_nan=True, err_msg=f"gradient of input {j}")
