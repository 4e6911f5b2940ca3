"""gluonlite's im2rec against MXNet 1.9.1's (``tests/fixtures/gen_im2rec.py``): the same
``.lst`` files byte for byte, the same record keys and headers, the same pixels (PNG
exactly, resized ones within one level, JPEG within the encoders' differences), MXNet
reading gluonlite's records, and ``ImageRecordIter`` over both."""
import importlib.util
import io
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.tools import im2rec

from ._im2rec_util import read_records, record_keys

pytest.importorskip("PIL")
FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "fixtures")
FIXTURE = os.path.join(FIXTURES, "im2rec.npz")


def _generator_cases() -> dict:
    """case -> (list, options), read from the fixture's generator (one definition)."""
    path = os.path.join(FIXTURES, "gen_im2rec.py")
    spec = importlib.util.spec_from_file_location("gen_im2rec", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CASES


CASES = _generator_cases()
# largest pixel difference allowed from MXNet's (OpenCV's) pixels
TOLERANCE = {"png_crop_resize": 1, "png_resize_grey": 1, "png_unchanged": 0,
             "jpg_default": 8, "png_first_label": 0}


@pytest.fixture(scope="module")
def fixture():
    return dict(np.load(FIXTURE))


@pytest.fixture(scope="module")
def images(tmp_path_factory, fixture):
    root = tmp_path_factory.mktemp("im2rec") / "images"
    for key, data in fixture.items():
        if key.startswith("image/"):
            path = root / key[len("image/"):]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data.tobytes())
    return root


def _write(path, data):
    with open(path, "wb") as f:
        f.write(np.asarray(data).tobytes())


def test_lists_are_mxnets_byte_for_byte(tmp_path, images, fixture):
    im2rec.main(["--list", "--recursive", str(tmp_path / "all"), str(images)])
    im2rec.main(["--list", "--recursive", "--chunks", "2", "--train-ratio", "0.5",
                 "--test-ratio", "0.25", str(tmp_path / "split"), str(images)])
    im2rec.main(["--list", "--no-shuffle", str(tmp_path / "flat"), str(images)])
    expected = sorted(k[4:] for k in fixture if k.startswith("lst/") and k != "lst/labels.lst")
    assert sorted(p for p in os.listdir(tmp_path) if p.endswith(".lst")) == expected
    for name in expected:
        assert (tmp_path / name).read_bytes() == fixture["lst/" + name].tobytes(), name


def _pack(tmp_path, images, fixture, case):
    lst, opts = CASES[case]
    _write(tmp_path / f"{lst}.lst", fixture[f"lst/{lst}.lst"])
    assert im2rec.main(opts + [str(tmp_path / lst), str(images)]) == 0
    _write(tmp_path / "mx.rec", fixture[f"mx/{case}/rec"])
    _write(tmp_path / "mx.idx", fixture[f"mx/{case}/idx"])
    return str(tmp_path / lst), str(tmp_path / "mx")


def _pixels(payload):
    return mx.recordio.unpack_img(mx.recordio.pack(mx.recordio.IRHeader(0, 0, 0, 0),
                                                   payload), -1)[1]


def _same_header(a, b):
    assert (a.flag, a.id, a.id2) == (b.flag, b.id, b.id2)
    np.testing.assert_array_equal(np.asarray(a.label, np.float32),
                                  np.asarray(b.label, np.float32))


@pytest.mark.parametrize("case", sorted(CASES))
def test_records_match_mxnets(tmp_path, images, fixture, case):
    ours, theirs = _pack(tmp_path, images, fixture, case)
    assert record_keys(ours) == record_keys(theirs)
    mine, mxnet = read_records(ours), read_records(theirs)
    for key, (header, payload) in mxnet.items():
        _same_header(mine[key][0], header)
        if case == "pass_through_pack_label":
            assert mine[key][1] == payload
            continue
        a, b = _pixels(mine[key][1]), _pixels(payload)
        assert a.shape == b.shape, (key, a.shape, b.shape)
        diff = np.abs(a.astype(int) - b.astype(int))
        assert diff.max() <= TOLERANCE[case], (key, diff.max())


@pytest.mark.parametrize("case", sorted(CASES))
def test_mxnet_reads_our_records(tmp_path, images, fixture, case):
    """What MXNet's recordio (OpenCV) read from gluonlite's files at generation time is
    what the tool makes now."""
    ours, _ = _pack(tmp_path, images, fixture, case)
    for key, (header, payload) in read_records(ours).items():
        seen = fixture[f"mxread/{case}/{key}/header"]
        label = np.atleast_1d(np.asarray(header.label, np.float64))
        np.testing.assert_array_equal(np.concatenate([[header.flag, header.id, header.id2],
                                                      label]), seen)
        if case != "pass_through_pack_label":
            pixels = fixture[f"mxread/{case}/{key}/pixels"]
            got = _pixels(payload)
            assert got.shape == pixels.shape
            assert np.abs(got.astype(int) - pixels).max() <= (4 if "jpg" in case else 0)


@pytest.mark.parametrize("side", ["mx", "ours"])
def test_image_record_iter_matches_mxnets(tmp_path, images, fixture, side):
    ours, theirs = _pack(tmp_path, images, fixture, "png_crop_resize")
    prefix = ours if side == "ours" else theirs
    it = mx.io.ImageRecordIter(path_imgrec=prefix + ".rec", path_imgidx=prefix + ".idx",
                               data_shape=(3, 8, 8), batch_size=4, round_batch=False)
    data, label = [], []
    for batch in it:
        n = batch.data[0].shape[0] - batch.pad
        data.append(batch.data[0].asnumpy()[:n])
        label.append(batch.label[0].asnumpy()[:n])
    np.testing.assert_array_equal(np.concatenate(label), fixture[f"iter/{side}/label"])
    np.testing.assert_array_equal(np.concatenate(data), fixture[f"iter/{side}/data"])


def test_exif_orientation_follows_pillows_transpose():
    from PIL import Image, ImageOps
    from gluonlite.tools._im2rec_image import read_image
    arr = np.random.default_rng(3).integers(0, 256, (5, 8, 3), dtype=np.uint8)
    for orientation in range(1, 9):
        exif = Image.Exif()
        exif[0x0112] = orientation
        buf = io.BytesIO()
        Image.fromarray(arr).save(buf, format="PNG", exif=exif.tobytes())
        expected = np.asarray(ImageOps.exif_transpose(Image.open(io.BytesIO(buf.getvalue()))))
        np.testing.assert_array_equal(read_image(buf.getvalue(), 1), expected)
        np.testing.assert_array_equal(read_image(buf.getvalue(), -1), arr)  # as stored
