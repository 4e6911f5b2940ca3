"""The dataset helpers of ``mx.test_utils``: local files only (gluonlite never
downloads), archives unpacked as MXNet's helpers do, ``DummyIter``, sparse factories."""
import bz2
import gzip
import os
import struct
import zipfile

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import test_utils as tu
from gluonlite.base import MXNetError


def test_star_import_gives_the_data_helpers():
    names = {}
    exec("from gluonlite.test_utils import *", names)
    for name in ("get_mnist_ubyte", "get_cifar10", "get_bz2_data", "DummyIter", "download"):
        assert callable(names[name])


def test_download_needs_the_file_in_place(tmp_path):
    with pytest.raises(MXNetError, match="does not download"):
        tu.download("http://x.org/a.bin", dirname=str(tmp_path))
    (tmp_path / "a.bin").write_bytes(b"1")
    assert tu.download("http://x.org/a.bin", dirname=str(tmp_path)) == str(tmp_path / "a.bin")


def _idx(path, magic, array):
    with gzip.open(path, "wb") as f:
        f.write(struct.pack(">I", magic) + b"".join(struct.pack(">I", d) for d in array.shape))
        f.write(array.tobytes())


def test_get_mnist_reads_local_gz_files(tmp_path):
    rng = np.random.default_rng(0)
    images = rng.integers(0, 256, size=(3, 28, 28), dtype=np.uint8)
    labels = np.array([1, 2, 3], dtype=np.int8)
    for prefix in ("train", "t10k"):
        _idx(tmp_path / f"{prefix}-images-idx3-ubyte.gz", 2051, images)
        _idx(tmp_path / f"{prefix}-labels-idx1-ubyte.gz", 2049, labels)
    data = tu.get_mnist(dirname=str(tmp_path))
    assert data["train_data"].shape == (3, 1, 28, 28)
    np.testing.assert_allclose(data["test_data"][1, 0], images[1] / 255, rtol=1e-6)
    np.testing.assert_array_equal(data["train_label"], labels)


def test_archives_are_unpacked(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.makedirs("data")
    with zipfile.ZipFile("data/cifar10.zip", "w") as zf:
        for name in ("train.rec", "test.rec", "train.lst", "test.lst"):
            zf.writestr(f"cifar/{name}", b"x")
    tu.get_cifar10()
    assert os.path.exists("data/cifar/test.lst")
    with bz2.open("data/news.t.bz2", "wb") as f:
        f.write(b"1 0:1\n")
    tu.get_bz2_data("data", "news.t", "http://x.org/news.t.bz2", "news.t.bz2")
    assert open("data/news.t").read() == "1 0:1\n"
    with pytest.raises(MXNetError, match="mnist.zip"):
        tu.get_mnist_ubyte()


def test_dummy_iter_repeats_the_first_batch():
    it = mx.io.NDArrayIter(np.arange(8, dtype=np.float32).reshape(4, 2), batch_size=2)
    dummy = tu.DummyIter(it)
    first = next(dummy)
    assert next(dummy) is first and dummy.batch_size == 2


def test_sparse_factories_and_shuffled_columns():
    np.random.seed(1)
    rsp = tu.create_sparse_array_zd((6, 3), "row_sparse", 0.5, rsp_indices=[4, 1])
    np.testing.assert_array_equal(rsp.indices.asnumpy(), [1, 4])
    csr = tu.create_sparse_array((5, 8), "csr", density=0.6)
    before = csr.asnumpy()
    rows_before = (before != 0).sum(axis=1)
    tu.shuffle_csr_column_indices(csr)
    after = csr.asnumpy()
    np.testing.assert_array_equal((after != 0).sum(axis=1), rows_before)
    np.testing.assert_allclose(np.sort(after, axis=1), np.sort(before, axis=1))
