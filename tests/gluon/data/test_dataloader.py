"""``gluon.data.DataLoader``: batches in this process, in worker processes (through shared
memory) and in threads; worker errors, dead workers and timeouts surface quickly and no
process or shared-memory segment is left behind."""
import gc
import glob
import multiprocessing
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.gluon import data
from gluonlite.gluon.data import dataloader as dl


class _Squares(data.Dataset):
    def __len__(self):
        return 10

    def __getitem__(self, idx):
        return mx.nd.full((2, 3), idx), float(idx * idx)


class _Failing(data.Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, idx):
        if idx == 5:
            raise KeyError("sample 5 is broken")
        return np.full(2, idx, dtype=np.float32)


class _Dying(data.Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, idx):
        if idx == 3:
            os._exit(7)
        return np.zeros(2, dtype=np.float32)


class _Slow(data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, idx):
        time.sleep(2.0)
        return np.zeros(1, dtype=np.float32)


def _segments():
    """This process's loaders' shared-memory segments (named after its pid; other
    processes on the machine may be using DataLoaders too)."""
    return set(glob.glob(f"/dev/shm/gluonlite-dl-{os.getpid()}-*"))


def _check_batches(loader, expect_len=4):
    batches = list(loader)
    assert len(batches) == len(loader) == expect_len
    x, y = batches[1]
    assert x.shape == (3, 2, 3) and x.dtype == np.float32
    np.testing.assert_array_equal(x.asnumpy()[:, 0, 0], [3, 4, 5])
    np.testing.assert_array_equal(y.asnumpy(), [9, 16, 25])
    assert y.dtype == np.float64  # numpy's dtype of python floats is kept, as in MXNet
    assert batches[-1][0].shape == (1, 2, 3)
    return batches


@pytest.mark.parametrize("workers,threads", [(0, False), (2, False), (2, True)],
                         ids=["main", "processes", "threads"])
def test_batches_in_order(workers, threads):
    before = _segments()
    loader = data.DataLoader(_Squares(), batch_size=3, num_workers=workers,
                             thread_pool=threads)
    batches = _check_batches(loader)
    # arrays from worker processes are usable and writable like any other
    x = batches[0][0]
    x += 1
    assert (x.asnumpy()[0] == 1).all()
    assert _check_batches(loader)  # a second epoch
    del loader
    assert _segments() <= before


def test_deleting_a_prefetching_loader_frees_its_workers_at_once():
    before = _segments()
    loader = data.DataLoader(_Squares(), batch_size=3, num_workers=2, auto_reload=True)
    _check_batches(loader)  # the next epoch is prefetching now
    pids = [p.pid for p in loader._worker_pool._pool]
    gc.disable()  # nothing may wait for the garbage collector (no reference cycle)
    try:
        del loader
        assert _segments() <= before
        for pid in pids:
            with pytest.raises(OSError):
                os.kill(pid, 0)  # the worker is gone (and reaped)
    finally:
        gc.enable()


def test_shuffle_sampler_and_batch_sampler_arguments():
    ds = data.ArrayDataset(np.arange(10, dtype=np.float32))
    np.random.seed(0)
    seen = np.concatenate([b.asnumpy() for b in data.DataLoader(ds, 4, shuffle=True)])
    assert sorted(seen) == list(range(10)) and list(seen) != list(range(10))
    assert len(data.DataLoader(ds, 4, last_batch="discard")) == 2
    sampler = data.BatchSampler(data.SequentialSampler(10), 5)
    assert len(data.DataLoader(ds, batch_sampler=sampler)) == 2
    with pytest.raises(ValueError, match="batch_size must be specified"):
        data.DataLoader(ds)
    with pytest.raises(ValueError, match="shuffle must not be specified"):
        data.DataLoader(ds, 2, shuffle=True, sampler=data.SequentialSampler(10))
    with pytest.raises(ValueError, match="must not be specified if batch_sampler"):
        data.DataLoader(ds, 2, batch_sampler=sampler)
    with pytest.raises(AssertionError, match="timeout must be positive"):
        data.DataLoader(ds, 2, timeout=0)


@pytest.mark.parametrize("threads", [False, True], ids=["processes", "threads"])
def test_worker_error_reaches_the_main_process(threads):
    loader = data.DataLoader(_Failing(), batch_size=2, num_workers=2, thread_pool=threads)
    start = time.monotonic()
    with pytest.raises(KeyError, match="sample 5 is broken"):
        list(loader)
    assert time.monotonic() - start < 10


def test_dead_worker_is_reported_not_waited_for():
    loader = data.DataLoader(_Dying(), batch_size=2, num_workers=2, timeout=60)
    start = time.monotonic()
    with pytest.raises(mx.MXNetError, match="exited unexpectedly with code 7"):
        list(loader)
    assert time.monotonic() - start < 10


@pytest.mark.parametrize("threads", [False, True], ids=["processes", "threads"])
def test_timeout(threads):
    loader = data.DataLoader(_Slow(), batch_size=1, num_workers=1, timeout=0.3,
                             thread_pool=threads)
    with pytest.raises(multiprocessing.TimeoutError):
        next(iter(loader))


class _HangsWhileMarked(data.Dataset):
    """Sample 2 hangs while the marker file exists; the others are quick."""

    def __init__(self, marker):
        self.marker = marker

    def __len__(self):
        return 8

    def __getitem__(self, idx):
        while idx == 2 and os.path.exists(self.marker):
            time.sleep(0.05)
        return np.full((64, 64), idx, dtype=np.float32)


def test_timeout_stops_hung_workers_and_their_segments(tmp_path):
    marker = tmp_path / "hang"
    marker.touch()
    loader = data.DataLoader(_HangsWhileMarked(str(marker)), batch_size=1, num_workers=2,
                             prefetch=6, timeout=2.0)
    pids = [p.pid for p in loader._worker_pool._pool]
    batches = iter(loader)
    assert next(batches).asnumpy()[0, 0, 0] == 0
    assert next(batches).asnumpy()[0, 0, 0] == 1
    with pytest.raises(multiprocessing.TimeoutError):
        next(batches)  # sample 2 hangs; the other worker had made batches 3, 4, ...
    assert _segments() == set()
    for pid in pids:
        with pytest.raises(OSError):
            os.kill(pid, 0)  # the workers are gone (and reaped)
    marker.unlink()
    assert [int(b.asnumpy()[0, 0, 0]) for b in loader] == list(range(8))  # new workers


def test_no_worker_processes_left_behind():
    loader = data.DataLoader(_Squares(), batch_size=5, num_workers=2)
    list(loader)
    pids = [p.pid for p in loader._worker_pool._pool]
    del loader
    gc.collect()
    for pid in pids:
        with pytest.raises(OSError):
            os.kill(pid, 0)  # the worker is gone (and reaped)


def test_workers_draw_different_random_numbers():
    class _Noise(data.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, idx):
            time.sleep(0.05)  # let both workers take batches
            return np.random.rand(1).astype(np.float32)
    values = np.concatenate([b.asnumpy() for b in
                             data.DataLoader(_Noise(), 1, num_workers=2, prefetch=4)])
    assert len(set(values.ravel().tolist())) == 4


def test_module_names_gluoncv_imports():
    assert dl.ForkingPickler is multiprocessing.reduction.ForkingPickler
    batch = dl.default_batchify_fn([(mx.nd.ones(2), 1), (mx.nd.zeros(2), 2)])
    assert batch[0].shape == (2, 2) and batch[1].asnumpy().tolist() == [1, 2]
    assert dl.default_mp_batchify_fn([np.ones(3), np.zeros(3)]).shape == (2, 3)
    moved = dl._as_in_context([mx.nd.ones(1), (mx.nd.ones(1),)], mx.cpu(1))
    assert moved[0].context == mx.cpu(1) and moved[1][0].context == mx.cpu(1)
    assert callable(dl.worker_loop) and dl._MultiWorkerIter is not None


def test_ndarray_through_a_multiprocessing_queue():
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=lambda q: q.put(mx.nd.arange(6).reshape((2, 3))), args=(queue,))
    proc.start()
    got = queue.get(timeout=10)
    proc.join()
    np.testing.assert_array_equal(got.asnumpy(), np.arange(6).reshape(2, 3))


_KILLED_MAIN = r"""
import glob, os, signal, time
import numpy as np
from gluonlite.gluon import data

class Planes(data.Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, idx):
        return np.full((128, 128), idx, dtype=np.float32)

loader = data.DataLoader(Planes(), batch_size=4, num_workers=2, prefetch=8)
batches = iter(loader)
next(batches)
deadline = time.time() + 10  # until the workers have batches waiting in shared memory
while not glob.glob(f"/dev/shm/gluonlite-dl-{os.getpid()}-*") and time.time() < deadline:
    time.sleep(0.01)
print(len(glob.glob(f"/dev/shm/gluonlite-dl-{os.getpid()}-*")), flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.mark.skipif(not os.path.isdir("/dev/shm"), reason="no /dev/shm")
def test_no_segment_outlives_a_killed_main_process():
    proc = subprocess.Popen([sys.executable, "-c", _KILLED_MAIN], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == -signal.SIGKILL
    assert int(out.split()[0]) > 0  # segments were in flight when it died
    pattern = f"/dev/shm/gluonlite-dl-{proc.pid}-*"
    deadline = time.monotonic() + 15  # the workers, then the resource tracker, wind down
    while glob.glob(pattern) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert glob.glob(pattern) == []


def _send_array(queue):
    queue.put(mx.nd.arange(6).reshape(2, 3))


def test_ndarray_through_a_users_queue_travels_by_shared_memory():
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_send_array, args=(queue,))
    child.start()
    got = queue.get(timeout=60)
    child.join(60)
    np.testing.assert_array_equal(got.asnumpy(), np.arange(6).reshape(2, 3))
    assert glob.glob(f"/dev/shm/gluonlite-dl-{os.getpid()}-*") == []  # unlinked on receipt
