"""``mx.image`` functions against MXNet 1.9.1 (fixture ``image_functions.npz``): decoding,
resizing and the crops (the random ones from the same ``random.seed``)."""
import os
import random

import numpy as np
import pytest

import gluonlite as mx

DATA = np.load(os.path.join(os.path.dirname(__file__), "..", "fixtures",
                            "image_functions.npz"))


def _close(got, key, atol=1):
    want = DATA[key]
    assert got.shape == want.shape and got.dtype == want.dtype, key
    # uint8 resizes: OpenCV's fixed point may differ by one level
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=0,
                               atol=atol, err_msg=key)


def test_decoding_matches_opencv():
    pytest.importorskip("PIL")
    png = DATA["png"].tobytes()
    _close(mx.image.imdecode(png).asnumpy(), "decoded", atol=0)
    _close(mx.image.imdecode(png, to_rgb=False).asnumpy(), "decoded_bgr", atol=0)
    _close(mx.image.imdecode(mx.nd.array(DATA["png"], dtype="uint8"), flag=0).asnumpy(),
           "decoded_grey", atol=0)
    with pytest.raises(mx.MXNetError, match="cannot decode"):
        mx.image.imdecode(b"not an image")


def test_imread(tmp_path):
    pytest.importorskip("PIL")
    path = tmp_path / "x.png"
    path.write_bytes(DATA["png"].tobytes())
    _close(mx.image.imread(str(path)).asnumpy(), "decoded", atol=0)
    with pytest.raises(mx.MXNetError, match="missing.png"):
        mx.image.imread(str(tmp_path / "missing.png"))


def test_resize_and_crops_match_mxnet():
    src = mx.nd.array(DATA["img"], dtype="uint8")
    _close(mx.image.imresize(src, 9, 5, interp=2).asnumpy(), "imresize")
    _close(mx.image.resize_short(src, 6).asnumpy(), "resize_short")
    _close(mx.image.fixed_crop(src, 2, 1, 6, 5, size=(8, 7)).asnumpy(), "fixed_crop")
    _close(mx.image.center_crop(src, (7, 5))[0].asnumpy(), "center_crop")
    _close(mx.image.center_crop(src, (20, 16), interp=1)[0].asnumpy(), "center_crop_up")
    random.seed(4)
    crop, rect = mx.image.random_size_crop(src, (6, 6), (0.3, 1.0), (0.75, 1.33))
    assert tuple(rect) == tuple(DATA["random_size_crop_rect"])
    _close(crop.asnumpy(), "random_size_crop")
    crop, rect = mx.image.random_crop(src, (5, 4))
    assert tuple(rect) == tuple(DATA["random_crop_rect"])
    _close(crop.asnumpy(), "random_crop")


def test_color_normalize_and_interp_codes():
    x = mx.nd.ones((2, 2, 3)) * 3
    out = mx.image.color_normalize(x, mx.nd.array([1, 2, 3]), mx.nd.array([2, 2, 2]))
    np.testing.assert_allclose(out.asnumpy()[0, 0], [1.0, 0.5, 0.0])
    with pytest.raises(ValueError, match="Unknown interp method 7"):
        mx.image.resize_short(x, 3, interp=7)   # MXNet's Python helper: ValueError
    assert mx.image.scale_down((10, 5), (8, 8)) == (5, 5)


def test_imresize_unknown_interp_is_mxnet_error():
    # MXNet's imresize raises MXNetError from OpenCV for an unknown method
    from gluonlite.base import MXNetError
    img = mx.nd.ones((12, 16, 3))
    for interp in (-1, 6, 11):
        with pytest.raises(MXNetError, match="imresize"):
            mx.image.imresize(img, 8, 6, interp=interp)
    assert mx.image.imresize(img, 8, 6, interp=9).shape == (6, 8, 3)
