"""Utilities MXNet users import from ``mxnet.util``."""
from __future__ import annotations

import functools

__all__ = ["is_np_array", "is_np_shape", "set_np", "reset_np", "use_np", "np_shape",
           "np_array", "set_np_shape", "use_np_shape", "use_np_array", "makedirs",
           "get_gpu_count", "get_gpu_memory", "getenv", "setenv"]


def is_np_array() -> bool:
    """Whether NumPy-compatible array semantics are on; gluonlite keeps MXNet 1.x's."""
    return False


def is_np_shape() -> bool:
    """Whether NumPy shape semantics are on; gluonlite keeps MXNet 1.x's (0 = unknown)."""
    return False


def set_np_shape(active: bool) -> bool:
    """Only legacy shape semantics exist here; asking for NumPy semantics raises."""
    if active:
        from .base import MXNetError
        raise MXNetError("gluonlite implements MXNet 1.x (legacy) shape semantics only")
    return False


def set_np(shape: bool = True, array: bool = True, dtype: bool = False) -> None:
    """The ``mx.np`` interface is not part of gluonlite; raises ``MXNetError`` if enabled."""
    if shape or array:
        from .base import MXNetError
        raise MXNetError("gluonlite implements the MXNet 1.x nd/sym interface, not mx.np")


def reset_np() -> None:
    """No-op: NumPy semantics are never on."""


def use_np(func):
    """Decorator kept for compatibility; legacy semantics stay on."""
    return func


def _needs_np_semantics(func, what: str):
    """``func`` wrapped to ask for NumPy semantics when called: decorating works (so
    modules using the decorator import), calling raises ``MXNetError``."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        from .base import MXNetError
        raise MXNetError(f"{getattr(func, '__name__', func)} needs MXNet's NumPy {what} "
                         "semantics, which gluonlite (the MXNet 1.x interface) does not have")
    return wrapper


def use_np_shape(func):
    """MXNet's decorator that runs ``func`` with NumPy shape semantics (zero-size and
    0-d shapes); gluonlite has only legacy shapes, so calling the result raises."""
    return _needs_np_semantics(func, "shape")


def use_np_array(func):
    """MXNet's decorator that runs ``func`` with ``mx.np`` arrays; calling the result
    raises (gluonlite has no ``mx.np``)."""
    return _needs_np_semantics(func, "array")


def np_shape(active: bool = True):
    """Scope kept for compatibility; only ``np_shape(False)`` is allowed."""
    set_np_shape(active)
    return _NullScope()


def np_array(active: bool = True):
    """Scope kept for compatibility; only ``np_array(False)`` is allowed."""
    set_np(shape=False, array=active)
    return _NullScope()


class _NullScope:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            return func(*args, **kwargs)
        return wrapper


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
