"""``mx.io.CSVIter`` / ``MNISTIter`` batches, pads and the round_batch carry-over equal
MXNet 1.9.1's (fixture ``text_iters.npz``); bad files raise ``MXNetError``."""
import os
import sys

import numpy as np
import pytest

import gluonlite as mx

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")
sys.path.insert(0, FIXTURES)
from text_iter_cases import record, scenarios, write_files  # noqa: E402

EXPECTED = np.load(os.path.join(FIXTURES, "text_iters.npz"))
NAMES = sorted({k.split("/")[0] for k in EXPECTED.files})


@pytest.mark.parametrize("name", NAMES)
def test_batches_match_mxnet(name, tmp_path):
    ours = record(scenarios(mx, write_files(str(tmp_path)))[name])
    theirs = {k.split("/", 1)[1]: EXPECTED[k] for k in EXPECTED.files
              if k.startswith(name + "/")}
    assert sorted(ours) == sorted(theirs)
    for key, value in theirs.items():
        if value.dtype.kind == "U":
            assert str(ours[key]) == str(value)
        else:
            np.testing.assert_array_equal(ours[key], value, err_msg=key)
            assert ours[key].dtype == value.dtype, key


def test_bad_files_raise(tmp_path):
    paths = write_files(str(tmp_path))
    with pytest.raises(mx.base.MXNetError, match=r"needs 4"):
        mx.io.CSVIter(data_csv=paths["d.csv"], data_shape=(2, 2), batch_size=2)
    with pytest.raises(mx.base.MXNetError, match="not found"):
        mx.io.CSVIter(data_csv=str(tmp_path / "missing.csv"), data_shape=(5,), batch_size=2)
    with pytest.raises(mx.base.MXNetError, match="magic number 2051"):
        mx.io.MNISTIter(image=paths["lbl-idx1-ubyte"], label=paths["lbl-idx1-ubyte"])
    truncated = tmp_path / "short-idx3-ubyte"
    truncated.write_bytes(open(paths["img-idx3-ubyte"], "rb").read()[:500])
    with pytest.raises(mx.base.MXNetError, match="truncated"):
        mx.io.MNISTIter(image=str(truncated), label=paths["lbl-idx1-ubyte"])
    with pytest.raises(mx.base.MXNetError, match="unknown arguments"):
        mx.io.CSVIter(data_csv=paths["d.csv"], data_shape=(5,), batch_size=2, bogus=1)


def test_mnist_shuffle_and_parts(tmp_path):
    paths = write_files(str(tmp_path))
    plain = mx.io.MNISTIter(image=paths["img-idx3-ubyte"], label=paths["lbl-idx1-ubyte"],
                            batch_size=1, shuffle=False)
    shuffled = mx.io.MNISTIter(image=paths["img-idx3-ubyte"], label=paths["lbl-idx1-ubyte"],
                               batch_size=1, shuffle=True, seed=3)
    labels = sorted(float(b.label[0].asscalar()) for b in shuffled)
    assert labels == [float(b.label[0].asscalar()) for b in plain]
    part = mx.io.MNISTIter(image=paths["img-idx3-ubyte"], label=paths["lbl-idx1-ubyte"],
                           batch_size=1, shuffle=False, num_parts=2, part_index=1)
    assert [float(b.label[0].asscalar()) for b in part] == [2.0, 3.0]


def test_getdata_returns_the_array(tmp_path):
    it = scenarios(mx, write_files(str(tmp_path)))["csv_round"]()
    for batch in it:
        assert it.getdata() is batch.data[0] and it.getlabel() is batch.label[0]
        assert it.getpad() == batch.pad


def test_mnist_ignores_unknown_arguments(tmp_path):
    # as MXNet (InitAllowUnknown): tests/python/train/test_mlp.py passes data_shape
    paths = write_files(str(tmp_path))
    it = mx.io.MNISTIter(image=paths["img-idx3-ubyte"], label=paths["lbl-idx1-ubyte"],
                         data_shape=(784,), batch_size=1, flat=True, label_name="sm_label")
    assert it.provide_data[0].shape == (1, 784)
    assert it.provide_label[0].name == "sm_label"
