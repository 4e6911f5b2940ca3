"""Basic types and the error class shared by every layer (``mxnet.base``)."""
from __future__ import annotations

import ctypes
import numbers
import os

import numpy as np

__all__ = ["MXNetError", "NotImplementedForSymbol", "numeric_types", "integer_types",
           "string_types", "py_str", "c_str", "mx_real_t", "_Null", "data_dir",
           "write_atomically", "NDArrayHandle"]

# MXNet's C handle type.  gluonlite has no C library: the handles it gives out (to an
# MXNet 1.x calibration collector's ``collect(name, arr)``) stand for live NDArrays, and
# ``NDArray(handle)`` turns one back into the array (``gluonlite.ndarray.handles``).
NDArrayHandle = ctypes.c_void_p


class MXNetError(RuntimeError):
    """Error raised for every mistake a user can make (MXNet's ``MXNetError``)."""


class NotImplementedForSymbol(MXNetError):
    """Raised when an NDArray-only function is called on a Symbol."""

    def __init__(self, function, alias, *args):
        super().__init__()
        self.function = function.__name__ if callable(function) else str(function)
        self.alias = alias
        self.args = [str(type(a)) for a in args]

    def __str__(self) -> str:
        msg = f"Function {self.function}"
        if self.alias:
            msg += f" (namely operator \"{self.alias}\")"
        if self.args:
            msg += " with arguments (" + ", ".join(self.args) + ")"
        return msg + " is not implemented for Symbol and only available in NDArray."


class _NullType:
    """Placeholder for an argument that was not given (MXNet's ``_Null``)."""

    def __repr__(self) -> str:
        return "_Null"

    def __bool__(self) -> bool:
        return False


_Null = _NullType()

numeric_types = (float, int, np.generic, numbers.Number)
integer_types = (int, np.integer)
string_types = (str,)
mx_real_t = np.float32


def py_str(x):
    """Return ``x`` as a Python ``str`` (bytes are decoded)."""
    return x.decode("utf-8") if isinstance(x, bytes) else x


def c_str(x: str) -> bytes:
    """Encode a string for a C call (kept for API compatibility)."""
    return x.encode("utf-8")


def data_dir_default() -> str:
    """MXNet's default data directory, ``~/.mxnet`` (``%APPDATA%/mxnet`` on Windows)."""
    if os.name == "nt" and os.environ.get("APPDATA"):
        return os.path.join(os.environ["APPDATA"], "mxnet")
    return os.path.join(os.path.expanduser("~"), ".mxnet")


def data_dir() -> str:
    """Where datasets and model files live: ``$MXNET_HOME``, else :func:`data_dir_default`."""
    return os.environ.get("MXNET_HOME", data_dir_default())


def write_atomically(fname, data: bytes) -> None:
    """Write ``data`` to ``fname`` through a temporary file and a rename, so a failed
    or interrupted write never leaves half a file in place of a good one."""
    fname = os.fspath(fname)
    tmp = f"{fname}.tmp{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, fname)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _as_list(obj) -> list:
    """``obj`` itself when it is a list or tuple, else ``[obj]``."""
    return obj if isinstance(obj, (list, tuple)) else [obj]
