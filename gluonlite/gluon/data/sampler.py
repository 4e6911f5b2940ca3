"""Samplers: which dataset indices, in which order and batches (MXNet 1.9 semantics)."""
from __future__ import annotations

import numpy as np

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "FilterSampler", "BatchSampler"]


class Sampler:
    """Base class: an iterable of indices with a length."""

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")

    def __len__(self) -> int:
        raise NotImplementedError(f"{type(self).__name__} must define __len__")


class SequentialSampler(Sampler):
    """``start, start + 1, ..., start + length - 1``."""

    def __init__(self, length: int, start: int = 0):
        self._length = length
        self._start = start

    def __iter__(self):
        return iter(range(self._start, self._start + self._length))

    def __len__(self) -> int:
        return self._length


class RandomSampler(Sampler):
    """A permutation of ``range(length)``, new at each iteration (NumPy's global
    random state, as in MXNet)."""

    def __init__(self, length: int):
        self._length = length

    def __iter__(self):
        indices = np.arange(self._length)
        np.random.shuffle(indices)
        return iter(indices)

    def __len__(self) -> int:
        return self._length


class FilterSampler(Sampler):
    """Indices of the samples of ``dataset`` for which ``fn(sample)`` is true."""

    def __init__(self, fn, dataset):
        self._fn = fn
        self._dataset = dataset
        self._indices = [i for i, sample in enumerate(dataset) if fn(sample)]

    def __iter__(self):
        return iter(self._indices)

    def __len__(self) -> int:
        return len(self._indices)


_LAST_BATCH = ("keep", "discard", "rollover")


class BatchSampler(Sampler):
    """Lists of ``batch_size`` indices from ``sampler``.

    ``last_batch``: ``keep`` yields a short last batch, ``discard`` drops it,
    ``rollover`` carries it into the next iteration's first batch.
    """

    def __init__(self, sampler, batch_size: int, last_batch: str = "keep"):
        if last_batch not in _LAST_BATCH:
            raise ValueError("last_batch must be one of 'keep', 'discard', or 'rollover', "
                             f"but got {last_batch}")
        self._sampler = sampler
        self._batch_size = batch_size
        self._last_batch = last_batch
        self._prev: list = []

    def __iter__(self):
        batch, self._prev = self._prev, []
        for i in self._sampler:
            batch.append(i)
            if len(batch) == self._batch_size:
                yield batch
                batch = []
        if batch:
            if self._last_batch == "keep":
                yield batch
            elif self._last_batch == "rollover":
                self._prev = batch

    def __len__(self) -> int:
        if self._last_batch == "keep":
            return (len(self._sampler) + self._batch_size - 1) // self._batch_size
        if self._last_batch == "discard":
            return len(self._sampler) // self._batch_size
        return (len(self._prev) + len(self._sampler)) // self._batch_size
