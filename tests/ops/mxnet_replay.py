"""Replay of operator calls recorded with MXNet 1.9.1 (``tests/fixtures/gen_*.py``).

A fixture ``<topic>.npz`` holds ``__cases__`` (JSON list of cases) and per case
``<name>/in<i>``, ``<name>/head<i>``, ``<name>/out<i>``, ``<name>/grad<i>`` and, for
operators with auxiliary states, ``<name>/aux<i>`` (their values after backward).
A case may set ``train`` (record in training mode), ``skip_out`` (outputs not to
compare, e.g. random ones) and ``aux`` (auxiliary inputs to compare).
"""
import json
import os

import numpy as np

import gluonlite as mx
from gluonlite.ndarray import _api

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")


def load(fixture: str):
    """``(data, cases)`` of ``tests/fixtures/<fixture>``."""
    data = np.load(os.path.join(FIXTURES, fixture))
    return data, json.loads(str(data["__cases__"]))


def run(case: dict, data):
    """Call the operator as MXNet did; backward with the stored head gradients."""
    name = case["name"]
    arrs = [mx.nd.array(a, dtype=a.dtype)
            for a in (data[f"{name}/in{i}"] for i in range(case["n_in"]))]
    for i in case["grad"]:
        arrs[i].attach_grad()
    with mx.autograd.record(train_mode=case.get("train", True)):
        outs = _api.function(case["op"])(*arrs, **case["attrs"])
    outs = outs if isinstance(outs, (list, tuple)) else [outs]
    heads = [data[f"{name}/head{i}"] for i in range(case["n_out"])]
    if case["grad"]:
        mx.autograd.backward(outs, [mx.nd.array(h, dtype=h.dtype) for h in heads])
    return arrs, outs


def check(case: dict, data) -> None:
    """Outputs, input gradients and auxiliary states equal MXNet's."""
    name = case["name"]
    tol = dict(rtol=case["rtol"], atol=case["atol"])
    arrs, outs = run(case, data)
    assert len(outs) == case["n_out"], f"{name}: {len(outs)} visible outputs"
    for i, o in enumerate(outs):
        if i in case.get("skip_out", ()):
            continue
        expected = data[f"{name}/out{i}"]
        assert o.dtype == expected.dtype, f"{name}: output {i} dtype {o.dtype}"
        np.testing.assert_allclose(o.asnumpy(), expected, err_msg=f"{name} output {i}", **tol)
    for i in case["grad"]:
        np.testing.assert_allclose(arrs[i].grad.asnumpy(), data[f"{name}/grad{i}"],
                                   err_msg=f"{name} gradient of input {i}", **tol)
    for i in case.get("aux", ()):
        np.testing.assert_allclose(arrs[i].asnumpy(), data[f"{name}/aux{i}"],
                                   err_msg=f"{name} aux input {i} after backward", **tol)
