"""Sparse NDArrays: MXNet's ``RowSparseNDArray`` and ``CSRNDArray`` (``mx.nd.sparse``).

A sparse array holds one storage record of :mod:`gluonlite.ops.sparse_storage`
(component arrays on its device).  Operators with a sparse kernel (an ``OpDef``'s
``sparse_forward``: the optimizer updates, ``cast_storage``, ``retain``, ``dot``,
zero-preserving elementwise math, ...) work on the records; every other operator
sees the dense value, MXNet's "storage fallback": the ``_data`` of a sparse array
is its dense value, built on each access, and results written into a sparse array
(``out=``, gradients, auxiliary states) are cast back to its storage type.
"""
from __future__ import annotations

import numpy as np

from ..autograd import _state
from ..backend import array_module, to_numpy
from ..base import MXNetError, numeric_types
from ..context import Context
from ..ops import sparse_storage as _ss
from ..ops.sparse_storage import CSRStorage, RowSparseStorage, IDX_DTYPE
from . import invoke as _invoke
from .ndarray import NDArray, _CPU0, _move, _nd_func

__all__ = ["BaseSparseNDArray", "RowSparseNDArray", "CSRNDArray", "row_sparse_array",
           "csr_matrix", "zeros", "empty", "array", "add", "subtract", "multiply", "divide",
           "retain", "dot", "cast_storage", "NotSupportedForSparseNDArray"]


class NotSupportedForSparseNDArray(MXNetError):
    """An NDArray method that sparse arrays do not have."""

    def __init__(self, function, alias=None, *args):
        super().__init__(f"Function {getattr(function, '__name__', function)} "
                         f"(namely operator \"{alias}\") is not supported for SparseNDArray "
                         f"and only available in NDArray.")


class BaseSparseNDArray(NDArray):
    """Base of the sparse arrays: a storage record on a device."""

    __slots__ = ("_st",)

    def __init__(self, storage, ctx: Context | None = None):
        # NDArray.__init__ is not called: ``_data`` is the dense view here
        self._st = storage
        self._ctx = ctx if ctx is not None else _CPU0
        self._chunk = None
        self._entry = None
        self._grad = None
        self._grad_req = None

    # -- the dense view: what operators without a sparse kernel see --------------------
    @property
    def _data(self):
        xp = array_module(self._st.values)
        if self._ctx.device_typeid == 2:
            with xp.cuda.Device(self._ctx.device_id):
                return _ss.to_dense(xp, self._st)
        return _ss.to_dense(xp, self._st)

    @_data.setter
    def _data(self, dense) -> None:
        self._st = _ss.from_dense(array_module(dense), dense, self.stype)

    def _assign_raw(self, value, add: bool = False) -> None:
        """Store ``value`` (a dense array or a storage record) here, or add it when ``add``,
        casting to this array's storage type and dtype."""
        if value.shape != self._st.shape and tuple(value.shape) != self._st.shape:
            raise MXNetError(f"cannot store an array of shape {tuple(value.shape)} into a "
                             f"{self.stype} array of shape {self.shape}")
        xp = array_module(self._st.values)
        dtype = self._st.values.dtype
        if not add and getattr(value, "stype", None) == self.stype:
            st = value.copy()
            st.values = xp.asarray(st.values).astype(dtype, copy=False)
        else:
            dense = _ss.to_dense(xp, value) if hasattr(value, "stype") else xp.asarray(value)
            if add:
                dense = self._data + dense
            st = _ss.from_dense(xp, dense.astype(dtype, copy=False), self.stype)
        self._st = st
        self._bump()

    # -- properties ---------------------------------------------------------------------
    @property
    def shape(self) -> tuple:
        return self._st.shape

    @property
    def dtype(self):
        return self._st.values.dtype.type

    @property
    def size(self) -> int:
        return int(np.prod(self._st.shape))

    @property
    def ndim(self) -> int:
        return len(self._st.shape)

    @property
    def stype(self) -> str:
        return self._st.stype

    @property
    def handle(self):
        return self._st

    @property
    def data(self) -> NDArray:
        """The stored values (shares memory)."""
        return NDArray(self._st.values, self._ctx)

    @property
    def indices(self) -> NDArray:
        """The stored row indices (row_sparse) or column indices (csr), ``int64``."""
        return NDArray(self._st.indices, self._ctx)

    @property
    def _num_aux(self) -> int:
        """Number of index arrays (1 for row_sparse, 2 for csr), as MXNet's."""
        return 2 if self.stype == "csr" else 1

    @property
    def _aux_types(self) -> list:
        return [np.dtype(IDX_DTYPE).type] * self._num_aux

    # -- conversion ---------------------------------------------------------------------
    def asnumpy(self) -> np.ndarray:
        return to_numpy(self._data)

    def __repr__(self) -> str:
        shape = "x".join(str(d) for d in self.shape)
        return f"\n<{type(self).__name__} {shape} @{self._ctx}>"

    def tostype(self, stype: str) -> NDArray:
        """A copy with storage type ``stype`` (``'default'`` is dense)."""
        if stype == "default":
            return NDArray(self._data, self._ctx)
        if stype == self.stype:
            return self.copy()
        return cast_storage(self, stype=stype)

    def astype(self, dtype, copy: bool = True) -> "BaseSparseNDArray":
        """The same storage with values cast to ``dtype``."""
        dt = np.dtype(dtype)
        if not copy and dt == self._st.values.dtype:
            return self
        st = self._st.copy()
        st.values = st.values.astype(dt)
        return _wrap(st, self._ctx)

    def copyto(self, other):
        """Copy onto a Context (same storage type) or into an NDArray (cast to its type)."""
        if isinstance(other, Context):
            st = _move_storage(self._st, other)
            if st is self._st:
                st = st.copy()
            return _wrap(st, other)
        if isinstance(other, NDArray):
            if other is self:
                return other
            if other.shape != self.shape:
                raise MXNetError(f"copyto: shape mismatch, source {self.shape} and "
                                 f"target {other.shape}")
            st = _move_storage(self._st, other._ctx)
            if isinstance(other, BaseSparseNDArray):
                other._assign_raw(st)
            else:
                xp = array_module(st.values)
                other._data[...] = _ss.to_dense(xp, st).astype(other._data.dtype, copy=False)
                other._bump()
            return other
        raise MXNetError(f"copyto: cannot copy to {type(other).__name__}")

    def copy(self) -> "BaseSparseNDArray":
        return self.copyto(self._ctx)

    def detach(self) -> "BaseSparseNDArray":
        out = _wrap(self._st, self._ctx)
        out._chunk = self._get_chunk()
        return out

    def attach_grad(self, grad_req: str = "write", stype=None) -> None:
        """A gradient buffer of storage type ``stype`` (by default this array's own, as
        MXNet 1.9.1 gives it)."""
        super().attach_grad(grad_req, stype=self.stype if stype is None else stype)

    def check_format(self, full_check: bool = True) -> None:
        """Raise ``MXNetError`` when the storage is inconsistent."""
        _check_format(self._st, full_check)

    def __setitem__(self, key, value) -> None:
        """Only ``x[:] = value`` (a scalar or an array of the full shape), as in MXNet."""
        if not (isinstance(key, slice) and key == slice(None)):
            raise MXNetError(f"{type(self).__name__} only supports [:] for assignment, "
                             f"got key {key!r}")
        xp = array_module(self._st.values)
        if isinstance(value, numeric_types):
            self._assign_raw(xp.full(self.shape, value, dtype=self._st.values.dtype))
        elif isinstance(value, BaseSparseNDArray):
            value.copyto(self)
        elif isinstance(value, NDArray):
            self._assign_raw(_move(value._data, self._ctx))
        else:
            self._assign_raw(xp.asarray(np.asarray(value, dtype=self._st.values.dtype)))

    # -- pickling -----------------------------------------------------------------------
    def __getstate__(self):
        st = self._st
        parts = [to_numpy(st.values), to_numpy(st.indices)]
        if st.stype == "csr":
            parts.append(to_numpy(st.indptr))
        return {"stype": st.stype, "shape": st.shape, "parts": parts,
                "ctx": (self._ctx.device_type, self._ctx.device_id)}

    def __setstate__(self, state):
        ctx = Context(*state["ctx"])
        if state["stype"] == "csr":
            st = CSRStorage(*state["parts"], state["shape"])
        else:
            st = RowSparseStorage(*state["parts"], state["shape"])
        if ctx.device_typeid == 2:
            try:
                st = _move_storage(st, ctx)
            except MXNetError:
                ctx = _CPU0
        BaseSparseNDArray.__init__(self, st, ctx)

    def __reduce__(self):
        return (_unpickle, (self.__getstate__(),))


class RowSparseNDArray(BaseSparseNDArray):
    """Rows ``indices`` hold ``data``; every other row is zero (MXNet's ``row_sparse``)."""

    __slots__ = ()

    def __getitem__(self, key):
        if isinstance(key, slice) and key == slice(None):
            return self
        raise MXNetError(f"__getitem__ with {type(key).__name__} key is not implemented for "
                         f"RowSparseNDArray yet")

    def retain(self, indices) -> "RowSparseNDArray":
        """Only the rows in ``indices`` (others dropped)."""
        return retain(self, indices)


class CSRNDArray(BaseSparseNDArray):
    """A compressed-sparse-row matrix (MXNet's ``csr``)."""

    __slots__ = ()

    @property
    def indptr(self) -> NDArray:
        """Row pointers: row ``r`` holds entries ``indptr[r]:indptr[r + 1]``."""
        return NDArray(self._st.indptr, self._ctx)

    def __getitem__(self, key):
        """Rows ``key`` (an int or a slice with step 1) as a csr matrix."""
        rows = self.shape[0]
        if isinstance(key, (int, np.integer)):
            k = int(key) + rows if key < 0 else int(key)
            if not 0 <= k < rows:
                raise IndexError(f"index {key} is out of bounds for axis 0 with size {rows}")
            start, stop = k, k + 1
        elif isinstance(key, slice):
            if key.step not in (None, 1):
                raise MXNetError("CSRNDArray only supports slices with step 1")
            start, stop, _ = key.indices(rows)
            stop = max(start, stop)
        else:
            raise MXNetError(f"CSRNDArray does not support indexing with "
                             f"{type(key).__name__}")
        st = self._st
        ptr = to_numpy(st.indptr)
        lo, hi = int(ptr[start]), int(ptr[stop])
        indptr = st.indptr[start:stop + 1] - st.indptr[start]
        return CSRNDArray(CSRStorage(st.values[lo:hi].copy(), st.indices[lo:hi].copy(),
                                     indptr, (stop - start, self.shape[1])), self._ctx)

    def asscipy(self):
        """The matrix as ``scipy.sparse.csr_matrix`` (SciPy must be installed)."""
        try:
            import scipy.sparse as spsp
        except ImportError as err:
            raise MXNetError("asscipy needs SciPy: pip install scipy") from err
        st = self._st
        return spsp.csr_matrix((to_numpy(st.values), to_numpy(st.indices),
                                to_numpy(st.indptr)), shape=st.shape)


_CLASSES = {"row_sparse": RowSparseNDArray, "csr": CSRNDArray}


def _wrap(storage, ctx: Context) -> BaseSparseNDArray:
    return _CLASSES[storage.stype](storage, ctx)


def _unpickle(state):
    cls = CSRNDArray if state["stype"] == "csr" else RowSparseNDArray
    arr = cls.__new__(cls)
    arr.__setstate__(state)
    return arr


def _move_storage(st, ctx: Context):
    """``st`` with its component arrays on ``ctx`` (the same record when already there)."""
    parts = [_move(st.values, ctx), _move(st.indices, ctx)]
    if st.stype == "csr":
        parts.append(_move(st.indptr, ctx))
        if all(a is b for a, b in zip(parts, (st.values, st.indices, st.indptr))):
            return st
        return CSRStorage(*parts, st.shape)
    if parts[0] is st.values and parts[1] is st.indices:
        return st
    return RowSparseStorage(*parts, st.shape)


def _check_format(st, full_check: bool) -> None:
    name = "CSRNDArray" if st.stype == "csr" else "RowSparseNDArray"
    idx = to_numpy(st.indices)
    if st.stype == "row_sparse":
        if st.values.shape[:1] != idx.shape or tuple(st.values.shape[1:]) != st.shape[1:]:
            raise MXNetError(f"{name}: data of shape {tuple(st.values.shape)} does not match "
                             f"indices of shape {idx.shape} and shape {st.shape}")
        if full_check and idx.size and (np.any(np.diff(idx) <= 0) or idx[0] < 0
                                        or idx[-1] >= st.shape[0]):
            raise MXNetError(f"{name}: indices must be increasing and in [0, {st.shape[0]})")
        return
    ptr = to_numpy(st.indptr)
    if ptr.shape != (st.shape[0] + 1,) or st.values.shape != idx.shape:
        raise MXNetError(f"{name}: indptr of shape {ptr.shape}, indices of shape "
                         f"{idx.shape} and data of shape {tuple(st.values.shape)} do not "
                         f"fit shape {st.shape}")
    if full_check:
        if ptr[0] != 0 or ptr[-1] != idx.size or np.any(np.diff(ptr) < 0):
            raise MXNetError(f"{name}: indptr must start at 0, be non-decreasing and end at "
                             f"nnz={idx.size}")
        if idx.size and (idx.min() < 0 or idx.max() >= st.shape[1]):
            raise MXNetError(f"{name}: column indices must be in [0, {st.shape[1]})")
        for r in np.nonzero(np.diff(ptr) > 1)[0]:  # noqa: one check per non-trivial row
            if np.any(np.diff(idx[ptr[r]:ptr[r + 1]]) <= 0):
                raise MXNetError(f"{name}: column indices of row {r} must be increasing")


# ----------------------------------------------------------------------------- invocation


def _run_sparse(op, inputs, attrs, out, ctx):
    """Run ``op.sparse_forward`` when an input or ``out`` is sparse; None otherwise (the
    dense path then runs, densifying sparse inputs).  Recorded calls take the dense path,
    whose gradients autograd knows."""
    outs_nd = None if out is None else ([out] if isinstance(out, NDArray) else list(out))
    if not op.sparse_from_dense and not any(isinstance(x, BaseSparseNDArray) for x in inputs) \
            and not any(isinstance(o, BaseSparseNDArray) for o in outs_nd or ()):
        return None
    if _state.recording and op.differentiable:
        return None
    datas = [x._st if isinstance(x, BaseSparseNDArray) else x._data for x in inputs]
    bufs = None
    if outs_nd is not None:
        bufs = [o._st if isinstance(o, BaseSparseNDArray) else o._data for o in outs_nd]
    oc = _invoke._op_context(ctx, _state.training)
    if ctx.device_typeid == 2:
        with oc.xp.cuda.Device(ctx.device_id):
            res = op.sparse_forward(oc, attrs, datas, bufs)
    else:
        res = op.sparse_forward(oc, attrs, datas, bufs)
    if res is None:
        return None
    if op.aux_names:
        for i in op.aux_indices(attrs):
            inputs[i]._bump()
    outputs = []
    for i, r in enumerate(res):
        dst = outs_nd[i] if outs_nd is not None and i < len(outs_nd) else None
        if dst is None:
            outputs.append(_wrap(r, ctx) if hasattr(r, "stype") else
                           NDArray(_invoke._as_array(r, oc.xp), ctx))
            continue
        if isinstance(dst, BaseSparseNDArray):
            if r is not dst._st:
                dst._assign_raw(r)
            else:
                dst._bump()
        else:
            raw = _ss.to_dense(oc.xp, r) if hasattr(r, "stype") else r
            if raw is not dst._data:
                dst._data[...] = raw
            dst._bump()
        dst._entry = None
        outputs.append(dst)
    n_vis = op.num_visible_outputs(attrs)
    return outputs[0] if n_vis == 1 else outputs[:n_vis]


_invoke.run_sparse = _run_sparse


# ----------------------------------------------------------------------------- creation
from .sparse_creation import array, csr_matrix, empty, row_sparse_array, zeros  # noqa: E402


# ----------------------------------------------------------------------------- operations


def cast_storage(data: NDArray, stype: str, out=None) -> NDArray:
    """``data`` with storage type ``stype`` (the ``cast_storage`` operator)."""
    return _nd_func("cast_storage")(data, stype=stype, out=out)


def retain(data: RowSparseNDArray, indices=None, out=None, **kwargs) -> RowSparseNDArray:
    """The rows of ``data`` listed in ``indices`` (``_sparse_retain``)."""
    if indices is None:  # the operator names what is missing
        return _nd_func("_sparse_retain")(data, out=out, **kwargs)
    if not isinstance(indices, NDArray):
        indices = NDArray(data._ctx.xp.asarray(np.asarray(indices, dtype=np.int64)),
                          data._ctx)
    return _nd_func("_sparse_retain")(data, indices, out=out, **kwargs)


def dot(lhs: NDArray, rhs: NDArray, transpose_a: bool = False, transpose_b: bool = False,
        forward_stype=None) -> NDArray:
    """Matrix product with sparse operands (``dot``'s sparse kernels)."""
    return _nd_func("dot")(lhs, rhs, transpose_a=transpose_a, transpose_b=transpose_b)


def _binary(name: str, lhs, rhs, elemwise: str, broadcast: str, scalar: str, rscalar: str):
    if isinstance(lhs, numeric_types) and isinstance(rhs, NDArray):
        return _nd_func(rscalar)(rhs, scalar=float(lhs))
    if isinstance(rhs, numeric_types):
        return _nd_func(scalar)(lhs, scalar=float(rhs))
    if not isinstance(lhs, NDArray) or not isinstance(rhs, NDArray):
        raise MXNetError(f"sparse.{name}: operands must be NDArrays or numbers")
    if lhs.shape == rhs.shape:
        return _nd_func(elemwise)(lhs, rhs)
    return _nd_func(broadcast)(lhs, rhs)


def add(lhs, rhs):
    """``lhs + rhs``; sparse when both are sparse of one type and shape."""
    return _binary("add", lhs, rhs, "elemwise_add", "broadcast_add", "_plus_scalar",
                   "_plus_scalar")


def subtract(lhs, rhs):
    """``lhs - rhs``; sparse when both are sparse of one type and shape."""
    return _binary("subtract", lhs, rhs, "elemwise_sub", "broadcast_sub", "_minus_scalar",
                   "_rminus_scalar")


def multiply(lhs, rhs):
    """``lhs * rhs``; sparse when an operand is sparse and the other has its shape or is a
    number."""
    return _binary("multiply", lhs, rhs, "elemwise_mul", "broadcast_mul", "_mul_scalar",
                   "_mul_scalar")


def divide(lhs, rhs):
    """``lhs / rhs``; sparse for a sparse ``lhs`` divided by a number."""
    return _binary("divide", lhs, rhs, "elemwise_div", "broadcast_div", "_div_scalar",
                   "_rdiv_scalar")


def __getattr__(name: str):
    """The generated operator functions, as MXNet also lists them under ``mx.nd.sparse``
    (``sgd_update``, ``elemwise_add``, ...), and the ``_sparse_*`` operators under their
    short names (``adagrad_update``).  Looked up on demand so that operator names never
    shadow builtins (``slice``, ``sum``) inside this module."""
    from . import _api
    fn = _api._functions.get("_sparse_" + name)
    if fn is None and not name.startswith("_"):
        fn = _api._functions.get(name)
    if fn is None:
        raise AttributeError(f"module 'gluonlite.ndarray.sparse' has no attribute '{name}'")
    return fn
