"""``gluon.data`` datasets and samplers: MXNet 1.9's orders, lengths and errors."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.gluon import data


def test_array_dataset_and_transforms():
    x = np.arange(12).reshape(6, 2).astype(np.float32)
    y = mx.nd.arange(6)
    ds = data.ArrayDataset(x, y)
    assert len(ds) == 6
    sample = ds[2]
    np.testing.assert_array_equal(sample[0], [4, 5])
    assert isinstance(sample[1], np.float32) and sample[1] == 2  # 1-D NDArray -> numpy
    doubled = ds.transform(lambda a, b: (a * 2, b + 1))
    np.testing.assert_array_equal(doubled[1][0], [4, 6])
    assert doubled[1][1] == 2
    first = ds.transform_first(lambda a: a.sum())
    assert first[3] == (13.0, 3.0)
    eager = ds.transform(lambda a, b: b, lazy=False)
    assert isinstance(eager, data.SimpleDataset) and list(eager) == list(range(6))
    with pytest.raises(AssertionError, match="same length"):
        data.ArrayDataset(x, np.arange(5))
    with pytest.raises(AssertionError):
        data.ArrayDataset()


def test_filter_shard_take_sample():
    ds = data.SimpleDataset(list(range(10)))
    assert list(ds.filter(lambda v: v % 3 == 0)) == [0, 3, 6, 9]
    shards = [list(ds.shard(3, i)) for i in range(3)]
    assert shards == [[0, 1, 2, 3], [4, 5, 6], [7, 8, 9]]
    assert list(ds.take(3)) == [0, 1, 2] and len(ds.take(None)) == 10
    assert list(ds.sample(data.SequentialSampler(3, 5))) == [5, 6, 7]
    with pytest.raises(TypeError):
        ds.sample([1, 2])
    with pytest.raises(AssertionError):
        ds.shard(2, 2)


@pytest.mark.parametrize("last_batch,batches,length", [
    ("keep", [[0, 1, 2], [3, 4, 5], [6]], 3),
    ("discard", [[0, 1, 2], [3, 4, 5]], 2),
    ("rollover", [[0, 1, 2], [3, 4, 5]], 2),
])
def test_batch_sampler(last_batch, batches, length):
    sampler = data.BatchSampler(data.SequentialSampler(7), 3, last_batch)
    assert len(sampler) == length
    assert list(sampler) == batches
    if last_batch == "rollover":
        # the leftover 6 starts the next epoch
        assert len(sampler) == 2
        assert list(sampler)[0] == [6, 0, 1]


def test_batch_sampler_bad_last_batch():
    with pytest.raises(ValueError, match="keep', 'discard', or 'rollover"):
        data.BatchSampler(data.SequentialSampler(3), 2, "pad")


def test_random_sampler_is_numpys_permutation():
    np.random.seed(5)
    got = list(data.RandomSampler(8))
    np.random.seed(5)
    want = np.arange(8)
    np.random.shuffle(want)
    assert got == list(want) and sorted(got) == list(range(8))


def test_interval_sampler():
    from gluonlite.gluon.contrib.data import IntervalSampler
    assert list(IntervalSampler(13, interval=3)) == [0, 3, 6, 9, 12, 1, 4, 7, 10, 2, 5, 8, 11]
    assert list(IntervalSampler(13, interval=3, rollover=False)) == [0, 3, 6, 9, 12]
    assert len(IntervalSampler(13, interval=3, rollover=False)) == 13  # as MXNet
    with pytest.raises(AssertionError):
        IntervalSampler(3, interval=4)


def test_record_file_dataset():
    import os
    here = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "recordio")
    ds = data.RecordFileDataset(os.path.join(here, "indexed.rec"))
    assert len(ds) == 5
    header, payload = mx.recordio.unpack(ds[0])  # the first key in the index is 3
    assert payload == b"payload-3" and header.id == 10
    with pytest.raises(mx.MXNetError, match="index file"):
        data.RecordFileDataset(os.path.join(here, "plain.rec"))
