"""``mx.contrib.io``: ``DataLoaderIter``, a Gluon ``DataLoader`` as a Module ``DataIter``."""
from __future__ import annotations

from .. import ndarray as nd
from ..io import DataDesc, DataIter

__all__ = ["DataLoaderIter"]


class DataLoaderIter(DataIter):
    """Iterate a ``gluon.data.DataLoader`` of ``(data, label)`` batches as a ``DataIter``.

    A short last batch is padded to the batch size of the first batch (``getpad`` says by
    how much), as Module's ``fit`` expects.

    Parameters
    ----------
    loader : gluon.data.DataLoader
        Yields ``(data, label)`` pairs.
    data_name, label_name : str
        Names in ``provide_data`` and ``provide_label``.
    dtype : str
        Type the batches are cast to (``float32`` or ``float16``).
    """

    def __init__(self, loader, data_name: str = "data", label_name: str = "softmax_label",
                 dtype: str = "float32"):
        super().__init__()
        self._loader = loader
        self._iter = iter(loader)
        data, label = next(self._iter)
        self.batch_size = data.shape[0]
        self.dtype = dtype
        self.provide_data = [DataDesc(data_name, data.shape, dtype)]
        self.provide_label = [DataDesc(label_name, label.shape, dtype)]
        self._current_batch = None
        self.reset()

    def reset(self) -> None:
        self._iter = iter(self._loader)

    def iter_next(self) -> bool:
        self._current_batch = next(self._iter, None)
        return self._current_batch is not None

    def _padded(self, arr):
        arr = arr.astype(self.dtype)
        if not self.getpad():
            return arr
        out = nd.zeros((self.batch_size,) + tuple(arr.shape[1:]), ctx=arr.context,
                       dtype=self.dtype)
        out[:arr.shape[0]] = arr
        return out

    def getdata(self) -> list:
        return [self._padded(self._current_batch[0])]

    def getlabel(self) -> list:
        return [self._padded(self._current_batch[1])]

    def getpad(self) -> int:
        return self.batch_size - self._current_batch[0].shape[0]

    def getindex(self):
        return None
