"""Datasets: indexable collections of samples, with lazy transforms (MXNet 1.9)."""
from __future__ import annotations

import os

from ...base import MXNetError
from ... import ndarray

__all__ = ["Dataset", "SimpleDataset", "ArrayDataset", "RecordFileDataset"]


class Dataset:
    """Base class: ``__getitem__`` and ``__len__``."""

    def __getitem__(self, idx):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")

    def __len__(self) -> int:
        raise NotImplementedError(f"{type(self).__name__} must define __len__")

    def filter(self, fn) -> "Dataset":
        """The samples for which ``fn(sample)`` is true."""
        from .sampler import FilterSampler
        return _SampledDataset(self, FilterSampler(fn, self))

    def shard(self, num_shards: int, index: int) -> "Dataset":
        """The ``index``-th of ``num_shards`` contiguous parts (the first ``len % num``
        parts one sample longer)."""
        if num_shards <= 0:
            raise AssertionError("Number of shards must be greater than 0")
        if not 0 <= index < num_shards:
            raise AssertionError(f"Shard index of out bound: {index} out of {num_shards}")
        from .sampler import SequentialSampler
        size, rest = divmod(len(self), num_shards)
        start = size * index + min(index, rest)
        return _SampledDataset(self, SequentialSampler(size + (index < rest), start))

    def take(self, count) -> "Dataset":
        """The first ``count`` samples (all when ``count`` is None or too large)."""
        from .sampler import SequentialSampler
        if count is None or count > len(self):
            count = len(self)
        return _SampledDataset(self, SequentialSampler(count))

    def sample(self, sampler) -> "Dataset":
        """The samples at the indices ``sampler`` yields."""
        from .sampler import Sampler
        if not isinstance(sampler, Sampler):
            raise TypeError(f"Invalid sampler type: {type(sampler)}. Expected "
                            "gluon.data.Sampler instead.")
        return _SampledDataset(self, sampler)

    def transform(self, fn, lazy: bool = True) -> "Dataset":
        """``fn`` applied to each sample (tuples are unpacked into arguments); with
        ``lazy=False`` applied to all samples now."""
        trans = _LazyTransformDataset(self, fn)
        return trans if lazy else SimpleDataset([item for item in trans])

    def transform_first(self, fn, lazy: bool = True) -> "Dataset":
        """``fn`` applied to the first element of each sample only."""
        return self.transform(_TransformFirstClosure(fn), lazy)


class SimpleDataset(Dataset):
    """A dataset over any indexable ``data`` (a list, an array)."""

    def __init__(self, data):
        self._data = data

    def __len__(self) -> int:
        return len(self._data)

    def __getitem__(self, idx):
        return self._data[idx]


class _LazyTransformDataset(Dataset):
    def __init__(self, data, fn):
        self._data = data
        self._fn = fn

    def __len__(self) -> int:
        return len(self._data)

    def __getitem__(self, idx):
        item = self._data[idx]
        return self._fn(*item) if isinstance(item, tuple) else self._fn(item)


class _TransformFirstClosure:
    """Picklable ``fn`` on the first element (worker processes receive it)."""

    def __init__(self, fn):
        self._fn = fn

    def __call__(self, x, *args):
        return (self._fn(x),) + args if args else self._fn(x)


class _SampledDataset(Dataset):
    def __init__(self, dataset, sampler):
        self._dataset = dataset
        self._sampler = sampler
        self._indices = list(iter(sampler))

    def __len__(self) -> int:
        return len(self._sampler)

    def __getitem__(self, idx):
        return self._dataset[self._indices[idx]]


class ArrayDataset(Dataset):
    """Samples zipped from several arrays of one length; 1-D NDArrays are kept as
    NumPy arrays so that a sample is a scalar, as in MXNet."""

    def __init__(self, *args):
        if not args:
            raise AssertionError("Needs at least 1 arrays")
        self._length = len(args[0])
        self._data = []
        for i, data in enumerate(args):
            if len(data) != self._length:
                raise AssertionError(f"All arrays must have the same length; array[0] has "
                                     f"length {self._length} while array[{i + 1}] has "
                                     f"{len(data)}.")
            if isinstance(data, ndarray.NDArray) and len(data.shape) == 1:
                data = data.asnumpy()
            self._data.append(data)

    def __getitem__(self, idx):
        if len(self._data) == 1:
            return self._data[0][idx]
        return tuple(data[idx] for data in self._data)

    def __len__(self) -> int:
        return self._length


class RecordFileDataset(Dataset):
    """The raw records of a RecordIO file (``.rec`` with its ``.idx`` beside it)."""

    def __init__(self, filename: str):
        from ... import recordio
        self.idx_file = os.path.splitext(filename)[0] + ".idx"
        self.filename = filename
        if not os.path.exists(self.idx_file):
            raise MXNetError(f"RecordFileDataset: index file {self.idx_file} for {filename} "
                             "does not exist")
        self._record = recordio.MXIndexedRecordIO(self.idx_file, self.filename, "r")

    def __getitem__(self, idx):
        return self._record.read_idx(self._record.keys[idx])

    def __len__(self) -> int:
        return len(self._record.keys)
