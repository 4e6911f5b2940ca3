"""The array of the CuPy stand-in (:mod:`tests.gpu_sim.fake_cupy`): ``ndarray``,
``ufunc`` and the rules on what NumPy may do with them (see ``fake_cupy``'s docstring).

Module-level functions the array's methods need (``matmul``, ``take``, ...) are looked
up in the namespace module, which registers itself as ``NAMESPACE`` on import.
"""
from __future__ import annotations

import builtins
import sys

import numpy as np

STRICT = True
NAMESPACE = None  # the fake ``cupy`` module (set by fake_cupy)
_UFUNCS: dict = {}  # name -> ufunc (filled by fake_cupy)
# Device-to-host synchronizations (float(x), x.item(), x.tolist(), x.get(), bool(x), ...)
# as (what, "file:line" of the caller); tests clear and inspect it.
SYNCS: list = []


def _sync(what: str) -> None:
    if len(SYNCS) < 10000:  # bounded: nothing clears it in a long session
        f = sys._getframe(2)
        SYNCS.append((what, f"{f.f_code.co_filename}:{f.f_lineno}"))


def is_strict() -> bool:
    """Whether NumPy functions on device arrays raise (see :func:`set_strict`)."""
    return STRICT


def set_strict(flag: bool) -> None:
    """Raise on any NumPy function applied to a device array (``True``), or dispatch it
    to the stand-in as CuPy does (``False``)."""
    global STRICT
    STRICT = bool(flag)


class _HostArrayError(TypeError):
    pass


_OWN_FILES = ("/gpu_sim/_fake_array.py", "/gpu_sim/fake_cupy.py")


def _caller() -> str:
    """``file:line`` of the innermost frame outside this module and NumPy (for messages)."""
    f = sys._getframe(1)
    while f is not None:
        name = f.f_code.co_filename
        if not name.endswith(_OWN_FILES) and "/numpy/" not in name:
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
        if self.__name__ not in ("add", "multiply"):  # CuPy: only sum and prod
            raise NotImplementedError(f"`cupy_{self.__name__}.reduce` is not supported yet")
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
        _scatter_dtype(self.__name__, a.dtype)
        args = [] if b is None else self._inputs([b])
        self._f.at(a._a, _wrap_around(_host_ok(indices), a.shape), *args)


_SCATTER_DTYPES = {np.dtype(t) for t in (np.int32, np.uint32, np.uint64, np.float32,
                                           np.float64)}


def _scatter_dtype(name, dtype):
    """CuPy's scatter kernels use atomics: few dtypes (float16 only for add)."""
    ok = _SCATTER_DTYPES | ({np.dtype(np.float16)} if name in ("add", "subtract") else set())
    if np.dtype(dtype) not in ok:
        raise TypeError(f"fake cupy: scatter {name} does not support dtype {dtype} (CuPy's "
                        "atomics)")


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


class _Flags:
    """``cupy.ndarray.flags``: only the three layout flags (no ``writeable``)."""

    __slots__ = ("c_contiguous", "f_contiguous", "owndata")

    def __init__(self, f):
        self.c_contiguous, self.f_contiguous, self.owndata = (f.c_contiguous, f.f_contiguous,
                                                              f.owndata)

    def __getitem__(self, name):
        return getattr(self, {"C_CONTIGUOUS": "c_contiguous", "F_CONTIGUOUS": "f_contiguous",
                              "OWNDATA": "owndata"}[name])


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
    flags = property(lambda self: _Flags(self._a.flags))
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
        mod = NAMESPACE
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
        return (NAMESPACE.array, (self._a.copy(),))

    # -- indexing ---------------------------------------------------------------------
    def __getitem__(self, key):
        return _wrap(self._a[_wrap_around(_host_ok(key), self._a.shape)])

    def __setitem__(self, key, value):
        key = _wrap_around(_host_ok(key), self._a.shape)
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
        NAMESPACE.scatter_add(self, slices, value)

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
        return NAMESPACE.argsort(self, axis, kind)

    def sort(self, axis=-1, kind=None):
        self._a.sort(axis=axis, kind=NAMESPACE._sort_kind(kind))
    partition = _method("partition")
    argpartition = _method("argpartition")
    repeat = _method("repeat")
    def take(self, indices, axis=None, out=None):
        return NAMESPACE.take(self, indices, axis, out)
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
        return NAMESPACE.matmul(self, other)

    def __rmatmul__(self, other):
        return NAMESPACE.matmul(other, self)

    def __neg__(self):
        return _UFUNCS["negative"](self)

    def __pos__(self):
        return _UFUNCS["positive"](self)

    def __abs__(self):
        return _UFUNCS["absolute"](self)

    def __invert__(self):
        return _UFUNCS["invert"](self)


def _wrap_around(key, shape):
    """Integer-array index parts taken modulo their axis size: CuPy wraps out-of-bounds
    indices of advanced indexing (and ``take``, scatter) instead of raising."""
    items = key if isinstance(key, tuple) else (key,)
    if not builtins.any(isinstance(k, (np.ndarray, list)) for k in items):
        return key

    def width(k):
        if k is None:
            return 0
        if isinstance(k, (np.ndarray, list)):
            k = np.asarray(k)
            return k.ndim if k.dtype == np.bool_ else 1
        return 1
    n_ellipsis = len(shape) - builtins.sum(width(k) for k in items if k is not Ellipsis)
    out, axis = [], 0
    for k in items:
        if k is Ellipsis:
            axis += n_ellipsis
        elif isinstance(k, (np.ndarray, list)):
            arr = np.asarray(k)
            if arr.dtype.kind in "iu" and axis < len(shape) and shape[axis] > 0:
                k = np.mod(arr, shape[axis])
            axis += width(arr)
        elif k is not None:
            axis += 1
        out.append(k)
    return tuple(out) if isinstance(key, tuple) else out[0]


def _advanced(key) -> bool:
    items = key if isinstance(key, tuple) else (key,)
    return builtins.any(isinstance(k, (np.ndarray, list)) for k in items)
