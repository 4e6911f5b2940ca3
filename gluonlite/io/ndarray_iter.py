"""``mx.io.NDArrayIter``: batches over in-memory arrays, with MXNet 1.9's handling
of the last, incomplete batch (``pad``, ``discard``, ``roll_over``) and shuffling."""
from __future__ import annotations

import numpy as np

from .. import ndarray as nd
from .io import DataBatch, DataDesc, DataIter
from ..ndarray.sparse import CSRNDArray
from .utils import _getdata_by_idx, _has_instance, _init_data

__all__ = ["NDArrayIter"]

_LAST_BATCH = ("pad", "discard", "roll_over")


class NDArrayIter(DataIter):
    """Iterate over NDArrays or NumPy arrays in batches.

    Parameters
    ----------
    data : array, list of arrays or dict of name -> array
        The inputs; a list gives names ``_0_data``, ``_1_data``, ...  They are
        provided sorted by name, as MXNet does.
    label : array, list or dict, optional
        The labels (names from ``label_name`` likewise).
    batch_size : int, default 1
    shuffle : bool, default False
        Reorder the samples (with NumPy's global generator) at every ``reset``.
    last_batch_handle : {'pad', 'discard', 'roll_over'}, default 'pad'
        ``pad`` fills the last batch from the start of the data and reports how many
        samples are filler in ``DataBatch.pad``; ``discard`` drops it; ``roll_over``
        carries its samples into the first batch of the next epoch.
    data_name, label_name : str
        Names of a single unnamed data / label array.
    layout : str, default 'NCHW'
        Where ``N`` (the batch axis) is in ``provide_data`` and when slicing.
    """

    def __init__(self, data, label=None, batch_size: int = 1, shuffle: bool = False,
                 last_batch_handle: str = "pad", data_name: str = "data",
                 label_name: str = "softmax_label", layout: str = "NCHW"):
        super().__init__(batch_size)
        if last_batch_handle not in _LAST_BATCH:
            raise ValueError(f"NDArrayIter: last_batch_handle must be one of {_LAST_BATCH}, "
                             f"got {last_batch_handle!r}")
        self.data = _init_data(data, allow_empty=False, default_name=data_name)
        self.label = _init_data(label, allow_empty=True, default_name=label_name)
        if (_has_instance(self.data, CSRNDArray) or _has_instance(self.label, CSRNDArray)) \
                and last_batch_handle != "discard":
            raise NotImplementedError("`NDArrayIter` only supports ``CSRNDArray`` with "
                                      "`last_batch_handle` set to `discard`.")
        self.num_data = self.data[0][1].shape[0]
        # more samples than the first data array is allowed (MXNet reads the first
        # num_data of them); fewer would give short batches
        for name, arr in self.data + self.label:
            if arr.shape[0] < self.num_data:
                raise ValueError(f"NDArrayIter: '{name}' has {arr.shape[0]} samples "
                                 f"(shape {arr.shape}) but '{self.data[0][0]}' has "
                                 f"{self.num_data}")
        self.idx = np.arange(self.num_data)
        self.shuffle = shuffle
        self.last_batch_handle = last_batch_handle
        self.layout = layout
        self.cursor = -batch_size
        # samples of an incomplete last batch kept for roll_over, per source
        self._cache = {"data": None, "label": None}
        self.reset()
        self.data_list = [arr for _, arr in self.data] + [arr for _, arr in self.label]
        self.num_source = len(self.data_list)

    @property
    def _batch_axis(self) -> int:
        return self.layout.find("N")

    def _descs(self, source) -> list:
        axis = self._batch_axis
        return [DataDesc(name, tuple(arr.shape[:axis]) + (self.batch_size,)
                         + tuple(arr.shape[axis + 1:]), arr.dtype, layout=self.layout)
                for name, arr in source]

    @property
    def provide_data(self) -> list:
        """``DataDesc`` of each data input (batch shape)."""
        return self._descs(self.data)

    @property
    def provide_label(self) -> list:
        """``DataDesc`` of each label."""
        return self._descs(self.label)

    def hard_reset(self) -> None:
        """Reset to the first batch, dropping any rolled-over samples."""
        if self.shuffle:
            self._shuffle_data()
        self.cursor = -self.batch_size
        self._cache = {"data": None, "label": None}

    def reset(self) -> None:
        if self.shuffle:
            self._shuffle_data()
        if (self.last_batch_handle == "roll_over"
                and self.num_data - self.batch_size < self.cursor < self.num_data):
            # a negative cursor: the first batch starts with the cached samples
            self.cursor = self.cursor - self.num_data - self.batch_size
        else:
            self.cursor = -self.batch_size

    def iter_next(self) -> bool:
        self.cursor += self.batch_size
        return self.cursor < self.num_data

    def next(self) -> DataBatch:
        if not self.iter_next():
            raise StopIteration
        data = self.getdata()
        label = self.getlabel()
        if data[0].shape[self._batch_axis] != self.batch_size:
            # incomplete batch (discard / roll_over): keep it for the next epoch
            self._cache = {"data": data, "label": label}
            raise StopIteration
        return DataBatch(data=data, label=label, pad=self.getpad(), index=None)

    def _slice(self, source, start: int = 0, end: int | None = None) -> list:
        end = self.num_data if end is None else end
        return [arr[start:end] if isinstance(arr, CSRNDArray) else
                nd.slice_axis(arr, axis=self._batch_axis, begin=start, end=end)
                for _, arr in source]

    def _concat(self, first: list, second: list) -> list:
        if not first or not second:
            return first or second
        return [nd.concat(a, b, dim=self._batch_axis) for a, b in zip(first, second)]

    def _batchify(self, source, kind: str) -> list:
        assert self.cursor < self.num_data, "DataIter needs reset."
        end = self.cursor + self.batch_size
        if self.last_batch_handle == "roll_over" and -self.batch_size < self.cursor < 0:
            cached = self._cache[kind]
            assert cached is not None, "next epoch should have cached data"
            self._cache[kind] = None
            return self._concat(cached, self._slice(source, end=end))
        if self.last_batch_handle == "pad" and end > self.num_data:
            pad = end - self.num_data
            whole, rest = divmod(pad, self.num_data)
            filler = []
            if whole:
                filler = [nd.tile(arr, reps=(whole,) + (1,) * (arr.ndim - 1))
                          for arr in self._slice(source)]
            if rest:
                filler = self._concat(filler, self._slice(source, end=rest))
            return self._concat(self._slice(source, start=self.cursor), filler)
        return self._slice(source, self.cursor, min(end, self.num_data))

    def getdata(self) -> list:
        return self._batchify(self.data, "data")

    def getlabel(self) -> list:
        return self._batchify(self.label, "label")

    def getpad(self) -> int:
        if self.last_batch_handle == "pad" and self.cursor + self.batch_size > self.num_data:
            return self.cursor + self.batch_size - self.num_data
        if self.last_batch_handle == "roll_over" and -self.batch_size < self.cursor < 0:
            return -self.cursor
        return 0

    def _shuffle_data(self) -> None:
        np.random.shuffle(self.idx)
        self.data = _getdata_by_idx(self.data, self.idx)
        self.label = _getdata_by_idx(self.label, self.idx)
