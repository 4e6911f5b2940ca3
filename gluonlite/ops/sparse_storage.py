"""Raw sparse storage: the component arrays of MXNet's ``row_sparse`` and ``csr`` arrays.

These records live in the operator layer so that sparse kernels (an operator's
``sparse_forward``) work on plain NumPy/CuPy arrays, as dense kernels do; the
NDArray classes of ``gluonlite.ndarray.sparse`` wrap them.

Layouts, as MXNet stores them:

* ``row_sparse`` of shape ``(R, *rest)``: ``values`` of shape ``(k, *rest)`` holds the
  rows listed in ``indices`` (``int64``, strictly increasing); other rows are zero.
* ``csr`` of shape ``(R, C)``: ``values`` and ``indices`` (column of each value,
  ``int64``) of length ``nnz``; row ``r`` holds entries ``indptr[r]:indptr[r + 1]``.
"""
from __future__ import annotations

import numpy as np

from .common import fail

__all__ = ["RowSparseStorage", "CSRStorage", "to_dense", "from_dense", "empty_storage",
           "csr_take_rows", "IDX_DTYPE"]

IDX_DTYPE = np.dtype(np.int64)


class RowSparseStorage:
    """Rows ``indices`` of a ``shape`` array hold ``values``; the other rows are zero."""

    __slots__ = ("values", "indices", "shape")
    stype = "row_sparse"

    def __init__(self, values, indices, shape: tuple):
        self.values = values
        self.indices = indices
        self.shape = tuple(int(d) for d in shape)

    @property
    def dtype(self) -> np.dtype:
        return self.values.dtype

    def copy(self) -> "RowSparseStorage":
        return RowSparseStorage(self.values.copy(), self.indices.copy(), self.shape)


class CSRStorage:
    """A compressed-sparse-row matrix: ``values`` at columns ``indices``, rows by ``indptr``."""

    __slots__ = ("values", "indices", "indptr", "shape")
    stype = "csr"

    def __init__(self, values, indices, indptr, shape: tuple):
        self.values = values
        self.indices = indices
        self.indptr = indptr
        self.shape = tuple(int(d) for d in shape)

    @property
    def dtype(self) -> np.dtype:
        return self.values.dtype

    def copy(self) -> "CSRStorage":
        return CSRStorage(self.values.copy(), self.indices.copy(), self.indptr.copy(),
                          self.shape)


def to_dense(xp, st):
    """The dense array of a storage record."""
    out = xp.zeros(st.shape, dtype=st.values.dtype)
    if st.stype == "row_sparse":
        if st.indices.size:
            out[st.indices] = st.values
        return out
    counts = xp.diff(st.indptr)
    rows = xp.repeat(xp.arange(st.shape[0], dtype=IDX_DTYPE), counts)
    out[rows, st.indices] = st.values
    return out


def from_dense(xp, a, stype: str):
    """The storage record of dense ``a``, keeping exactly its nonzero rows or entries."""
    if stype == "row_sparse":
        if a.ndim == 0:
            fail("cast_storage", "a row_sparse array needs at least one dimension")
        nonzero = a.reshape(a.shape[0], -1).any(axis=1) if a.size else \
            xp.zeros(a.shape[0], dtype=bool)
        rows = xp.nonzero(nonzero)[0].astype(IDX_DTYPE)
        return RowSparseStorage(a[rows], rows, a.shape)
    if stype == "csr":
        if a.ndim != 2:
            raise ValueError(f"cast_storage: a csr array must be 2-D, got shape "
                             f"{tuple(a.shape)}")
        rows, cols = xp.nonzero(a)
        counts = xp.bincount(rows, minlength=a.shape[0]) if rows.size else \
            xp.zeros(a.shape[0], dtype=IDX_DTYPE)
        indptr = xp.zeros(a.shape[0] + 1, dtype=IDX_DTYPE)
        xp.cumsum(counts, out=indptr[1:])
        return CSRStorage(a[rows, cols], cols.astype(IDX_DTYPE), indptr, a.shape)
    fail("cast_storage", f"unknown storage type '{stype}'")


def empty_storage(xp, stype: str, shape: tuple, dtype):
    """An all-zero record: no stored rows or entries."""
    shape = tuple(int(d) for d in shape)
    if stype == "row_sparse":
        return RowSparseStorage(xp.zeros((0,) + shape[1:], dtype=dtype),
                                xp.zeros(0, dtype=IDX_DTYPE), shape)
    if stype == "csr":
        if len(shape) != 2:
            fail("zeros", f"a csr array must be 2-D, got shape {shape}")
        return CSRStorage(xp.zeros(0, dtype=dtype), xp.zeros(0, dtype=IDX_DTYPE),
                          xp.zeros(shape[0] + 1, dtype=IDX_DTYPE), shape)
    fail("zeros", f"unknown storage type '{stype}'")


def csr_take_rows(xp, st: CSRStorage, rows) -> CSRStorage:
    """The csr matrix of rows ``rows`` of ``st`` (in that order), gathered without a loop
    over rows."""
    rows = xp.asarray(rows, dtype=IDX_DTYPE)
    starts = st.indptr[rows]
    counts = st.indptr[rows + 1] - starts
    indptr = xp.zeros(rows.shape[0] + 1, dtype=IDX_DTYPE)
    xp.cumsum(counts, out=indptr[1:])
    take = xp.repeat(starts - indptr[:-1], counts) + xp.arange(int(indptr[-1]), dtype=IDX_DTYPE)
    return CSRStorage(st.values[take], st.indices[take], indptr, (rows.shape[0], st.shape[1]))
