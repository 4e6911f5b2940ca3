"""``mx.recordio`` against files written by MXNet 1.9.1 (``tests/fixtures/recordio``):
reading them, writing identical bytes, indexed access, headers, bad files."""
import os
import pickle

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import recordio

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "recordio")
MAGIC = (0xCED7230A).to_bytes(4, "little")
PAYLOADS = [b"hello", b"", b"abcd" + MAGIC + b"tail", b"xy" + MAGIC + b"z", MAGIC,
            MAGIC * 3 + b"!", bytes(range(256)) * 40, b"1234"]
HEADERS = [(0, 3.0, 7, 0), (0, [1.0, 2.5, -3.0], 8, 1), (0, 0.5, 9, 2),
           (0, [4.0, 5.0], 10, 3), (0, -1.0, 11, 4)]


def test_reads_mxnet_file():
    reader = recordio.MXRecordIO(os.path.join(HERE, "plain.rec"), "r")
    got = []
    while True:
        item = reader.read()
        if item is None:
            break
        got.append(item)
    assert got == PAYLOADS
    reader.reset()
    assert reader.read() == PAYLOADS[0]
    reader.close()


def test_writes_mxnets_bytes(tmp_path):
    path = str(tmp_path / "out.rec")
    writer = recordio.MXRecordIO(path, "w")
    for p in PAYLOADS:
        writer.write(p)
    writer.close()
    with open(path, "rb") as a, open(os.path.join(HERE, "plain.rec"), "rb") as b:
        assert a.read() == b.read()


def test_indexed_read_and_write(tmp_path):
    reader = recordio.MXIndexedRecordIO(os.path.join(HERE, "indexed.idx"),
                                        os.path.join(HERE, "indexed.rec"), "r")
    assert reader.keys == [3, 0, 4, 1, 2]
    for key in (2, 0, 4):
        header, payload = recordio.unpack(reader.read_idx(key))
        assert payload == b"payload-%d" % key
        want = HEADERS[key]
        assert (header.id, header.id2) == (want[2], want[3])
        if isinstance(want[1], list):
            assert header.flag == len(want[1])
            np.testing.assert_array_equal(header.label, want[1])
        else:
            assert header.flag == 0 and header.label == want[1]
    with pytest.raises(KeyError):
        reader.read_idx(99)
    idx, rec = str(tmp_path / "i.idx"), str(tmp_path / "i.rec")
    writer = recordio.MXIndexedRecordIO(idx, rec, "w")
    for key in (3, 0, 4, 1, 2):
        writer.write_idx(key, recordio.pack(recordio.IRHeader(*HEADERS[key]),
                                            b"payload-%d" % key))
    writer.close()
    for mine, theirs in ((idx, "indexed.idx"), (rec, "indexed.rec")):
        with open(mine, "rb") as a, open(os.path.join(HERE, theirs), "rb") as b:
            assert a.read() == b.read()


def test_pickled_reader_reopens():
    reader = recordio.MXIndexedRecordIO(os.path.join(HERE, "indexed.idx"),
                                        os.path.join(HERE, "indexed.rec"), "r")
    clone = pickle.loads(pickle.dumps(reader))
    assert recordio.unpack(clone.read_idx(1))[1] == b"payload-1"


def test_corrupt_and_truncated_files_raise(tmp_path):
    data = open(os.path.join(HERE, "plain.rec"), "rb").read()
    truncated = tmp_path / "t.rec"
    truncated.write_bytes(data[:-3000])
    reader = recordio.MXRecordIO(str(truncated), "r")
    with pytest.raises(mx.MXNetError, match=r"t\.rec.*offset"):
        while reader.read() is not None:
            pass
    corrupt = tmp_path / "c.rec"
    corrupt.write_bytes(data[:16] + b"\xff" * 8 + data[24:])
    reader = recordio.MXRecordIO(str(corrupt), "r")
    reader.read()
    with pytest.raises(mx.MXNetError, match="bad magic number.*offset 16"):
        reader.read()
    with pytest.raises(mx.MXNetError, match="cannot open"):
        recordio.MXRecordIO(str(tmp_path / "missing.rec"), "r")
    with pytest.raises(ValueError):
        recordio.MXRecordIO(str(tmp_path / "x.rec"), "a")
    with pytest.raises(mx.MXNetError, match="shorter"):
        recordio.unpack(b"abc")


def test_pack_img_round_trip():
    pytest.importorskip("PIL")
    img = np.zeros((6, 8, 3), np.uint8)
    img[:, :, 0] = 200  # blue in OpenCV's BGR order
    packed = recordio.pack_img(recordio.IRHeader(0, 1.0, 5, 0), img, img_fmt=".png")
    header, decoded = recordio.unpack_img(packed)
    assert header.id == 5 and decoded.shape == (6, 8, 3)
    np.testing.assert_array_equal(decoded, img)
    _, grey = recordio.unpack_img(packed, iscolor=0)
    assert grey.shape == (6, 8)
    with pytest.raises(mx.MXNetError, match="cannot decode"):
        recordio.unpack_img(recordio.pack(recordio.IRHeader(0, 0.0, 1, 0), b"not an image"))


@pytest.mark.pillow
def test_unpack_img_grey_equals_imdecode_grey():
    # the grey conversion is OpenCV's (as mx.image.imdecode(flag=0)), not Pillow's "L"
    rng = np.random.RandomState(9)
    pixels = rng.randint(0, 256, (6, 7, 3)).astype(np.uint8)
    packed = mx.recordio.pack_img(mx.recordio.IRHeader(0, 1.0, 3, 0), pixels, img_fmt=".png")
    _, grey = mx.recordio.unpack_img(packed, iscolor=0)
    _, payload = mx.recordio.unpack(packed)
    expected = mx.image.imdecode(payload, flag=0).asnumpy()[:, :, 0]
    np.testing.assert_array_equal(grey, expected)
    bgr = pixels.astype(np.int64)  # pack_img takes BGR, as OpenCV
    opencv = (bgr[..., 2] * 9797 + bgr[..., 1] * 19234 + bgr[..., 0] * 3737) >> 15
    np.testing.assert_array_equal(grey, opencv)
    assert mx.img is mx.image
