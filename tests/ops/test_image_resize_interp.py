"""``nd.image.resize`` with OpenCV's bicubic, area and Lanczos-4 interpolations against
MXNet 1.9.1 (fixture ``image_resize_interp.npz``): float32 images exactly, uint8 images
within one level (OpenCV resizes uint8 in fixed point)."""
import os

import numpy as np
import pytest

import gluonlite as mx

DATA = np.load(os.path.join(os.path.dirname(__file__), "..", "fixtures",
                            "image_resize_interp.npz"))
KEYS = sorted(k for k in DATA.files if k not in ("img", "imgf"))


@pytest.mark.parametrize("key", KEYS)
def test_resize_matches_mxnet(key):
    interp = int(key[1])
    w, h = map(int, key.split("_")[1].split("x"))
    src = DATA["img"] if key[0] == "u" else DATA["imgf"]
    got = mx.nd.image.resize(mx.nd.array(src, dtype=src.dtype), size=(w, h), interp=interp)
    want = DATA[key]
    assert got.shape == want.shape and got.dtype == want.dtype
    tol = 1 if want.dtype == np.uint8 else 1e-5
    np.testing.assert_allclose(got.asnumpy().astype(np.float64), want.astype(np.float64),
                               rtol=0, atol=tol)


def test_unknown_interpolation_names_the_operator():
    with pytest.raises(mx.MXNetError, match="_image_resize.*interp=7"):
        mx.nd.image.resize(mx.nd.ones((4, 4, 3)), size=(2, 2), interp=7)
