"""nd.save / nd.load keep row_sparse and csr storage, byte-compatible with MXNet 1.9.1.

Fixtures: ``tests/fixtures/sparse_params`` (``tests/fixtures/gen_sparse_params.py``).
"""
import json
import os
import struct
import subprocess
import sys

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HERE = os.path.join(ROOT, "tests", "fixtures", "sparse_params")
sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures"))
from sparse_params_cases import saved_arrays  # noqa: E402


@pytest.fixture(scope="module")
def fixture():
    with open(os.path.join(HERE, "manifest.json")) as f:
        manifest = json.load(f)
    return manifest, dict(np.load(os.path.join(HERE, "train.npz")))


def test_load_mxnet_sparse_file(fixture):
    manifest, store = fixture
    got = mx.nd.load(os.path.join(HERE, "mxnet_sparse.nd"))
    assert sorted(got) == sorted(manifest["mxnet_sparse"])
    for k, info in manifest["mxnet_sparse"].items():
        arr = got[k]
        assert arr.stype == info["stype"], k
        assert list(arr.shape) == info["shape"] and str(np.dtype(arr.dtype)) == info["dtype"]
        assert arr.context == mx.cpu(0)
        np.testing.assert_array_equal(arr.asnumpy(), store[f"mxnet_sparse/{k}"])
    assert isinstance(got["rsp"], mx.nd.sparse.RowSparseNDArray)
    assert got["rsp"].indices.asnumpy().tolist() == [1, 3]
    assert got["rsp_empty"].indices.size == 0
    assert isinstance(got["csr"], mx.nd.sparse.CSRNDArray)
    assert got["csr"].indptr.asnumpy().tolist() == [0, 1, 1, 3]
    assert got["csr"].indices.asnumpy().tolist() == [1, 0, 2]
    got["rsp"].check_format()
    got["csr"].check_format()


def test_save_byte_identical_to_mxnet(tmp_path):
    out = tmp_path / "s.nd"
    mx.nd.save(str(out), saved_arrays(mx.nd))
    assert out.read_bytes() == open(os.path.join(HERE, "mxnet_sparse.nd"), "rb").read()


def test_gluonlite_written_file_loaded_by_mxnet(tmp_path, fixture):
    manifest, store = fixture
    gen_src = open(os.path.join(ROOT, "tests", "fixtures", "gen_sparse_params.py")).read()
    start = gen_src.index('GLUONLITE_WRITER = r"""') + len('GLUONLITE_WRITER = r"""')
    writer = gen_src[start:gen_src.index('"""', start)]
    out = tmp_path / "g.nd"
    subprocess.run([sys.executable, "-c", writer, str(out)], check=True, cwd=ROOT)
    # today's gluonlite writes exactly the file MXNet was shown to read
    assert out.read_bytes() == open(os.path.join(HERE, "gluonlite_sparse.nd"), "rb").read()
    got = mx.nd.load(str(out))
    for k, info in manifest["gluonlite_sparse"].items():
        assert got[k].stype == info["stype"]
        if info["indices"] is not None:
            assert got[k].indices.asnumpy().tolist() == info["indices"]
        if info["indptr"] is not None:
            assert got[k].indptr.asnumpy().tolist() == info["indptr"]
        np.testing.assert_array_equal(got[k].asnumpy(), store[f"gluonlite_sparse/{k}"])


def test_round_trip_keeps_storage(tmp_path):
    data = [mx.nd.sparse.row_sparse_array((np.ones((1, 2), dtype=np.int32), [2]),
                                          shape=(4, 2), dtype="int32"),
            mx.nd.sparse.csr_matrix(np.eye(3, dtype=np.float16))]
    mx.nd.save(str(tmp_path / "r.nd"), data)
    back = mx.nd.load(str(tmp_path / "r.nd"))
    for a, b in zip(data, back):
        assert type(a) is type(b) and a.dtype == b.dtype and a.shape == b.shape
        assert a.indices.asnumpy().tolist() == b.indices.asnumpy().tolist()
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    buf = open(str(tmp_path / "r.nd"), "rb").read()
    assert mx.nd.load_frombuffer(buf)[0].stype == "row_sparse"


def _rsp_file(rows):
    """A one-record file holding a (4, 1) float32 row_sparse array stored at ``rows``."""
    n = len(rows)
    rec = struct.pack("<Ii", 0xF993FAC9, 1)
    rec += struct.pack("<iqq", 2, n, 1) + struct.pack("<iqq", 2, 4, 1)
    rec += struct.pack("<iii", 1, 0, 0) + struct.pack("<iiq", 6, 1, n)
    rec += np.arange(1, n + 1, dtype="<f4").tobytes() + np.asarray(rows, "<i8").tobytes()
    return struct.pack("<QQQ", 0x112, 0, 1) + rec + struct.pack("<Q", 0)


def test_unsorted_rows_are_sorted_and_repeats_refused():
    got = mx.nd.load_frombuffer(_rsp_file([3, 0]))[0]
    assert got.indices.asnumpy().tolist() == [0, 3]
    np.testing.assert_array_equal(got.asnumpy()[:, 0], [2, 0, 0, 1])
    with pytest.raises(MXNetError, match="corrupt row_sparse"):
        mx.nd.load_frombuffer(_rsp_file([1, 1]))
    with pytest.raises(MXNetError, match="corrupt row_sparse"):
        mx.nd.load_frombuffer(_rsp_file([5]))
