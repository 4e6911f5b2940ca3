"""Sparse operators and the sparse kernels of dense operators (MXNet's ``FComputeEx``).

New operators: ``cast_storage``, ``_sparse_retain`` (``nd.sparse.retain``), the
``_scatter_*`` operators (stored values only),
``_square_sum`` (``sum(square(x))`` in one pass), ``_contrib_SparseEmbedding``
(``Embedding`` whose weight is meant to be row_sparse) and ``_contrib_getnnz`` (stored
entries of a csr array).

Sparse kernels (``sparse_forward``) given to operators defined elsewhere, for the
storage types where MXNet keeps a sparse result:

* zero-preserving unary math and ``x * s``, ``x / s``: row_sparse -> row_sparse,
  csr -> csr, computed on the stored values only;
* ``elemwise_add``/``_sub`` (and the ``broadcast_*`` ones on equal shapes) of two row_sparse (union of rows) or two csr arrays,
  ``elemwise_mul`` of two sparse arrays of one type or a sparse and a dense one;
  ``_maximum``/``_minimum``/``_hypot`` of two sparse arrays of one type;
  ``add_n`` of row_sparse arrays (what kvstore aggregation sums);
* ``zeros_like`` of a sparse array;
* ``dot(csr, dense)`` -> dense and ``dot(csr.T, dense)`` -> row_sparse;
* ``take(csr, indices)`` along rows -> csr.

Any other combination returns ``None`` and the dense operator runs on densified
inputs (MXNet's storage fallback), giving a dense result.
"""
from __future__ import annotations

import numpy as np

from .attrs import Attr
from .common import fail, put, same_shape_infer
from .registry import OpDef, get_op, register
from .sparse_storage import (CSRStorage, IDX_DTYPE, RowSparseStorage, csr_take_rows,
                             empty_storage, from_dense, to_dense)
from . import (activation, elemwise_binary, elemwise_scalar, elemwise_unary,  # noqa: F401
               gather, matmul)
from .gather import as_index, fix_mode
from .embedding_lrn import _emb_backward, _emb_forward, _emb_infer_shape, _emb_infer_type
from .reduce import reduce_axes, reduced_shape

_STYPES = ("default", "row_sparse", "csr")


def _is_sparse(a) -> bool:
    return hasattr(a, "stype")


def _stype(a) -> str:
    return a.stype if _is_sparse(a) else "default"


def _dense(xp, a):
    return to_dense(xp, a) if _is_sparse(a) else a


def _with_values(st, values):
    """A record with ``st``'s structure and new ``values``."""
    if st.stype == "csr":
        return CSRStorage(values, st.indices.copy(), st.indptr.copy(), st.shape)
    return RowSparseStorage(values, st.indices.copy(), st.shape)


# ----------------------------------------------------------------------------- cast_storage


def _cast_forward(oc, attrs, inputs, out):
    """Dense path (the input densified): a copy, for ``stype='default'``."""
    return [put(out, 0, inputs[0].copy())]


def _cast_sparse(oc, attrs, inputs, out):
    x = inputs[0]
    target = attrs.stype
    if target == "default":
        return [_dense(oc.xp, x) if _is_sparse(x) else x.copy()]
    if _stype(x) == target:
        return [x.copy()]
    return [from_dense(oc.xp, _dense(oc.xp, x), target)]


def _cast_backward(oc, attrs, inputs, outputs, out_grads):
    return [out_grads[0]]


register(OpDef(
    "cast_storage", _cast_forward, backward=_cast_backward,
    attrs={"stype": Attr("str", choices=_STYPES)},
    infer_shape=same_shape_infer("cast_storage"), sparse_forward=_cast_sparse, sparse_from_dense=True,
    backward_uses=(),
    doc="Cast an array to storage type ``stype`` ('default', 'row_sparse' or 'csr')."))


# ----------------------------------------------------------------------------- retain


def _retained_mask(xp, rows, indices, n_rows):
    idx = indices.astype(IDX_DTYPE).reshape(-1)
    if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= n_rows):
        fail("_sparse_retain", f"indices must be in [0, {n_rows}), got values from "
                               f"{int(idx.min())} to {int(idx.max())}")
    keep = xp.zeros(n_rows, dtype=bool)
    keep[idx] = True
    return keep[rows]


def _retain_forward(oc, attrs, inputs, out):
    data, indices = inputs
    xp = oc.xp
    keep = _retained_mask(xp, xp.arange(data.shape[0]), indices, data.shape[0])
    return [put(out, 0, data * keep.reshape((-1,) + (1,) * (data.ndim - 1)).astype(data.dtype))]


def _retain_sparse(oc, attrs, inputs, out):
    """Every requested row (sorted, unique) is stored, zeros where ``data`` has none, as
    MXNet's kernel does."""
    data, indices = inputs
    if _stype(data) != "row_sparse":
        fail("_sparse_retain", f"the data must be row_sparse, not {_stype(data)}")
    xp = oc.xp
    idx = _dense(xp, indices)
    _retained_mask(xp, data.indices, idx, data.shape[0])  # range check
    rows = xp.unique(idx.astype(IDX_DTYPE).reshape(-1))
    values = xp.zeros((rows.shape[0],) + tuple(data.shape[1:]), dtype=data.values.dtype)
    if data.indices.size and rows.size:
        pos = xp.minimum(xp.searchsorted(data.indices, rows), data.indices.shape[0] - 1)
        found = data.indices[pos] == rows
        values[found] = data.values[pos[found]]
    return [RowSparseStorage(values, rows, data.shape)]


def _retain_backward(oc, attrs, inputs, outputs, out_grads):
    data, indices = inputs
    xp = oc.xp
    keep = _retained_mask(xp, xp.arange(data.shape[0]), indices, data.shape[0])
    g = out_grads[0] * keep.reshape((-1,) + (1,) * (data.ndim - 1)).astype(data.dtype)
    return [g, None]


def _retain_infer(attrs, in_shapes):
    return [in_shapes[0], in_shapes[1]], [in_shapes[0]]


register(OpDef(
    "_sparse_retain", _retain_forward, backward=_retain_backward,
    inputs=("data", "indices"), infer_shape=_retain_infer,
    infer_type=lambda op, attrs, dts: ([dts[0], dts[1]], [dts[0]]),
    sparse_forward=_retain_sparse, backward_uses=("inputs",),
    doc="The rows of a row_sparse array listed in ``indices`` (``nd.sparse.retain``)."))


# ----------------------------------------------------------------------------- _square_sum


def _square_sum_forward(oc, attrs, inputs, out):
    x = inputs[0]
    axes = reduce_axes("_square_sum", attrs.axis, attrs.exclude, x.ndim, x.shape)
    y = oc.xp.sum(x * x, axis=axes).astype(x.dtype, copy=False)
    return [put(out, 0, y.reshape(reduced_shape(x.shape, axes, attrs.keepdims)))]


def _square_sum_backward(oc, attrs, inputs, outputs, out_grads):
    x = inputs[0]
    axes = reduce_axes("_square_sum", attrs.axis, attrs.exclude, x.ndim, x.shape)
    keep = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    return [(2 * x * out_grads[0].reshape(keep)).astype(x.dtype, copy=False)]


def _square_sum_sparse(oc, attrs, inputs, out):
    """row_sparse summed over its columns with ``keepdims``: row_sparse, one value per
    stored row (MXNet's kernel); other cases are dense."""
    x = inputs[0]
    if _stype(x) != "row_sparse" or len(x.shape) != 2 or not attrs.keepdims:
        return None
    if reduce_axes("_square_sum", attrs.axis, attrs.exclude, 2, x.shape) != (1,):
        return None
    v = x.values
    sums = oc.xp.sum(v * v, axis=1, keepdims=True).astype(v.dtype, copy=False)
    return [RowSparseStorage(sums, x.indices.copy(), (x.shape[0], 1))]


def _square_sum_infer(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [None], [None]
    axes = reduce_axes("_square_sum", attrs.axis, attrs.exclude, len(s), s)
    return [tuple(s)], [reduced_shape(tuple(s), axes, attrs.keepdims)]


register(OpDef(
    "_square_sum", _square_sum_forward, backward=_square_sum_backward,
    attrs={"axis": Attr("shape", None), "keepdims": Attr("bool", False),
           "exclude": Attr("bool", False)},
    infer_shape=_square_sum_infer, sparse_forward=_square_sum_sparse,
    backward_uses=("inputs",),
    doc="Sum of squares over ``axis`` (``sum(square(x))`` without the squared temporary)."))


# ----------------------------------------------------------------------------- SparseEmbedding

register(OpDef(
    "_contrib_SparseEmbedding", _emb_forward, backward=_emb_backward,
    attrs={"input_dim": Attr("int"), "output_dim": Attr("int"),
           "dtype": Attr("dtype", np.dtype(np.float32)), "deterministic": Attr("bool", False)},
    inputs=("data", "weight"), infer_shape=_emb_infer_shape, infer_type=_emb_infer_type,
    backward_uses=("inputs",), grad_stypes=lambda attrs, stypes: ("default", "row_sparse"),
    doc="``Embedding`` for a row_sparse weight (MXNet's ``contrib.SparseEmbedding``); "
        "its gradient is written into a row_sparse buffer where the weight has one."))


# ----------------------------------------------------------------------------- scatter ops
# MXNet's ``_scatter_*``: on a sparse left operand only its stored values are computed
# (the result keeps its rows / entries); on dense operands they are plain arithmetic.


def _scatter_div_forward(oc, attrs, inputs, out):
    lhs, rhs = inputs
    return [put(out, 0, oc.xp.true_divide(lhs, rhs))]


def _scatter_div_backward(oc, attrs, inputs, outputs, out_grads):
    lhs, rhs = inputs
    g = out_grads[0]
    return [g / rhs, -g * lhs / (rhs * rhs)]


def _scatter_div_sparse(oc, attrs, inputs, out):
    """row_sparse / anything: row_sparse on the left operand's rows (MXNet's kernel)."""
    lhs, rhs = inputs
    if _stype(lhs) != "row_sparse" or lhs.shape != rhs.shape:
        return None
    xp = oc.xp
    rows = lhs.indices
    divisor = (to_dense(xp, rhs) if _is_sparse(rhs) else rhs)[rows]
    return [RowSparseStorage(xp.true_divide(lhs.values, divisor), rows.copy(), lhs.shape)]


register(OpDef(
    "_scatter_elemwise_div", _scatter_div_forward, backward=_scatter_div_backward,
    inputs=("lhs", "rhs"), infer_shape=same_shape_infer("_scatter_elemwise_div"),
    sparse_forward=_scatter_div_sparse, backward_uses=("inputs",),
    doc="``lhs / rhs``; with a row_sparse ``lhs`` only its stored rows are divided and "
        "the result is row_sparse (MXNet's ``_scatter_elemwise_div``)."))


def _scatter_scalar(name: str, sign: float):
    def forward(oc, attrs, inputs, out):
        x = inputs[0]
        return [put(out, 0, x + x.dtype.type(sign * attrs.scalar))]

    def backward(oc, attrs, inputs, outputs, out_grads):
        return [out_grads[0]]

    def sparse(oc, attrs, inputs, out):
        x = inputs[0]
        if not _is_sparse(x):
            return None
        st = x.copy()
        st.values = st.values + st.values.dtype.type(sign * attrs.scalar)
        return [st]   # stored values only: the same rows (row_sparse) or entries (csr)

    register(OpDef(
        name, forward, backward=backward, attrs={"scalar": Attr("float")},
        infer_shape=same_shape_infer(name), sparse_forward=sparse, backward_uses=(),
        listed_inputs=False,
        doc=f"``x {'+' if sign > 0 else '-'} scalar``; on a sparse ``x`` only its stored "
            f"values change and the result keeps its storage (MXNet's ``{name}``)."))


_scatter_scalar("_scatter_plus_scalar", 1.0)
_scatter_scalar("_scatter_minus_scalar", -1.0)


# ----------------------------------------------------------------------------- getnnz
_NNZ = "_contrib_getnnz"


def _nnz_axis(attrs, op_shape) -> None:
    if attrs.axis not in (None, 1, -1):
        fail(_NNZ, f"getnnz with axis = {attrs.axis} is not supported yet", op_shape)


def _getnnz_forward(oc, attrs, inputs, out):
    """Dense path: the nonzero count (a csr array's stored entries are its nonzeros
    unless it stores explicit zeros, which only the sparse kernel sees)."""
    x = inputs[0]
    _nnz_axis(attrs, x.shape)
    nz = x != 0
    y = nz.sum(axis=1) if attrs.axis is not None else nz.sum().reshape(1)
    return [put(out, 0, y.astype(IDX_DTYPE))]


def _getnnz_sparse(oc, attrs, inputs, out):
    x = inputs[0]
    if _stype(x) != "csr":
        return None
    _nnz_axis(attrs, x.shape)
    if attrs.axis is None:
        return [oc.xp.asarray([x.indices.shape[0]], dtype=IDX_DTYPE)]
    return [oc.xp.diff(x.indptr).astype(IDX_DTYPE)]


def _getnnz_infer(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [None], [None]
    return [s], [(1,) if attrs.axis is None else (s[0],)]


register(OpDef(
    _NNZ, _getnnz_forward, attrs={"axis": Attr("int", None)}, infer_shape=_getnnz_infer,
    infer_type=lambda op, attrs, dts: (dts, [IDX_DTYPE]), differentiable=False,
    sparse_forward=_getnnz_sparse,
    doc="Number of stored values of a csr array, in all (``axis=None``) or per row."))


# ----------------------------------------------------------------------------- elementwise


def _values_kernel(op):
    """Sparse kernel of a one-input operator that maps zero to zero: ``op`` on the stored
    values.  Whether zero stays zero is checked per call, since for the scalar operators
    it depends on the scalar (``x == 1`` keeps a sparse result, ``x == 0`` does not)."""
    def kernel(oc, attrs, inputs, out):
        x = inputs[0]
        if not _is_sparse(x):
            return None
        zero = op.forward(oc, attrs, [oc.xp.zeros(1, dtype=x.values.dtype)], None)[0]
        if bool(zero.reshape(-1)[0] != 0):
            return None  # not zero-preserving here: the dense result
        values = op.forward(oc, attrs, [x.values], None)[0]
        return [_with_values(x, values)]
    return kernel


# unary math with f(0) == 0, and the operators with a number that MXNet keeps sparse for
# row_sparse and csr inputs where they map zero to zero
_ZERO_PRESERVING = (
    "abs", "sign", "negative", "relu", "sqrt", "square", "cbrt", "sin", "tan", "sinh",
    "tanh", "arcsin", "arctan", "arcsinh", "arctanh", "degrees", "radians", "floor",
    "ceil", "rint", "round", "fix", "trunc", "expm1", "log1p", "_copy", "BlockGrad",
    "make_loss", "_mul_scalar", "_div_scalar", "_equal_scalar", "_not_equal_scalar",
    "_greater_scalar", "_greater_equal_scalar", "_lesser_scalar", "_lesser_equal_scalar")


def _union_rows(xp, a, b, sign_b: float):
    rows = xp.union1d(a.indices, b.indices).astype(IDX_DTYPE)
    dtype = np.result_type(a.values.dtype, b.values.dtype)
    values = xp.zeros((rows.shape[0],) + tuple(a.shape[1:]), dtype=dtype)
    values[xp.searchsorted(rows, a.indices)] += a.values
    pos = xp.searchsorted(rows, b.indices)
    if sign_b > 0:
        values[pos] += b.values
    else:
        values[pos] -= b.values
    return RowSparseStorage(values, rows, a.shape)


def _add_sub_kernel(sign: float):
    def kernel(oc, attrs, inputs, out):
        a, b = inputs
        if _stype(a) != _stype(b) or not _is_sparse(a) or a.shape != b.shape:
            return None  # sparse + dense and mixed sparse types: dense result
        xp = oc.xp
        if a.stype == "row_sparse":
            return [_union_rows(xp, a, b, sign)]
        da, db = to_dense(xp, a), to_dense(xp, b)
        return [from_dense(xp, da + db if sign > 0 else da - db, "csr")]
    return kernel


def _mul_kernel(oc, attrs, inputs, out):
    a, b = inputs
    if a.shape != b.shape:
        return None
    xp = oc.xp
    sparse = a if _is_sparse(a) else b
    other = b if sparse is a else a
    if not _is_sparse(sparse) or (_is_sparse(other) and other.stype != sparse.stype):
        return None
    if sparse.stype == "row_sparse":
        rows = sparse.indices
        if _is_sparse(other):
            rows = xp.intersect1d(sparse.indices, other.indices).astype(IDX_DTYPE)
            mine = sparse.values[xp.searchsorted(sparse.indices, rows)]
            theirs = other.values[xp.searchsorted(other.indices, rows)]
            return [RowSparseStorage(mine * theirs, rows, sparse.shape)]
        return [RowSparseStorage(sparse.values * other[rows], rows.copy(), sparse.shape)]
    product = to_dense(xp, sparse) * _dense(xp, other)
    return [from_dense(xp, product, "csr")]


def _pair_kernel(name: str):
    """``_maximum``/``_minimum``/``_hypot`` of two sparse arrays of one type (0 where
    neither stores a value: each gives 0 for two zeros), as MXNet keeps them sparse."""
    def kernel(oc, attrs, inputs, out):
        a, b = inputs
        if _stype(a) != _stype(b) or not _is_sparse(a) or a.shape != b.shape:
            return None
        xp = oc.xp
        f = getattr(xp, name)
        if a.stype == "row_sparse":
            rows = xp.union1d(a.indices, b.indices).astype(IDX_DTYPE)
            dtype = np.result_type(a.values.dtype, b.values.dtype)
            shape = (rows.shape[0],) + tuple(a.shape[1:])
            va, vb = xp.zeros(shape, dtype=dtype), xp.zeros(shape, dtype=dtype)
            va[xp.searchsorted(rows, a.indices)] = a.values
            vb[xp.searchsorted(rows, b.indices)] = b.values
            return [RowSparseStorage(f(va, vb), rows, a.shape)]
        return [from_dense(xp, f(to_dense(xp, a), to_dense(xp, b)), "csr")]
    return kernel


def _add_n_kernel(oc, attrs, inputs, out):
    if not all(_stype(x) == "row_sparse" for x in inputs):
        return None
    xp = oc.xp
    total = inputs[0]
    for x in inputs[1:]:
        total = _union_rows(xp, total, x, 1.0)
    return [total if len(inputs) > 1 else total.copy()]


def _zeros_like_kernel(oc, attrs, inputs, out):
    x = inputs[0]
    if not _is_sparse(x):
        return None
    return [empty_storage(oc.xp, x.stype, x.shape, x.values.dtype)]


# ----------------------------------------------------------------------------- dot


def _scatter_add(xp, out, index, values) -> None:
    xp.add.at(out, index, values)


def _dot_kernel(oc, attrs, inputs, out):
    a, b = inputs
    if _stype(a) != "csr" or _is_sparse(b) or b.ndim != 2:
        return None  # only csr x dense has a kernel; the rest runs densified
    xp = oc.xp
    rhs = b.T if attrs.transpose_b else b
    n_rows, n_cols = a.shape
    rows = xp.repeat(xp.arange(n_rows, dtype=IDX_DTYPE), xp.diff(a.indptr))
    dtype = np.result_type(a.values.dtype, rhs.dtype)
    if not attrs.transpose_a:
        if rhs.shape[0] != n_cols:
            fail("dot", f"shapes {a.shape} and {tuple(rhs.shape)} do not match", a.shape,
                 b.shape)
        result = xp.zeros((n_rows, rhs.shape[1]), dtype=dtype)
        _scatter_add(xp, result, rows, a.values[:, None] * rhs[a.indices])
        return [result]
    if rhs.shape[0] != n_rows:
        fail("dot", f"shapes {a.shape}^T and {tuple(rhs.shape)} do not match", a.shape,
             b.shape)
    dense = xp.zeros((n_cols, rhs.shape[1]), dtype=dtype)
    _scatter_add(xp, dense, a.indices, a.values[:, None] * rhs[rows])
    used = xp.unique(a.indices).astype(IDX_DTYPE)
    return [RowSparseStorage(dense[used], used, dense.shape)]


def _take_kernel(oc, attrs, inputs, out):
    """Rows of a csr matrix (``axis=0``): a csr result, indices clipped or wrapped."""
    a, idx = inputs
    if _stype(a) != "csr" or _is_sparse(idx) or attrs.axis not in (0, -2):
        return None
    xp = oc.xp
    rows = fix_mode(xp, "take", as_index(xp, idx), a.shape[0], attrs.mode).reshape(-1)
    return [csr_take_rows(xp, a, rows)]


def _attach() -> None:
    for name in _ZERO_PRESERVING:
        op = get_op(name)
        op.sparse_forward = _values_kernel(op)
    for prefix in ("elemwise", "broadcast"):  # equal shapes: what ``x + y`` calls
        get_op(f"{prefix}_add").sparse_forward = _add_sub_kernel(1.0)
        get_op(f"{prefix}_sub").sparse_forward = _add_sub_kernel(-1.0)
        get_op(f"{prefix}_mul").sparse_forward = _mul_kernel
    get_op("_maximum").sparse_forward = _pair_kernel("maximum")
    get_op("_minimum").sparse_forward = _pair_kernel("minimum")
    get_op("_hypot").sparse_forward = _pair_kernel("hypot")
    get_op("add_n").sparse_forward = _add_n_kernel
    get_op("zeros_like").sparse_forward = _zeros_like_kernel
    get_op("dot").sparse_forward = _dot_kernel
    get_op("take").sparse_forward = _take_kernel


_attach()
