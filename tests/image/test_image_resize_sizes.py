"""``mx.image.imresize`` against MXNet 1.9.1 (OpenCV) over random size pairs
(``tests/fixtures/gen_image_resize_sizes.py``): nearest neighbour exactly, including a
source position one ulp below a pixel boundary; the other interpolations within one
level (OpenCV rounds uint8 through fixed-point coefficients)."""
import os

import numpy as np
import pytest

import gluonlite as mx

_FIX = np.load(os.path.join(os.path.dirname(__file__), "..", "fixtures",
                            "image_resize_sizes.npz"))
_CASES = sorted({int(k.split("_")[0]) for k in _FIX.files if k[0].isdigit()})


def _resize(img, like, interp):
    return mx.image.imresize(mx.nd.array(img, dtype="uint8"), like.shape[1], like.shape[0],
                             interp=interp).asnumpy().astype(int)


@pytest.mark.parametrize("interp", range(5))
def test_matches_opencv(interp):
    worst = 0
    for i in _CASES:
        ref = _FIX[f"{i}_{interp}"].astype(int)
        worst = max(worst, int(np.abs(_resize(_FIX[f"{i}_img"], ref, interp) - ref).max()))
    assert worst <= (0 if interp == 0 else 1)


def test_nearest_takes_the_lower_pixel_one_ulp_below_a_boundary():
    ref = _FIX["boundary_0"]
    out = _resize(_FIX["boundary_img"], ref, 0)
    np.testing.assert_array_equal(out, ref)
    assert out[0, 37, 0] == 23
