"""``mx.np.ndarray``: MXNet's NumPy-compatible array.

It is an :class:`~gluonlite.ndarray.NDArray` (same storage, devices, autograd and
views) with NumPy's semantics where MXNet's ``mx.np`` has them: 0-d arrays (``x.sum()``
and ``x[0, 0]`` have shape ``()``), ``bool`` results of comparisons, NumPy indexing
(boolean masks, ``None``), NumPy's ``reshape``, ``repr`` as ``array([...])``.  The
operators run through the registry: :func:`apply` invokes one and wraps its results
in this class.
"""
from __future__ import annotations

import numbers

import numpy as onp

from ... import autograd as _ag
from ...backend import array_module
from ...base import MXNetError
from ...context import Context, current_context
from ...ops.registry import get_op
from ..invoke import invoke
from ..ndarray import NDArray, _move

__all__ = ["ndarray", "apply", "as_np", "array", "empty", "zeros", "ones", "full",
           "NpValueError", "NpTypeError", "NpIndexError"]


class NpValueError(MXNetError, ValueError):
    """A user error that MXNet's ``mx.np`` reports as ``ValueError`` (NumPy's type)."""


class NpTypeError(MXNetError, TypeError):
    """A user error that MXNet's ``mx.np`` reports as ``TypeError`` (NumPy's type)."""


class NpIndexError(MXNetError, IndexError):
    """An invalid index (NumPy's ``IndexError``)."""


def _check_order(name: str, order: str) -> None:
    if order != "C":
        raise NotImplementedError(f"{name}: only order='C' is supported (MXNet's rule), got "
                                  f"order={order!r}")

_DEFAULT_FLOAT = onp.dtype(onp.float32)
_OPS: dict = {}


def _get(name: str):
    op = _OPS.get(name)
    if op is None:
        op = _OPS[name] = get_op(name)
    return op


def apply(name: str, inputs: list, ctx: Context | None = None, **attrs):
    """Run registry operator ``name`` on ``inputs`` (``mx.np`` arrays); the results are
    ``mx.np`` arrays (a list when the operator has several visible outputs)."""
    op = _get(name)
    return invoke(op, inputs, op.parse_attrs(attrs or None), ctx=ctx, cls=ndarray)


def as_np(x, ctx: Context | None = None, dtype=None) -> "ndarray":
    """``x`` as an ``mx.np`` array: itself when it is one, a zero-copy view of an
    ``NDArray``, else a new array (Python scalars and lists take MXNet's default
    ``float32`` unless ``dtype`` says otherwise)."""
    if isinstance(x, ndarray):
        return x if dtype is None or x.dtype == onp.dtype(dtype) else x.astype(dtype)
    if isinstance(x, NDArray):
        return x.as_np_ndarray()
    return array(x, dtype=dtype, ctx=ctx)


class ndarray(NDArray):  # noqa: N801 - MXNet's name
    """An array with NumPy semantics on a device (MXNet's ``mx.np.ndarray``)."""

    __slots__ = ()

    @staticmethod
    def _wrap(data, ctx):
        return ndarray(data, ctx)

    def _view(self, data) -> "ndarray":
        v = ndarray(data, self._ctx)
        v._chunk = self._get_chunk()
        return v

    def _assign_raw(self, raw) -> None:
        """Store ``raw`` (an operator's in-place result) as this array's values."""
        if raw is not self._data:
            self._data[...] = raw

    # -- conversion --------------------------------------------------------------------
    @property
    def dtype(self):
        """Element type as a ``numpy.dtype`` (NumPy's convention; MXNet's ``mx.np`` too)."""
        return self._data.dtype

    def as_nd_ndarray(self) -> NDArray:
        """The same storage as a legacy ``NDArray`` (no copy)."""
        v = NDArray(self._data if self._data.ndim else self._data.reshape(1), self._ctx)
        v._chunk = self._get_chunk()
        v._entry, v._grad, v._grad_req = self._entry, self._grad, self._grad_req
        return v

    def as_np_ndarray(self) -> "ndarray":
        return self

    def asnumpy(self) -> onp.ndarray:
        if self._ctx.device_typeid == 2:
            return NDArray.asnumpy(self)
        return self._data.copy()

    def item(self, *args):
        """A Python scalar: the only element, or the one at ``args``."""
        if args:
            return self.asnumpy().item(*args)
        if self.size != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        return self.asnumpy().item()

    def tolist(self):
        return self.asnumpy().tolist()

    def astype(self, dtype, order: str = "K", casting: str = "unsafe", subok: bool = True,
               copy: bool = True) -> "ndarray":
        dt = onp.dtype(dtype if dtype is not None else _DEFAULT_FLOAT)
        if not copy and dt == self._data.dtype:
            return self
        return apply("Cast", [self], dtype=dt)

    def copy(self, order: str = "C") -> "ndarray":
        """A copy of the array (C order only, as in MXNet)."""
        _check_order("copy", order)
        return apply("_copy", [self])

    def copyto(self, other):
        if isinstance(other, Context):
            data = _move(self._data, other)
            return ndarray(data.copy() if data is self._data else data, other)
        return NDArray.copyto(self, other)

    def detach(self) -> "ndarray":
        out = ndarray(self._data, self._ctx)
        out._chunk = self._get_chunk()
        return out

    def attach_grad(self, grad_req: str = "write", stype=None) -> None:
        NDArray.attach_grad(self, grad_req, stype)
        self._grad = ndarray(self._grad._data, self._ctx)

    # -- Python protocol ---------------------------------------------------------------
    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        for i in range(self.shape[0]):
            yield self[i]

    def __bool__(self) -> bool:
        if self.size == 1:
            return bool(self.asnumpy().reshape(()))
        if self.size == 0:
            return False
        raise ValueError("The truth value of an ndarray with more than one element is "
                         "ambiguous. Use a.any() or a.all()")

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self.dtype.kind not in "iub" or self.size != 1:
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        return int(self.item())

    def __complex__(self) -> complex:
        return complex(self.item())

    def __repr__(self) -> str:
        text = repr(self.asnumpy())
        text = text.replace(", dtype=float32)", ")")
        if self._ctx.device_typeid != 1:
            text = text[:-1] + f", ctx={self._ctx})"
        return text

    def __str__(self) -> str:
        return str(self.asnumpy())

    def __format__(self, spec: str) -> str:
        if self.ndim == 0:
            return format(self.item(), spec)
        if spec:
            raise TypeError("Cannot format mxnet.numpy.ndarray with format_spec")
        return str(self)

    def __hash__(self) -> int:
        return id(self)

    def __reduce__(self):
        return (_unpickle, (self.asnumpy(), (self._ctx.device_type, self._ctx.device_id)))

    def __array__(self, dtype=None, copy=None):
        a = self.asnumpy() if self._ctx.device_typeid == 2 else self._data
        return a if dtype is None else a.astype(dtype, copy=False)

    def __array_function__(self, func, types, args, kwargs):
        from .dispatch import array_function
        return array_function(func, types, args, kwargs)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        from .dispatch import array_ufunc
        return array_ufunc(ufunc, method, inputs, kwargs)

    # -- indexing ----------------------------------------------------------------------
    def __getitem__(self, key):
        from .indexing import getitem
        return getitem(self, key)

    def __setitem__(self, key, value):
        from .indexing import setitem
        setitem(self, key, value)

    # -- shape -------------------------------------------------------------------------
    @property
    def T(self) -> "ndarray":  # noqa: N802 - NumPy's name
        return self.transpose()

    def reshape(self, *shape, order: str = "C", **kwargs) -> "ndarray":
        """NumPy's ``reshape`` (one ``-1`` may stand for the rest); a view of the data."""
        if kwargs:
            shape = (kwargs.pop("newshape", kwargs.pop("shape", shape)),)
            if kwargs:
                raise TypeError(f"reshape() got unexpected arguments {sorted(kwargs)}")
        if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
            shape = shape[0]
        from ._op import reshape
        return reshape(self, tuple(shape), order=order)

    @property
    def shape(self) -> tuple:
        return self._data.shape

    @shape.setter
    def shape(self, value):
        raise AttributeError("mx.np.ndarray shape cannot be set; use reshape")


def _unpickle(data, ctx):
    return array(data, dtype=data.dtype, ctx=Context(*ctx))


# -- creation ----------------------------------------------------------------------------
def _ctx(ctx) -> Context:
    return current_context() if ctx is None else ctx


def _dtype(dtype, default=_DEFAULT_FLOAT) -> onp.dtype:
    return default if dtype is None else onp.dtype(dtype)


def array(object, dtype=None, ctx: Context | None = None) -> ndarray:  # noqa: A002
    """A new array holding ``object``'s values; lists and scalars give ``float32`` unless
    ``dtype`` is given, arrays keep their dtype (MXNet's rule)."""
    if isinstance(object, NDArray) and not isinstance(object, ndarray):
        raise MXNetError("To make an mx.np.ndarray of an mx.nd.NDArray, use its zero-copy "
                         "as_np_ndarray()")
    ctx = _ctx(ctx if ctx is not None or not isinstance(object, ndarray) else object.context)
    if isinstance(object, ndarray):
        dt = object.dtype if dtype is None else onp.dtype(dtype)
        data = _move(object._data, ctx).astype(dt, copy=True)
        return ndarray(data, ctx)
    if dtype is None:
        dtype = object.dtype if hasattr(object, "dtype") else _DEFAULT_FLOAT
    try:
        try:
            host = onp.array(object, dtype=dtype)
        except OverflowError:  # NumPy 2 refuses what MXNet's C cast wraps around
            host = onp.array(object).astype(dtype)
    except Exception as err:  # noqa: BLE001 - NumPy's message, as MXNet shows it
        raise TypeError(str(err)) from err
    return ndarray(ctx.xp.asarray(host) if ctx.device_typeid == 2 else host, ctx)


def empty(shape, dtype=None, order: str = "C", ctx: Context | None = None) -> ndarray:
    """An uninitialized array (zeros here)."""
    _check_order("empty", order)
    return zeros(shape, dtype, order, ctx)


def zeros(shape, dtype=None, order: str = "C", ctx: Context | None = None) -> ndarray:
    """An array of zeros (``float32`` by default)."""
    _check_order("zeros", order)
    c = _ctx(ctx)
    return ndarray(c.xp.zeros(_shape(shape), dtype=_dtype(dtype)), c)


def ones(shape, dtype=None, order: str = "C", ctx: Context | None = None) -> ndarray:
    """An array of ones (``float32`` by default)."""
    _check_order("ones", order)
    c = _ctx(ctx)
    return ndarray(c.xp.ones(_shape(shape), dtype=_dtype(dtype)), c)


def full(shape, fill_value, dtype=None, order: str = "C", ctx: Context | None = None,
         out=None) -> ndarray:
    """An array filled with ``fill_value`` (``float32`` by default, or the dtype of an
    array ``fill_value``)."""
    c = _ctx(ctx)
    if isinstance(fill_value, ndarray):
        dt = fill_value.dtype if dtype is None else onp.dtype(dtype)
        res = ndarray(c.xp.broadcast_to(_move(fill_value._data, c).astype(dt),
                                        _shape(shape)).copy(), c)
    else:
        res = ndarray(c.xp.full(_shape(shape), fill_value, dtype=_dtype(dtype)), c)
    if out is not None:
        out[...] = res
        return out
    return res


def _shape(shape) -> tuple:
    if isinstance(shape, numbers.Integral):
        return (int(shape),)
    return tuple(int(d) for d in shape)


def _raw(x, xp):
    """The raw array of an operand in array module ``xp``."""
    if isinstance(x, NDArray):
        return x._data
    return xp.asarray(x)


def recording(*arrays) -> bool:
    """Whether autograd records an operation on any of ``arrays``."""
    if not _ag._state.recording:
        return False
    return any(isinstance(a, NDArray) and (a._entry is not None or a._grad_req not in
                                           (None, "null")) for a in arrays)


def module_of(x):
    """The array module (``numpy``/``cupy``) of an array."""
    return array_module(x._data)
