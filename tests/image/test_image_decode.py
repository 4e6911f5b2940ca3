"""``mx.image.imdecode``/``imread`` colour and greyscale decoding against MXNet 1.9.1's
OpenCV (fixture ``image_decode.npz``: PNG, BMP and JPEG in several pixel modes)."""
import os

import numpy as np
import pytest

import gluonlite as mx

pytest.importorskip("PIL")
DATA = np.load(os.path.join(os.path.dirname(__file__), "..", "fixtures", "image_decode.npz"))
CASES = sorted({key.split("/")[0] for key in DATA.files})


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("flag,kind", [(1, "colour"), (0, "grey")])
def test_imdecode_matches_opencv(name, flag, kind):
    want = DATA[f"{name}/{kind}"]
    got = mx.image.imdecode(DATA[f"{name}/buf"].tobytes(), flag=flag).asnumpy()
    assert got.dtype == np.uint8 and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", ["jpeg_420", "png_rgb", "bmp_rgb"])
def test_imread_grey_and_bgr(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(DATA[f"{name}/buf"].tobytes())
    np.testing.assert_array_equal(mx.image.imread(str(path), flag=0).asnumpy(),
                                  DATA[f"{name}/grey"])
    np.testing.assert_array_equal(mx.image.imread(str(path), to_rgb=False).asnumpy(),
                                  DATA[f"{name}/colour"][:, :, ::-1])
    out = mx.nd.zeros(DATA[f"{name}/grey"].shape, dtype="uint8")
    assert mx.image.imdecode(DATA[f"{name}/buf"], flag=0, out=out) is out
    np.testing.assert_array_equal(out.asnumpy(), DATA[f"{name}/grey"])


def test_corrupt_data_names_the_file(tmp_path):
    path = tmp_path / "broken.jpg"
    path.write_bytes(b"\xff\xd8 not really a jpeg")
    with pytest.raises(mx.MXNetError, match="broken.jpg"):
        mx.image.imread(str(path), flag=0)
