"""The BLAS thread count, chosen at import where the user has not chosen one.

NumPy's OpenBLAS starts a thread per core and keeps them spinning while they wait for
work.  Where another process (a second job, a DataLoader worker) needs a core, those
threads fight it for the core and every product waits for the slowest of them.  Measured
on a 2-core machine (``bench/bench_blas_threads.py``, figures in ``bench/README.md``):
with the other core busy, two threads made the tutorial CNN's training epoch 2.2x and
ResNet-18 inference 1.7x slower than one thread; on an idle machine one thread cost about
10% on the epoch and 1.5-2x on large products.  One thread loses least there, so at import
gluonlite gives OpenBLAS half the cores this process may use, at least one.  (Only
2-core machines were measured; on more cores, half leaves room for the Python thread and
the DataLoader workers.)

The user's choice wins: when ``OPENBLAS_NUM_THREADS``, ``OMP_NUM_THREADS`` or
``MKL_NUM_THREADS`` is set, nothing is changed.  The count is set through OpenBLAS's own
``openblas_set_num_threads``, so it works whether NumPy was imported before gluonlite or
not; a NumPy built on another BLAS (MKL, Accelerate) is left alone.
"""
from __future__ import annotations

import ctypes
import glob
import os
import re

import numpy as np

USER_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
# how OpenBLAS's functions are named: scipy_openblas_*64_ in NumPy's wheels, openblas_*64_
# in older ones, openblas_* in system and conda builds
_PREFIXES = ("scipy_openblas_", "openblas_")
_SUFFIXES = ("64_", "")


def usable_cores() -> int:
    """Cores this process may run on (its affinity mask where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def default_threads(cores: int) -> int:
    """The thread count gluonlite gives BLAS on ``cores`` cores: half, at least one."""
    return max(1, cores // 2)


def _openblas_libraries() -> list[str]:
    """Paths of the OpenBLAS libraries loaded in this process (NumPy's first)."""
    paths = []
    try:
        with open("/proc/self/maps") as maps:  # Linux: every loaded library
            paths = re.findall(r"\s(/\S*openblas\S*\.so\S*)$", maps.read(), re.M)
    except OSError:
        pass
    package = os.path.dirname(np.__file__)
    for folder in (package + ".libs", os.path.join(package, ".dylibs")):  # NumPy's wheels
        paths += glob.glob(os.path.join(folder, "*openblas*"))
    return list(dict.fromkeys(paths))


def _functions(name: str, restype, argtypes) -> list:
    """OpenBLAS's ``openblas_<name>`` in every loaded OpenBLAS, under the names NumPy's
    wheels (scipy-openblas, 64-bit integers), older wheels and system builds give it."""
    found = []
    for path in _openblas_libraries():
        try:
            library = ctypes.CDLL(path)  # already loaded: this only returns its handle
        except OSError:
            continue
        for symbol in (p + name + s for p in _PREFIXES for s in _SUFFIXES):
            function = getattr(library, symbol, None)
            if function is not None:
                function.restype, function.argtypes = restype, argtypes
                found.append(function)
                break
    return found


def set_blas_threads(count: int) -> bool:
    """Ask every loaded OpenBLAS to use ``count`` threads; False where none was found."""
    setters = _functions("set_num_threads", None, [ctypes.c_int])
    for setter in setters:
        setter(int(count))
    return bool(setters)


def blas_threads() -> int | None:
    """The thread count of NumPy's OpenBLAS; None where NumPy uses another BLAS."""
    getters = _functions("get_num_threads", ctypes.c_int, [])
    return int(getters[0]()) if getters else None


def tune_at_import() -> int | None:
    """Give OpenBLAS :func:`default_threads` threads unless the user set a count; the
    count set, or None where nothing was changed."""
    if any(os.environ.get(name) for name in USER_VARIABLES):
        return None
    count = default_threads(usable_cores())
    return count if set_blas_threads(count) else None


THREADS = tune_at_import()
