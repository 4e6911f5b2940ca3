"""``mx.io.LibSVMIter``: batches of ``csr`` rows from zero-based LibSVM files."""
from __future__ import annotations

import os

import numpy as np

from ..base import MXNetError
from ..ndarray import array as nd_array
from ..ndarray.sparse import CSRNDArray, csr_matrix
from ..ops.sparse_storage import CSRStorage, csr_take_rows
from .batch_loader import OneArrayBatches
from .io import DataBatch, DataDesc

__all__ = ["LibSVMIter"]


def _files(path: str) -> list:
    if os.path.isdir(path):
        return sorted(os.path.join(path, f) for f in os.listdir(path)
                      if os.path.isfile(os.path.join(path, f)))
    if not os.path.exists(path):
        raise MXNetError(f"LibSVMIter: file {path} not found")
    return [path]


def _parse(path: str, width: int, what: str):
    """``(labels, values, indices, indptr)`` of every line of the file(s) at ``path``;
    feature indices are zero-based and must lie in ``[0, width)``."""
    lines = []
    for name in _files(path):
        with open(name, "r", encoding="utf-8") as f:
            lines.extend(ln for ln in f.read().splitlines() if ln.strip())
    heads = [ln.split(None, 1) for ln in lines]
    try:
        labels = np.array([h[0] for h in heads], dtype=np.float64)
        rests = [h[1] if len(h) > 1 else "" for h in heads]
        counts = np.array([r.count(":") for r in rests], dtype=np.int64)
        pairs = np.array(" ".join(rests).replace(":", " ").split(), dtype=np.float64)
    except ValueError as err:
        raise MXNetError(f"LibSVMIter: cannot parse {what} file {path}: {err}") from err
    if pairs.size != 2 * counts.sum():
        raise MXNetError(f"LibSVMIter: malformed index:value pairs in {what} file {path}")
    pairs = pairs.reshape(-1, 2)
    indices = pairs[:, 0].astype(np.int64)
    if indices.size and (indices.min() < 0 or indices.max() >= width):
        raise MXNetError(f"LibSVMIter: {what} file {path} has feature indices outside "
                         f"[0, {width}) (min {indices.min()}, max {indices.max()})")
    indptr = np.zeros(len(lines) + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    return labels, pairs[:, 1], indices, indptr


class LibSVMIter(OneArrayBatches):
    """Data in ``csr`` storage from a LibSVM file (zero-based, sorted column indices).

    Without ``label_libsvm`` the label is each line's first value (a dense 1-D batch);
    with it, labels are the features of that file, also ``csr``.  As MXNet's, the
    iterator rounds batches: a short last batch continues from the start of the data
    (``pad`` counts those rows) and the next epoch goes on after them.

    Parameters
    ----------
    data_libsvm : str
        A LibSVM file, or a directory whose files are read in name order.
    data_shape : tuple
        ``(num_features,)``.
    batch_size : int
    label_libsvm : str, optional
    label_shape : tuple, default (1,)
    num_parts, part_index : int
        Read only part ``part_index`` of ``num_parts`` equal row ranges.
    round_batch : bool
        Must be True (MXNet's LibSVMIter supports nothing else).
    dtype : str, optional
        Type of the values (float32 by default).
    """

    def __init__(self, data_libsvm: str, data_shape, batch_size: int,
                 label_libsvm: str | None = None, label_shape=(1,), num_parts: int = 1,
                 part_index: int = 0, round_batch: bool = True, prefetch_buffer: int = 4,
                 ctx=None, dtype=None, data_name: str = "data",
                 label_name: str = "softmax_label"):
        super().__init__(batch_size)
        data_shape, label_shape = tuple(data_shape), tuple(label_shape)
        if len(data_shape) != 1 or len(label_shape) != 1:
            raise MXNetError("LibSVMIter: data_shape and label_shape must be 1-D, got "
                             f"{data_shape} and {label_shape}")
        if not round_batch:
            raise MXNetError("LibSVMIter: only round_batch=True is supported (as in MXNet)")
        if not 0 <= part_index < num_parts:
            raise MXNetError(f"LibSVMIter: part_index {part_index} is not in [0, {num_parts})")
        self._dtype = np.dtype(dtype if dtype not in (None, "None") else np.float32)
        labels, *self._data_parts = _parse(data_libsvm, data_shape[0], "data")
        n = len(labels)
        self._label_csr = None
        if label_libsvm is not None and label_libsvm != "NULL":
            _, *self._label_csr = _parse(label_libsvm, label_shape[0], "label")
            if len(self._label_csr[2]) - 1 != n:
                raise MXNetError(f"LibSVMIter: {label_libsvm} has {len(self._label_csr[2]) - 1}"
                                 f" lines but {data_libsvm} has {n}")
        self._labels = labels.astype(self._dtype)
        lo, hi = part_index * n // num_parts, (part_index + 1) * n // num_parts
        self._order = np.arange(lo, hi, dtype=np.int64)
        if not len(self._order):
            raise MXNetError(f"LibSVMIter: {data_libsvm} holds no rows for part {part_index}")
        self._data_shape, self._label_shape = data_shape, label_shape
        self._names = (data_name, label_name)
        self._cursor = 0
        self._overflow = 0
        self._batch = None

    @property
    def provide_data(self) -> list:
        return [DataDesc(self._names[0], (self.batch_size,) + self._data_shape,
                         self._dtype.type)]

    @property
    def provide_label(self) -> list:
        shape = (self.batch_size,) if self._label_csr is None else \
            (self.batch_size,) + self._label_shape
        return [DataDesc(self._names[1], shape, self._dtype.type)]

    def reset(self) -> None:
        # after a wrapped-around batch the next epoch starts where the wrap stopped
        if not self._overflow:
            self._cursor = 0
        self._overflow = 0

    def _batch_csr(self, parts, rows, width) -> CSRNDArray:
        values, indices, indptr = parts
        st = csr_take_rows(np, CSRStorage(values, indices, indptr, (len(indptr) - 1, width)),
                           rows)
        return csr_matrix((st.values.astype(self._dtype), st.indices, st.indptr),
                          shape=st.shape, dtype=self._dtype)

    def iter_next(self) -> bool:
        if self._overflow:
            return False  # until reset(), as MXNet's iterator does
        n = len(self._order)
        take = min(self.batch_size, n - self._cursor)
        if take <= 0:
            return False
        rows = self._order[self._cursor:self._cursor + take]
        pad = self.batch_size - take
        self._cursor += take
        if pad:
            rows = np.concatenate([rows, self._order[np.arange(pad) % n]])
            self._cursor = pad % n
            self._overflow = pad
        data = self._batch_csr(self._data_parts, rows, self._data_shape[0])
        if self._label_csr is None:
            label = nd_array(self._labels[rows], dtype=self._dtype)
        else:
            label = self._batch_csr(self._label_csr, rows, self._label_shape[0])
        self._batch = DataBatch([data], [label], pad=pad)
        return True
