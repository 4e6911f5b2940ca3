"""``mx.io``: NDArrayIter batches, pads and shuffles equal MXNet 1.9.1's (fixture
``io_ndarray_iter.npz``), DataDesc/DataBatch, ResizeIter and PrefetchingIter."""
import os
import sys

import numpy as np
import pytest

import gluonlite as mx

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")
sys.path.insert(0, FIXTURES)
from io_cases import CASES, run  # noqa: E402

EXPECTED = np.load(os.path.join(FIXTURES, "io_ndarray_iter.npz"))


@pytest.mark.parametrize("case", sorted(CASES))
def test_ndarray_iter_matches_mxnet(case):
    ours = run(mx, case)
    theirs = {k.split("/", 1)[1]: EXPECTED[k] for k in EXPECTED.files
              if k.startswith(case + "/")}
    assert sorted(ours) == sorted(theirs)
    for key, value in theirs.items():
        if value.dtype.kind == "U":
            assert ours[key] == str(value), key
        else:
            np.testing.assert_array_equal(ours[key], value, err_msg=key)


def test_provide_data_layout_and_dtype():
    data = np.zeros((5, 7, 3), dtype=np.float32)
    it = mx.io.NDArrayIter(mx.nd.array(data, dtype="float16"), batch_size=2, layout="TNC")
    desc = it.provide_data[0]
    assert desc.name == "data" and desc.shape == (5, 2, 3) and desc.layout == "TNC"
    assert desc.dtype == np.float16
    assert mx.io.DataDesc.get_batch_axis("TNC") == 1
    assert mx.io.DataDesc.get_batch_axis(None) == 0
    name, shape = desc  # still a (name, shape) pair
    assert repr(mx.io.DataDesc("x", (1, 2))) == "DataDesc[x,(1, 2),<class 'numpy.float32'>,NCHW]"
    descs = mx.io.DataDesc.get_list([("a", (1,)), ("b", (2,))], [("a", np.int32), ("b", "f")])
    assert [d.dtype for d in descs] == [np.int32, "f"]


def test_data_batch_checks_and_str():
    batch = mx.io.DataBatch([mx.nd.ones((2, 3))], [mx.nd.ones((2,))], pad=1)
    assert str(batch) == "DataBatch: data shapes: [(2, 3)] label shapes: [(2,)]"
    with pytest.raises(AssertionError, match="Data must be list"):
        mx.io.DataBatch(mx.nd.ones((2, 3)))


def test_bad_inputs_raise():
    with pytest.raises(ValueError, match="last_batch_handle"):
        mx.io.NDArrayIter(np.ones((4, 2)), last_batch_handle="keep")
    with pytest.raises(ValueError, match=r"'softmax_label' has 3 samples \(shape \(3,\)\)"):
        mx.io.NDArrayIter(np.ones((4, 2)), np.ones(3))
    # extra label rows are allowed, as in MXNet: the first num_data are read
    batch = next(mx.io.NDArrayIter(np.ones((2, 2)), np.arange(5), batch_size=2))
    np.testing.assert_array_equal(batch.label[0].asnumpy(), [0, 1])
    with pytest.raises(TypeError, match="Input must be"):
        mx.io.NDArrayIter("not an array")


def test_batches_are_copies():
    source = mx.nd.array(np.arange(8).reshape(4, 2))
    batch = next(mx.io.NDArrayIter(source, batch_size=2))
    batch.data[0][:] = -1
    assert source.asnumpy().min() == 0


def test_resize_iter_repeats_the_inner_iterator():
    inner = mx.io.NDArrayIter(np.arange(6, dtype=np.float32).reshape(6, 1), batch_size=2)
    it = mx.io.ResizeIter(inner, 5)
    firsts = [batch.data[0].asnumpy()[0, 0] for batch in it]
    assert firsts == [0, 2, 4, 0, 2]
    assert it.provide_data == inner.provide_data and it.batch_size == 2
    it.reset()
    assert next(it).data[0].asnumpy()[0, 0] == 0


def test_prefetching_iter_joins_and_renames():
    a = mx.io.NDArrayIter(np.arange(8, dtype=np.float32).reshape(4, 2), np.arange(4),
                          batch_size=2)
    b = mx.io.NDArrayIter({"other": np.ones((4, 3))}, batch_size=2)
    it = mx.io.PrefetchingIter([a, b], rename_data=[{"data": "x"}, {"other": "y"}])
    assert [d.name for d in it.provide_data] == ["x", "y"]
    assert it.batch_size == 2
    for epoch in range(2):
        batches = list(it)
        assert len(batches) == 2
        assert [d.shape for d in batches[1].data] == [(2, 2), (2, 3)]
        np.testing.assert_array_equal(batches[1].data[0].asnumpy(), [[4, 5], [6, 7]])
        np.testing.assert_array_equal(batches[1].label[0].asnumpy(), [2, 3])
        it.reset()


def test_prefetching_iter_mismatch_and_errors_surface():
    a = mx.io.NDArrayIter(np.ones((4, 2)), batch_size=2)
    b = mx.io.NDArrayIter(np.ones((6, 2)), batch_size=2)
    it = mx.io.PrefetchingIter([a, b])
    list(zip(range(2), it))
    with pytest.raises(AssertionError, match="mismatches"):
        next(it)

    class Broken(mx.io.DataIter):
        provide_data = [mx.io.DataDesc("data", (2, 1))]
        provide_label = []

        def next(self):
            raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError, match="disk on fire"):
        next(mx.io.PrefetchingIter(Broken()))


def test_csr_data_needs_discard_and_slices_stay_csr():
    rng = np.random.default_rng(3)
    dense = (rng.uniform(size=(7, 5)) > 0.6) * rng.normal(size=(7, 5)).astype(np.float32)
    csr = mx.nd.array(dense).tostype("csr")
    with pytest.raises(NotImplementedError):
        mx.io.NDArrayIter({"data": csr}, dense, 3)
    it = mx.io.NDArrayIter({"data": csr}, dense, 3, last_batch_handle="discard")
    batches = list(it)
    assert len(batches) == 2
    assert batches[0].data[0].stype == "csr"
    np.testing.assert_allclose(batches[1].data[0].asnumpy(), dense[3:6])
    np.testing.assert_allclose(batches[1].label[0].asnumpy(), dense[3:6])


def test_csr_data_shuffles_rows_with_their_labels():
    spsp = pytest.importorskip("scipy.sparse")  # SciPy matrices as input, as in MXNet
    dense = np.arange(24, dtype=np.float32).reshape(8, 3) * (np.arange(24).reshape(8, 3) % 2)
    label = np.arange(8, dtype=np.float32)
    np.random.seed(0)
    it = mx.io.NDArrayIter({"data": spsp.csr_matrix(dense)}, label, 4, shuffle=True,
                           last_batch_handle="discard")
    for batch in it:
        assert batch.data[0].stype == "csr"
        rows = batch.label[0].asnumpy().astype(int)
        np.testing.assert_allclose(batch.data[0].asnumpy(), dense[rows])
