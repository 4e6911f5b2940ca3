"""The DataLoader's fancy-index batches for in-memory ArrayDatasets (``_array_batches``)
give exactly the per-sample path's batches: values, shapes, dtypes, order, for every
sampler and ``last_batch`` mode."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.gluon.data import dataloader as dl
from gluonlite.gluon.data import ArrayDataset, DataLoader


def _per_sample(dataset, batch):
    return dl.default_batchify_fn([dataset[i] for i in batch])


def _as_list(b):
    return b if isinstance(b, list) else [b]


def _same(a, b):
    a, b = _as_list(a), _as_list(b)
    assert len(a) == len(b)
    for u, v in zip(a, b):
        assert isinstance(u, mx.nd.NDArray) and isinstance(v, mx.nd.NDArray)
        assert u.shape == v.shape and u.dtype == v.dtype
        np.testing.assert_array_equal(u.asnumpy(), v.asnumpy())


@pytest.mark.parametrize("arrays", [
    lambda r: (r.standard_normal((50, 1, 4, 4)).astype(np.float32),
               r.integers(0, 6, 50).astype(np.float32)),
    lambda r: (r.integers(0, 9, (50, 3)).astype(np.int64),),
    lambda r: (r.standard_normal(50), r.integers(0, 2, 50).astype(bool),
               r.integers(0, 255, (50, 2, 2)).astype(np.uint8)),
])
@pytest.mark.parametrize("last_batch", ["keep", "discard", "rollover"])
def test_array_batches_equal_per_sample(arrays, last_batch):
    data = arrays(np.random.default_rng(1))
    dataset = ArrayDataset(*data)
    take = dl._array_batches(dataset, dl.default_batchify_fn)
    assert take is not None
    sampler = mx.gluon.data.BatchSampler(mx.gluon.data.RandomSampler(50), 8, last_batch)
    for _ in range(2):  # rollover carries samples into the next epoch
        for batch in sampler:
            _same(take(batch), _per_sample(dataset, batch))


def test_loader_batches_equal_per_sample_loader():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((37, 2, 3)).astype(np.float32)
    y = rng.integers(0, 4, 37).astype(np.int32)
    order = list(rng.permutation(37))
    fast = DataLoader(ArrayDataset(x, y), batch_size=5, sampler=order, last_batch="keep")
    slow = DataLoader(ArrayDataset(x, y), batch_size=5, sampler=order, last_batch="keep",
                      batchify_fn=lambda s: dl.default_batchify_fn(s))
    got, want = list(fast), list(slow)
    assert len(got) == len(want) == 8
    for a, b in zip(got, want):
        _same(a, b)
    mx.random.seed(3)
    np.random.seed(3)
    shuffled = [b[1].asnumpy() for b in DataLoader(ArrayDataset(x, y), batch_size=5,
                                                   shuffle=True)]
    assert sorted(np.concatenate(shuffled).tolist()) == sorted(y.tolist())


def test_array_batches_only_for_plain_numpy_arrays():
    x = np.zeros((4, 2), np.float32)

    class Sub(ArrayDataset):
        def __getitem__(self, idx):
            return super().__getitem__(idx) * 2

    assert dl._array_batches(Sub(x), dl.default_batchify_fn) is None
    assert dl._array_batches(ArrayDataset(x), lambda s: s) is None
    assert dl._array_batches(ArrayDataset(mx.nd.array(x)), dl.default_batchify_fn) is None
    assert dl._array_batches(ArrayDataset(np.array(["a", "b", "c", "d"])),
                             dl.default_batchify_fn) is None
    assert dl._array_batches(mx.gluon.data.SimpleDataset(x), dl.default_batchify_fn) is None
    # a subclass keeps its own __getitem__ through the loader
    out = list(DataLoader(Sub(x + 1), batch_size=4))
    np.testing.assert_array_equal(out[0].asnumpy(), 2 * (x + 1))
