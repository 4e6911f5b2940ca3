"""nd.save / nd.load against files written by MXNet 1.9.1 (tests/fixtures/ndarray_files)."""
import json
import os
import struct
import subprocess
import sys

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError
from gluonlite.ndarray import serialization as ser

FIX = os.path.join(os.path.dirname(os.path.dirname(__file__)), "fixtures", "ndarray_files")
MANIFEST = json.load(open(os.path.join(FIX, "manifest.json"), encoding="utf-8"))["files"]
EXPECTED = np.load(os.path.join(FIX, "expected.npz"))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def fixture_path(stem):
    return os.path.join(FIX, MANIFEST[stem]["file"])


def expected_items(stem):
    info = MANIFEST[stem]
    keys = info["names"] if info["form"] == "dict" else [str(i) for i in range(len(info["shapes"]))]
    return [(k, EXPECTED[f"{stem}/{k}"]) for k in keys]


def as_nd(v):
    return mx.nd.NDArray(np.array(v))


@pytest.mark.parametrize("stem", sorted(MANIFEST))
def test_load_mxnet_files(stem):
    info = MANIFEST[stem]
    # V3 records (written in np shape semantics) load only in those semantics, as in MXNet
    with mx.np_shape(info.get("mxnet_loads") == "only with np_shape(True)"):
        got = mx.nd.load(fixture_path(stem))
    items = expected_items(stem)
    if info["form"] == "dict":
        assert isinstance(got, dict) and list(got) == [k for k, _ in items]
        got = list(got.values())
    else:
        assert isinstance(got, list) and len(got) == len(items)
    for g, (k, v) in zip(got, items):
        assert isinstance(g, mx.nd.NDArray)
        assert g.context == mx.cpu(0)
        assert g.asnumpy().flags.writeable
        assert g.shape == v.shape, (stem, k)
        assert np.dtype(g.dtype) == v.dtype, (stem, k)
        np.testing.assert_array_equal(g.asnumpy(), v)


@pytest.mark.parametrize("stem", sorted(s for s, i in MANIFEST.items()
                                        if i.get("stype") is None and s not in
                                        ("v1_record", "legacy_record", "np_shape_v3", "bfloat16",
                                         "empty_dict")))
def test_save_byte_identical_to_mxnet(stem, tmp_path):
    info = MANIFEST[stem]
    items = expected_items(stem)
    arrays = [as_nd(v) for _, v in items]
    data = dict(zip([k for k, _ in items], arrays)) if info["form"] == "dict" else arrays
    out = tmp_path / "x.nd"
    mx.nd.save(str(out), data)
    assert out.read_bytes() == open(fixture_path(stem), "rb").read()


def test_empty_dict_saves_like_mxnet(tmp_path):
    mx.nd.save(tmp_path / "e.nd", {})
    assert (tmp_path / "e.nd").read_bytes() == open(fixture_path("empty_dict"), "rb").read()
    assert mx.nd.load(tmp_path / "e.nd") == []


def test_gluonlite_file_was_loaded_by_mxnet(tmp_path):
    info = MANIFEST["gluonlite_written"]
    assert info["writer"] == "gluonlite" and info["mxnet_loaded_and_matched"] is True
    assert info["byte_identical_to_mxnet_save"] is True
    # today's gluonlite still writes exactly the file that MXNet was shown to load
    gen_src = open(os.path.join(ROOT, "tests", "fixtures", "gen_ndarray_files.py")).read()
    start = gen_src.index('GLUONLITE_WRITER = r"""') + len('GLUONLITE_WRITER = r"""')
    writer = gen_src[start:gen_src.index('"""', start)]
    out = tmp_path / "g.nd"
    subprocess.run([sys.executable, "-c", writer, str(out)], check=True, cwd=ROOT)
    assert out.read_bytes() == open(fixture_path("gluonlite_written"), "rb").read()


def test_round_trip_all_dtypes(tmp_path):
    data = {dt: mx.nd.NDArray(np.arange(6).reshape(2, 3).astype(dt))
            for dt in ["float32", "float64", "float16", "uint8", "int32", "int8", "int64",
                       "bool", "int16", "uint16", "uint32", "uint64"]}
    mx.nd.save(str(tmp_path / "a.nd"), data)
    back = mx.nd.load(str(tmp_path / "a.nd"))
    for k, v in data.items():
        assert back[k].dtype == v.dtype
        np.testing.assert_array_equal(back[k].asnumpy(), v.asnumpy())


def test_single_array_list_and_buffer(tmp_path):
    x = as_nd(np.float32([[1, 2]]))
    mx.nd.save(str(tmp_path / "s.nd"), x)
    got = mx.nd.load(str(tmp_path / "s.nd"))
    assert isinstance(got, list) and got[0].shape == (1, 2)
    buf = (tmp_path / "s.nd").read_bytes()
    for b in (buf, bytearray(buf), memoryview(buf)):
        np.testing.assert_array_equal(mx.nd.load_frombuffer(b)[0].asnumpy(), [[1, 2]])
    mx.nd.save(str(tmp_path / "t.nd"), (x, x))
    assert len(mx.nd.load(str(tmp_path / "t.nd"))) == 2


def test_zero_dim_round_trip(tmp_path):
    mx.nd.save(str(tmp_path / "z.nd"), [mx.nd.NDArray(np.array(5.5, np.float32))])
    assert (tmp_path / "z.nd").read_bytes() == open(fixture_path("scalar_0d"), "rb").read()
    assert mx.nd.load(str(tmp_path / "z.nd"))[0].shape == ()


def test_legacy_none_array():
    # V2 record with ndim 0 and nothing after it (an MXNet "none" array), then names
    rec = struct.pack("<IiI", ser.V2_MAGIC, 0, 0)
    buf = struct.pack("<QQQ", 0x112, 0, 1) + rec + struct.pack("<Q", 1) + struct.pack("<Q", 1) + b"n"
    got = mx.nd.load_frombuffer(buf)
    assert list(got) == ["n"] and got["n"].shape == (0,)


def test_save_argument_errors(tmp_path):
    with pytest.raises(ValueError):
        mx.nd.save(str(tmp_path / "x"), 3)
    with pytest.raises(TypeError):
        mx.nd.save(str(tmp_path / "x"), [np.ones(2)])
    with pytest.raises(TypeError):
        mx.nd.save(str(tmp_path / "x"), {1: as_nd([1.0])})
    with pytest.raises(TypeError):
        mx.nd.load_frombuffer("not bytes")
    with pytest.raises(MXNetError, match="cannot open"):
        mx.nd.load(str(tmp_path / "missing.nd"))


def _valid_bytes():
    return open(fixture_path("dict_mixed"), "rb").read()


@pytest.mark.parametrize("buf,msg", [
    (b"", "not an MXNet NDArray file"),
    (b"PK\x03\x04" + b"\0" * 40, "not an MXNet NDArray file"),
    (struct.pack("<QQ", 0x112, 0) + b"\x01", "truncated at byte 16"),
    (struct.pack("<QQQ", 0x112, 0, 2 ** 60), "array count"),
    (struct.pack("<QQQ", 0x112, 0, 1) + struct.pack("<IiI", ser.V2_MAGIC, 0, 1000) + b"\0" * 64,
     "invalid ndim 1000"),
    (struct.pack("<QQQ", 0x112, 0, 1) + struct.pack("<IiI", ser.V2_MAGIC, 0, 2)
     + struct.pack("<qq", 2 ** 20, 2 ** 20) + struct.pack("<iii", 1, 0, 0) + b"\0" * 16,
     "truncated"),
    (struct.pack("<QQQ", 0x112, 0, 1) + struct.pack("<IiI", ser.V2_MAGIC, 0, 2)
     + struct.pack("<qq", 0, 2 ** 62) + b"\0" * 32, "too many elements"),
    (struct.pack("<QQQ", 0x112, 0, 1) + struct.pack("<IiI", ser.V2_MAGIC, 0, 1)
     + struct.pack("<q", -3) + b"\0" * 32, "invalid shape"),
    (struct.pack("<QQQ", 0x112, 0, 1) + struct.pack("<IiI", ser.V2_MAGIC, 0, 1)
     + struct.pack("<q", 1) + struct.pack("<iii", 1, 0, 42) + b"\0" * 16, "unknown dtype flag 42"),
    (struct.pack("<QQQ", 0x112, 0, 1) + struct.pack("<IiI", ser.V2_MAGIC, 7, 1) + b"\0" * 32,
     "unknown storage type 7"),
    (struct.pack("<QQQ", 0x112, 0, 1) + struct.pack("<I", 0xDEADBEEF) + b"\0" * 32,
     "bad array record magic"),
    (struct.pack("<QQQ", 0x112, 0, 0) + struct.pack("<Q", 3), "name count 3"),
    (struct.pack("<QQQ", 0x112, 0, 0) + struct.pack("<Q", 0)[:4], "truncated at byte 24"),
])
def test_malformed_buffers(buf, msg):
    with pytest.raises(MXNetError, match=msg):
        mx.nd.load_frombuffer(buf)


def test_name_length_and_utf8_errors():
    base = bytearray(open(fixture_path("v1_record"), "rb").read())
    bad_len = bytes(base[:-9]) + struct.pack("<Q", 2 ** 62) + b"x"
    with pytest.raises(MXNetError, match="truncated"):
        mx.nd.load_frombuffer(bad_len)
    bad_utf = bytes(base[:-1]) + b"\xff"
    with pytest.raises(MXNetError, match="UTF-8"):
        mx.nd.load_frombuffer(bad_utf)


def test_error_names_the_file(tmp_path):
    p = tmp_path / "junk.params"
    p.write_bytes(b"hello world, definitely not ndarrays")
    with pytest.raises(MXNetError, match=r"junk\.params.*not an MXNet NDArray file"):
        mx.nd.load(str(p))


@pytest.mark.parametrize("stem", ["dict_mixed", "csr", "row_sparse", "np_shape_v3", "legacy_record", "v1_record",
                                  "scalar_0d", "bfloat16"])
def test_fuzz_truncations_and_bit_flips(stem):
    buf = open(fixture_path(stem), "rb").read()
    rng = np.random.RandomState(0)
    cases = [buf[:n] for n in range(len(buf))]
    for _ in range(1000):
        b = bytearray(buf)
        for _ in range(rng.randint(1, 4)):
            pos = rng.randint(len(b))
            b[pos] ^= 1 << rng.randint(8)
        cases.append(bytes(b))
    for _ in range(100):          # random 64-bit garbage at a random aligned offset
        b = bytearray(buf)
        pos = rng.randint(len(b) // 4) * 4
        b[pos:pos + 8] = rng.bytes(8)
        cases.append(bytes(b[:len(buf)]))
    for case in cases:
        try:
            out = mx.nd.load_frombuffer(case)
        except MXNetError:
            continue
        assert isinstance(out, (list, dict))


@pytest.mark.gpu
def test_save_from_gpu_records_gpu_context(tmp_path):
    x = mx.nd.array([1.0, 2.0], ctx=mx.gpu(0))
    mx.nd.save(str(tmp_path / "g.nd"), [x])
    buf = (tmp_path / "g.nd").read_bytes()
    # header (24) + magic, stype, ndim (12) + one i64 dim (8) -> device type, device id
    assert struct.unpack_from("<ii", buf, 44) == (2, 0)
    back = mx.nd.load(str(tmp_path / "g.nd"))[0]
    assert back.context == mx.cpu(0)
    np.testing.assert_array_equal(back.asnumpy(), [1.0, 2.0])


def test_np_shape_semantics_of_save_and_load(tmp_path):
    # MXNet writes V3 records in np shape semantics and loads each version only in the
    # semantics it was written in (test_save_load_scalar_zero_size_ndarrays)
    v3 = open(fixture_path("np_shape_v3"), "rb").read()
    with pytest.raises(MXNetError, match="saved in np shape semantics"):
        mx.nd.load_frombuffer(v3)
    with mx.np_shape(True):
        mx.nd.save(tmp_path / "a.nd", {"s": mx.nd.array(np.array(2.5, np.float32)),
                                       "z": mx.nd.zeros((0, 2))})
        loaded = mx.nd.load(tmp_path / "a.nd")
        assert loaded["s"].shape == () and loaded["z"].shape == (0, 2)
        with pytest.raises(MXNetError, match="default storage"):
            mx.nd.save(tmp_path / "b.nd", [mx.nd.zeros((2, 2)).tostype("csr")])
    assert (tmp_path / "a.nd").read_bytes()[24:28] == v3[24:28]   # the V3 record magic
    with pytest.raises(MXNetError, match="saved in np shape semantics"):
        mx.nd.load(tmp_path / "a.nd")
    # outside np_shape MXNet refuses nd.zeros((2, 0, 1)); nd.array makes one
    mx.nd.save(tmp_path / "c.nd", [mx.nd.array(np.zeros((2, 0, 1), np.float32))])
    assert mx.nd.load(tmp_path / "c.nd")[0].shape == (2, 0, 1)
    with mx.np_shape(True), pytest.raises(MXNetError, match="not saved in np shape"):
        mx.nd.load(tmp_path / "c.nd")
