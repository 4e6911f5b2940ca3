"""A test-only stand-in for CuPy, backed by NumPy, that refuses what CuPy refuses.

Its arrays (:class:`ndarray`) are *not* ``numpy.ndarray`` subclasses: they wrap a
NumPy array (``_a``) and expose the part of ``cupy.ndarray``'s API that gluonlite
uses.  The point is to make the usual GPU bug class fail on a CPU-only machine:
mixing NumPy and CuPy.  Modelled after CuPy 13/14 (``cupy/_core/core.pyx``):

* ``__array__`` raises ``TypeError`` (CuPy forbids implicit device-to-host
  conversion), so ``np.asarray(x)``, ``np.array(x)`` and NumPy code that coerces
  its arguments fail;
* module functions and ufuncs reject ``numpy.ndarray`` arguments (CuPy raises
  ``TypeError: Unsupported type <class 'numpy.ndarray'>``); only ``array``,
  ``asarray``, ``asanyarray`` and ``asnumpy`` move host data explicitly.  Ufuncs
  also reject lists and the ``where=`` keyword, as CuPy's do;
* binary operators with a ``numpy.ndarray`` on either side raise;
* ``x[...] = host_array`` (basic indexing) raises ``ValueError`` as CuPy's
  ``fill`` does; advanced indexing converts host index/value arrays, as CuPy does;
* reductions and full integer indexing give 0-d device arrays, never scalars;
* ``float(x)``, ``int(x)``, ``bool(x)``, ``.item()``, ``.tolist()``, ``.get()``
  work (they synchronize on a GPU); ``operator.index(x)`` does not;
* no object or string dtypes;
* NumPy functions called on these arrays: CuPy dispatches ``np.f(x)`` to
  ``cupy.f`` (NEP 13/18).  With ``STRICT`` (the default) the stand-in raises
  instead, because xp-generic code should call ``xp.f``; :func:`set_strict`
  turns the faithful dispatch back on;
* ``sort``/``argsort`` are always stable and accept only ``kind=None``/``"stable"``;
* ``ufunc.at`` only for ``add``, ``subtract``, ``maximum``, ``minimum`` and
  ``cupyx.scatter_add`` / ``scatter_max`` / ``scatter_min``;
* ``ElementwiseKernel`` is not implemented; the module's ``__name__`` is not
  ``"cupy"``, so the engine's fusion stays off.

What it cannot catch: numerical differences of CUDA kernels, cuBLAS/cuSOLVER
precision, kernel compilation errors, out-of-bounds index wrap-around (CuPy wraps,
NumPy raises), undefined order of duplicate-index writes, asynchronous-stream
races, multi-device placement, memory-pool behaviour, and CuPy functions whose
signature differs from NumPy's in arguments we do not check.
"""
from __future__ import annotations

import builtins
import contextlib
import sys
import types

import numpy as np

STRICT = True
# Device-to-host synchronizations (float(x), x.item(), x.tolist(), x.get(), bool(x), ...)
# as (what, "file:line" of the caller); tests clear and inspect it.
SYNCS: list = []


def _sync(what: str) -> None:
    f = sys._getframe(2)
    SYNCS.append((what, f"{f.f_code.co_filename}:{f.f_lineno}"))


def set_strict(flag: bool) -> None:
    """Raise on any NumPy function applied to a device array (``True``), or dispatch it
    to the stand-in as CuPy does (``False``)."""
    global STRICT
    STRICT = bool(flag)


class _HostArrayError(TypeError):
    pass


def _caller() -> str:
    """``file:line`` of the innermost frame outside this module and NumPy (for messages)."""
    f = sys._getframe(1)
    while f is not None:
        name = f.f_code.co_filename
        if name != __file__ and "/numpy/" not in name:
            return f"{name}:{f.f_lineno}"
        f = f.f_back
    return "?"


def _host_error(where: str) -> TypeError:
    return _HostArrayError(f"Unsupported type <class 'numpy.ndarray'> (fake cupy: a host "
                           f"numpy.ndarray was passed to {where} at {_caller()}; CuPy does "
                           "not convert host arrays implicitly)")


def _check_dtype(dt) -> None:
    if dt is not None and np.dtype(dt).kind in "OSUV":
        raise TypeError(f"fake cupy: dtype {np.dtype(dt)} is not supported by CuPy")


def _dev(x, where: str):
    """The NumPy data of a device argument (recursing into lists/tuples/dicts)."""
    t = type(x)
    if t is ndarray:
        return x._a
    if t is np.ndarray:
        raise _host_error(where)
    if t is list or t is tuple:
        return t(_dev(v, where) for v in x)
    if t is dict:
        return {k: _dev(v, where) for k, v in x.items()}
    if isinstance(x, np.ndarray):  # a foreign subclass
        raise _host_error(where)
    return x


def _host_ok(x):
    """Like :func:`_dev` but host arrays are accepted (explicit transfers, indices)."""
    t = type(x)
    if t is ndarray:
        return x._a
    if t is list or t is tuple:
        return t(_host_ok(v) for v in x)
    return x


def _wrap(r):
    """Results back to device arrays; NumPy scalars become 0-d arrays as in CuPy."""
    if isinstance(r, np.ndarray):
        _check_dtype(r.dtype)
        return ndarray(r)
    if isinstance(r, np.generic):
        return ndarray(np.asarray(r))
    if type(r) is tuple or type(r) is list:
        return type(r)(_wrap(v) for v in r)
    if hasattr(r, "_fields") and isinstance(r, tuple):  # namedtuple results (linalg)
        return type(r)(*[_wrap(v) for v in r])
    return r


# ----------------------------------------------------------------------------------------
# ufuncs
# ----------------------------------------------------------------------------------------
_AT_OK = {"add", "subtract", "maximum", "minimum"}
_UFUNC_KW = {"out", "dtype", "casting"}


class ufunc:
    """A CuPy-like ufunc over NumPy's: device arrays and scalars only."""

    def __init__(self, npf):
        self._f = npf
        self.__name__ = npf.__name__
        self.nin, self.nout, self.nargs = npf.nin, npf.nout, npf.nargs

    def __repr__(self):
        return f"<fake cupy ufunc '{self.__name__}'>"

    def _inputs(self, args):
        res = []
        for x in args:
            t = type(x)
            if t is ndarray:
                res.append(x._a)
            elif isinstance(x, np.ndarray):
                raise _host_error(f"cupy.{self.__name__}")
            elif isinstance(x, (list, tuple)):
                raise TypeError(f"Unsupported type {t} (fake cupy: cupy.{self.__name__} takes "
                                "no lists)")
            else:
                res.append(x)
        return res

    def _kwargs(self, kwargs, allowed=_UFUNC_KW):
        bad = set(kwargs) - allowed
        if bad:
            raise TypeError(f"Wrong arguments {sorted(bad)} (fake cupy: cupy.{self.__name__} "
                            "does not support them)")
        out = kwargs.get("out")
        if out is not None:
            if isinstance(out, tuple):
                out = tuple(_out(o, self.__name__) for o in out)
            else:
                out = _out(out, self.__name__)
            kwargs = dict(kwargs, out=out)
        return kwargs

    def __call__(self, *args, **kwargs):
        return _wrap(self._f(*self._inputs(args), **self._kwargs(kwargs)))

    def reduce(self, a, axis=0, dtype=None, out=None, keepdims=False):
        kw = self._kwargs({"out": out} if out is not None else {})
        return _wrap(self._f.reduce(*self._inputs([a]), axis=axis, dtype=dtype,
                                    keepdims=keepdims, **kw))

    def accumulate(self, a, axis=0, dtype=None, out=None):
        kw = self._kwargs({"out": out} if out is not None else {})
        return _wrap(self._f.accumulate(*self._inputs([a]), axis=axis, dtype=dtype, **kw))

    def outer(self, a, b, **kwargs):
        return _wrap(self._f.outer(*self._inputs([a, b]), **self._kwargs(kwargs)))

    def at(self, a, indices, b=None):
        if self.__name__ not in _AT_OK:
            raise NotImplementedError(f"fake cupy: cupy.{self.__name__}.at is not supported")
        if type(a) is not ndarray:
            raise TypeError(f"fake cupy: cupy.{self.__name__}.at needs a cupy.ndarray")
        args = [] if b is None else self._inputs([b])
        self._f.at(a._a, _host_ok(indices), *args)


def _out(o, name):
    if type(o) is not ndarray:
        if isinstance(o, np.ndarray):
            raise _host_error(f"cupy.{name}(out=...)")
        raise TypeError(f"fake cupy: out= of cupy.{name} must be a cupy.ndarray")
    return o._a


# ----------------------------------------------------------------------------------------
# the array
# ----------------------------------------------------------------------------------------
class _Device:
    """``cupy.cuda.Device``: a context manager; only device 0 exists."""

    def __init__(self, device=None):
        self.id = 0 if device is None else int(device)
        if self.id != 0:
            raise RuntimeError(f"fake cupy: device {self.id} does not exist (one device)")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def use(self):
        return None

    def synchronize(self):
        return None

    def __eq__(self, other):
        return isinstance(other, _Device) and other.id == self.id

    def __hash__(self):
        return hash(self.id)


def _method(name, host_ok=False):
    def m(self, *args, **kwargs):
        conv = _host_ok if host_ok else (lambda v: _dev(v, f"cupy.ndarray.{name}"))
        if "out" in kwargs and kwargs["out"] is not None:
            kwargs["out"] = _out(kwargs["out"], f"ndarray.{name}")
        return _wrap(getattr(self._a, name)(*conv(list(args)), **{
            k: (v if k == "out" else conv(v)) for k, v in kwargs.items()}))
    m.__name__ = name
    return m


def _binop(fname, reflected=False):
    def op(self, other):
        f = _UFUNCS[fname]
        return f(other, self) if reflected else f(self, other)
    return op


def _iop(fname):
    def op(self, other):
        _UFUNCS[fname](self, other, out=self)
        return self
    return op


class ndarray:
    """A device array: NumPy data that NumPy may not touch implicitly."""

    __slots__ = ("_a", "__weakref__")
    __array_priority__ = 100
    __hash__ = None

    def __init__(self, a):
        self._a = a

    # -- attributes -----------------------------------------------------------------
    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    strides = property(lambda self: self._a.strides)
    itemsize = property(lambda self: self._a.itemsize)
    nbytes = property(lambda self: self._a.nbytes)
    flags = property(lambda self: self._a.flags)
    T = property(lambda self: ndarray(self._a.T))
    real = property(lambda self: ndarray(self._a.real))
    imag = property(lambda self: ndarray(self._a.imag))
    device = property(lambda self: _Device(0))

    @property
    def base(self):
        b = self._a.base
        return None if b is None else ndarray(b)

    # -- NumPy interop (refused, as CuPy refuses it) ----------------------------------
    def __array__(self, dtype=None, copy=None):
        raise TypeError("Implicit conversion to a NumPy array is not allowed. Please use "
                        f"`.get()` to construct a NumPy array explicitly. (fake cupy, at "
                        f"{_caller()})")

    def __array_ufunc__(self, uf, method, *inputs, **kwargs):
        # ``np.float32(2) * x`` also arrives here (NumPy scalars' operators call the
        # ufunc), so strict mode lets calls that mix in a NumPy scalar through.
        if builtins.any(isinstance(v, np.ndarray) for v in inputs):
            raise _host_error(f"numpy.{uf.__name__} with a cupy.ndarray")
        if STRICT and not (method == "__call__"
                           and builtins.any(isinstance(v, np.generic) for v in inputs)):
            raise TypeError(f"fake cupy (strict): numpy.{uf.__name__}"
                            f"{'' if method == '__call__' else '.' + method} called on a "
                            f"cupy.ndarray at {_caller()}; use xp.{uf.__name__}")
        f = _UFUNCS.get(uf.__name__)
        if f is None:
            return NotImplemented
        if "out" in kwargs:
            out = kwargs["out"]
            kwargs["out"] = out[0] if isinstance(out, tuple) and len(out) == 1 else out
        if method == "__call__":
            return f(*inputs, **kwargs)
        return getattr(f, method)(*inputs, **kwargs)

    def __array_function__(self, func, types_, args, kwargs):
        name = f"{func.__module__}.{func.__name__}"
        if STRICT:
            raise TypeError(f"fake cupy (strict): {name} called on a cupy.ndarray at "
                            f"{_caller()}; use the xp equivalent")
        mod = _MODULE
        for part in func.__module__.split(".")[1:]:
            mod = getattr(mod, part, None)
        f = getattr(mod, func.__name__, None) if mod is not None else None
        if f is None:
            return NotImplemented
        return f(*args, **kwargs)

    # -- conversion -------------------------------------------------------------------
    def get(self, stream=None, order="C", out=None):
        """A host copy (``numpy.ndarray``)."""
        _sync("get")
        res = np.array(self._a, order=order)
        if out is not None:
            out[...] = res
            return out
        return res

    def item(self):
        _sync("item")
        if self._a.size != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        return self._a.item()

    def tolist(self):
        _sync("tolist")
        return self._a.tolist()

    def tobytes(self, order="C"):
        _sync("tobytes")
        return self._a.tobytes(order)

    def __float__(self):
        _sync("__float__")
        return float(self._a)

    def __int__(self):
        _sync("__int__")
        return int(self._a)

    def __complex__(self):
        _sync("__complex__")
        return complex(self._a)

    def __bool__(self):
        _sync("__bool__")
        return bool(self._a)

    def __repr__(self):
        return repr(self._a)

    def __str__(self):
        return str(self._a)

    def __format__(self, spec):
        return format(self._a, spec)

    def __len__(self):
        return len(self._a)

    def __iter__(self):
        if self._a.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self._a.shape[0]))

    def __copy__(self):
        return ndarray(self._a.copy())

    def __deepcopy__(self, memo):
        return ndarray(self._a.copy())

    def __reduce__(self):
        return (array, (self._a.copy(),))

    # -- indexing ---------------------------------------------------------------------
    def __getitem__(self, key):
        return _wrap(self._a[_host_ok(key)])

    def __setitem__(self, key, value):
        key = _host_ok(key)
        if type(value) is ndarray:
            self._a[key] = value._a
            return
        if isinstance(value, np.ndarray) and value.ndim and not _advanced(key):
            raise ValueError("non-scalar numpy.ndarray cannot be used for fill "
                             "(fake cupy: basic-slice assignment of a host array)")
        if isinstance(value, (list, tuple)) and not _advanced(key):
            raise TypeError("fake cupy: basic-slice assignment of a list (CuPy fills with "
                            "scalars only)")
        self._a[key] = value

    def fill(self, value):
        if isinstance(value, np.ndarray) and value.ndim:
            raise ValueError("non-scalar numpy.ndarray cannot be used for fill")
        self._a.fill(value._a if type(value) is ndarray else value)

    def scatter_add(self, slices, value):
        scatter_add(self, slices, value)

    # -- methods ----------------------------------------------------------------------
    reshape = _method("reshape")
    transpose = _method("transpose")
    swapaxes = _method("swapaxes")
    ravel = _method("ravel")
    flatten = _method("flatten")
    squeeze = _method("squeeze")
    copy = _method("copy")
    view = _method("view")
    sum = _method("sum")
    mean = _method("mean")
    var = _method("var")
    std = _method("std")
    prod = _method("prod")
    max = _method("max")
    min = _method("min")
    argmax = _method("argmax")
    argmin = _method("argmin")
    all = _method("all")
    any = _method("any")
    cumsum = _method("cumsum")
    cumprod = _method("cumprod")
    clip = _method("clip")
    dot = _method("dot")
    round = _method("round")
    conj = _method("conj")
    conjugate = _method("conjugate")
    diagonal = _method("diagonal")
    trace = _method("trace")
    nonzero = _method("nonzero")
    def argsort(self, axis=-1, kind=None):
        return argsort(self, axis, kind)

    def sort(self, axis=-1, kind=None):
        self._a.sort(axis=axis, kind=_sort_kind(kind))
    partition = _method("partition")
    argpartition = _method("argpartition")
    repeat = _method("repeat")
    take = _method("take", host_ok=True)
    put = _method("put", host_ok=True)
    choose = _method("choose")

    def astype(self, dtype, order="K", casting=None, subok=None, copy=True):
        _check_dtype(dtype)
        kw = {} if casting is None else {"casting": casting}
        return ndarray(self._a.astype(dtype, order=order, copy=copy, **kw))

    # -- operators --------------------------------------------------------------------
    __add__, __radd__, __iadd__ = _binop("add"), _binop("add", True), _iop("add")
    __sub__, __rsub__, __isub__ = (_binop("subtract"), _binop("subtract", True),
                                   _iop("subtract"))
    __mul__, __rmul__, __imul__ = (_binop("multiply"), _binop("multiply", True),
                                   _iop("multiply"))
    __truediv__, __rtruediv__, __itruediv__ = (_binop("true_divide"),
                                               _binop("true_divide", True),
                                               _iop("true_divide"))
    __floordiv__, __rfloordiv__, __ifloordiv__ = (_binop("floor_divide"),
                                                  _binop("floor_divide", True),
                                                  _iop("floor_divide"))
    __mod__, __rmod__, __imod__ = (_binop("remainder"), _binop("remainder", True),
                                   _iop("remainder"))
    __pow__, __rpow__, __ipow__ = _binop("power"), _binop("power", True), _iop("power")
    __and__, __rand__, __iand__ = (_binop("bitwise_and"), _binop("bitwise_and", True),
                                   _iop("bitwise_and"))
    __or__, __ror__, __ior__ = (_binop("bitwise_or"), _binop("bitwise_or", True),
                                _iop("bitwise_or"))
    __xor__, __rxor__, __ixor__ = (_binop("bitwise_xor"), _binop("bitwise_xor", True),
                                   _iop("bitwise_xor"))
    __lshift__, __rshift__ = _binop("left_shift"), _binop("right_shift")
    __eq__, __ne__ = _binop("equal"), _binop("not_equal")
    __lt__, __le__ = _binop("less"), _binop("less_equal")
    __gt__, __ge__ = _binop("greater"), _binop("greater_equal")

    def __matmul__(self, other):
        return matmul(self, other)

    def __rmatmul__(self, other):
        return matmul(other, self)

    def __neg__(self):
        return _UFUNCS["negative"](self)

    def __pos__(self):
        return _UFUNCS["positive"](self)

    def __abs__(self):
        return _UFUNCS["absolute"](self)

    def __invert__(self):
        return _UFUNCS["invert"](self)


def _advanced(key) -> bool:
    items = key if isinstance(key, tuple) else (key,)
    return builtins.any(isinstance(k, (np.ndarray, list)) for k in items)


# ----------------------------------------------------------------------------------------
# the module namespace
# ----------------------------------------------------------------------------------------
_UFUNC_NAMES = """add subtract multiply divide true_divide floor_divide negative positive power
remainder mod fmod absolute abs fabs rint sign heaviside conj conjugate exp exp2 log log2 log10
expm1 log1p sqrt square cbrt reciprocal sin cos tan arcsin arccos arctan arctan2 hypot sinh
cosh tanh arcsinh arccosh arctanh deg2rad rad2deg degrees radians greater greater_equal less
less_equal not_equal equal logical_and logical_or logical_xor logical_not maximum minimum fmax
fmin isfinite isinf isnan signbit copysign nextafter ldexp frexp modf floor ceil trunc
bitwise_and bitwise_or bitwise_xor invert left_shift right_shift logaddexp logaddexp2
float_power divmod""".split()

# Functions CuPy provides with NumPy's signature (the subset gluonlite may use).
_FUNC_NAMES = """zeros_like ones_like empty_like full_like reshape ravel transpose swapaxes
moveaxis rollaxis expand_dims squeeze broadcast_to broadcast_arrays atleast_1d atleast_2d
atleast_3d concatenate stack hstack vstack dstack column_stack split array_split tile repeat
flip fliplr flipud roll rot90 pad where nonzero argwhere flatnonzero take take_along_axis
put_along_axis choose compress diagonal diag diagflat tril triu trace sum prod mean var std
max min amax amin nanmax nanmin nansum nanmean argmax argmin all any cumsum cumprod diff
clip around round partition argpartition searchsorted unique count_nonzero
matmul dot vdot inner outer tensordot einsum kron cross isclose allclose array_equal
ascontiguousarray asfortranarray copy real imag angle nan_to_num interp bincount histogram
digitize meshgrid indices unravel_index ravel_multi_index ix_ copyto place putmask select
piecewise""".split()

_CREATION_NAMES = "zeros ones empty full arange linspace logspace eye identity tri".split()

_PASSTHROUGH = """dtype finfo iinfo promote_types can_cast issubdtype isscalar float16 float32
float64 complex64 complex128 int8 int16 int32 int64 uint8 uint16 uint32 uint64 bool_
intp uintp number integer signedinteger unsignedinteger floating complexfloating inexact
generic newaxis pi e inf nan euler_gamma""".split()

_MODULE = sys.modules[__name__]
_UFUNCS: dict = {}


def _make_func(npf, name):
    def f(*args, **kwargs):
        where = f"cupy.{name}"
        return _wrap(npf(*_dev(args, where), **_dev(kwargs, where)))
    f.__name__ = name
    return f


def _make_creation(npf, name):
    def f(*args, **kwargs):
        _check_dtype(kwargs.get("dtype"))
        return _wrap(npf(*_dev(args, f"cupy.{name}"), **_dev(kwargs, f"cupy.{name}")))
    f.__name__ = name
    return f


for _n in _UFUNC_NAMES:
    if hasattr(np, _n):
        _UFUNCS[_n] = ufunc(getattr(np, _n)) if isinstance(getattr(np, _n), np.ufunc) else None
        if _UFUNCS[_n] is None:
            del _UFUNCS[_n]
        else:
            setattr(_MODULE, _n, _UFUNCS[_n])
for _n in _FUNC_NAMES:
    if hasattr(np, _n) and _n not in _UFUNCS:
        setattr(_MODULE, _n, _make_func(getattr(np, _n), _n))
for _n in _CREATION_NAMES:
    setattr(_MODULE, _n, _make_creation(getattr(np, _n), _n))
for _n in _PASSTHROUGH:
    if hasattr(np, _n):
        setattr(_MODULE, _n, getattr(np, _n))
_UFUNCS.setdefault("absolute", _UFUNCS["absolute"])
_UFUNCS["mod"] = _UFUNCS["remainder"]


def _sort_kind(kind):
    if kind not in (None, "stable"):
        raise ValueError(f"fake cupy: kind={kind!r} is not supported (CuPy sorts are always "
                         "stable)")
    return "stable"


def sort(a, axis=-1, kind=None):
    """``cupy.sort``: always stable (thrust/CUB radix sort)."""
    return ndarray(np.sort(_dev(a, "cupy.sort"), axis=axis, kind=_sort_kind(kind)))


def argsort(a, axis=-1, kind=None):
    """``cupy.argsort``: always stable."""
    return ndarray(np.argsort(_dev(a, "cupy.argsort"), axis=axis, kind=_sort_kind(kind)))


def result_type(*args):
    """``cupy.result_type``: device arrays count by their dtype."""
    return np.result_type(*[a._a if type(a) is ndarray else a for a in args])


def array(obj, dtype=None, copy=True, order="K", subok=False, ndmin=0):
    """Copy ``obj`` (host or device data) to the device."""
    _check_dtype(dtype)
    res = np.array(_host_ok(obj), dtype=dtype, copy=copy, order=order, ndmin=ndmin)
    _check_dtype(res.dtype)
    return ndarray(res)


def asarray(a, dtype=None, order=None, blocking=False):
    """``a`` on the device (no copy when it already is, with the same dtype)."""
    _check_dtype(dtype)
    res = np.asarray(_host_ok(a), dtype=dtype, order=order)
    _check_dtype(res.dtype)
    return ndarray(res)


asanyarray = asarray


def asnumpy(a, stream=None, order="C", out=None, blocking=True):
    """A host copy of ``a`` (device or host data)."""
    if type(a) is ndarray:
        return a.get(order=order, out=out)
    return np.asarray(a, order=order)


def get_array_module(*args):
    return _MODULE if builtins.any(type(a) is ndarray for a in args) else np


def ndim(a):
    return a.ndim if type(a) is ndarray else np.ndim(a)


def shape(a):
    return a.shape if type(a) is ndarray else np.shape(a)


def size(a, axis=None):
    if type(a) is ndarray:
        return a.size if axis is None else a.shape[axis]
    return np.size(a, axis)


def _as_strided(x, shape=None, strides=None):
    if type(x) is not ndarray:
        raise TypeError("fake cupy: cupy.lib.stride_tricks.as_strided needs a cupy.ndarray")
    return ndarray(np.lib.stride_tricks.as_strided(x._a, shape=shape, strides=strides))


lib = types.SimpleNamespace(stride_tricks=types.SimpleNamespace(as_strided=_as_strided))

linalg = types.SimpleNamespace(**{
    n: _make_func(getattr(np.linalg, n), f"linalg.{n}")
    for n in "solve inv pinv det slogdet qr eigh eigvalsh svd norm cholesky lstsq "
             "matrix_power matrix_rank tensorsolve tensorinv".split()})
linalg.LinAlgError = np.linalg.LinAlgError


class ElementwiseKernel:
    """Not simulated: generated CUDA kernels cannot run here (fusion stays off)."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError("fake cupy: ElementwiseKernel is not simulated")


RawKernel = ReductionKernel = ElementwiseKernel


def fuse(*args, **kwargs):
    raise NotImplementedError("fake cupy: cupy.fuse is not simulated")


def from_dlpack(x):
    raise NotImplementedError("fake cupy: DLPack is not simulated")


# -- random ------------------------------------------------------------------------------
class RandomState:
    """``cupy.random.RandomState`` over NumPy's legacy generator (float64 by default)."""

    def __init__(self, seed=None):
        self._r = np.random.RandomState(seed)

    def _call(self, name, args, kwargs):
        dtype = kwargs.pop("dtype", None)
        res = getattr(self._r, name)(*_dev(args, f"RandomState.{name}"),
                                     **_dev(kwargs, f"RandomState.{name}"))
        res = np.asarray(res)
        if dtype is not None:
            res = res.astype(dtype)
        return ndarray(res)

    def __getattr__(self, name):
        if name not in ("random_sample", "rand", "randn", "standard_normal", "normal",
                        "uniform", "standard_gamma", "gamma", "standard_exponential",
                        "exponential", "poisson", "randint", "permutation", "binomial",
                        "negative_binomial", "choice", "multinomial", "beta", "shuffle"):
            raise AttributeError(f"fake cupy: RandomState has no attribute '{name}'")
        return lambda *args, **kwargs: self._call(name, args, kwargs)


random = types.SimpleNamespace(RandomState=RandomState)


# -- cuda ---------------------------------------------------------------------------------
class _Stream:
    def synchronize(self):
        return None


class _MemoryPool:
    def free_all_blocks(self):
        return None

    def used_bytes(self):
        return 0

    def total_bytes(self):
        return 0


_POOL = _MemoryPool()


def get_default_memory_pool():
    return _POOL


cuda = types.SimpleNamespace(
    Device=_Device,
    get_current_stream=lambda: _Stream(),
    Stream=_Stream,
    runtime=types.SimpleNamespace(getDeviceCount=lambda: 1,
                                  memGetInfo=lambda: (8 << 30, 16 << 30)),
)


# -- cupyx ---------------------------------------------------------------------------------
def scatter_add(a, slices, value):
    """``cupyx.scatter_add``: ``a[slices] += value`` with repeated indices accumulated."""
    _scatter(np.add, a, slices, value)


def scatter_max(a, slices, value):
    _scatter(np.maximum, a, slices, value)


def scatter_min(a, slices, value):
    _scatter(np.minimum, a, slices, value)


def _scatter(npf, a, slices, value):
    if type(a) is not ndarray:
        raise TypeError("fake cupy: cupyx.scatter_* needs a cupy.ndarray")
    if a.dtype not in (np.int32, np.uint32, np.uint64, np.float16, np.float32, np.float64):
        raise TypeError(f"scatter op does not support dtype {a.dtype} (fake cupy, as CuPy)")
    npf.at(a._a, _host_ok(slices), _host_ok(value))


def _special(name):
    def f(x, out=None):
        from gluonlite.ops import special  # noqa: PLC0415 - the CPU formulas
        if type(x) is not ndarray:
            raise TypeError(f"fake cupyx.scipy.special.{name} needs a cupy.ndarray")
        res = getattr(special, name)(np, x._a)
        return ndarray(np.asarray(res))
    f.__name__ = name
    return f


def cupyx_modules() -> dict:
    """Module objects for ``cupyx``, ``cupyx.scipy`` and ``cupyx.scipy.special``."""
    cupyx = types.ModuleType("cupyx")
    scipy = types.ModuleType("cupyx.scipy")
    special = types.ModuleType("cupyx.scipy.special")
    for n in ("erf", "erfc", "erfinv", "gammaln", "gamma", "digamma"):
        setattr(special, n, _special(n))
    scipy.special = special
    cupyx.scipy = scipy
    cupyx.scatter_add, cupyx.scatter_max, cupyx.scatter_min = scatter_add, scatter_max, \
        scatter_min
    cupyx.errstate = contextlib.nullcontext
    return {"cupyx": cupyx, "cupyx.scipy": scipy, "cupyx.scipy.special": special}
