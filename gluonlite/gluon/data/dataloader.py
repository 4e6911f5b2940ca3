"""``DataLoader``: batches from a Dataset, in this process or in worker processes/threads.

With ``num_workers > 0`` a ``multiprocessing`` pool (started by fork, as MXNet's) or,
with ``thread_pool=True``, a thread pool builds the batches; ``prefetch`` batches are
requested ahead.  Batches from worker processes come through shared memory
(``_shared_memory.py``).  A worker that raises passes its exception and traceback to
the main process; a worker process that dies is reported within a fraction of a
second; a batch that takes longer than ``timeout`` raises ``TimeoutError`` as in MXNet.
Each worker process seeds NumPy's and gluonlite's random generators differently, so
random augmentations are not repeated across workers.
"""
from __future__ import annotations

import io
import itertools
import multiprocessing
import multiprocessing.pool
import os
import pickle
import signal
import time
from multiprocessing.pool import ThreadPool

import numpy as np

from ...base import MXNetError
from ... import context, ndarray as nd
from ...util import is_np_array, np_array
from . import sampler as _sampler
from ._shared_memory import ForkingPickler, remove_leftovers, set_owner_tag, start_tracker

__all__ = ["DataLoader", "default_batchify_fn", "default_mp_batchify_fn", "ForkingPickler",
           "worker_loop", "_MultiWorkerIter", "_as_in_context"]


def default_batchify_fn(data):
    """Stack samples into a batch: NDArrays with ``nd.stack``, tuples element by
    element, anything else through ``numpy.asarray`` (keeping its dtype).  Under
    ``npx.set_np()`` the batches are ``mx.np`` arrays."""
    if isinstance(data[0], nd.NDArray):
        return _np_if_on(nd.stack(*data))
    if isinstance(data[0], tuple):
        return [default_batchify_fn(list(field)) for field in zip(*data)]
    data = np.asarray(data)
    return _np_if_on(nd.array(data, dtype=data.dtype))


def _np_if_on(batch):
    """``batch`` as an ``mx.np`` array when NumPy array semantics are on."""
    return batch.as_np_ndarray() if is_np_array() else batch


def _array_batches(dataset, batchify_fn):
    """For an ``ArrayDataset`` of NumPy arrays with the default batchify: a function from
    a batch of indices to the batch, by one fancy index per array instead of one
    ``__getitem__`` per sample and a stack (the tutorial's 64-sample batches: about
    10x faster).  ``None`` when the per-sample path must run (any other dataset, a
    subclass, a custom batchify, NDArrays, non-numeric arrays).

    The batch is the per-sample path's: ``np.asarray`` of the samples ``a[i]`` is
    ``a[indices]`` (same values, shape and dtype), then ``nd.array(..., dtype)``.
    """
    from .dataset import ArrayDataset
    if type(dataset) is not ArrayDataset or batchify_fn is not default_batchify_fn:
        return None
    arrays = list(dataset._data)
    if not all(type(a) is np.ndarray and a.ndim >= 1 and a.dtype.kind in "biuf"
               for a in arrays):
        return None
    single = len(arrays) == 1

    def take(batch):
        idx = np.asarray(batch)
        if idx.ndim != 1 or idx.size == 0 or idx.dtype.kind not in "iu":
            return default_batchify_fn([dataset[i] for i in batch])
        out = [_np_if_on(nd.array(b, dtype=b.dtype)) for b in (a[idx] for a in arrays)]
        return out[0] if single else out
    return take


def default_mp_batchify_fn(data):
    """The batchify of worker processes: the same batches (they are moved to the main
    process through shared memory when pickled)."""
    return default_batchify_fn(data)


def _as_in_context(data, ctx):
    """``data`` (an NDArray or nested lists/tuples of them) moved to ``ctx``."""
    if isinstance(data, nd.NDArray):
        return data.as_in_context(ctx)
    if isinstance(data, (list, tuple)):
        return [_as_in_context(d, ctx) for d in data]
    return data


# -- worker side ------------------------------------------------------------------------
_worker_dataset = None


def _worker_initializer(dataset, base_seed, counter, tag) -> None:
    global _worker_dataset
    _worker_dataset = dataset
    set_owner_tag(tag)
    with counter.get_lock():
        index = counter.value
        counter.value += 1
    seed = (base_seed + 7919 * (index + 1)) % (2 ** 32)
    np.random.seed(seed)
    from ... import random as mx_random
    mx_random.seed(seed)


def _worker_fn(samples, batchify_fn, dataset=None):
    """Build one batch in a worker process; return it pickled with shared memory."""
    batch = batchify_fn([_worker_dataset[i] for i in samples])
    buf = io.BytesIO()
    ForkingPickler(buf, pickle.HIGHEST_PROTOCOL).dump(batch)
    return buf.getvalue()


def _thread_worker_initializer(active_array: bool) -> None:
    """A worker thread keeps the ``mx.np`` array mode of the thread that made the loader
    (array scopes are per thread, as MXNet's, which passes the mode the same way)."""
    np_array(active_array).__enter__()  # open for the thread's lifetime


def _thread_worker_fn(samples, batchify_fn, dataset):
    """Build one batch in a worker thread."""
    return batchify_fn([dataset[i] for i in samples])


def worker_loop(dataset, key_queue, data_queue, batchify_fn) -> None:
    """A worker process's loop over ``(index, samples)`` requests from ``key_queue``
    (``(None, None)`` ends it), putting ``(index, batch)`` on ``data_queue``."""
    while True:
        idx, samples = key_queue.get()
        if idx is None:
            break
        data_queue.put((idx, batchify_fn([dataset[i] for i in samples])))


# -- main side --------------------------------------------------------------------------
_TIMEOUT_MSG = ("Worker timed out after {} seconds. This might be caused by \n\n"
                "            - Slow transform. Please increase timeout to allow slower data "
                "loading in each worker.\n            ")


def _worker_pids(pool) -> dict:
    return {p.pid: p for p in getattr(pool, "_pool", [])}


class _MultiWorkerIter:
    """Iterates over the batches of ``batch_sampler`` built by ``worker_pool``,
    keeping ``prefetch`` requests in flight and returning batches in order."""

    def __init__(self, worker_pool, batchify_fn, batch_sampler, pin_memory=False,
                 pin_device_id=0, worker_fn=_worker_fn, prefetch=0, dataset=None,
                 data_loader=None, timeout=120):
        self._worker_pool = worker_pool
        self._batchify_fn = batchify_fn
        self._batch_sampler = batch_sampler
        self._data_buffer: dict = {}
        self._rcvd_idx = 0
        self._sent_idx = 0
        self._iter = iter(batch_sampler)
        self._worker_fn = worker_fn
        self._pin_memory = pin_memory
        self._pin_device_id = pin_device_id
        self._dataset = dataset
        self._data_loader = data_loader  # keeps the pool's owner alive while iterating
        self._timeout = timeout
        self._processes = not isinstance(worker_pool, ThreadPool)
        self._workers = _worker_pids(worker_pool) if self._processes else {}
        for _ in range(prefetch):
            self._push_next()

    def __len__(self) -> int:
        return len(self._batch_sampler)

    def _push_next(self) -> None:
        samples = next(self._iter, None)
        if samples is None:
            return
        self._data_buffer[self._sent_idx] = self._worker_pool.apply_async(
            self._worker_fn, (samples, self._batchify_fn, self._dataset))
        self._sent_idx += 1

    def _check_workers(self) -> None:
        for pid, proc in self._workers.items():
            code = proc.exitcode
            if code is not None and code != 0:
                self._worker_pool.terminate()
                raise MXNetError(f"DataLoader worker process (pid {pid}) exited unexpectedly "
                                 f"with code {code}; the batch it was building is lost")

    def _wait(self, result):
        """The result, polling for dead worker processes while waiting."""
        deadline = time.monotonic() + self._timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                print(_TIMEOUT_MSG.format(self._timeout))
                raise multiprocessing.TimeoutError()
            try:
                return result.get(min(left, 0.05) if self._processes else left)
            except multiprocessing.TimeoutError:
                if self._processes:
                    self._check_workers()

    def __next__(self):
        self._push_next()
        if self._rcvd_idx == self._sent_idx:
            if self._data_buffer:
                raise MXNetError("DataLoader: batches left over at the end of an epoch")
            raise StopIteration
        result = self._data_buffer.pop(self._rcvd_idx)
        try:
            batch = self._wait(result)
        except multiprocessing.TimeoutError:
            raise
        except Exception:
            self._worker_pool.terminate()
            raise
        if self._processes:
            batch = pickle.loads(batch)
        if self._pin_memory:
            batch = _as_in_context(batch, context.cpu_pinned(self._pin_device_id))
        self._rcvd_idx += 1
        return batch

    next = __next__

    def __iter__(self):
        return self


_LOADER_IDS = itertools.count()


class DataLoader:
    """Loads batches from ``dataset``.

    Parameters
    ----------
    dataset : Dataset
        Anything with ``__getitem__`` and ``__len__``.
    batch_size : int
        Samples per batch (unless ``batch_sampler`` is given).
    shuffle : bool
        Random order each epoch.
    sampler : Sampler, optional
        Order of the samples (exclusive with ``shuffle``).
    last_batch : {'keep', 'discard', 'rollover'}
        What to do with an incomplete last batch (default ``keep``).
    batch_sampler : Sampler, optional
        Yields whole batches of indices (exclusive with the four above).
    batchify_fn : callable, optional
        Makes a batch from a list of samples.
    num_workers : int
        Worker processes (or threads with ``thread_pool``); 0 loads in this process.
    pin_memory, pin_device_id
        Move batches to page-locked memory for a GPU (``cpu_pinned``).
    prefetch : int, optional
        Batches requested ahead (default ``2 * num_workers``).
    thread_pool : bool
        Use threads instead of processes.
    timeout : float
        Seconds to wait for one batch from a worker.
    auto_reload : bool
        Start the next epoch's prefetching as soon as one ends.
    try_nopython : bool, optional
        Accepted for MXNet 2 compatibility; has no effect.
    """

    def __init__(self, dataset, batch_size=None, shuffle=False, sampler=None,
                 last_batch=None, batch_sampler=None, batchify_fn=None, num_workers=0,
                 pin_memory=False, pin_device_id=0, prefetch=None, thread_pool=False,
                 timeout=120, auto_reload=False, try_nopython=None):
        self._dataset = dataset
        self._pin_memory = pin_memory
        self._pin_device_id = pin_device_id
        self._thread_pool = thread_pool
        if not timeout > 0:
            raise AssertionError(f"timeout must be positive, given {timeout}")
        self._timeout = timeout
        if batch_sampler is None:
            if batch_size is None:
                raise ValueError("batch_size must be specified unless batch_sampler is "
                                 "specified")
            if sampler is None:
                sampler = (_sampler.RandomSampler(len(dataset)) if shuffle
                           else _sampler.SequentialSampler(len(dataset)))
            elif shuffle:
                raise ValueError("shuffle must not be specified if sampler is specified")
            batch_sampler = _sampler.BatchSampler(sampler, batch_size, last_batch or "keep")
        elif batch_size is not None or shuffle or sampler is not None or \
                last_batch is not None:
            raise ValueError("batch_size, shuffle, sampler and last_batch must not be "
                             "specified if batch_sampler is specified.")
        self._batch_sampler = batch_sampler
        self._num_workers = max(num_workers, 0)
        self._prefetch = max(0, int(prefetch) if prefetch is not None
                             else 2 * self._num_workers)
        self._worker_pool = None
        if self._num_workers > 0:
            if thread_pool:
                self._worker_pool = ThreadPool(self._num_workers,
                                               initializer=_thread_worker_initializer,
                                               initargs=(is_np_array(),))
            else:
                self._worker_pool = self._start_processes()
        if batchify_fn is None:
            batchify_fn = default_mp_batchify_fn if num_workers > 0 else default_batchify_fn
        self._batchify_fn = batchify_fn
        self.auto_reload = auto_reload
        self._iter = None
        if auto_reload:
            self.refresh()

    def _start_processes(self):
        self._tag = f"{os.getpid()}-{next(_LOADER_IDS)}"
        start_tracker()  # before the fork: the workers share it
        base_seed = int(np.random.randint(0, 2 ** 31 - 1))
        counter = multiprocessing.get_context("fork").Value("i", 0)
        # workers ignore Ctrl-C: the main process decides when they stop
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            return multiprocessing.get_context("fork").Pool(
                self._num_workers, initializer=_worker_initializer,
                initargs=(self._dataset, base_seed, counter, self._tag))
        finally:
            signal.signal(signal.SIGINT, previous)

    def __iter__(self):
        if self._iter is None:
            self.refresh()
        batches, self._iter = self._iter, None  # one iterator is never used twice
        try:
            yield from batches
        except multiprocessing.TimeoutError:
            # a hung worker: stop the workers now, with the segments of the batches they
            # made for this epoch; the next epoch starts new ones
            if not self._thread_pool:
                self._stop_workers()
            raise
        if self._iter is None and self.auto_reload:
            self.refresh()

    def _stop_workers(self) -> None:
        pool, self._worker_pool = getattr(self, "_worker_pool", None), None
        if pool is None:
            return
        pool.terminate()
        if not getattr(self, "_thread_pool", False):
            pool.join()
            remove_leftovers(self._tag)

    def _prefetch_iter(self):
        # no data_loader=self here: the loader keeps this iterator (prefetching with
        # auto_reload), and the back-reference made a cycle that left the workers and their
        # shared memory alive after ``del loader`` until the garbage collector ran;
        # ``__iter__``'s generator keeps the loader alive while an epoch runs
        if self._num_workers == 0:
            return self._same_process_iter()
        if self._worker_pool is None:  # stopped after a timeout
            self._worker_pool = self._start_processes()
        return _MultiWorkerIter(self._worker_pool, self._batchify_fn, self._batch_sampler,
                                pin_memory=self._pin_memory, pin_device_id=self._pin_device_id,
                                worker_fn=_thread_worker_fn if self._thread_pool else _worker_fn,
                                prefetch=self._prefetch,
                                dataset=self._dataset if self._thread_pool else None,
                                timeout=self._timeout)

    def _same_process_iter(self):
        take = _array_batches(self._dataset, self._batchify_fn)
        for batch in self._batch_sampler:
            if take is not None:
                ret = take(batch)
            else:
                ret = self._batchify_fn([self._dataset[idx] for idx in batch])
            if self._pin_memory:
                ret = _as_in_context(ret, context.cpu_pinned(self._pin_device_id))
            yield ret

    def __len__(self) -> int:
        return len(self._batch_sampler)

    def refresh(self) -> None:
        """Start a new epoch's iterator (and its prefetching)."""
        self._iter = self._prefetch_iter()

    def clean(self) -> None:
        """Drop the pending iterator."""
        self._iter = None

    def __del__(self):
        self._stop_workers()
