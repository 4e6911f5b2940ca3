"""cuDNN through ``ctypes``: library loading, handles, descriptors and status checks.

CuPy 14 no longer wraps cuDNN, so the GPU paths of Convolution, Deconvolution,
Pooling and BatchNorm call ``libcudnn`` directly, on CuPy device pointers.  The
binding uses cuDNN's descriptor API (``cudnnConvolutionForward`` and friends),
which cuDNN 9 still ships (marked deprecated in favour of the graph API):

* it needs nothing beyond ``libcudnn.so.9`` itself (from ``nvidia-cudnn-cu12`` /
  ``nvidia-cudnn-cu13``, the packages PyTorch installs, or a system install);
* a call costs a few microseconds of host time (one ``ctypes`` call with prepared
  descriptors), against ~28 us for an ``execute`` of ``nvidia-cudnn-frontend``,
  whose Python graph API (1.32) also has no pooling;
* pooling and batch normalization come with it.

Where the library is missing, fails to load or lacks a symbol, :func:`usable`
is False and every operator keeps its own CuPy kernels.  ``GLUONLITE_CUDNN=0``
turns cuDNN off for the process, an operator's ``cudnn_off=True`` for one op.

Descriptors are created once per geometry by the operator modules
(``_cudnn_conv``, ``_cudnn_pool``, ``_cudnn_bn``) and kept in their plan caches;
the hot path is one ``ctypes`` call with integer pointers.
"""
from __future__ import annotations

import ctypes
import glob
import os
import sys
import threading

import numpy as np

from .common import fail

_c = ctypes
_P, _I, _Z, _D = _c.c_void_p, _c.c_int, _c.c_size_t, _c.c_double

# cuDNN enums (cudnn_graph.h / cudnn_ops.h / cudnn_cnn.h, stable across 8.x and 9.x)
DATA_TYPE = {"float32": 0, "float64": 1, "float16": 2}
TENSOR_NCHW = 0
CROSS_CORRELATION = 1
DEFAULT_MATH, TENSOR_OP_MATH, FMA_MATH = 0, 1, 3
POOL_MAX, POOL_AVG_INCLUDE_PAD, POOL_AVG_EXCLUDE_PAD = 0, 1, 2
NOT_PROPAGATE_NAN, PROPAGATE_NAN = 0, 1
BATCHNORM_SPATIAL = 1

# argument types: p pointer/handle, i int, z size_t, d double
_SIGNATURES = {
    "cudnnGetVersion": "",
    "cudnnGetErrorString": "i",
    "cudnnCreate": "p",
    "cudnnSetStream": "pp",
    "cudnnCreateTensorDescriptor": "p",
    "cudnnSetTensorNdDescriptor": "piipp",
    "cudnnDestroyTensorDescriptor": "p",
    "cudnnCreateFilterDescriptor": "p",
    "cudnnSetFilterNdDescriptor": "piiip",
    "cudnnDestroyFilterDescriptor": "p",
    "cudnnCreateConvolutionDescriptor": "p",
    "cudnnSetConvolutionNdDescriptor": "pipppii",
    "cudnnSetConvolutionGroupCount": "pi",
    "cudnnSetConvolutionMathType": "pi",
    "cudnnDestroyConvolutionDescriptor": "p",
    "cudnnGetConvolutionNdForwardOutputDim": "pppip",
    "cudnnGetConvolutionForwardAlgorithm_v7": "pppppipp",
    "cudnnGetConvolutionBackwardDataAlgorithm_v7": "pppppipp",
    "cudnnGetConvolutionBackwardFilterAlgorithm_v7": "pppppipp",
    "cudnnFindConvolutionForwardAlgorithmEx": "ppppppppipppz",
    "cudnnFindConvolutionBackwardDataAlgorithmEx": "ppppppppipppz",
    "cudnnFindConvolutionBackwardFilterAlgorithmEx": "ppppppppipppz",
    "cudnnConvolutionForward": "pppppppipzppp",
    "cudnnConvolutionBackwardData": "pppppppipzppp",
    "cudnnConvolutionBackwardFilter": "pppppppipzppp",
    "cudnnConvolutionBackwardBias": "ppppppp",
    "cudnnAddTensor": "ppppppp",
    "cudnnCreatePoolingDescriptor": "p",
    "cudnnSetPoolingNdDescriptor": "piiippp",
    "cudnnDestroyPoolingDescriptor": "p",
    "cudnnPoolingForward": "pppppppp",
    "cudnnPoolingBackward": "pppppppppppp",
    "cudnnBatchNormalizationForwardTraining": "pipppppppppdppdpp",
    "cudnnBatchNormalizationForwardInference": "pipppppppppppd",
    "cudnnBatchNormalizationBackward": "pippppppppppppppdpp",
}
_CTYPES = {"p": _P, "i": _I, "z": _Z, "d": _D}


class CudnnError(RuntimeError):
    """A cuDNN call returned an error status."""

    def __init__(self, func: str, status: int, message: str):
        super().__init__(f"{func} failed: {message} (status {status})")
        self.status = status


class _Library:
    """The loaded ``libcudnn`` with typed entry points (``lib.fn.cudnnX``)."""

    def __init__(self, cdll):
        self.cdll = cdll
        self.version = 0
        for name, sig in _SIGNATURES.items():
            fn = getattr(cdll, name)              # AttributeError: symbol missing
            fn.argtypes = [_CTYPES[ch] for ch in sig]
            fn.restype = _c.c_char_p if name == "cudnnGetErrorString" else (
                _Z if name == "cudnnGetVersion" else _I)
            setattr(self, name, fn)
        self.version = int(self.cudnnGetVersion())

    def check(self, name: str, *args) -> None:
        """Call ``name`` and raise :class:`CudnnError` on a non-zero status."""
        status = getattr(self, name)(*args)
        if status:
            msg = self.cudnnGetErrorString(status)
            raise CudnnError(name, status, msg.decode() if msg else "unknown error")


def _candidate_paths():
    """Where ``libcudnn`` may live: ``GLUONLITE_CUDNN_PATH``, the ``nvidia-cudnn-*``
    wheels on ``sys.path``, then the loader's own search (``LD_LIBRARY_PATH``, system)."""
    env = os.environ.get("GLUONLITE_CUDNN_PATH")
    if env:
        yield env
    for entry in sys.path:
        if entry and os.path.isdir(os.path.join(entry, "nvidia")):
            for lib in sorted(glob.glob(os.path.join(entry, "nvidia", "cudnn", "lib",
                                                     "libcudnn.so.*")), reverse=True):
                if lib.count(".so.") == 1 and lib.rsplit(".", 1)[-1].isdigit():
                    yield lib
    yield "libcudnn.so.9"
    yield "libcudnn.so.8"
    yield "libcudnn.so"


_lock = threading.Lock()
_lib: _Library | None = None
_load_error: str | None = None
_loaded = False


def library() -> _Library | None:
    """The loaded library, or ``None`` (see :func:`load_error` for why)."""
    global _lib, _load_error, _loaded
    if _loaded:
        return _lib
    with _lock:
        if not _loaded:
            errors = []
            for path in _candidate_paths():
                try:
                    _lib = _Library(_c.CDLL(path))
                    break
                except (OSError, AttributeError) as e:
                    errors.append(f"{path}: {e}")
            if _lib is None:
                _load_error = "; ".join(errors[-3:]) or "no candidate path"
            _loaded = True
    return _lib


def load_error() -> str | None:
    """Why cuDNN could not be loaded (``None`` when it loaded or was not tried)."""
    return _load_error


# read once, as MXNet reads its environment: these checks run on every operator call
_ENABLED = os.environ.get("GLUONLITE_CUDNN", "1") not in ("0", "false", "False", "off")
FLOAT_CHARS = "efd"   # float16, float32, float64: the dtypes with a cuDNN path


def enabled() -> bool:
    """False when ``GLUONLITE_CUDNN=0`` (at import) turned cuDNN off for the process."""
    return _ENABLED


def usable(xp) -> bool:
    """Whether cuDNN serves arrays of ``xp``: the real CuPy, cuDNN enabled and loaded.

    The test-only fake CuPy (``tests/gpu_sim``) is not ``"cupy"`` by name, so it
    never reaches cuDNN with host memory.
    """
    return _ENABLED and getattr(xp, "__name__", "") == "cupy" and (
        _lib is not None if _loaded else library() is not None)


# ------------------------------------------------------------------------------------
# handles: one per device, bound to CuPy's current stream at each call
# ------------------------------------------------------------------------------------
_handles: dict = {}


def handle(xp) -> int:
    """The cuDNN handle of the current device, set to CuPy's current stream."""
    dev = xp.cuda.runtime.getDevice()
    entry = _handles.get(dev)
    lib = _lib
    if entry is None:
        h = _P()
        lib.check("cudnnCreate", _c.byref(h))
        entry = _handles[dev] = [h.value, None]
    stream = xp.cuda.get_current_stream().ptr
    if entry[1] != stream:
        lib.check("cudnnSetStream", entry[0], stream)
        entry[1] = stream
    return entry[0]


# ------------------------------------------------------------------------------------
# scalars and descriptors
# ------------------------------------------------------------------------------------
_ONE_F, _ZERO_F = _c.c_float(1.0), _c.c_float(0.0)
_ONE_D, _ZERO_D = _c.c_double(1.0), _c.c_double(0.0)
ONE = {False: _c.addressof(_ONE_F), True: _c.addressof(_ONE_D)}
ZERO = {False: _c.addressof(_ZERO_F), True: _c.addressof(_ZERO_D)}


def scalars(dtype) -> tuple:
    """Host pointers ``(one, zero)`` of the scaling type cuDNN expects for ``dtype``
    (double for float64 data, float otherwise)."""
    wide = np.dtype(dtype) == np.float64
    return ONE[wide], ZERO[wide]


def data_type(op: str, dtype) -> int:
    """cuDNN's data type enum of a NumPy dtype (float16/32/64)."""
    code = DATA_TYPE.get(np.dtype(dtype).name)
    if code is None:
        fail(op, f"cuDNN has no path for dtype {np.dtype(dtype).name}")
    return code


def _ints(values) -> _c.Array:
    return (_I * len(values))(*[int(v) for v in values])


class _Descriptor:
    """A cuDNN descriptor of kind ``_KIND`` (``cudnnCreate<kind>Descriptor``), destroyed
    with the object."""

    __slots__ = ("ptr",)
    _KIND = ""

    def __init__(self):
        self.ptr = None
        d = _P()
        _lib.check(f"cudnnCreate{self._KIND}Descriptor", _c.byref(d))
        self.ptr = d.value

    def __del__(self):
        if _lib is not None and self.ptr:
            getattr(_lib, f"cudnnDestroy{self._KIND}Descriptor")(self.ptr)
            self.ptr = None


class TensorDesc(_Descriptor):
    """A tensor descriptor of 4 to 8 dimensions (packed C order unless ``strides``)."""

    __slots__ = ()
    _KIND = "Tensor"

    def __init__(self, dtype_code: int, shape, strides=None):
        super().__init__()
        shape = tuple(int(s) for s in shape)
        if strides is None:
            strides, acc = [], 1
            for s in reversed(shape):
                strides.append(acc)
                acc *= max(s, 1)
            strides = tuple(reversed(strides))
        _lib.check("cudnnSetTensorNdDescriptor", self.ptr, dtype_code, len(shape),
                   _ints(shape), _ints(strides))


class FilterDesc(_Descriptor):
    """A packed ``(K, C / groups, *kernel)`` filter descriptor."""

    __slots__ = ()
    _KIND = "Filter"

    def __init__(self, dtype_code: int, shape):
        super().__init__()
        _lib.check("cudnnSetFilterNdDescriptor", self.ptr, dtype_code, TENSOR_NCHW,
                   len(shape), _ints(shape))


class ConvDesc(_Descriptor):
    """A cross-correlation descriptor (what MXNet calls convolution)."""

    __slots__ = ()
    _KIND = "Convolution"

    def __init__(self, pad, stride, dilate, groups: int, compute_code: int, math: int):
        super().__init__()
        _lib.check("cudnnSetConvolutionNdDescriptor", self.ptr, len(pad), _ints(pad),
                   _ints(stride), _ints(dilate), CROSS_CORRELATION, compute_code)
        _lib.check("cudnnSetConvolutionGroupCount", self.ptr, int(groups))
        self.set_math(math)

    def set_math(self, math: int) -> None:
        _lib.check("cudnnSetConvolutionMathType", self.ptr, int(math))


class PoolDesc(_Descriptor):
    """A pooling descriptor (max, or average including/excluding padding)."""

    __slots__ = ()
    _KIND = "Pooling"

    def __init__(self, mode: int, window, pad, stride):
        super().__init__()
        # max pooling keeps NaN, as MXNet's (and the NumPy path's) maximum does
        nan = PROPAGATE_NAN if mode == POOL_MAX else NOT_PROPAGATE_NAN
        _lib.check("cudnnSetPoolingNdDescriptor", self.ptr, mode, nan,
                   len(window), _ints(window), _ints(pad), _ints(stride))


# ------------------------------------------------------------------------------------
# operands
# ------------------------------------------------------------------------------------
_ALIGN = 16


def operand(a):
    """``a`` as cuDNN reads it: C-contiguous and 16-byte aligned (a copy otherwise)."""
    if not a.flags.c_contiguous or a.data.ptr % _ALIGN:
        a = a.copy()
    return a


def writable(out, shape, dtype):
    """Whether cuDNN can write straight into the caller's ``out`` buffer."""
    return (out is not None and out.shape == tuple(shape) and out.dtype == dtype
            and out.flags.c_contiguous and out.data.ptr % _ALIGN == 0)


def workspace(xp, nbytes: int):
    """A workspace of ``nbytes`` from CuPy's memory pool: ``(array, pointer)``."""
    if not nbytes:
        return None, 0
    ws = xp.empty(int(nbytes), dtype=np.uint8)
    return ws, ws.data.ptr


# calls made per operator path, for tests and benchmarks to see which path ran
calls: dict = {}


def count(name: str) -> None:
    calls[name] = calls.get(name, 0) + 1
