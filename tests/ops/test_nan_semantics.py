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
