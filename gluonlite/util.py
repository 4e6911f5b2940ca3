"""Utilities MXNet users import from ``mxnet.util``."""
from __future__ import annotations

import functools
import threading

from .backend import cupy_module
from .base import MXNetError
from .context import Context

__all__ = ["is_np_array", "is_np_shape", "set_np", "reset_np", "use_np", "np_shape",
           "np_array", "set_np_shape", "use_np_shape", "use_np_array", "makedirs",
           "is_np_default_dtype", "set_np_default_dtype", "np_default_dtype",
           "use_np_default_dtype", "get_cuda_compute_capability",
           "get_gpu_count", "get_gpu_memory", "getenv", "setenv"]


class _NumpyMode:
    """Which of MXNet's NumPy semantics are on (``npx.set_np``), for the whole process
    (data-loader threads see what the main thread set).

    A ``with np_array(...)`` scope (:class:`_NumpyArrayScope`) overrides the array mode
    in its own thread only, as in MXNet; threads without such a scope see the
    process-wide mode.
    """

    def __init__(self):
        self._modes = {"shape": False, "array": False, "dtype": False}

    def get(self, key: str) -> bool:
        if key == "array":
            scope = getattr(_NumpyArrayScope._current, "value", None)
            if scope is not None:
                return bool(scope._is_np_array)
        return self._modes[key]

    def set(self, key: str, value: bool) -> bool:
        prev = self._modes[key]
        self._modes[key] = bool(value)
        return prev


class _NumpyArrayScope:
    """A thread-local scope of ``mx.np`` array mode (MXNet's class of the same name).

    ``_current`` is a ``threading.local`` whose ``value`` is the innermost open scope of
    that thread; a thread with no open scope uses the process-wide mode set by
    :func:`set_np`.  Use :func:`np_array` rather than this class directly.
    """

    _current = threading.local()

    def __init__(self, is_np_array: bool):  # noqa: D107 - MXNet's signature
        self._is_np_array = bool(is_np_array)
        self._old_scope = None
        self._local = None

    def __enter__(self) -> "_NumpyArrayScope":
        # restore on the holder entered (even if ``_current`` is replaced meanwhile)
        self._local = _NumpyArrayScope._current
        self._old_scope = getattr(self._local, "value", None)
        self._local.value = self
        return self

    def __exit__(self, *exc) -> bool:
        if self._old_scope is None:
            try:
                del self._local.value
            except AttributeError:
                pass
        else:
            self._local.value = self._old_scope
        self._local = None
        return False

    def __call__(self, func):
        active = self._is_np_array

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with _NumpyArrayScope(active):
                return func(*args, **kwargs)
        return wrapper


_MODE = _NumpyMode()


def is_np_array() -> bool:
    """Whether Gluon takes and gives ``mx.np`` arrays (``npx.set_np()`` turned it on)."""
    return _MODE.get("array")


def is_np_shape() -> bool:
    """Whether NumPy shape semantics are on (``npx.set_np()``): ``mx.np`` arrays have them
    always; legacy ``NDArray``/``Symbol`` code keeps MXNet 1.x's shapes in gluonlite."""
    return _MODE.get("shape")


def is_np_default_dtype() -> bool:
    """Whether ``mx.np`` creates ``float64`` arrays by default (``set_np(dtype=True)``)."""
    return _MODE.get("dtype")


def set_np_shape(active: bool) -> bool:
    """Turn NumPy shape semantics on or off; returns the previous state."""
    return _MODE.set("shape", active)


def set_np_default_dtype(is_np_default_dtype: bool = True) -> bool:  # noqa: A002
    """Make ``mx.np`` default to ``float64`` (NumPy's) instead of ``float32``; returns the
    previous state."""
    return _MODE.set("dtype", is_np_default_dtype)


def set_np(shape: bool = True, array: bool = True, dtype: bool = False) -> None:
    """Turn on MXNet's NumPy semantics: Gluon blocks, parameters and data loaders take and
    give ``mx.np`` arrays.  ``array=True`` needs ``shape=True`` (as in MXNet)."""
    if not shape and array:
        from .base import MXNetError
        raise MXNetError("NumPy array semantics need NumPy shape semantics: "
                         "set_np(shape=True, array=True)")
    _MODE.set("shape", shape)
    _MODE.set("array", array)
    _MODE.set("dtype", dtype)
    scope = getattr(_NumpyArrayScope._current, "value", None)
    if scope is not None:  # inside an ``np_array``/``use_np`` scope of this thread
        scope._is_np_array = bool(array)


def reset_np() -> None:
    """Back to MXNet 1.x semantics (``NDArray`` everywhere)."""
    set_np(shape=False, array=False, dtype=False)


class _ModeScope:
    """A scope (and decorator) that sets NumPy semantics and restores them on exit."""

    def __init__(self, **modes):
        self._modes = modes
        self._prev = None

    def __enter__(self):
        modes = dict(self._modes)
        self._array = None
        if "array" in modes:  # thread-local, as MXNet's np_array scope
            self._array = _NumpyArrayScope(modes.pop("array")).__enter__()
        self._prev = {k: _MODE.set(k, v) for k, v in modes.items()}
        return self

    def __exit__(self, *exc):
        for k, v in self._prev.items():
            _MODE.set(k, v)
        if self._array is not None:
            self._array.__exit__(*exc)
        return False

    def __call__(self, func):
        modes = self._modes

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with _ModeScope(**modes):
                return func(*args, **kwargs)
        return wrapper


def np_shape(active: bool = True) -> _ModeScope:
    """Scope (``with np_shape():``) or decorator with NumPy shape semantics on or off."""
    return _ModeScope(shape=active)


def np_array(active: bool = True) -> _NumpyArrayScope:
    """Scope or decorator with ``mx.np`` arrays in Gluon on or off, in this thread only
    (other threads keep their own scope or the process-wide mode)."""
    return _NumpyArrayScope(active)


def np_default_dtype(active: bool = True) -> _ModeScope:
    """Scope or decorator with ``float64`` as ``mx.np``'s default dtype."""
    return _ModeScope(dtype=active)


def use_np_shape(func):
    """Run ``func`` (or every method of a class) with NumPy shape semantics."""
    return _decorate(func, shape=True)


def use_np_array(func):
    """Run ``func`` (or every method of a class) with ``mx.np`` arrays in Gluon."""
    return _decorate(func, array=True)


def use_np(func):
    """Run ``func`` (or every method of a class, such as a Gluon block) with MXNet's NumPy
    semantics, as ``set_np()`` gives them."""
    return _decorate(func, shape=True, array=True)


def use_np_default_dtype(func):
    """Run ``func`` with ``float64`` as ``mx.np``'s default dtype."""
    return _decorate(func, dtype=True)


def _decorate(func, **modes):
    """``func`` run with ``modes``; for a class, every method it has or inherits (a Gluon
    block's inherited ``forward``, ``__call__`` and ``initialize`` included), as MXNet's
    decorators do."""
    import inspect
    if inspect.isclass(func):
        for name, member in inspect.getmembers(func, inspect.isfunction):
            if name.startswith("__") and name not in ("__init__", "__call__"):
                continue
            setattr(func, name, _ModeScope(**modes)(member))
        return func
    return _ModeScope(**modes)(func)


def makedirs(d: str) -> None:
    """Create a directory and its parents if missing."""
    import os
    os.makedirs(os.path.expanduser(d), exist_ok=True)


def get_gpu_count() -> int:
    """Number of usable GPUs."""
    from .backend import gpu_count
    return gpu_count()


def get_gpu_memory(gpu_dev_id: int) -> tuple:
    """(free, total) bytes of a GPU."""
    from .context import gpu_memory_info
    return gpu_memory_info(gpu_dev_id)


def getenv(name: str) -> str | None:
    """The value of environment variable ``name``, or ``None`` when it is not set."""
    import os
    return os.environ.get(name)


def setenv(name: str, value: str | None) -> None:
    """Set environment variable ``name`` to ``value``; ``None`` removes it."""
    import os
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = str(value)


def get_cuda_compute_capability(ctx: Context) -> int:
    """Compute capability of the GPU of ``ctx`` as an integer (90 for sm_90)."""
    if ctx.device_type != "gpu":
        raise ValueError("get_cuda_compute_capability: expects a GPU context, got %s" % (ctx,))
    cupy = cupy_module()
    if cupy is None:
        raise MXNetError("get_cuda_compute_capability: CuPy is not installed")
    return int(cupy.cuda.Device(ctx.device_id).compute_capability)
