"""NaN and infinity as MXNet 1.9.1 treats them (``fixtures/nan_semantics.json``, from
``fixtures/gen_nan_semantics.py``).

MXNet's softmax ignores a NaN when it takes the row's maximum, and a row whose sum of
exponentials is NaN (a NaN input, or an infinite maximum) normalizes by the largest
float instead: NaN stays in the elements that are NaN and the others become 0 (in
log_softmax, finite), so a loss over such a row is finite where the label points at a
number (89.72 for ``[nan, 1, 2]`` and label 1).  ``nansum`` sums with a compensation term
that an infinity turns to NaN for every element after it; ``norm`` scales by the
largest magnitude so far, and a second infinity makes it NaN.
"""
import json
import os
import warnings

import numpy as np
import pytest

import gluonlite as mx

with open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "nan_semantics.json")) as f:
    CASES = json.load(f)["cases"]


def _run(call, rows):
    if "loss" in call:
        loss = getattr(mx.gluon.loss, call["loss"])()
        return loss(mx.nd.array(rows), mx.nd.array(call["label"]))
    x = mx.nd.array(rows, dtype=call["dtype"])
    if "label" in call:
        return getattr(mx.nd, call["op"])(x, mx.nd.array(call["label"]), **call["kwargs"])
    return getattr(mx.nd, call["op"])(x, **call["kwargs"])


@pytest.mark.parametrize("case", CASES, ids=[f"{c['name']}-{i}" for i, c in enumerate(CASES)])
def test_matches_mxnet(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's "invalid value" notes
        got = _run(case["call"], case["input"]).asnumpy().astype(np.float64)
    want = np.array(case["output"], dtype=np.float64)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    # oneDNN (MXNet's float32 softmax on the CPU) evaluates exp and log by polynomials, good
    # to ~5e-6 relative and ~1.5e-6 absolute (log_softmax of [1000, -1000, 0]: 1.4e-6, not 0)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=2e-6, equal_nan=True)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_relu_gradient_passes_nan_through(dtype):
    # MXNet 1.9.1's relu_grad returns a NaN input unchanged (test_ndarray::
    # test_ndarray_nan_comparison); Activation(act_type='relu') maps NaN to 0 both ways
    x = mx.nd.array([[np.nan, 1.0, -1.0, 0.0, np.inf]], dtype=dtype)
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.relu(x)
    y.backward()
    np.testing.assert_array_equal(y.asnumpy(), np.array([[np.nan, 1, 0, 0, np.inf]], dtype))
    np.testing.assert_array_equal(x.grad.asnumpy(), np.array([[np.nan, 1, 0, 0, 1]], dtype))
    a = mx.nd.array([[np.nan, 1.0, -1.0]], dtype=dtype)
    a.attach_grad()
    with mx.autograd.record():
        z = mx.nd.Activation(a, act_type="relu")
    z.backward()
    np.testing.assert_array_equal(z.asnumpy(), np.array([[0, 1, 0]], dtype))
    np.testing.assert_array_equal(a.grad.asnumpy(), np.array([[0, 1, 0]], dtype))
