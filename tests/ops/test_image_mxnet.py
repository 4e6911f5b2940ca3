"""The ``_image_*`` operators against MXNet 1.9.1 (fixture from
``tests/fixtures/gen_image.py``), plus their error messages."""
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError
from gluonlite.ndarray import _api

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "image.npz")
DATA = np.load(FIXTURE)
CASES = json.loads(str(DATA["__cases__"]))


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_image_against_mxnet(case):
    name = case["name"]
    x = mx.nd.array(DATA[f"{name}/in0"], dtype=DATA[f"{name}/in0"].dtype)
    if case["grad"]:
        x.attach_grad()
    with mx.autograd.record():
        out = _api.function(case["op"])(x, **case["attrs"])
    expected = DATA[f"{name}/out0"]
    assert out.dtype == expected.dtype and out.shape == expected.shape
    np.testing.assert_allclose(out.asnumpy().astype(np.float64), expected.astype(np.float64),
                               rtol=1e-6, atol=case["atol"])
    if case["grad"]:
        head = DATA[f"{name}/head0"]
        out.backward(mx.nd.array(head, dtype=head.dtype))
        np.testing.assert_allclose(x.grad.asnumpy(), DATA[f"{name}/grad0"], rtol=1e-6,
                                   atol=1e-7)


def test_image_namespace():
    assert mx.nd.image.to_tensor(mx.nd.zeros((2, 2, 3), dtype=np.uint8)).shape == (3, 2, 2)


@pytest.mark.parametrize("call,message", [
    (lambda: mx.nd.image.to_tensor(mx.nd.zeros((3, 4))), "must have shape"),
    (lambda: mx.nd.image.to_tensor(mx.nd.zeros((3, 4, 2))), "1 or 3"),
    (lambda: mx.nd.image.normalize(mx.nd.zeros((3, 2, 2)), mean=(0.1, 0.2), std=(1.0,)),
     "mean must have 1 or 3"),
    (lambda: mx.nd.image.normalize(mx.nd.zeros((3, 2, 2))), "mean must have 1 or 3"),
    (lambda: mx.nd.image.flip_left_right(mx.nd.zeros((2, 3, 4, 3))), "must have shape"),
    (lambda: mx.nd.image.crop(mx.nd.zeros((2, 4, 3)), 3, 0, 2, 1), "x \\+ width"),
    (lambda: mx.nd.image.resize(mx.nd.zeros((2, 4, 3)), (3, 2), interp=5),
     "not an OpenCV interpolation"),
    (lambda: mx.nd.image.resize(mx.nd.zeros((2, 4, 3)), (3, 2, 1)), "1 or 2 elements"),
    (lambda: mx.nd.image.adjust_lighting(mx.nd.zeros((2, 4, 3)), alpha=(0.1,)), "3 elements"),
    (lambda: mx.nd.image.random_brightness(mx.nd.zeros((2, 4, 3)), 2.0, 1.0), "min_factor"),
])
def test_image_errors(call, message):
    with pytest.raises(MXNetError, match=message) as err:
        call()
    assert "_image_" in str(err.value)
