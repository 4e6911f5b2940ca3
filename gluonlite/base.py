"""Basic types and the error class shared by every layer (``mxnet.base``)."""
from __future__ import annotations

import ctypes
import numbers
import os

import numpy as np

__all__ = ["MXNetError", "NotImplementedForSymbol", "numeric_types", "integer_types",
           "string_types", "py_str", "c_str", "mx_real_t", "_Null", "data_dir",
           "write_atomically", "write_files_atomically", "stale_temporaries",
           "remove_stale_temporaries", "NDArrayHandle"]

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


_TEMPORARY = ".tmp"  # write_atomically's temporary files: <fname>.tmp<pid of the writer>


def write_atomically(fname, data: bytes) -> None:
    """Write ``data`` to ``fname`` through a temporary file and a rename, so a failed
    or interrupted write never leaves half a file in place of a good one.

    A process killed while writing leaves its temporary file (``<fname>.tmp<pid>``)
    behind; the next save to ``fname`` removes those whose writer is no longer running.
    """
    write_files_atomically([(fname, data)])


def write_files_atomically(files) -> None:
    """:func:`write_atomically` for several files (``(fname, data)`` pairs) that belong
    together: every temporary file is written first, then they are renamed into place one
    right after the other, in the order given, so that an interruption leaves the old and
    the new set mixed only if it falls between two renames."""
    temporaries = []
    try:
        for fname, data in files:
            fname = os.fspath(fname)
            remove_stale_temporaries(fname)
            tmp = f"{fname}{_TEMPORARY}{os.getpid()}"
            temporaries.append((tmp, fname))
            with open(tmp, "wb") as f:
                f.write(data)
        for tmp, fname in temporaries:
            os.replace(tmp, fname)
    finally:
        for tmp, _ in temporaries:
            if os.path.exists(tmp):
                os.remove(tmp)


def stale_temporaries(fname: str) -> list:
    """The temporary files that interrupted :func:`write_atomically` calls to ``fname``
    left behind: those whose writer process is gone."""
    folder = os.path.dirname(fname) or "."
    stem = os.path.basename(fname) + _TEMPORARY
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return [os.path.join(folder, name) for name in names
            if name.startswith(stem) and name[len(stem):].isdigit()
            and not _running(int(name[len(stem):]))]


def remove_stale_temporaries(fname: str) -> list:
    """Remove :func:`stale_temporaries` of ``fname``; the paths removed."""
    removed = []
    for path in stale_temporaries(fname):
        try:
            os.remove(path)
            removed.append(path)
        except OSError:  # removed by another saver meanwhile, or not ours to remove
            pass
    return removed


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return False  # this process is not writing it now: a leftover of an earlier call
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's live process
    return True


def _as_list(obj) -> list:
    """``obj`` itself when it is a list or tuple, else ``[obj]``."""
    return obj if isinstance(obj, (list, tuple)) else [obj]
