"""``mx.mon.Monitor``: statistics of every node output of an Executor, per batch.

The Executor runs its CachedOp in monitor mode once a callback is installed (no
buffer reuse, no fusion), so every node output reaches :meth:`Monitor.stat_helper`
under MXNet's name (``fc_output``, ``bn_mean``; with ``monitor_all`` also the
inputs).  Gradients computed in backward are not reported: MXNet's backward nodes
(``fc_backward_output0``) have no counterpart in our backward plan.
"""
from __future__ import annotations

import logging
import math
import re
from typing import Callable

from . import ndarray as nd

__all__ = ["Monitor"]


def _default_stat(x):
    """``norm(x) / sqrt(size)``, MXNet's default statistic."""
    return nd.norm(x) / math.sqrt(x.size)


class Monitor:
    """Collect a statistic of the outputs (and arguments) of installed executors.

    Parameters
    ----------
    interval : int
        Collect on every ``interval``-th batch (``tic`` call).
    stat_func : callable, optional
        ``f(NDArray) -> NDArray`` (or a list of them); default ``norm(x)/sqrt(x.size)``.
    pattern : str
        Regular expression (``re.match``) on the names to collect.
    sort : bool
        Sort the results by name.
    monitor_all : bool
        Also collect every node's inputs.
    """

    def __init__(self, interval: int, stat_func: Callable | None = None, pattern: str = ".*",
                 sort: bool = False, monitor_all: bool = False):
        self.stat_func = stat_func if stat_func is not None else _default_stat
        self.interval = interval
        self.activated = False
        self.queue: list = []
        self.step = 0
        self.exes: list = []
        self.re_prog = re.compile(pattern)
        self.sort = sort
        self.monitor_all = monitor_all

    def stat_helper(self, name, array) -> None:
        """The executor callback: record ``stat_func(array)`` for a matching name."""
        if isinstance(name, bytes):
            name = name.decode()
        if not self.activated or not self.re_prog.match(name):
            return
        self.queue.append((self.step, name, self.stat_func(array)))

    def install(self, exe) -> None:
        """Install the callback on an executor (several executors may share a monitor)."""
        exe.set_monitor_callback(self.stat_helper, self.monitor_all)
        self.exes.append(exe)

    def tic(self) -> None:
        """Start collecting for the current batch; call before ``forward``."""
        if self.step % self.interval == 0:
            self.queue = []
            self.activated = True
        self.step += 1

    def toc(self) -> list:
        """Stop collecting; return ``[(step, name, 'value\\t...'), ...]`` for the batch,
        the executors' matching arguments last."""
        if not self.activated:
            return []
        for exe in self.exes:
            for name, array in zip(exe._symbol.list_arguments(), exe.arg_arrays):
                if self.re_prog.match(name):
                    self.queue.append((self.step, name, self.stat_func(array)))
        self.activated = False
        if self.sort:
            self.queue.sort(key=lambda item: item[1])
        res = []
        for step, name, values in self.queue:
            if not isinstance(values, (list, tuple)):
                values = [values]
            text = ""
            for v in values:
                if v.shape in ((1,), ()):
                    text += str(v.asscalar()) + "\t"
                else:
                    text += str(v.asnumpy()) + "\t"
            res.append((step, name, text))
        self.queue = []
        return res

    def toc_print(self) -> None:
        """Stop collecting and log the results (``logging.info``)."""
        for step, name, text in self.toc():
            logging.info("Batch: {:7d} {:30s} {:s}".format(step, name, text))
