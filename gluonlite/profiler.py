"""``mx.profiler``: MXNet's profiler API over gluonlite's operators.

While the profiler runs (``set_state('run')``), every operator call is timed on the
host: imperative calls (``nd.*``), their backward (``_backward_<op>``), and each step
of compiled graphs (hybridized blocks, ``SymbolBlock``, the Module family), forward and
backward.  ``dump()`` writes a Chrome trace (``chrome://tracing``, the format MXNet
writes: ``traceEvents`` with ``B``/``E`` pairs per call); ``dumps()`` gives MXNet's
aggregate table (or JSON).  User ranges come from ``Domain``, ``Task``, ``Frame``,
``Event``, ``Counter`` and ``Marker``, as in MXNet.

Times are host times: on a GPU an operator is timed when its kernels are launched
(CuPy runs them asynchronously), not when they finish.  Compiled graphs take their
step-by-step path while profiling, which itself adds a little time per step.
Memory and C-API statistics of MXNet (``profile_memory``, ``profile_api``) have no
counterpart here and are accepted and ignored.
"""
from __future__ import annotations

import json
import os
import threading
import time
import warnings

from .base import MXNetError, write_atomically

__all__ = ["set_config", "set_state", "dump", "dumps", "pause", "resume", "Domain",
           "Task", "Frame", "Event", "Counter", "Marker", "profiler_set_config",
           "profiler_set_state", "dump_profile", "set_kvstore_handle"]

_CONFIG_KEYS = ("filename", "profile_all", "profile_symbolic", "profile_imperative",
                "profile_memory", "profile_api", "continuous_dump", "dump_period",
                "aggregate_stats", "profile_process")


class _Recorder:
    """Events and aggregate statistics of one profiling session (a process singleton)."""

    def __init__(self):
        self.config = {"filename": "profile.json", "profile_symbolic": True,
                       "profile_imperative": True, "aggregate_stats": False}
        self.running = False
        self.paused = False
        self.events: list = []
        self.stats: dict = {}          # category -> name -> [count, total, min, max] (ns)
        self.lock = threading.Lock()
        self.clock = time.perf_counter_ns
        self._epoch_ns = time.time_ns() - time.perf_counter_ns()

    # the hook the operator paths call: one finished operator call
    def operator(self, name: str, start_ns: int) -> None:
        if self.paused:
            return
        self.record("operator", name, start_ns, self.clock())

    def record(self, category: str, name: str, start_ns: int, end_ns: int,
               pid: int = 0) -> None:
        tid = threading.get_ident() % (1 << 31)
        begin = (start_ns + self._epoch_ns) / 1000.0
        end = (end_ns + self._epoch_ns) / 1000.0
        with self.lock:
            self.events.append({"name": name, "cat": category, "ph": "B", "ts": begin,
                                "pid": pid, "tid": tid})
            self.events.append({"name": name, "cat": category, "ph": "E", "ts": end,
                                "pid": pid, "tid": tid})
            if self.config.get("aggregate_stats"):
                entry = self.stats.setdefault(category, {}).setdefault(
                    name, [0, 0, None, 0])
                took = end_ns - start_ns
                entry[0] += 1
                entry[1] += took
                entry[2] = took if entry[2] is None else min(entry[2], took)
                entry[3] = max(entry[3], took)

    def instant(self, category: str, name: str, scope: str = "process", args=None) -> None:
        ts = (self.clock() + self._epoch_ns) / 1000.0
        event = {"name": name, "cat": category, "ph": "i", "ts": ts, "pid": 0,
                 "tid": threading.get_ident() % (1 << 31), "s": scope[0]}
        if args:
            event["args"] = args
            event["ph"] = "C"
        with self.lock:
            self.events.append(event)

    def install(self, active: bool) -> None:
        """Point the operator paths at this recorder (or detach it)."""
        from .ndarray import invoke
        from . import autograd
        from .engine import backward_plan, plan
        hook = self if active else None
        imperative = active and (self.config.get("profile_all")
                                 or self.config.get("profile_imperative", True))
        symbolic = active and (self.config.get("profile_all")
                               or self.config.get("profile_symbolic", True))
        invoke.profiler = hook if imperative else None
        autograd.profiler = hook if imperative else None
        plan.profiler = hook if symbolic else None
        backward_plan.profiler = hook if symbolic else None


_REC = _Recorder()


def set_config(**kwargs) -> None:
    """Configure the profiler (keyword arguments only, MXNet's names): ``filename``,
    ``profile_all``, ``profile_symbolic``, ``profile_imperative``, ``aggregate_stats``
    (keep the totals ``dumps()`` prints), ``profile_memory``/``profile_api``/
    ``continuous_dump``/``dump_period``/``profile_process`` (accepted, no effect)."""
    unknown = sorted(set(kwargs) - set(_CONFIG_KEYS))
    if unknown:
        raise MXNetError(f"profiler.set_config: unknown arguments {unknown}")
    _REC.config.update(kwargs)
    if _REC.running:
        _REC.install(True)


def profiler_set_config(mode: str = "symbolic", filename: str = "profile.json") -> None:
    """Deprecated form of :func:`set_config` (``mode``: 'symbolic' or 'all')."""
    warnings.warn("profiler.profiler_set_config() is deprecated. Please use "
                  "profiler.set_config() instead", DeprecationWarning, stacklevel=2)
    set_config(profile_all=mode == "all", profile_symbolic=True, filename=filename)


def set_state(state: str = "stop", profile_process: str = "worker") -> None:
    """``'run'`` starts timing operator calls, ``'stop'`` stops."""
    if state not in ("run", "stop"):
        raise MXNetError(f"profiler.set_state: state must be 'run' or 'stop', got {state!r}")
    _REC.running = state == "run"
    _REC.paused = False
    _REC.install(_REC.running)


def profiler_set_state(state: str = "stop") -> None:
    """Deprecated form of :func:`set_state`."""
    warnings.warn("profiler.profiler_set_state() is deprecated. Please use "
                  "profiler.set_state() instead", DeprecationWarning, stacklevel=2)
    set_state(state)


def pause(profile_process: str = "worker") -> None:
    """Stop recording until :func:`resume` (the profiler stays on)."""
    _REC.paused = True


def resume(profile_process: str = "worker") -> None:
    """Record again after :func:`pause`."""
    _REC.paused = False


def dump(finished: bool = True, profile_process: str = "worker") -> None:
    """Write the events so far to the configured file as a Chrome trace (written to a
    temporary name, then renamed); ``finished`` also stops the profiler and clears them."""
    with _REC.lock:
        events = list(_REC.events)
        if finished:
            _REC.events.clear()
    meta = [{"ph": "M", "args": {"name": "cpu/0"}, "pid": 0, "name": "process_name"}]
    payload = json.dumps({"traceEvents": meta + events, "displayTimeUnit": "ms"}, indent=1)
    write_atomically(os.fspath(_REC.config.get("filename", "profile.json")),
                     payload.encode("utf-8"))
    if finished:
        set_state("stop")


def dump_profile() -> None:
    """Deprecated form of :func:`dump`."""
    warnings.warn("profiler.dump_profile() is deprecated. Please use profiler.dump() "
                  "instead", DeprecationWarning, stacklevel=2)
    dump(True)


_SORT = {"total": 1, "avg": None, "min": 2, "max": 3, "count": 0}


def dumps(reset: bool = False, format: str = "table", sort_by: str = "total",
          ascending: bool = False) -> str:
    """The aggregate statistics (with ``set_config(aggregate_stats=True)``) as MXNet's
    table or as JSON; ``reset`` clears them."""
    if format not in ("table", "json"):
        raise AssertionError(f"Invalid value provided for format: {format}. "
                             "Support: 'table', 'json'")
    if sort_by not in _SORT:
        raise AssertionError(f"Invalid value provided for sort_by: {sort_by}. Support: "
                             "'total', 'avg', 'min', 'max', 'count'")
    with _REC.lock:
        stats = {cat: {name: list(v) for name, v in names.items()}
                 for cat, names in _REC.stats.items()}
        if reset:
            _REC.stats.clear()

    def key(item):
        count, total, low, high = item[1]
        k = _SORT[sort_by]
        return total / max(count, 1) if k is None else item[1][k]

    if format == "json":
        out = {"Time": {cat: {name: {"Count": v[0], "Total": v[1] / 1e6,
                                     "Min": (v[2] or 0) / 1e6, "Max": v[3] / 1e6,
                                     "Avg": v[1] / max(v[0], 1) / 1e6}
                              for name, v in sorted(names.items(), key=key,
                                                    reverse=not ascending)}
                        for cat, names in stats.items()},
               "Unit": {"Time": "ms"}}
        return json.dumps(out)
    lines = ["", "Profile Statistics:", "\tNote the difference in units for different "
             "entries."]
    for cat, names in stats.items():
        lines += [cat, "=" * 17,
                  f"{'Name':<30}{'Total Count':>11}{'Time (ms)':>17}{'Min Time (ms)':>17}"
                  f"{'Max Time (ms)':>17}{'Avg Time (ms)':>17}",
                  f"{'----':<30}{'-----------':>11}{'---------':>17}{'-------------':>17}"
                  f"{'-------------':>17}{'-------------':>17}"]
        for name, (count, total, low, high) in sorted(names.items(), key=key,
                                                      reverse=not ascending):
            lines.append(f"{name:<30}{count:>11}{total / 1e6:>17.4f}{(low or 0) / 1e6:>17.4f}"
                         f"{high / 1e6:>17.4f}{total / max(count, 1) / 1e6:>17.4f}")
        lines.append("")
    return "\n".join(lines)


def set_kvstore_handle(handle) -> None:
    """Profiling a distributed kvstore's servers: gluonlite's kvstore is local only."""
    raise MXNetError("profiler: there are no kvstore servers to profile in gluonlite")


# -- user ranges ------------------------------------------------------------------------------
class Domain:
    """A named group of user ranges (``Task``, ``Frame``, ``Counter``, ``Marker``)."""

    def __init__(self, name: str):
        self.name = name

    def __str__(self) -> str:
        return self.name

    def new_task(self, name: str) -> "Task":
        return Task(self, name)

    def new_frame(self, name: str) -> "Frame":
        return Frame(self, name)

    def new_counter(self, name: str, value=None) -> "Counter":
        return Counter(self, name, value)

    def new_marker(self, name: str) -> "Marker":
        return Marker(self, name)


class _Range:
    """A user range recorded between ``start()`` and ``stop()`` while profiling."""

    category = "range"

    def __init__(self, domain, name: str):
        self.domain = domain
        self.name = name
        self._start = None

    def start(self) -> None:
        self._start = _REC.clock()

    def stop(self) -> None:
        if self._start is None:
            raise MXNetError(f"profiler: {type(self).__name__} '{self.name}' stopped before "
                             "it was started")
        if _REC.running and not _REC.paused:
            cat = self.category if self.domain is None else str(self.domain)
            _REC.record(cat, self.name, self._start, _REC.clock())
        self._start = None

    def __str__(self) -> str:
        return self.name


class Task(_Range):
    """A task of a domain (one range per start/stop)."""


class Frame(_Range):
    """A frame of a domain (e.g. one iteration)."""


class Event(_Range):
    """A free-standing range."""

    def __init__(self, name: str):
        super().__init__(None, name)
        self.category = "event"


class Counter:
    """A named value of a domain; every change is recorded while profiling."""

    def __init__(self, domain: Domain, name: str, value=None):
        self.domain = domain
        self.name = name
        self.value = 0
        if value is not None:
            self.set_value(value)

    def set_value(self, value) -> None:
        self.value = value
        if _REC.running and not _REC.paused:
            _REC.instant(str(self.domain), self.name, args={self.name: value})

    def increment(self, delta=1) -> None:
        self.set_value(self.value + delta)

    def decrement(self, delta=1) -> None:
        self.set_value(self.value - delta)

    def __iadd__(self, delta):
        self.increment(delta)
        return self

    def __isub__(self, delta):
        self.decrement(delta)
        return self

    def __str__(self) -> str:
        return self.name


class Marker:
    """An instant in time of a domain."""

    def __init__(self, domain: Domain, name: str):
        self.domain = domain
        self.name = name

    def mark(self, scope: str = "process") -> None:
        if scope not in ("global", "process", "thread", "task", "marker"):
            raise MXNetError(f"profiler.Marker: unknown scope {scope!r}")
        if _REC.running and not _REC.paused:
            _REC.instant(str(self.domain), self.name, scope=scope)
