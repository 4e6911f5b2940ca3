"""MXNet's data-iterator protocol (``mxnet.io``): ``DataDesc``, ``DataBatch``, the
``DataIter`` base class, and the wrappers ``ResizeIter`` and ``PrefetchingIter``.

The Module family and old training scripts consume these; Gluon code uses
``gluon.data.DataLoader`` instead.
"""
from __future__ import annotations

import threading
from collections import namedtuple

import numpy as np

__all__ = ["DataDesc", "DataBatch", "DataIter", "MXDataIter", "ResizeIter", "PrefetchingIter"]


class DataDesc(namedtuple("DataDesc", ["name", "shape"])):
    """Name and shape of one input, plus ``dtype`` and ``layout`` attributes.

    A ``DataDesc`` is still a ``(name, shape)`` tuple, so code that unpacks
    ``provide_data`` entries as pairs keeps working.

    Parameters
    ----------
    name : str
        Input name.
    shape : tuple of int
        Batch shape.
    dtype : numpy dtype, default float32
    layout : str, default 'NCHW'
        Axis letters; ``N`` marks the batch axis.
    """

    def __new__(cls, name: str, shape, dtype=np.float32, layout: str = "NCHW"):
        desc = super().__new__(cls, name, shape)
        desc.dtype = dtype
        desc.layout = layout
        return desc

    def __repr__(self) -> str:
        return f"DataDesc[{self.name},{self.shape},{self.dtype},{self.layout}]"

    @staticmethod
    def get_batch_axis(layout: str | None) -> int:
        """Index of ``N`` in ``layout`` (0 when ``layout`` is None, -1 when absent)."""
        return 0 if layout is None else layout.find("N")

    @staticmethod
    def get_list(shapes, types) -> list:
        """``DataDesc`` list from ``[(name, shape)]`` and optional ``[(name, dtype)]``."""
        if types is None:
            return [DataDesc(name, shape) for name, shape in shapes]
        dtypes = dict(types)
        return [DataDesc(name, shape, dtypes[name]) for name, shape in shapes]


class DataBatch:
    """One batch: lists of data and label arrays, with ``pad`` (how many trailing
    samples are filler), ``index``, ``bucket_key`` and the batch's own
    ``provide_data``/``provide_label`` (bucketing iterators set them)."""

    def __init__(self, data, label=None, pad=None, index=None, bucket_key=None,
                 provide_data=None, provide_label=None):
        if data is not None:
            assert isinstance(data, (list, tuple)), "Data must be list of NDArrays"
        if label is not None:
            assert isinstance(label, (list, tuple)), "Label must be list of NDArrays"
        self.data = data
        self.label = label
        self.pad = pad
        self.index = index
        self.bucket_key = bucket_key
        self.provide_data = provide_data
        self.provide_label = provide_label

    def __str__(self) -> str:
        data_shapes = [d.shape for d in self.data]
        label_shapes = [l.shape for l in self.label] if self.label else None
        return (f"{type(self).__name__}: data shapes: {data_shapes} "
                f"label shapes: {label_shapes}")


class DataIter:
    """Base class of the iterators: subclasses implement ``iter_next``, ``getdata``,
    ``getlabel``, ``getpad`` (and ``reset``, ``getindex``), or override ``next``.

    Parameters
    ----------
    batch_size : int, default 0
    """

    def __init__(self, batch_size: int = 0):
        self.batch_size = batch_size

    def __iter__(self):
        return self

    def reset(self) -> None:
        """Go back to the first batch."""

    def next(self) -> DataBatch:
        """The next batch; ``StopIteration`` at the end of the data."""
        if not self.iter_next():
            raise StopIteration
        return DataBatch(data=self.getdata(), label=self.getlabel(), pad=self.getpad(),
                         index=self.getindex())

    def __next__(self) -> DataBatch:
        return self.next()

    def iter_next(self) -> bool:
        """Advance; False at the end of the data."""

    def getdata(self):
        """Data arrays of the current batch."""

    def getlabel(self):
        """Label arrays of the current batch."""

    def getindex(self):
        """Sample indices of the current batch (None when not tracked)."""
        return None

    def getpad(self):
        """Number of filler samples at the end of the current batch."""


class MXDataIter(DataIter):
    """The class of MXNet's backend iterators (``ImageRecordIter``, ``MNISTIter``,
    ``CSVIter``, ``LibSVMIter``): code tells them from Python iterators with
    ``isinstance(it, mx.io.MXDataIter)``.  Here they are Python classes deriving from it;
    it is not built from a C handle (and has no ``debug_skip_load``)."""


class _CurrentBatchMixin:
    """``getdata``/``getlabel``/``getindex``/``getpad`` read ``self.current_batch``."""

    def getdata(self):
        return self.current_batch.data

    def getlabel(self):
        return self.current_batch.label

    def getindex(self):
        return self.current_batch.index

    def getpad(self):
        return self.current_batch.pad


class ResizeIter(_CurrentBatchMixin, DataIter):
    """Give exactly ``size`` batches per epoch from ``data_iter``, restarting it when it
    runs out (and, with ``reset_internal``, resetting it on ``reset``).

    Parameters
    ----------
    data_iter : DataIter
    size : int
        Batches per epoch.
    reset_internal : bool, default True
    """

    def __init__(self, data_iter: DataIter, size: int, reset_internal: bool = True):
        super().__init__()
        self.data_iter = data_iter
        self.size = size
        self.reset_internal = reset_internal
        self.cur = 0
        self.current_batch = None
        self.provide_data = data_iter.provide_data
        self.provide_label = data_iter.provide_label
        self.batch_size = data_iter.batch_size
        if hasattr(data_iter, "default_bucket_key"):
            self.default_bucket_key = data_iter.default_bucket_key

    def reset(self) -> None:
        self.cur = 0
        if self.reset_internal:
            self.data_iter.reset()

    def iter_next(self) -> bool:
        if self.cur == self.size:
            return False
        try:
            self.current_batch = self.data_iter.next()
        except StopIteration:
            self.data_iter.reset()
            self.current_batch = self.data_iter.next()
        self.cur += 1
        return True


def _renamed(descs, renames) -> list:
    if renames is None:
        return sum(descs, [])
    return sum([[DataDesc(rename[d.name], d.shape, d.dtype) if isinstance(d, DataDesc)
                 else DataDesc(rename[d[0]], *d[1:]) for d in group]
                for rename, group in zip(renames, descs)], [])


class PrefetchingIter(_CurrentBatchMixin, DataIter):
    """Read the next batch of one or more iterators in background threads; the
    batches of several iterators are joined (data after data, label after label).

    Parameters
    ----------
    iters : DataIter or list of DataIter
        Iterators with the same number of batches.
    rename_data, rename_label : list of dict, optional
        Per iterator, ``{old_name: new_name}`` for ``provide_data``/``provide_label``.
    """

    def __init__(self, iters, rename_data=None, rename_label=None):
        super().__init__()
        self.iters = iters if isinstance(iters, list) else [iters]
        self.n_iter = len(self.iters)
        assert self.n_iter > 0
        self.rename_data = rename_data
        self.rename_label = rename_label
        self.batch_size = self.provide_data[0][1][0]
        self.current_batch = None
        self._next = [None] * self.n_iter
        self._errors = [None] * self.n_iter
        # per iterator: "ready" once the worker filled _next, "wanted" when it should read
        self._ready = [threading.Event() for _ in self.iters]
        self._wanted = [threading.Event() for _ in self.iters]
        for event in self._wanted:
            event.set()
        self._running = True
        self._threads = [threading.Thread(target=self._worker, args=(i,), daemon=True)
                         for i in range(self.n_iter)]
        for thread in self._threads:
            thread.start()

    def _worker(self, i: int) -> None:
        while True:
            self._wanted[i].wait()
            if not self._running:
                return
            try:
                self._next[i] = self.iters[i].next()
            except StopIteration:
                self._next[i] = None
            except Exception as err:  # surfaced in the consumer's thread
                self._next[i], self._errors[i] = None, err
            self._wanted[i].clear()
            self._ready[i].set()

    def __del__(self):
        self._running = False
        for event in getattr(self, "_wanted", []):
            event.set()

    @property
    def provide_data(self) -> list:
        return _renamed([it.provide_data for it in self.iters], self.rename_data)

    @property
    def provide_label(self) -> list:
        return _renamed([it.provide_label for it in self.iters], self.rename_label)

    def _wait_all(self) -> None:
        for event in self._ready:
            event.wait()
        for i, err in enumerate(self._errors):
            if err is not None:
                self._errors[i] = None
                raise err

    def _request_all(self) -> None:
        for event in self._ready:
            event.clear()
        for event in self._wanted:
            event.set()

    def reset(self) -> None:
        self._wait_all()
        for it in self.iters:
            it.reset()
        self._request_all()

    def iter_next(self) -> bool:
        self._wait_all()
        batches = self._next
        if batches[0] is None:
            assert all(b is None for b in batches), \
                "Number of entry mismatches between iterators"
            return False
        assert all(b is not None and b.pad == batches[0].pad for b in batches), \
            "Number of entry mismatches between iterators"
        self.current_batch = DataBatch(sum([b.data for b in batches], []),
                                       sum([b.label for b in batches], []),
                                       batches[0].pad, batches[0].index,
                                       provide_data=self.provide_data,
                                       provide_label=self.provide_label)
        self._request_all()
        return True

    def next(self) -> DataBatch:
        if not self.iter_next():
            raise StopIteration
        return self.current_batch
