"""Random shapes and arrays of ``mxnet.test_utils`` (``rand_ndarray``,
``rand_sparse_ndarray``, ``rand_shape_nd`` ...), exported by :mod:`gluonlite.test_utils`."""
from __future__ import annotations

import numpy as np

from ..backend import array_module
from ..base import MXNetError
from ..ndarray import sparse
from ..ndarray.ndarray import array
from ..ndarray.sparse import CSRNDArray
from ..ops.sparse_storage import CSRStorage
from .core import assign_each, default_context, default_dtype

__all__ = ["rand_shape_2d", "rand_shape_3d", "rand_shape_nd", "rand_coord_2d", "random_arrays",
           "random_sample", "rand_ndarray", "rand_sparse_ndarray"]

def rand_shape_2d(dim0=10, dim1=10, allow_zero_size=False) -> tuple:
    """A random 2-D shape with dims in [1, dim] (or [0, dim])."""
    low = 0 if allow_zero_size else 1
    return np.random.randint(low, dim0 + 1), np.random.randint(low, dim1 + 1)


def rand_shape_3d(dim0=10, dim1=10, dim2=10, allow_zero_size=False) -> tuple:
    """A random 3-D shape with dims in [1, dim] (or [0, dim])."""
    low = 0 if allow_zero_size else 1
    return (np.random.randint(low, dim0 + 1), np.random.randint(low, dim1 + 1),
            np.random.randint(low, dim2 + 1))


def rand_shape_nd(num_dim, dim=10, allow_zero_size=False) -> tuple:
    """A random ``num_dim``-D shape with dims in [1, dim] (or [0, dim])."""
    low = 0 if allow_zero_size else 1
    return tuple(int(v) for v in np.random.randint(low, dim + 1, size=num_dim))


def rand_coord_2d(x_low, x_high, y_low, y_high) -> tuple:
    """A random integer point in the rectangle ``[x_low, x_high] x [y_low, y_high]``."""
    return np.random.randint(x_low, x_high + 1), np.random.randint(y_low, y_high + 1)


def random_arrays(*shapes):
    """Standard-normal NumPy arrays of :func:`default_dtype`; one array for one shape."""
    arrays = [np.array(np.random.randn(), dtype=default_dtype()) if len(s) == 0
              else np.random.randn(*s).astype(default_dtype()) for s in shapes]
    return arrays[0] if len(arrays) == 1 else arrays


def random_sample(population, k) -> list:
    """``k`` distinct elements of ``population`` in random order."""
    population = list(population)
    if k > len(population):
        raise ValueError("sample larger than population")
    return [population[i] for i in np.random.permutation(len(population))[:k]]


def rand_ndarray(shape, stype="default", density=None, dtype=None, modifier_func=None,
                 shuffle_csr_indices=False, distribution=None, ctx=None):
    """A random NDArray of storage type ``stype``.

    Dense: standard normal values cast to ``dtype`` (float32 default).  ``'row_sparse'``
    and ``'csr'``: the array of :func:`rand_sparse_ndarray` (uniform values in [0, 1)).
    """
    if stype != "default":
        arr, _ = rand_sparse_ndarray(shape, stype, density=density, dtype=dtype,
                                     modifier_func=modifier_func,
                                     shuffle_csr_indices=shuffle_csr_indices,
                                     distribution=distribution, ctx=ctx)
        return arr
    values = random_arrays(tuple(shape))
    if modifier_func is not None:
        values = np.vectorize(modifier_func)(values)
    return array(values, ctx=ctx, dtype=dtype if dtype is not None else default_dtype())


def rand_sparse_ndarray(shape, stype, density=None, dtype=None, distribution=None,
                        data_init=None, rsp_indices=None, modifier_func=None,
                        shuffle_csr_indices=False, ctx=None):
    """A random sparse NDArray and its parts, as MXNet's ``rand_sparse_ndarray``.

    Parameters
    ----------
    shape : tuple of int
        The array's shape (2-D for ``'csr'``).
    stype : {'row_sparse', 'csr'}
        The storage type.
    density : float, optional
        Expected fraction of stored rows (row_sparse) or entries (csr); random when None.
    dtype : numpy dtype, optional
        Value type (float32 default).
    distribution : {'uniform', 'powerlaw'}, optional
        Where the entries are: uniformly spread, or (csr only) row ``i`` holding twice
        the entries of row ``i - 1``.
    data_init : float, optional
        Give every stored value this value instead of a random one.
    rsp_indices : sequence of int, optional
        The stored rows of a row_sparse array (instead of random ones).
    modifier_func : callable, optional
        Applied to each stored value of a row_sparse array.
    shuffle_csr_indices : bool
        Shuffle the column indices within each csr row (still a valid csr matrix).
    ctx : Context, optional
        Where the array lives (the default context).

    Returns
    -------
    tuple
        ``(RowSparseNDArray, (values, indices))`` as NumPy arrays, or ``(CSRNDArray,
        (indptr, indices, data))`` as NDArrays.
    """
    ctx = ctx if ctx is not None else default_context()
    density = np.random.rand() if density is None else density
    dtype = np.dtype(default_dtype() if dtype is None else dtype)
    distribution = "uniform" if distribution is None else distribution
    if stype == "row_sparse":
        if distribution != "uniform":
            raise MXNetError(f"rand_sparse_ndarray: distribution '{distribution}' is not "
                             "supported for row_sparse")
        if rsp_indices is not None:
            indices = np.asarray(rsp_indices, dtype=np.int64).reshape(-1)
            if len(indices) > shape[0]:
                raise MXNetError(f"rand_sparse_ndarray: {len(indices)} row indices for "
                                 f"{shape[0]} rows")
        else:
            indices = np.flatnonzero(np.random.rand(shape[0]) < density)
        if indices.shape[0] == 0:
            empty = sparse.zeros("row_sparse", shape, ctx=ctx, dtype=dtype)
            return empty, (np.array([], dtype=dtype), np.array([]))
        values = np.random.rand(indices.shape[0], *shape[1:]).astype(dtype)
        if data_init is not None:
            values.fill(data_init)
        if modifier_func is not None:
            values = assign_each(values, modifier_func)
        arr = sparse.row_sparse_array((values, indices), shape=shape, dtype=dtype, ctx=ctx)
        return arr, (values, indices)
    if stype != "csr":
        raise MXNetError(f"rand_sparse_ndarray: unknown storage type '{stype}'")
    if len(shape) != 2:
        raise MXNetError(f"rand_sparse_ndarray: a csr array must be 2-D, got shape {shape}")
    if distribution == "uniform":
        dense = _uniform_csr_dense(shape, density, dtype, data_init)
    elif distribution == "powerlaw":
        dense = _powerlaw_csr_dense(shape, density, dtype)
    else:
        raise MXNetError(f"rand_sparse_ndarray: unknown distribution '{distribution}'")
    csr = sparse.csr_matrix(dense, ctx=ctx, dtype=dtype)
    if shuffle_csr_indices:
        csr = _shuffled_columns(csr)
    return csr, (csr.indptr, csr.indices, csr.data)


def _check_csr_density(shape, density) -> int:
    if not 0 <= density <= 1:
        raise ValueError("density has to be between 0 and 1")
    if shape[0] <= 0 or shape[1] <= 0:
        raise ValueError("num_rows or num_cols should be greater than 0")
    return int(shape[0] * shape[1] * density)


def _uniform_csr_dense(shape, density, dtype, data_init) -> np.ndarray:
    """``int(rows * cols * density)`` entries at distinct random places, uniform values
    in (0, 1) (or ``data_init``)."""
    nnz = _check_csr_density(shape, density)
    dense = np.zeros(shape, dtype=dtype)
    places = np.random.choice(shape[0] * shape[1], nnz, replace=False)
    values = np.random.uniform(np.finfo(np.float32).tiny, 1.0, nnz)
    dense.reshape(-1)[places] = values if data_init is None else data_init
    return dense


def _powerlaw_csr_dense(shape, density, dtype) -> np.ndarray:
    """Every row starts with one entry in column 0; then row ``i`` is filled up to
    ``2 ** (i + 1)`` columns (a full row once that exceeds the width) until
    ``int(rows * cols * density)`` entries are placed; values in ``[1.001, 3)``."""
    rows, cols = shape
    nnz = _check_csr_density(shape, density)
    if nnz < 2 * rows:
        raise ValueError(f"not supported for this density: {density} for this shape "
                         f"({rows}, {cols}); keep num_rows * num_cols * density >= "
                         "2 * num_rows")
    counts = np.ones(rows, dtype=np.int64)
    left, width = nnz - rows, 2
    for r in range(rows):
        if left <= 0:
            break
        target = min(cols, width)
        extra = min(target - 1, left)
        counts[r] += extra
        left -= extra
        if target < cols:
            width *= 2
    if left > 0:
        raise ValueError(f"not supported for this density: {density} for this shape "
                         f"({rows}, {cols})")
    dense = np.zeros(shape, dtype=dtype)
    mask = np.arange(cols)[None, :] < counts[:, None]
    dense[mask] = 1 + np.random.uniform(0.001, 2, int(mask.sum()))
    return dense


def _shuffled_columns(csr):
    """``csr`` with the column indices (and values) of each row in random order: still a
    valid csr matrix, though ``csr_matrix`` (which wants sorted columns) would refuse it."""
    st = csr.handle
    counts = np.diff(csr.indptr.asnumpy())
    rows = np.repeat(np.arange(counts.size), counts)
    order = np.lexsort((np.random.rand(rows.size), rows))
    take = array_module(st.values).asarray(order)
    return CSRNDArray(CSRStorage(st.values[take], st.indices[take], st.indptr.copy(), st.shape),
                      csr.context)
