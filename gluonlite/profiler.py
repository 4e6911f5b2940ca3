"""``mx.profiler``: MXNet's profiler API over gluonlite's operators.

While the profiler runs (``set_state('run')``), every operator call is timed on the
host: imperative calls (``nd.*``), their backward (``_backward_<op>``), and each step
of compiled graphs (hybridized blocks, ``SymbolBlock``, the Module family), forward and
backward.  ``dump()`` writes a Chrome trace (``chrome://tracing``, the format MXNet
writes: ``traceEvents`` with ``B``/``E`` pairs per call); ``dumps()`` gives MXNet's
aggregate statistics as MXNet's table or JSON (``_profiler_stats``), in MXNet's
domains: ``operator``; ``Custom Operator`` for a Python custom operator's own code
(``MySigmoid::pure_python``, ``_backward_MySigmoid::pure_python``) and the operators it
calls (``MySigmoid::_zeros``); a user ``Domain``'s name for its tasks and counters,
``<domain>,frame`` for its frames, ``event`` for events.  User ranges come from
``Domain``, ``Task``, ``Frame``, ``Event``, ``Counter`` and ``Marker``, as in MXNet.

Times are host times: on a GPU an operator is timed when its kernels are launched
(CuPy runs them asynchronously), not when they finish.  Compiled graphs take their
step-by-step path while profiling, which itself adds a little time per step.
MXNet's C-API statistics (``profile_api``, the ``MXNET_C_API`` domain) have no
counterpart here; ``profile_memory`` is accepted, but gluonlite does not track the bytes
in use per device, so the JSON's ``Memory`` section stays empty (as MXNet's is when no
storage was allocated) rather than holding invented numbers.
"""
from __future__ import annotations

import json
import os
import threading
import time
import warnings

from . import _profiler_stats as _stats
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
        self.stats: dict = {}          # domain -> name -> _profiler_stats.Stat
        self.lock = threading.Lock()
        self.clock = time.perf_counter_ns
        self._epoch_ns = time.time_ns() - time.perf_counter_ns()
        self.local = threading.local()  # the custom operators running in this thread

    # the hook the operator paths call: one finished operator call
    def operator(self, name: str, start_ns: int) -> None:
        if self.paused:
            return
        end = self.clock()
        local = self.local
        scopes = getattr(local, "scopes", None)
        if scopes:  # called by a custom operator's Python code
            self.record("Custom Operator", f"{scopes[-1]}::{name}", start_ns, end)
            return
        done = getattr(local, "custom_done", None)
        if done is not None:
            local.custom_done = None
            if start_ns <= done:
                # the call that ran a custom operator: recorded as its ``::pure_python``
                return
        self.record("operator", name, start_ns, end)

    def enter_custom(self, label: str) -> int:
        """A custom operator's Python code starts (``label``: ``op_type`` or
        ``_backward_<op_type>``); returns the start time for :meth:`exit_custom`."""
        scopes = getattr(self.local, "scopes", None)
        if scopes is None:
            scopes = self.local.scopes = []
        scopes.append(label)
        return self.clock()

    def exit_custom(self, label: str, start_ns: int) -> None:
        """The custom operator's code ended: record it as ``<label>::pure_python``; the
        operator call enclosing it (``Custom``, ``_backward_Custom``) is not recorded
        again."""
        self.local.scopes.pop()
        if not self.local.scopes:
            self.local.custom_done = start_ns
        if self.running and not self.paused:
            self.record("Custom Operator", f"{label}::pure_python", start_ns, self.clock())

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
                self._entry(category, name, _stats.DURATION).add_duration(end_ns - start_ns)

    def _entry(self, category: str, name: str, kind: str) -> "_stats.Stat":
        entry = self.stats.setdefault(category, {}).get(name)
        if entry is None:
            entry = self.stats[category][name] = _stats.Stat(kind)
        return entry

    def instant(self, category: str, name: str, scope: str = "process", args=None) -> None:
        ts = (self.clock() + self._epoch_ns) / 1000.0
        event = {"name": name, "cat": category, "ph": "i", "ts": ts, "pid": 0,
                 "tid": threading.get_ident() % (1 << 31), "s": scope[0]}
        if args:
            event["args"] = args
            event["ph"] = "C"
        with self.lock:
            self.events.append(event)
            if self.config.get("aggregate_stats"):
                if args:  # a counter's new value
                    self._entry(category, name, _stats.COUNTER).add_value(args[name])
                else:     # a marker: MXNet lists its domain, with no printable entry
                    self._entry(category, name, _stats.INSTANT)

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


def dumps(reset: bool = False, format: str = "table", sort_by: str = "total",
          ascending: bool = False) -> str:
    """The aggregate statistics (kept with ``set_config(aggregate_stats=True)``) in
    MXNet's layout.

    Parameters
    ----------
    reset : bool
        Clear the statistics after printing them.
    format : {'table', 'json'}
        MXNet's text table, or its JSON document (``Time``: domain -> name ->
        ``Count``/``Total``/``Min``/``Max``/``Avg`` in ms; ``Memory``; ``Unit``).
    sort_by : {'total', 'avg', 'min', 'max', 'count'}
        The statistic the entries of each domain are sorted by.
    ascending : bool
        Sort smallest first (largest first by default).

    Returns
    -------
    str
    """
    if format not in ("table", "json"):
        raise AssertionError(f"Invalid value provided for format: {format}. "
                             "Support: 'table', 'json'")
    if sort_by not in _stats.SORT_KEYS:
        raise AssertionError(f"Invalid value provided for sort_by: {sort_by}. Support: "
                             "'total', 'avg', 'min', 'max', 'count'")
    if ascending not in (True, False):
        raise AssertionError(f"Invalid value provided for ascending: {ascending}. "
                             "Support: False, True")
    with _REC.lock:
        stats = {cat: {name: st.copy() for name, st in names.items()}
                 for cat, names in _REC.stats.items()}
        if reset:
            _REC.stats.clear()
    if format == "json":
        return _stats.format_json(stats, sort_by, bool(ascending))
    return _stats.format_table(stats, sort_by, bool(ascending))


class _CustomScope:
    """Times a Python custom operator's own code while the profiler runs."""

    __slots__ = ("label", "start")

    def __init__(self, label: str):
        self.label = label
        self.start = None

    def __enter__(self) -> "_CustomScope":
        self.start = _REC.enter_custom(self.label)
        return self

    def __exit__(self, *exc) -> bool:
        _REC.exit_custom(self.label, self.start)
        return False


class _NoScope:
    __slots__ = ()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> bool:
        return False


_NO_SCOPE = _NoScope()


def custom_operator_scope(op_type: str, backward: bool = False):
    """The scope ``mx.operator``'s runtime runs a custom operator's ``forward``
    (``backward``) in: while profiling it records ``<op_type>::pure_python``
    (``_backward_<op_type>::pure_python``) in the ``Custom Operator`` domain, and the
    operators called inside as ``<op_type>::<operator>``, as MXNet does.  When the
    profiler is off it does nothing."""
    if not _REC.running:
        return _NO_SCOPE
    return _CustomScope(("_backward_" if backward else "") + op_type)


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
    """A frame of a domain (e.g. one iteration); its statistics are in domain
    ``<domain>,frame``, as in MXNet."""

    def stop(self) -> None:
        if self._start is None:
            raise MXNetError(f"profiler: Frame '{self.name}' stopped before it was started")
        if _REC.running and not _REC.paused:
            _REC.record(f"{self.domain},frame", self.name, self._start, _REC.clock())
        self._start = None


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
            _REC.instant(f"{self.domain},instant_marker", self.name, scope=scope)
