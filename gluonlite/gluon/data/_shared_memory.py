"""Moving NDArrays from DataLoader worker processes without copying them through a pipe.

A worker writes each array of a batch into a file of ``/dev/shm`` (a named shared
memory segment) and sends only its name, shape and dtype; the receiving process maps
the file, unlinks it at once and wraps the mapping in an NDArray: the pages are
written once by the worker and read in place by the trainer.  Where ``/dev/shm``
does not exist the array is pickled by value.

A segment is in flight from its creation until the receiver unlinks it.  A DataLoader
worker's segments (named after their loader) are registered meanwhile with
multiprocessing's resource tracker, a process shared by the loader and its workers that
outlives them: if they are all killed (the main process by SIGKILL, its workers by the
end of their pipes), the tracker unlinks what is still registered, so no segment
outlives the processes that use it.

The reduction is registered on ``multiprocessing.reduction.ForkingPickler``, as
MXNet does, so NDArrays sent through multiprocessing queues travel the same way.
"""
from __future__ import annotations

import glob
import mmap
import os
import tempfile
from multiprocessing import resource_tracker
from multiprocessing.reduction import ForkingPickler

import numpy as np

from ...ndarray import NDArray
from ...context import cpu

__all__ = ["ForkingPickler", "reduce_ndarray", "rebuild_ndarray", "remove_leftovers",
           "set_owner_tag", "start_tracker"]

_SHM_DIR = "/dev/shm"
_USABLE = os.path.isdir(_SHM_DIR) and os.access(_SHM_DIR, os.W_OK)


_owner_tag = None  # set in DataLoader workers: which loader their segments belong to


def set_owner_tag(tag: str) -> None:
    """Name the segments this process writes after ``tag`` (a DataLoader's), so that
    the loader can remove the ones it never received."""
    global _owner_tag
    _owner_tag = tag


def _prefix(tag: str) -> str:
    return f"gluonlite-dl-{tag}-"


def _tracked_name(path: str) -> str:
    # the resource tracker unlinks "shared_memory" names with shm_unlink: /dev/shm/<name>
    return "/" + os.path.basename(path)


def start_tracker() -> None:
    """Start the resource tracker in this process, before it forks workers, so that the
    workers register their segments with the tracker this process unregisters them from."""
    if _USABLE:
        resource_tracker.ensure_running()


def _tracked(path: str) -> bool:
    # a loader's segments, "gluonlite-dl-<pid>-<loader>-<random>", are tracked; others
    # ("gluonlite-dl-<pid>-<random>", an NDArray sent through a queue of the user's) are
    # not: their sender and receiver may not share a tracker
    return os.path.basename(path).count("-") == 4


def _unlink(path: str) -> None:
    os.unlink(path)
    if _tracked(path):
        resource_tracker.unregister(_tracked_name(path), "shared_memory")


def rebuild_ndarray(path, shape, dtype):
    """Map the segment written by :func:`reduce_ndarray`, unlink it, wrap it."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape))
    fd = os.open(path, os.O_RDWR)
    try:
        _unlink(path)  # the mapping outlives the name
        mapping = mmap.mmap(fd, count * dtype.itemsize)
    finally:
        os.close(fd)
    # the array keeps the mapping alive; it is released with the last view
    return NDArray(np.frombuffer(mapping, dtype=dtype, count=count).reshape(shape), cpu())


def _rebuild_by_value(data):
    return NDArray(data, cpu())


def reduce_ndarray(arr: NDArray):
    """Pickle an NDArray as the name of a shared-memory copy of its data."""
    data = arr.asnumpy()
    if not _USABLE or data.nbytes == 0:
        return _rebuild_by_value, (data,)
    fd, path = tempfile.mkstemp(prefix=_prefix(_owner_tag or str(os.getppid())), dir=_SHM_DIR)
    if _tracked(path):
        resource_tracker.register(_tracked_name(path), "shared_memory")
    try:
        os.ftruncate(fd, data.nbytes)
        with mmap.mmap(fd, data.nbytes) as mapping:
            view = np.frombuffer(mapping, dtype=data.dtype, count=data.size)
            view[...] = data.reshape(-1)
            del view
    except BaseException:
        _unlink(path)
        raise
    finally:
        os.close(fd)
    return rebuild_ndarray, (path, data.shape, data.dtype.str)


def remove_leftovers(tag: str) -> None:
    """Delete segments that workers of the loader ``tag`` wrote but nobody received (a
    batch abandoned when its DataLoader shut down)."""
    if not _USABLE:
        return
    for path in glob.glob(os.path.join(_SHM_DIR, _prefix(tag) + "*")):
        try:
            _unlink(path)
        except FileNotFoundError:
            pass


ForkingPickler.register(NDArray, reduce_ndarray)
