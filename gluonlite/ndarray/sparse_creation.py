"""Creating sparse arrays (``mx.nd.sparse.row_sparse_array``, ``csr_matrix``, ``zeros``,
``empty``, ``array``) from components, dense sources, SciPy matrices or shapes."""
from __future__ import annotations

import numpy as np

from ..backend import array_module, to_numpy
from ..base import MXNetError
from ..context import Context
from ..ops import sparse_storage as _ss
from ..ops.sparse_storage import CSRStorage, IDX_DTYPE, RowSparseStorage
from .ndarray import NDArray, _resolve_ctx
from .sparse import _CLASSES, BaseSparseNDArray, CSRNDArray, RowSparseNDArray, _check_format

__all__ = ["row_sparse_array", "csr_matrix", "zeros", "empty", "array"]


def _dtype_of(source, dtype):
    if dtype is not None:
        return np.dtype(dtype)
    if isinstance(source, NDArray):
        return np.dtype(source.dtype)
    if isinstance(source, np.ndarray):
        return source.dtype
    return np.dtype(np.float32)


def _host(a, dtype=None) -> np.ndarray:
    if isinstance(a, NDArray):
        a = a.asnumpy()
    a = np.asarray(to_numpy(a) if array_module(a) is not np else a)
    return a.astype(dtype, copy=False) if dtype is not None else a


def _place(parts: list, ctx: Context) -> list:
    if ctx.device_typeid != 2:
        return parts
    with ctx.xp.cuda.Device(ctx.device_id):
        return [ctx.xp.asarray(p) for p in parts]


def _is_shape(arg) -> bool:
    return isinstance(arg, tuple) and all(isinstance(d, (int, np.integer)) for d in arg)


def row_sparse_array(arg1, shape=None, ctx: Context | None = None,
                     dtype=None) -> RowSparseNDArray:
    """A ``RowSparseNDArray`` from ``(data, indices)``, a dense array, another
    RowSparseNDArray or a shape (all zeros), as MXNet's ``mx.nd.sparse.row_sparse_array``."""
    ctx = _resolve_ctx(ctx)
    if isinstance(arg1, RowSparseNDArray):
        out = arg1.copyto(ctx)
        return out.astype(dtype) if dtype is not None else out
    if _is_shape(arg1):
        _check_shape_arg(arg1, shape)
        return zeros("row_sparse", arg1, ctx=ctx, dtype=dtype)
    if isinstance(arg1, tuple) and len(arg1) == 2:
        data, indices = arg1
        dt = _dtype_of(data, dtype)
        values = _host(data, dt)
        idx = _host(indices, IDX_DTYPE).reshape(-1)
        if values.ndim == 1 and (shape is None or len(shape) > 1) and idx.size == 1:
            values = values.reshape(1, -1)
        if shape is None:
            if not idx.size:
                raise ValueError("row_sparse_array: shape is required for an empty array")
            shape = (int(idx.max()) + 1,) + tuple(values.shape[1:])
        st = RowSparseStorage(*_place([values, idx], ctx), tuple(shape))
        # as MXNet: stored as given; check_format() finds unsorted or out-of-range rows
        _check_format(st, False)
        return RowSparseNDArray(st, ctx)
    return _from_dense_source(arg1, "row_sparse", shape, ctx, dtype)


def csr_matrix(arg1, shape=None, ctx: Context | None = None, dtype=None) -> CSRNDArray:
    """A ``CSRNDArray`` from ``(data, indices, indptr)``, ``(data, (row, col))``, a dense
    array, a SciPy sparse matrix, another CSRNDArray or a shape ``(M, N)`` (all zeros)."""
    ctx = _resolve_ctx(ctx)
    if isinstance(arg1, CSRNDArray):
        out = arg1.copyto(ctx)
        return out.astype(dtype) if dtype is not None else out
    if _is_shape(arg1) and len(arg1) == 2:
        _check_shape_arg(arg1, shape)
        return zeros("csr", arg1, ctx=ctx, dtype=dtype)
    if hasattr(arg1, "tocsr") and hasattr(arg1, "indptr") or type(arg1).__module__.startswith(
            "scipy.sparse"):
        m = arg1.tocsr(copy=True)
        m.sum_duplicates()  # canonical form, as MXNet builds it
        m.sort_indices()
        return csr_matrix((m.data, m.indices, m.indptr), shape=m.shape, ctx=ctx,
                          dtype=dtype if dtype is not None else m.data.dtype)
    if isinstance(arg1, tuple) and len(arg1) == 3:
        data, indices, indptr = arg1
        dt = _dtype_of(data, dtype)
        values = _host(data, dt).reshape(-1)
        idx = _host(indices, IDX_DTYPE).reshape(-1)
        ptr = _host(indptr, IDX_DTYPE).reshape(-1)
        if shape is None:
            if not idx.size:
                raise ValueError("csr_matrix: shape is required for an array without entries")
            shape = (ptr.size - 1, int(idx.max()) + 1)
        st = CSRStorage(*_place([values, idx, ptr], ctx), tuple(shape))
        _check_format(st, False)  # as MXNet, unordered column indices are accepted here
        return CSRNDArray(st, ctx)
    if isinstance(arg1, tuple) and len(arg1) == 2 and isinstance(arg1[1], tuple):
        data, (row, col) = arg1   # COO input: summed duplicates, sorted
        dt = _dtype_of(data, dtype)
        values = _host(data, dt).reshape(-1)
        row = _host(row, IDX_DTYPE).reshape(-1)
        col = _host(col, IDX_DTYPE).reshape(-1)
        if shape is None:
            shape = (int(row.max()) + 1, int(col.max()) + 1)
        dense = np.zeros(shape, dtype=dt)
        np.add.at(dense, (row, col), values)
        return _from_dense_source(dense, "csr", shape, ctx, dt)
    return _from_dense_source(arg1, "csr", shape, ctx, dtype)


def _check_shape_arg(arg1: tuple, shape) -> None:
    if shape is not None and tuple(shape) != tuple(arg1):
        raise ValueError(f"the shape {tuple(arg1)} given as first argument differs from "
                         f"shape={tuple(shape)}")


def _from_dense_source(source, stype, shape, ctx, dtype):
    dt = _dtype_of(source, dtype)
    dense = _host(source, dt)
    if shape is not None and tuple(dense.shape) != tuple(shape):
        raise ValueError(f"{stype}: the source has shape {dense.shape}, not {tuple(shape)}")
    xp = ctx.xp
    if ctx.device_typeid == 2:
        with xp.cuda.Device(ctx.device_id):
            st = _ss.from_dense(xp, xp.asarray(dense), stype)
    else:
        st = _ss.from_dense(np, dense, stype)
    return _CLASSES[stype](st, ctx)


def zeros(stype: str, shape, ctx: Context | None = None, dtype=None,
          **kwargs) -> NDArray:
    """An all-zero array of storage type ``stype`` (``'default'`` gives a dense one)."""
    if stype == "default":
        from .ndarray import zeros as dense_zeros
        return dense_zeros(shape, ctx=ctx, dtype=dtype)
    if stype not in _CLASSES:
        raise ValueError(f"unknown storage type '{stype}'; expected 'default', "
                         f"'row_sparse' or 'csr'")
    ctx = _resolve_ctx(ctx)
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    dt = np.dtype(dtype) if dtype is not None else np.dtype(np.float32)
    xp = ctx.xp
    if ctx.device_typeid == 2:
        with xp.cuda.Device(ctx.device_id):
            st = _ss.empty_storage(xp, stype, shape, dt)
    else:
        st = _ss.empty_storage(xp, stype, shape, dt)
    return _CLASSES[stype](st, ctx)


def empty(stype: str, shape, ctx: Context | None = None, dtype=None) -> NDArray:
    """An array of storage type ``stype`` with nothing stored (all zeros)."""
    return zeros(stype, shape, ctx=ctx, dtype=dtype)


def array(source_array, ctx: Context | None = None, dtype=None) -> BaseSparseNDArray:
    """A sparse array from a sparse NDArray or a SciPy sparse matrix."""
    if isinstance(source_array, BaseSparseNDArray):
        ctx = _resolve_ctx(ctx) if ctx is not None else source_array.context
        out = source_array.copyto(ctx)
        return out.astype(dtype) if dtype is not None else out
    if type(source_array).__module__.startswith("scipy.sparse"):
        return csr_matrix(source_array, ctx=ctx, dtype=dtype)
    raise MXNetError(f"sparse.array: unexpected source {type(source_array).__name__}; "
                     "use row_sparse_array or csr_matrix for dense sources")
