"""Batching over a sequence of samples the way MXNet's C++ iterators do it
(``iter_batchloader.h``'s rules, which ``CSVIter`` and ``MNISTIter`` follow)."""
from __future__ import annotations

import numpy as np

from .. import ndarray as nd
from .io import DataBatch, MXDataIter

__all__ = ["BatchLoader", "OneArrayBatches"]


class OneArrayBatches(MXDataIter):
    """``next``/``getdata``/``getlabel``/``getpad`` of MXNet's C++ iterators over the
    ``DataBatch`` that ``iter_next`` leaves in ``self._batch``: they return the one
    data (label) array itself, not a list."""

    _batch = None

    def next(self) -> DataBatch:
        if not self.iter_next():
            raise StopIteration
        return self._batch

    def getdata(self):
        return self._batch.data[0]

    def getlabel(self):
        return self._batch.label[0]

    def getpad(self) -> int:
        return self._batch.pad


class BatchLoader(OneArrayBatches):
    """Batches of rows of ``data`` / ``label`` (NumPy arrays, first axis = sample).

    With ``round_batch`` an incomplete last batch is filled from the start of the data
    (``pad`` counts those rows) and the next epoch continues after them; without it,
    ``pad`` counts the trailing rows, which keep the previous batch's values (MXNet
    reuses its batch buffer).  ``drop_last`` drops an incomplete batch instead.
    """

    def __init__(self, data: np.ndarray, label: np.ndarray, batch_size: int,
                 round_batch: bool = True, drop_last: bool = False, data_name: str = "data",
                 label_name: str = "softmax_label"):
        super().__init__(batch_size)
        self._data = data
        self._label = label
        self._round_batch = round_batch
        self._drop_last = drop_last
        self._cursor = 0
        self._overflow = 0
        self._data_buf = np.zeros((batch_size,) + data.shape[1:], data.dtype)
        self._label_buf = np.zeros((batch_size,) + label.shape[1:], label.dtype)
        self._data_name = data_name
        self._label_name = label_name
        self._batch = None

    @property
    def provide_data(self) -> list:
        from .io import DataDesc
        return [DataDesc(self._data_name, self._data_buf.shape, self._data_buf.dtype.type)]

    @property
    def provide_label(self) -> list:
        from .io import DataDesc
        return [DataDesc(self._label_name, self._label_buf.shape, self._label_buf.dtype.type)]

    def reset(self) -> None:
        # after a wrapped-around batch the next epoch starts where the wrap stopped
        if not (self._round_batch and self._overflow):
            self._cursor = 0
        self._overflow = 0

    def iter_next(self) -> bool:
        if self._overflow:
            return False  # until reset(), as MXNet's loader does
        n = len(self._data)
        take = min(self.batch_size, n - self._cursor)
        if take <= 0 or (self._drop_last and take < self.batch_size):
            return False
        rows = slice(self._cursor, self._cursor + take)
        self._data_buf[:take] = self._data[rows]
        self._label_buf[:take] = self._label[rows]
        self._cursor += take
        pad = self.batch_size - take
        if pad and self._round_batch:
            fill = np.arange(pad) % n
            self._data_buf[take:] = self._data[fill]
            self._label_buf[take:] = self._label[fill]
            self._cursor = pad % n
            self._overflow = pad
        self._batch = DataBatch([nd.array(self._data_buf, dtype=self._data_buf.dtype)],
                                [nd.array(self._label_buf, dtype=self._label_buf.dtype)],
                                pad=pad)
        return True
