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
* integer-array indexing (get and set) and ``take`` wrap out-of-bounds indices
  around, as CuPy's kernels do, instead of raising ``IndexError``;
* reductions and full integer indexing give 0-d device arrays, never scalars;
* ``float(x)``, ``int(x)``, ``bool(x)``, ``.item()``, ``.tolist()``, ``.get()``
  work (they synchronize on a GPU); ``operator.index(x)`` does not;
* no object or string dtypes;
* NumPy functions called on these arrays: CuPy dispatches ``np.f(x)`` to
  ``cupy.f`` (NEP 13/18).  With ``STRICT`` (the default) the stand-in raises
  instead, because xp-generic code should call ``xp.f``; :func:`set_strict`
  turns the faithful dispatch back on;
* ``sort``/``argsort`` are always stable and accept only ``kind=None``/``"stable"``;
* ``ufunc.at`` only for ``add``, ``subtract``, ``maximum``, ``minimum`` (and
  ``cupyx.scatter_add`` / ``scatter_max`` / ``scatter_min``), only for the dtypes of
  CuPy's atomics (no int64, float16 only for add); ``ufunc.reduce`` only for ``add``
  and ``multiply``;
* ``ElementwiseKernel`` is not implemented; the module's ``__name__`` is not
  ``"cupy"``, so the engine's fusion stays off.

What it cannot catch: numerical differences of CUDA kernels, cuBLAS/cuSOLVER
precision, kernel compilation errors, undefined order of duplicate-index writes,
asynchronous-stream races, multi-device placement, memory-pool behaviour, dtype
promotion differences, and CuPy functions whose signature differs from NumPy's in
arguments not checked here.  The array itself lives in ``_fake_array``.
"""

from __future__ import annotations

import builtins
import contextlib
import sys
import types

import numpy as np

from . import _fake_array
from ._fake_array import (SYNCS, _UFUNCS, _Device, _check_dtype, _dev, _host_ok, _out,  # noqa: F401
                          _scatter_dtype, _wrap, _wrap_around, is_strict, ndarray,
                          set_strict, ufunc)

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
float_power divmod gcd lcm""".split()

# Functions CuPy provides with NumPy's signature (the subset gluonlite may use).
_FUNC_NAMES = """zeros_like ones_like empty_like full_like reshape ravel transpose swapaxes
moveaxis rollaxis expand_dims squeeze broadcast_to broadcast_arrays atleast_1d atleast_2d
atleast_3d concatenate stack hstack vstack dstack column_stack split array_split tile repeat
flip fliplr flipud roll rot90 pad where nonzero argwhere flatnonzero take_along_axis
put_along_axis choose compress diagonal diag diagflat tril triu trace sum prod mean var std
max min amax amin nanmax nanmin nansum nanmean argmax argmin all any cumsum cumprod diff
clip around round partition argpartition searchsorted unique count_nonzero
matmul dot vdot inner outer tensordot einsum kron cross isclose allclose array_equal
ascontiguousarray asfortranarray copy real imag angle nan_to_num interp bincount histogram
digitize meshgrid indices unravel_index ravel_multi_index ix_ copyto place putmask select
piecewise may_share_memory shares_memory""".split()

_CREATION_NAMES = "zeros ones empty full arange linspace logspace eye identity tri".split()

_PASSTHROUGH = """dtype finfo iinfo promote_types can_cast issubdtype isscalar float16 float32
float64 complex64 complex128 int8 int16 int32 int64 uint8 uint16 uint32 uint64 bool_
intp uintp number integer signedinteger unsignedinteger floating complexfloating inexact
generic newaxis pi e inf nan euler_gamma""".split()

_MODULE = sys.modules[__name__]
_fake_array.NAMESPACE = _MODULE


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


def take(a, indices, axis=None, out=None):
    """``cupy.take``: out-of-bounds indices wrap around (CuPy has no ``mode``)."""
    data = _dev(a, "cupy.take")
    n = data.size if axis is None else data.shape[axis]
    idx = np.asarray(_host_ok(indices))
    if n:
        idx = np.mod(idx, n)
    res = np.take(data, idx, axis=axis, out=None if out is None else _out(out, "take"))
    return out if out is not None else _wrap(res)


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
fft = types.SimpleNamespace(**{n: _make_func(getattr(np.fft, n), f"fft.{n}")
                               for n in ("fft", "ifft", "rfft", "irfft")})


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
    _scatter_dtype(npf.__name__, a.dtype)
    npf.at(a._a, _wrap_around(_host_ok(slices), a.shape), _host_ok(value))


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
