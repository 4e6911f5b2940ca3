"""The NDArray: MXNet's n-dimensional array over a NumPy or CuPy array.

Storage model
-------------
An NDArray wraps one ``numpy``/``cupy`` array (``_data``) on one ``Context``.
Arrays that share memory (MXNet's views: ``reshape``, first-axis slices and
integer indexing) share one :class:`_Chunk`, whose ``version`` counts in-place
writes.  Autograd records the versions of the arrays it saves and refuses to
backward through an array modified afterwards.
"""
from __future__ import annotations

import ctypes

import numpy as np

from .. import autograd as _ag
from ..backend import array_module, to_numpy
from ..base import MXNetError, numeric_types
from ..context import Context, current_context, cpu
from ..ops.creation import check_output_shape
from ..util import is_np_shape
from .handles import handle_of, resolve
from .invoke import invoke

__all__ = ["NDArray", "array", "empty", "zeros", "ones", "full", "arange", "concatenate",
           "waitall", "from_numpy", "from_dlpack", "to_dlpack_for_read", "to_dlpack_for_write"]

# names MXNet's test files import from ``mxnet.ndarray.ndarray``: the builtin ``slice``
# (MXNet shadows it with its operator) and the storage-type ids of its C API
py_slice = slice
_STORAGE_TYPE_STR_TO_ID = {"undefined": -1, "default": 0, "row_sparse": 1, "csr": 2}
_STORAGE_TYPE_ID_TO_STR = {v: k for k, v in _STORAGE_TYPE_STR_TO_ID.items()}

_CPU0 = cpu(0)


class _Chunk:
    """Shared storage record of an array and all of its views."""

    __slots__ = ("version",)

    def __init__(self):
        self.version = 0


def _op(name):
    from ..ops.registry import get_op
    return get_op(name)


class NDArray:
    """An n-dimensional array on a device (MXNet's ``mx.nd.NDArray``)."""

    __slots__ = ("_data", "_ctx", "_chunk", "_entry", "_grad", "_grad_req", "_fresh",
                 "__weakref__")
    # NumPy defers `ndarray + NDArray` to NDArray.__radd__; NumPy functions and ufuncs
    # applied to an NDArray (np.all(x == 1)) see it through __array__, as in MXNet
    __array_priority__ = 1000.0

    def __init__(self, data, ctx: Context | None = None, writable: bool = True):
        if type(data) is ctypes.c_void_p:  # MXNet 1.x's NDArray(handle): a lent handle
            lent = resolve(data)
            data, ctx = lent._data, lent._ctx
        self._data = data
        self._ctx = ctx if ctx is not None else _CPU0
        self._chunk = None
        self._entry = None
        self._grad = None
        self._grad_req = None

    @property
    def _as_parameter_(self):
        # ctypes reads this where an NDArray stands for a C handle, as in MXNet 1.x code:
        # ``NDArray(ctypes.cast(arr, NDArrayHandle))`` in a monitor callback
        return handle_of(self)

    @staticmethod
    def _wrap(data, ctx):
        return NDArray(data, ctx)

    # -- storage bookkeeping -----------------------------------------------------
    def _get_chunk(self) -> _Chunk:
        c = self._chunk
        if c is None:
            c = self._chunk = _Chunk()
        return c

    def _bump(self) -> None:
        c = self._chunk
        if c is not None:
            c.version += 1

    def _view(self, data) -> "NDArray":
        v = NDArray(data, self._ctx)
        v._chunk = self._get_chunk()
        return v

    # -- properties ----------------------------------------------------------------
    @property
    def shape(self) -> tuple:
        """Tuple of dimensions."""
        return self._data.shape

    @property
    def dtype(self):
        """Element type as a NumPy scalar type (``numpy.float32``), as MXNet returns it."""
        return self._data.dtype.type

    @property
    def size(self) -> int:
        """Number of elements."""
        return int(self._data.size)

    @property
    def ndim(self) -> int:
        """Number of dimensions."""
        return self._data.ndim

    @property
    def context(self) -> Context:
        """Device of the array."""
        return self._ctx

    ctx = context

    @property
    def stype(self) -> str:
        """Storage type: ``'default'`` (dense); the sparse classes of
        :mod:`gluonlite.ndarray.sparse` say ``'row_sparse'`` or ``'csr'``."""
        return "default"

    @property
    def grad(self):
        """Gradient buffer attached by ``attach_grad`` (``None`` otherwise)."""
        return self._grad

    @property
    def handle(self):
        """The underlying NumPy/CuPy array (MXNet exposes a C handle here)."""
        return self._data

    @property
    def writable(self) -> bool:
        return True

    @property
    def T(self) -> "NDArray":
        """Transpose (reverse the axes)."""
        return self.transpose()

    # -- conversion ----------------------------------------------------------------
    def asnumpy(self) -> np.ndarray:
        """Copy to a NumPy array."""
        if self._ctx.device_typeid == 2:
            return to_numpy(self._data)
        return self._data.copy()

    def asscalar(self):
        """The value of a size-1 array as a NumPy scalar."""
        if self.size != 1:
            raise MXNetError(f"asscalar: the array must have exactly one element, it has "
                             f"shape {self.shape}")
        return self.asnumpy().reshape(())[()]

    def item(self):
        """The value of a size-1 array as a Python number."""
        return self.asscalar().item()

    def __array__(self, dtype=None, copy=None):
        a = to_numpy(self._data)
        return a if dtype is None else a.astype(dtype, copy=False)

    def astype(self, dtype, copy: bool = True) -> "NDArray":
        """Cast to ``dtype`` (a copy unless ``copy=False`` and the dtype already matches)."""
        dt = np.dtype(dtype)
        if not copy and dt == self._data.dtype:
            return self
        return invoke(_op("Cast"), [self], _op("Cast").parse_attrs({"dtype": dt}))

    def copy(self) -> "NDArray":
        """A copy on the same device."""
        return self.copyto(self._ctx)

    def copyto(self, other) -> "NDArray":
        """Copy into another NDArray (returned) or onto a new array on a Context."""
        if isinstance(other, NDArray):
            if other is self:
                return other
            if other.shape != self.shape:
                raise MXNetError(f"copyto: shape mismatch, source {self.shape} and "
                                 f"target {other.shape}")
            if type(other) is not NDArray:  # sparse: cast to its storage type
                other._assign_raw(_move(self._data, other._ctx))
                return other
            other._data[...] = _move(self._data, other._ctx).astype(other._data.dtype, copy=False)
            other._bump()
            return other
        if isinstance(other, Context):
            data = _move(self._data, other)
            if data is self._data:
                data = data.copy()
            out = NDArray(data, other)
            if _ag._state.recording and (self._entry is not None or self._grad_req):
                return invoke(_op("_copy"), [self], _op("_copy").parse_attrs(None)) \
                    if other == self._ctx else out
            return out
        raise MXNetError(f"copyto: cannot copy to {type(other).__name__}")

    def as_in_context(self, context: Context) -> "NDArray":
        """This array if it is on ``context``, else a copy there."""
        if context == self._ctx:
            return self
        return self.copyto(context)

    as_in_ctx = as_in_context

    def tostype(self, stype: str) -> "NDArray":
        """This array with storage type ``stype`` (``'row_sparse'``, ``'csr'``: a sparse
        copy; ``'default'``: this array)."""
        if stype == "default":
            return self
        from .sparse import cast_storage
        return cast_storage(self, stype)

    def wait_to_read(self) -> None:
        """Block until pending writes are done (synchronizes the GPU stream)."""
        if self._ctx.device_typeid == 2:
            self._ctx.xp.cuda.get_current_stream().synchronize()

    def wait_to_write(self) -> None:
        self.wait_to_read()

    # -- autograd ------------------------------------------------------------------
    def attach_grad(self, grad_req: str = "write", stype=None) -> None:
        """Allocate a gradient buffer (of storage type ``stype``, dense by default) and make
        this array a leaf of future recordings."""
        if grad_req not in ("write", "add", "null"):
            raise MXNetError(f"attach_grad: invalid grad_req '{grad_req}'")
        if stype is not None and stype != "default":
            from .sparse import zeros as sparse_zeros
            self._grad = sparse_zeros(stype, self.shape, ctx=self._ctx, dtype=self.dtype)
        else:
            data = self._data
            xp = array_module(data)
            self._grad = NDArray(xp.zeros(data.shape, dtype=data.dtype), self._ctx)
        self._grad_req = grad_req
        self._entry = None

    def detach(self) -> "NDArray":
        """The same data, cut from the recorded graph."""
        out = NDArray(self._data, self._ctx)
        out._chunk = self._get_chunk()
        return out

    def backward(self, out_grad=None, retain_graph: bool = False, train_mode: bool = True) -> None:
        """Compute gradients of this array with respect to the marked variables."""
        _ag.backward([self], [out_grad], retain_graph=retain_graph, train_mode=train_mode)

    # -- shape views -----------------------------------------------------------------
    def reshape(self, *shape, **kwargs) -> "NDArray":
        """Reshape with MXNet's codes (0, -1, -2, -3, -4) and ``reverse``; a view of the data."""
        if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
            shape = shape[0]
        shape = kwargs.pop("shape", shape)
        reverse = kwargs.pop("reverse", False)
        if kwargs:
            raise MXNetError(f"reshape: unexpected arguments {sorted(kwargs)}")
        from ..ops.shape_codes import reshape_shape
        new_shape = reshape_shape(tuple(self.shape), tuple(shape), reverse, "reshape")
        if _ag._state.recording and (self._entry is not None or self._grad_req):
            op = _op("Reshape")
            return invoke(op, [self], op.parse_attrs({"shape": new_shape}))
        return self._view(self._data.reshape(new_shape))

    def reshape_like(self, *args, **kwargs):
        return _nd_func("reshape_like")(self, *args, **kwargs)

    # -- indexing --------------------------------------------------------------------
    def __getitem__(self, key):
        from .indexing import getitem
        return getitem(self, key)

    def __setitem__(self, key, value):
        from .indexing import setitem
        setitem(self, key, value)

    def __len__(self) -> int:
        return self.shape[0]

    def __iter__(self):
        for i in range(self.shape[0]):
            yield self[i]

    def __bool__(self) -> bool:
        if self.size == 1:
            return bool(self.asscalar())
        if self.size == 0:
            return False
        raise ValueError("The truth value of an NDArray with multiple elements is ambiguous.")

    __nonzero__ = __bool__

    # -- printing / pickling --------------------------------------------------------
    def __repr__(self) -> str:
        shape = "x".join(str(d) for d in self.shape)
        return f"\n{self.asnumpy()}\n<NDArray {shape} @{self._ctx}>"

    def __str__(self) -> str:
        return self.__repr__()

    def __getstate__(self):
        return {"data": self.asnumpy(), "ctx": (self._ctx.device_type, self._ctx.device_id)}

    def __setstate__(self, state):
        if "handle" in state:  # MXNet's pickled state: one array record in nd.save format
            from .serialization import loads_record
            state = loads_record(state["handle"])
        ctx = Context(*state["ctx"])
        data = state["data"]
        if ctx.device_typeid == 2:
            try:
                data = ctx.xp.asarray(data)
            except MXNetError:
                ctx = _CPU0
        NDArray.__init__(self, data, ctx)

    def __reduce__(self):
        return (_unpickle, (self.__getstate__(),))

    def __hash__(self) -> int:
        return id(self)

    @property
    def _fresh_grad(self) -> bool:
        """Whether a backward wrote this variable's gradient since the flag was last
        cleared (``Trainer.step`` clears it; a stale gradient is an error there)."""
        try:
            return self._fresh
        except AttributeError:  # never set: no backward reached this array
            return False

    @_fresh_grad.setter
    def _fresh_grad(self, value: bool) -> None:
        self._fresh = bool(value)

    # -- DLPack ----------------------------------------------------------------------
    def __dlpack__(self, *args, **kwargs):
        return self._data.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._data.__dlpack_device__()

    def to_dlpack_for_read(self):
        """A DLPack capsule sharing this array's memory."""
        self.wait_to_read()
        return self._data.__dlpack__()

    def to_dlpack_for_write(self):
        """A DLPack capsule sharing this array's memory (writes are seen here)."""
        self._bump()
        return self._data.__dlpack__()


from . import invoke as _invoke_module  # noqa: E402 - the hot path needs the class

_invoke_module.NDArray = NDArray


def _unpickle(state):
    arr = NDArray.__new__(NDArray)
    arr.__setstate__(state)
    return arr


def _move(data, ctx: Context):
    """``data`` placed on ``ctx`` (the same object when it is already there)."""
    src_gpu = array_module(data) is not np
    if ctx.device_typeid == 2:
        xp = ctx.xp
        with xp.cuda.Device(ctx.device_id):
            if src_gpu and data.device.id == ctx.device_id:
                return data
            return xp.asarray(data if not src_gpu else xp.asarray(data))
    if src_gpu:
        return to_numpy(data)
    return data


def _nd_func(name):
    from . import _api
    return _api.function(name)


_DEFAULT_DTYPE = np.dtype(np.float32)


def _resolve_ctx(ctx) -> Context:
    if ctx is None:
        return current_context()
    if isinstance(ctx, str):
        return Context(ctx)
    return ctx


def array(source_array, ctx: Context | None = None, dtype=None) -> NDArray:
    """Create an NDArray from any array-like.

    As in MXNet, the result is float32 unless ``dtype`` is given or the source is an
    NDArray (whose dtype is kept); NumPy sources of any dtype become float32.
    """
    if getattr(source_array, "stype", "default") != "default" or \
            type(source_array).__module__.startswith("scipy.sparse"):
        from .sparse import array as sparse_array  # sparse sources stay sparse (MXNet)
        return sparse_array(source_array, ctx=ctx, dtype=dtype)
    ctx = _resolve_ctx(ctx)
    if isinstance(source_array, NDArray):
        dt = np.dtype(dtype) if dtype is not None else source_array._data.dtype
        src = source_array._data
    else:
        dt = np.dtype(dtype) if dtype is not None else _DEFAULT_DTYPE
        src = source_array
    xp = ctx.xp
    if ctx.device_typeid == 2:
        with xp.cuda.Device(ctx.device_id):
            data = xp.array(src, dtype=dt)
    else:
        data = np.array(to_numpy(src) if array_module(src) is not np else src, dtype=dt)
    return NDArray(data, ctx)


def from_numpy(ndarray: np.ndarray, zero_copy: bool = True) -> NDArray:
    """Wrap a NumPy array.  With ``zero_copy`` the NDArray takes the array's memory, as
    MXNet does: the array must be C-contiguous (``ValueError`` otherwise) and becomes
    read-only; writes through the NDArray show in it."""
    if zero_copy:
        if not ndarray.flags.c_contiguous:
            raise ValueError("from_numpy: only C-contiguous arrays can be zero-copied")
        data = ndarray.reshape(ndarray.shape or (1,))  # a view, writable when the source is
        ndarray.flags.writeable = False
        return NDArray(_writable(data), _CPU0)
    return NDArray(np.ascontiguousarray(ndarray).reshape(ndarray.shape or (1,)).copy(), _CPU0)


def _creation(fill, shape, ctx, dtype, value=None, out=None) -> NDArray:
    if out is not None:  # MXNet's creation functions take ``out=`` and fill it
        out[:] = _creation(fill, shape, ctx if ctx is not None else out.context, dtype, value)
        return out
    ctx = _resolve_ctx(ctx)
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    if fill != "empty":
        _check_fill_shape(fill, shape)
    dt = np.dtype(dtype) if dtype is not None else _DEFAULT_DTYPE
    xp = ctx.xp
    prof = _invoke_module.profiler
    if prof is not None:
        t0 = prof.clock()
    if ctx.device_typeid == 2:
        with xp.cuda.Device(ctx.device_id):
            data = _fill(xp, fill, tuple(shape), dt, value)
    else:
        data = _fill(xp, fill, tuple(shape), dt, value)
    if prof is not None and fill != "empty":  # MXNet's _zeros, _ones, _full operators
        prof.operator("_" + fill, t0)
    return NDArray(data, ctx)


def _check_fill_shape(fill: str, shape) -> None:
    """MXNet's legacy shape rules for ``zeros``/``ones``/``full``: outside ``np_shape``
    ``()`` and 0 dimensions mean "unknown", so ``zeros``/``ones`` refuse both, and
    ``full`` (``empty`` then ``out[:] = val`` in MXNet) refuses ``()``."""
    if fill == "full":
        if not tuple(shape) and not is_np_shape():
            check_output_shape("_full", shape)
        return
    check_output_shape("_" + fill, shape)


def _fill(xp, fill, shape, dt, value):
    if fill == "empty":
        return xp.empty(shape, dtype=dt)
    if fill == "zeros":
        return xp.zeros(shape, dtype=dt)
    if fill == "ones":
        return xp.ones(shape, dtype=dt)
    return xp.full(shape, value, dtype=dt)


def empty(shape, ctx: Context | None = None, dtype=None, stype=None) -> NDArray:
    """Uninitialized array (float32 by default); an empty sparse one for ``stype``
    ``'row_sparse'`` or ``'csr'``."""
    if stype is not None and stype != "default":
        from .sparse import empty as sparse_empty
        return sparse_empty(stype, shape, ctx=ctx, dtype=dtype)
    return _creation("empty", shape, ctx, dtype)


def zeros(shape, ctx: Context | None = None, dtype=None, stype=None, **kwargs) -> NDArray:
    """Array of zeros (float32 by default); a sparse one for ``stype`` ``'row_sparse'`` or
    ``'csr'``.  Outside ``np_shape`` a shape ``()`` or with a 0 raises, as in MXNet."""
    if stype is not None and stype != "default":
        from .sparse import zeros as sparse_zeros
        return sparse_zeros(stype, shape, ctx=ctx, dtype=dtype)
    return _creation("zeros", shape, ctx, dtype, out=kwargs.get("out"))


def ones(shape, ctx: Context | None = None, dtype=None, **kwargs) -> NDArray:
    """Array of ones (float32 by default).  Outside ``np_shape`` a shape ``()`` or with a
    0 raises, as in MXNet."""
    return _creation("ones", shape, ctx, dtype, out=kwargs.get("out"))


def full(shape, val, ctx: Context | None = None, dtype=np.float32, out=None) -> NDArray:
    """Array filled with ``val``."""
    return _creation("full", shape, ctx, dtype, val, out=out)


def arange(start, stop=None, step: float = 1.0, repeat: int = 1, infer_range=None,
           ctx: Context | None = None, dtype=np.float32) -> NDArray:
    """Evenly spaced values in ``[start, stop)``, each repeated ``repeat`` times."""
    if stop is None:
        start, stop = 0, start
    ctx = _resolve_ctx(ctx)
    op = _op("_arange")
    attrs = op.parse_attrs({"start": start, "stop": stop, "step": step, "repeat": repeat,
                            "dtype": np.dtype(dtype)})
    return invoke(op, [], attrs, ctx=ctx)


def linspace(start, stop, num: int, endpoint: bool = True, ctx: Context | None = None,
             dtype=np.float32) -> NDArray:
    """``num`` evenly spaced values from ``start`` to ``stop`` (``stop`` excluded when
    ``endpoint`` is False)."""
    op = _op("_linspace")
    attrs = op.parse_attrs({"start": start, "stop": stop, "num": num, "endpoint": endpoint,
                            "dtype": np.dtype(dtype)})
    return invoke(op, [], attrs, ctx=_resolve_ctx(ctx))


def eye(N: int, M: int = 0, k: int = 0, ctx: Context | None = None, dtype=None,
        **kwargs) -> NDArray:
    """A 2-D array with ones on the ``k``-th diagonal (``M=0`` means ``M=N``)."""
    op = _op("_eye")
    attrs = op.parse_attrs({"N": N, "M": M, "k": k,
                            "dtype": np.dtype(dtype if dtype is not None else np.float32)})
    return invoke(op, [], attrs, ctx=_resolve_ctx(ctx))


def concatenate(arrays, axis: int = 0, always_copy: bool = True) -> NDArray:
    """Join arrays along ``axis`` (MXNet's ``nd.concatenate``)."""
    if not arrays:
        raise MXNetError("concatenate: no arrays given")
    if len(arrays) == 1 and not always_copy:
        return arrays[0]
    op = _op("Concat")
    return invoke(op, list(arrays), op.parse_attrs({"dim": axis, "num_args": len(arrays)}))


def waitall() -> None:
    """Wait for all pending work on every device."""
    from .. import backend
    cp = backend.cupy_module()
    if cp is not None and backend.gpu_count() > 0:
        for i in range(backend.gpu_count()):
            with cp.cuda.Device(i):
                cp.cuda.get_current_stream().synchronize()


def _writable(arr: np.ndarray) -> np.ndarray:
    """A writable zero-copy view of ``arr``.

    NumPy 2.4 marks arrays imported from unversioned DLPack capsules read-only,
    but MXNet's ``from_dlpack(to_dlpack_for_write())`` is meant for writing.
    """
    if arr.flags.writeable:
        return arr
    return np.asarray(_WritableView(arr))


class _WritableView:
    """Re-exposes a read-only array's memory as writable; keeps the owner alive."""

    def __init__(self, arr: np.ndarray):
        self._owner = arr
        iface = dict(arr.__array_interface__)
        iface["data"] = (iface["data"][0], False)
        self.__array_interface__ = iface


# MXNet's mx.nd.ndarray.from_dlpack & co. (they need NDArray and _writable above)
from .dlpack import from_dlpack, to_dlpack_for_read, to_dlpack_for_write  # noqa: E402,F401
