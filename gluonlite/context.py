"""Devices: ``Context``, ``cpu()``, ``gpu(i)``, ``current_context()``, ``num_gpus()``."""
from __future__ import annotations

import threading
import warnings

import numpy as np

from . import backend
from .base import MXNetError

__all__ = ["Context", "cpu", "gpu", "cpu_pinned", "current_context", "num_gpus",
           "gpu_memory_info"]


_DEFAULT_CTX_DEPRECATED = ("Context.default_ctx has been deprecated. Please use "
                           "Context.current_context() instead. Please use "
                           "test_utils.set_default_context to set a default context")


def _get_default_ctx(_owner=None) -> "Context":
    warnings.warn(_DEFAULT_CTX_DEPRECATED, DeprecationWarning, stacklevel=2)
    return current_context()


def _set_default_ctx(_owner, value: "Context") -> None:
    warnings.warn(_DEFAULT_CTX_DEPRECATED, DeprecationWarning, stacklevel=2)
    Context._default.value = value


class _ContextMeta(type):
    """Gives ``Context`` MXNet's deprecated class-level property ``default_ctx``."""

    default_ctx = property(_get_default_ctx, _set_default_ctx,
                           doc="The current default context (deprecated; use "
                               "``current_context()``); assigning sets it.")


class Context(metaclass=_ContextMeta):
    """A device on which arrays live, as in MXNet (``cpu(0)``, ``gpu(1)``).

    Parameters
    ----------
    device_type : str or Context
        ``'cpu'``, ``'gpu'``, ``'cpu_pinned'`` or ``'cpu_shared'``.
    device_id : int
        Index of the device.
    """

    devtype2str = {1: "cpu", 2: "gpu", 3: "cpu_pinned", 5: "cpu_shared"}
    devstr2type = {"cpu": 1, "gpu": 2, "cpu_pinned": 3, "cpu_shared": 5}
    _default = threading.local()

    __slots__ = ("device_typeid", "device_id", "_xp", "_op_contexts")

    def __init__(self, device_type, device_id: int = 0):
        if isinstance(device_type, Context):
            self.device_typeid = device_type.device_typeid
            self.device_id = device_type.device_id
        else:
            if device_type not in Context.devstr2type:
                raise MXNetError(f"Context: unknown device type '{device_type}'")
            self.device_typeid = Context.devstr2type[device_type]
            self.device_id = int(device_id)
        self._xp = None
        self._op_contexts = None

    @property
    def device_type(self) -> str:
        """Device type as a string (``'cpu'`` or ``'gpu'``)."""
        return Context.devtype2str[self.device_typeid]

    @property
    def xp(self):
        """The array module serving this context: ``numpy`` or ``cupy``."""
        xp = self._xp
        if xp is None:
            if self.device_typeid == 2:
                _check_gpu(self.device_id)
                xp = backend.cupy_module()
            else:
                xp = np
            self._xp = xp
        return xp

    def __hash__(self) -> int:
        return hash((self.device_typeid, self.device_id))

    def __eq__(self, other) -> bool:
        return (isinstance(other, Context) and self.device_typeid == other.device_typeid
                and self.device_id == other.device_id)

    def __ne__(self, other) -> bool:
        return not self.__eq__(other)

    def __str__(self) -> str:
        return f"{self.device_type}({self.device_id})"

    __repr__ = __str__

    def __enter__(self) -> "Context":
        # The previous contexts go on a per-thread stack, not on the instance: one
        # instance (an array's ``context``) is often entered again while active, as
        # nested blocks do, and a single saved slot would then leak it as the default.
        default = Context._default
        stack = getattr(default, "stack", None)
        if stack is None:
            stack = default.stack = []
        stack.append(getattr(default, "value", None))
        default.value = self
        return self

    def __exit__(self, *exc) -> None:
        Context._default.value = Context._default.stack.pop()

    def __reduce__(self):
        return (Context, (self.device_type, self.device_id))

    # ``ctx.default_ctx`` on an instance, like ``Context.default_ctx`` on the class
    default_ctx = property(_get_default_ctx, _set_default_ctx)

    def empty_cache(self) -> None:
        """Release cached device memory back to the driver (GPU only)."""
        if self.device_typeid == 2:
            self.xp.get_default_memory_pool().free_all_blocks()

    def device(self):
        """A ``with`` guard that makes this GPU current for CuPy (no-op on CPU)."""
        if self.device_typeid == 2:
            return self.xp.cuda.Device(self.device_id)
        return _NULL_GUARD


class _NullGuard:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


_NULL_GUARD = _NullGuard()


def _check_gpu(device_id: int) -> None:
    n = backend.gpu_count()
    if n == 0:
        raise MXNetError(f"gpu({device_id}) was requested but no usable GPU was found "
                         "(CuPy missing, no CUDA driver, or no device)")
    if device_id < 0 or device_id >= n:
        raise MXNetError(f"gpu({device_id}) was requested but only {n} GPU(s) exist")


def cpu(device_id: int = 0) -> Context:
    """The CPU context."""
    return Context("cpu", device_id)


def cpu_pinned(device_id: int = 0) -> Context:
    """The pinned-memory CPU context (plain host memory here)."""
    return Context("cpu_pinned", device_id)


def gpu(device_id: int = 0) -> Context:
    """The GPU context ``device_id``; using it where no GPU exists raises ``MXNetError``."""
    return Context("gpu", device_id)


def num_gpus() -> int:
    """Number of usable GPUs (0 where CuPy, the driver or a device is missing)."""
    return backend.gpu_count()


def gpu_memory_info(device_id: int = 0) -> tuple[int, int]:
    """(free, total) bytes of GPU ``device_id``."""
    _check_gpu(device_id)
    cp = backend.cupy_module()
    with cp.cuda.Device(device_id):
        return tuple(cp.cuda.runtime.memGetInfo())


_CPU0 = Context("cpu", 0)


def current_context() -> Context:
    """The context of the innermost ``with ctx:`` block, ``cpu(0)`` by default."""
    return getattr(Context._default, "value", None) or _CPU0
