"""``mx.library``: MXNet's loader of extension libraries.

An MXNet extension library is a shared object (``.so``/``.dll``) compiled against
MXNet's ``lib_api.h``: ``load`` hands it to ``libmxnet``, which registers the C++
operators, subgraph partitioners and graph passes it holds and regenerates ``mx.nd``
and ``mx.sym``.  gluonlite runs on NumPy/CuPy and has no C++ registries for such code
to join, so :func:`load` checks the path as MXNet does (same errors for a missing
file, a relative path, a name that is not ``.so``/``.dll``), tells a file that is no
MXNet extension from one that is, and raises ``MXNetError`` for both: write such an
operator as a Python custom operator (``mx.operator.CustomOp``) or register it in
gluonlite's operator registry instead.

The file is inspected, never loaded: loading would run the library's initialisers for
nothing.
"""
from __future__ import annotations

import mmap
import os

from .base import MXNetError

__all__ = ["load"]

_ELF_MAGIC = b"\x7fELF"
_PE_MAGIC = b"MZ"
# every extension library exports these entry points (lib_api.h's MXLIB_*_STR)
_ENTRY_POINTS = (b"_opVersion", b"initialize")


def _exports_entry_points(path: str) -> bool:
    with open(path, "rb") as f:
        if os.fstat(f.fileno()).st_size == 0:
            return False
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            return all(data.find(name + b"\0") >= 0 for name in _ENTRY_POINTS)


def load(path: str, verbose: bool = True) -> None:
    """Load an MXNet extension library: not possible in gluonlite (see the module
    docstring); the checks and errors are MXNet's up to the point where MXNet would
    open the library.

    Parameters
    ----------
    path : str
        Absolute path of the ``.so``/``.dll`` file.
    verbose : bool, default True
        MXNet prints what the library registered; nothing is registered here.

    Raises
    ------
    MXNetError
        Always: for a missing file, a relative path or a name without ``.so``/``.dll``
        (MXNet's messages), for a file that is no shared library or no MXNet extension
        library, and for an MXNet extension library, which gluonlite cannot run.
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise MXNetError("load path %s does NOT exist" % path)
    if not os.path.isabs(path):
        raise MXNetError("load path %s is not an absolute path" % path)
    if os.path.splitext(path)[1] not in (".so", ".dll"):
        raise MXNetError("load path %s is NOT a library file" % path)
    with open(path, "rb") as f:
        magic = f.read(4)
    if not (magic == _ELF_MAGIC or magic[:2] == _PE_MAGIC):
        raise MXNetError("Error loading library: '%s': not a shared library (no ELF or PE "
                         "header)" % path)
    if not _exports_entry_points(path):
        raise MXNetError("Error getting function '_opVersion' from library %s: it is not an "
                         "MXNet extension library (built against MXNet's lib_api.h)" % path)
    raise MXNetError("mx.library.load(%r): this is an MXNet extension library of C++ "
                     "operators/partitioners/passes for libmxnet; gluonlite runs on "
                     "NumPy/CuPy and cannot load it. Write its operators as Python custom "
                     "operators (mx.operator.CustomOp) or in gluonlite's operator registry"
                     % path)
