"""``mx.libinfo``: version and library paths.  gluonlite has no native ``libmxnet``: the
path lookups raise as MXNet's do when its library is not found."""
from __future__ import annotations

import os

__all__ = ["find_lib_path", "find_include_path", "find_conf_path", "__version__"]

__version__ = "1.9.1"   # the MXNet API version gluonlite implements


def find_lib_path(prefix: str = "libmxnet") -> list:
    """Paths of a native MXNet library: gluonlite ships none, so ``MXNET_LIBRARY_PATH``
    is the only place looked at (it must name an existing file)."""
    path = os.environ.get("MXNET_LIBRARY_PATH")
    if path and os.path.isfile(path):
        return [path]
    raise RuntimeError(f"Cannot find the MXNet library ({prefix}): gluonlite is pure Python "
                       "(NumPy/CuPy) and has no native library")


def find_include_path() -> str:
    """MXNet's C headers: not part of gluonlite (``MXNET_INCLUDE_PATH`` if set)."""
    path = os.environ.get("MXNET_INCLUDE_PATH")
    if path and os.path.isdir(path):
        return path
    raise RuntimeError("Cannot find the MXNet include path: gluonlite has no C API headers")


def find_conf_path(prefix: str = "tvmop") -> str:
    """MXNet's TVM operator config: gluonlite has no TVM operators."""
    raise RuntimeError(f"Cannot find the MXNet {prefix} configuration: gluonlite has no TVM "
                       "operators")
