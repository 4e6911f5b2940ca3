"""Keep freed heap memory in the process on glibc (``mallopt``).

NumPy allocates every large temporary with ``malloc``; glibc serves blocks above
its mmap threshold (128 KiB by default, adapting upwards) with fresh ``mmap``
calls and returns them to the OS on ``free``, so a training step that makes the
same temporaries again pays a page fault per 4 KiB page, every step.  Deep-learning
frameworks avoid this with their own caching allocators; we get the same effect by
raising glibc's mmap and trim thresholds once at import.  Set
``GLUONLITE_TUNE_MALLOC=0`` to leave the process's allocator alone.
"""
from __future__ import annotations

import os

# mallopt parameter numbers from glibc's <malloc.h>
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3

MMAP_THRESHOLD = 256 << 20
TRIM_THRESHOLD = 512 << 20


def tune_malloc() -> bool:
    """Raise glibc's mmap/trim thresholds; False where that is not possible (not glibc)."""
    import ctypes
    import sys
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL("libc.so.6")
        return bool(libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)
                    and libc.mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))
    except (OSError, AttributeError):
        return False


def tune_at_import() -> bool:
    """Apply :func:`tune_malloc` unless ``GLUONLITE_TUNE_MALLOC`` is ``0``."""
    if os.environ.get("GLUONLITE_TUNE_MALLOC", "1") == "0":
        return False
    return tune_malloc()


TUNED = tune_at_import()
