"""``mx.callback``: what training loops call after each batch or epoch.

``Speedometer``, ``ProgressBar``, ``log_train_metric`` and
``LogValidationMetricsCallback`` take MXNet's ``BatchEndParam`` (``epoch``,
``nbatch``, ``eval_metric``, ``locals``) and log through :mod:`logging` in MXNet's
format.  :func:`progress` is the same idea for a Gluon loop: wrap the DataLoader and
the loop shows its progress and throughput (with ``tqdm`` when it is installed).
"""
from __future__ import annotations

import logging
import math
import sys
import time
from typing import Iterable, Iterator

from .model import BatchEndParam, save_checkpoint

__all__ = ["BatchEndParam", "Speedometer", "ProgressBar", "log_train_metric",
           "LogValidationMetricsCallback", "progress", "do_checkpoint", "module_checkpoint"]

_clock = time.time  # one place to read the time (tests replace it)



def do_checkpoint(prefix: str, period: int = 1):
    """Epoch-end callback saving ``prefix-symbol.json`` and ``prefix-%04d.params`` every
    ``period`` epochs (numbered from 1), as ``mx.model.save_checkpoint``."""
    period = int(max(1, period))

    def _callback(iter_no, sym, arg, aux):
        if (iter_no + 1) % period == 0:
            save_checkpoint(prefix, iter_no + 1, sym, arg, aux)
    return _callback


def module_checkpoint(mod, prefix: str, period: int = 1, save_optimizer_states: bool = False):
    """Epoch-end callback calling ``mod.save_checkpoint`` every ``period`` epochs (with
    the optimizer states when asked)."""
    period = int(max(1, period))

    def _callback(iter_no, sym=None, arg=None, aux=None):
        if (iter_no + 1) % period == 0:
            mod.save_checkpoint(prefix, iter_no + 1, save_optimizer_states)
    return _callback


def _format_pairs(name_value) -> tuple[str, tuple]:
    """``'\\t%s=%f'`` per metric and the flattened (name, value) arguments."""
    return "\t%s=%f" * len(name_value), tuple(x for pair in name_value for x in pair)


def log_train_metric(period: int, auto_reset: bool = False):
    """A batch-end callback that logs the training metric every ``period`` batches
    (and resets its local counters when ``auto_reset``)."""
    def _callback(param):
        if param.nbatch % period != 0 or param.eval_metric is None:
            return
        for name, value in param.eval_metric.get_name_value():
            logging.info("Iter[%d] Batch[%d] Train-%s=%f", param.epoch, param.nbatch, name,
                         value)
        if auto_reset:
            param.eval_metric.reset_local()
    return _callback


class Speedometer:
    """Logs samples per second and the training metric every ``frequent`` batches.

    Parameters
    ----------
    batch_size : int
        Samples per batch.
    frequent : int
        Log every this many batches (default 50).
    auto_reset : bool
        Reset the metric's local counters after each log, so each line shows the
        metric over the last ``frequent`` batches.
    """

    def __init__(self, batch_size: int, frequent: int = 50, auto_reset: bool = True):
        self.batch_size = batch_size
        self.frequent = frequent
        self.auto_reset = auto_reset
        self.init = False
        self.tic = 0.0
        self.last_count = 0

    def __call__(self, param) -> None:
        count = param.nbatch
        if self.last_count > count:  # a new epoch started
            self.init = False
        self.last_count = count
        if not self.init:
            self.init = True
            self.tic = _clock()
            return
        if count % self.frequent != 0:
            return
        now = _clock()
        elapsed = now - self.tic
        speed = self.frequent * self.batch_size / elapsed if elapsed > 0 else float("inf")
        if param.eval_metric is None:
            logging.info("Iter[%d] Batch [%d]\tSpeed: %.2f samples/sec", param.epoch, count,
                         speed)
        else:
            name_value = param.eval_metric.get_name_value()
            fmt, args = _format_pairs(name_value)
            if self.auto_reset:
                param.eval_metric.reset_local()
                logging.info("Epoch[%d] Batch [%d-%d]\tSpeed: %.2f samples/sec" + fmt,
                             param.epoch, count - self.frequent, count, speed, *args)
            else:
                logging.info("Epoch[%d] Batch [0-%d]\tSpeed: %.2f samples/sec" + fmt,
                             param.epoch, count, speed, *args)
        self.tic = now


def _bar(fraction: float, length: int) -> str:
    filled = int(round(length * fraction))
    return "=" * filled + "-" * (length - filled)


class ProgressBar:
    """Logs a bar of the batches done out of ``total`` in each epoch.

    Parameters
    ----------
    total : int
        Batches per epoch.
    length : int
        Characters in the bar.
    """

    def __init__(self, total: int, length: int = 80):
        self.total = total
        self.bar_len = length

    def __call__(self, param) -> None:
        fraction = param.nbatch / float(self.total)
        logging.info("[%s] %s%s\r", _bar(fraction, self.bar_len),
                     math.ceil(100.0 * fraction), "%")


class LogValidationMetricsCallback:
    """An epoch-end callback that logs each validation metric."""

    def __call__(self, param) -> None:
        if not param.eval_metric:
            return
        for name, value in param.eval_metric.get_name_value():
            logging.info("Epoch[%d] Validation-%s=%f", param.epoch, name, value)


def progress(iterable: Iterable, total: int | None = None, desc: str = "",
             batch_size: int | None = None, file=None, min_interval: float = 0.2,
             use_tqdm: bool | None = None) -> Iterator:
    """Yield from ``iterable`` while showing progress and throughput.

    On a terminal, with ``tqdm`` installed (and ``use_tqdm`` not False) the display is a
    tqdm bar; otherwise one line on ``file`` (standard error) is rewritten at most every
    ``min_interval`` seconds and finished with a newline.  When ``file`` is not a terminal
    (a log file, a pipe) nothing is rewritten: one plain line is written when the loop
    ends, and tqdm is used only where ``use_tqdm=True`` asks for it::

        for data, label in mx.callback.progress(train_loader, desc="epoch 1",
                                                batch_size=64):
            ...

    Parameters
    ----------
    iterable : iterable
        What the loop runs over (a DataLoader, a list of batches).
    total : int, optional
        Number of items; taken from ``len(iterable)`` when it has one.
    desc : str
        Text before the bar.
    batch_size : int, optional
        Samples per item: throughput is then shown in samples/s, else in items/s.
    """
    if total is None:
        try:
            total = len(iterable)
        except TypeError:
            total = None
    file = file or sys.stderr
    interactive = _is_terminal(file)
    if use_tqdm or (use_tqdm is None and interactive):
        try:
            from tqdm import tqdm  # optional dependency
        except ImportError:
            if use_tqdm:
                raise
        else:
            scale = batch_size or 1
            unit = "samples" if batch_size else "it"
            with tqdm(total=None if total is None else total * scale, desc=desc, unit=unit,
                      unit_scale=False, file=file) as bar:
                for item in iterable:
                    yield item
                    bar.update(scale)
            return
    yield from _text_progress(iterable, total, desc, batch_size, file,
                              min_interval if interactive else math.inf)


def _is_terminal(file) -> bool:
    isatty = getattr(file, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (OSError, ValueError):  # a closed or detached stream
        return False


def _text_progress(iterable, total, desc, batch_size, file, min_interval):
    # with min_interval = inf (not a terminal) only the final, plain line is written
    start = last = time.time()
    count = 0

    def show(final: bool) -> None:
        elapsed = max(time.time() - start, 1e-9)
        rate = count * (batch_size or 1) / elapsed
        unit = "samples/s" if batch_size else "it/s"
        head = f"{desc} " if desc else ""
        if total:
            line = (f"{head}[{_bar(min(count / total, 1.0), 30)}] {count}/{total} "
                    f"{rate:.1f} {unit}")
        else:
            line = f"{head}{count} {rate:.1f} {unit}"
        file.write(("\r" if min_interval < math.inf else "") + line + ("\n" if final else ""))
        file.flush()

    for item in iterable:
        yield item
        count += 1
        now = time.time()
        if now - last >= min_interval:
            last = now
            show(False)
    show(True)
