"""DLPack exchange (MXNet's ``mx.nd.from_dlpack``, ``to_dlpack_for_read``,
``to_dlpack_for_write``) over NumPy's and CuPy's ``from_dlpack``."""
from __future__ import annotations

import numpy as np

from ..context import Context
from .ndarray import _CPU0, NDArray, _writable

__all__ = ["from_dlpack", "to_dlpack_for_read", "to_dlpack_for_write"]


def from_dlpack(dlpack) -> NDArray:
    """An NDArray sharing memory with a DLPack capsule or a ``__dlpack__`` object."""
    if hasattr(dlpack, "__dlpack_device__"):
        dev_type, dev_id = dlpack.__dlpack_device__()
        if int(dev_type) == 2:
            ctx = Context("gpu", int(dev_id))
            return NDArray(ctx.xp.from_dlpack(dlpack), ctx)
        return NDArray(_writable(np.from_dlpack(dlpack)), _CPU0)
    try:
        return NDArray(_writable(np.from_dlpack(_CapsuleHolder(dlpack))), _CPU0)
    except Exception:
        from .. import backend
        cp = backend.cupy_module()
        if cp is None:
            raise
        data = cp.from_dlpack(dlpack)
        return NDArray(data, Context("gpu", data.device.id))


class _CapsuleHolder:
    """Lets ``numpy.from_dlpack`` consume a bare (CPU) DLPack capsule."""

    def __init__(self, capsule):
        self._capsule = capsule

    def __dlpack__(self, **kwargs):
        return self._capsule

    def __dlpack_device__(self):
        return (1, 0)


def to_dlpack_for_read(data: NDArray):
    """DLPack capsule of ``data`` for reading."""
    return data.to_dlpack_for_read()


def to_dlpack_for_write(data: NDArray):
    """DLPack capsule of ``data`` for writing."""
    return data.to_dlpack_for_write()
