"""``mx.io.ImageRecordIter`` against MXNet 1.9.1's C++ iterator with deterministic
settings (fixture ``image_record_iter.npz``, cases in ``gen_image_record_iter.py``):
the same batches, labels, pads and epoch boundaries over three epochs."""
import os
import sys

import numpy as np
import pytest

import gluonlite as mx

pytest.importorskip("PIL")
FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")
sys.path.insert(0, FIXTURES)
import gen_image_record_iter as gen  # noqa: E402  (imports mxnet only inside main())

DATA = np.load(os.path.join(FIXTURES, "image_record_iter.npz"))


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    path = tmp_path_factory.mktemp("image_record_iter")
    for key in DATA.files:
        if key.startswith("files/"):
            (path / key[len("files/"):]).write_bytes(DATA[key].tobytes())
    return str(path)


@pytest.mark.parametrize("case", list(gen.CASES))
def test_batches_match_mxnet(root, case):
    kwargs = gen.iter_kwargs(case, root)
    it = mx.io.ImageRecordIter(**kwargs)
    assert repr(it.provide_data + it.provide_label) == str(DATA[f"{case}/provide"])
    resized = "resize" in kwargs or case.startswith("no_round")
    for epoch in range(3):
        count = 0
        for b, batch in enumerate(it):
            key = f"{case}/{epoch}/{b}"
            assert key + "/data" in DATA.files, f"{key}: more batches than MXNet"
            want = DATA[key + "/data"]
            got = batch.data[0].asnumpy()[:len(want)]
            assert got.dtype == want.dtype
            # uint8 resizes may differ from OpenCV's by one level (then scaled)
            atol = 1.01 * float(np.max(it._mult)) if resized else 0
            np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64),
                                       rtol=1e-6, atol=atol, err_msg=key)
            np.testing.assert_array_equal(batch.label[0].asnumpy()[:len(want)],
                                          DATA[key + "/label"], err_msg=key)
            assert batch.pad == int(DATA[key + "/pad"]), key
            count += 1
        assert f"{case}/{epoch}/{count}/data" not in DATA.files, f"{case}: fewer batches"
        it.reset()


def test_random_options_are_reproducible(root):
    kwargs = dict(path_imgrec=os.path.join(root, "data.rec"), data_shape=(3, 8, 8),
                  batch_size=4, label_width=2, rand_crop=True, rand_mirror=True,
                  max_random_scale=1.2, min_random_scale=0.9, shuffle=True, seed=3, pad=1)
    first = [b.data[0].asnumpy() for b in mx.io.ImageRecordIter(**kwargs)]
    second = [b.data[0].asnumpy() for b in mx.io.ImageRecordIter(**kwargs)]
    assert len(first) == 2
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    it = mx.io.ImageRecordIter(random_resized_crop=True, min_random_area=0.3,
                               max_aspect_ratio=1.3, min_aspect_ratio=0.7,
                               **{k: v for k, v in kwargs.items()
                                  if "scale" not in k and k != "rand_crop"})
    assert it.next().data[0].shape == (4, 3, 8, 8)
    parts = [mx.io.ImageRecordIter(num_parts=2, part_index=i, round_batch=False,
                                   **{k: v for k, v in kwargs.items() if k != "shuffle"})
             for i in range(2)]
    labels = [p.next().label[0].asnumpy()[:, 0] for p in parts]
    np.testing.assert_array_equal(np.concatenate(labels), np.arange(8))


def test_errors_name_the_option(root):
    rec = os.path.join(root, "data.rec")
    with pytest.raises(mx.MXNetError, match="max_rotate_angle"):
        mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 8, 8), batch_size=2,
                              max_rotate_angle=10)
    with pytest.raises(mx.MXNetError, match="unknown argument 'bogus'"):
        mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 8, 8), batch_size=2, bogus=1)
    with pytest.raises(mx.MXNetError, match="data_shape"):
        mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(4, 8, 8), batch_size=2)
    it = mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 8, 8), batch_size=2)
    with pytest.raises(mx.MXNetError, match="label_width is 1"):
        it.next()
    with pytest.raises(mx.MXNetError, match="bigger than the batch size"):
        mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 8, 8), batch_size=20,
                              label_width=2).next()
    with pytest.raises(mx.MXNetError, match="missing.rec"):
        mx.io.ImageRecordIter(path_imgrec=os.path.join(root, "missing.rec"),
                              data_shape=(3, 8, 8), batch_size=2)


def test_uint8_and_int8_spellings_and_mxdataiter_class(root):
    # MXNet's ImageRecordUInt8Iter/ImageRecordInt8Iter are ImageRecordIter with that dtype;
    # its backend iterators are MXDataIter instances (GluonCV checks isinstance on it)
    for case, fn in [("grey_uint8_mirror_idx", mx.io.ImageRecordUInt8Iter),
                     ("int8_cubic", mx.io.ImageRecordInt8Iter)]:
        kwargs = gen.iter_kwargs(case, root)
        kwargs.pop("dtype")
        it = fn(**kwargs)
        assert isinstance(it, mx.io.MXDataIter) and isinstance(it, mx.io.DataIter)
        batch = next(iter(it))
        want = DATA[f"{case}/0/0/data"]
        assert batch.data[0].dtype == want.dtype
    csv = os.path.join(root, "x.csv")
    with open(csv, "w") as f:
        f.write("1,2\n3,4\n")
    assert isinstance(mx.io.CSVIter(data_csv=csv, data_shape=(2,), batch_size=1),
                      mx.io.MXDataIter)
    assert not isinstance(mx.io.NDArrayIter(np.zeros((2, 2))), mx.io.MXDataIter)
