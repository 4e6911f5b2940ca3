"""``mx.io.LibSVMIter``: csr batches, labels from the data file or a label file, MXNet's
round-robin last batch, partitions and bad files (cases of MXNet's documentation)."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError

DATA = "1.0 0:0.5 2:1.2\n-2.0\n-3.0 0:0.6 1:2.4 2:1.2\n4 2:-1.2\n"
LABEL = "1.0\n-2.0 0:0.125\n-3.0 2:1.2\n4 1:1.0 2:-1.2\n"
DENSE = np.array([[0.5, 0, 1.2], [0, 0, 0], [0.6, 2.4, 1.2], [0, 0, -1.2]], np.float32)
LABEL_DENSE = np.array([[0, 0, 0], [0.125, 0, 0], [0, 0, 1.2], [0, 1.0, -1.2]], np.float32)


@pytest.fixture
def files(tmp_path):
    data, label = tmp_path / "data.t", tmp_path / "label.t"
    data.write_text(DATA)
    label.write_text(LABEL)
    return str(data), str(label)


def test_labels_from_the_data_file(files):
    it = mx.io.LibSVMIter(data_libsvm=files[0], data_shape=(3,), batch_size=3)
    assert it.provide_data[0].shape == (3, 3) and it.provide_label[0].shape == (3,)
    first = it.next()
    assert first.data[0].stype == "csr" and first.pad == 0
    first.data[0].check_format(True)
    np.testing.assert_allclose(first.data[0].asnumpy(), DENSE[:3])
    np.testing.assert_allclose(first.label[0].asnumpy(), [1, -2, -3])
    second = it.next()
    assert second.pad == 2
    np.testing.assert_allclose(second.data[0].asnumpy(), DENSE[[3, 0, 1]])
    np.testing.assert_allclose(it.getlabel().asnumpy(), [4, 1, -2])
    with pytest.raises(StopIteration):
        it.next()
    it.reset()   # the next epoch continues after the two wrapped rows
    np.testing.assert_allclose(it.next().data[0].asnumpy(), DENSE[[2, 3, 0]])


def test_labels_from_a_label_file(files):
    it = mx.io.LibSVMIter(data_libsvm=files[0], label_libsvm=files[1], data_shape=(3,),
                          label_shape=(3,), batch_size=3)
    batches = list(it)
    assert len(batches) == 2
    assert batches[0].label[0].stype == "csr"
    np.testing.assert_allclose(batches[0].label[0].asnumpy(), LABEL_DENSE[:3])
    np.testing.assert_allclose(batches[1].label[0].asnumpy(), LABEL_DENSE[[3, 0, 1]])


def test_parts_and_dtype(files):
    it = mx.io.LibSVMIter(data_libsvm=files[0], data_shape=(3,), batch_size=2, num_parts=2,
                          part_index=1, dtype="float64")
    batch = it.next()
    assert batch.data[0].dtype == np.float64
    np.testing.assert_allclose(batch.data[0].asnumpy(), DENSE[2:])


def test_bad_files_raise(tmp_path):
    bad = tmp_path / "bad.t"
    bad.write_text("1.0 0:0.5\n-3.0 -1:0.6 1:2.4\n")
    with pytest.raises(MXNetError, match="outside"):
        mx.io.LibSVMIter(data_libsvm=str(bad), data_shape=(3,), batch_size=1)
    bad.write_text("1.0 0:0.5 7:1\n")
    with pytest.raises(MXNetError, match="outside"):
        mx.io.LibSVMIter(data_libsvm=str(bad), data_shape=(3,), batch_size=1)
    bad.write_text("1.0 0:x\n")
    with pytest.raises(MXNetError, match="parse"):
        mx.io.LibSVMIter(data_libsvm=str(bad), data_shape=(3,), batch_size=1)
    with pytest.raises(MXNetError, match="not found"):
        mx.io.LibSVMIter(data_libsvm=str(tmp_path / "none.t"), data_shape=(3,), batch_size=1)
