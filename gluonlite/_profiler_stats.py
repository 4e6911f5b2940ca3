"""The profiler's aggregate statistics and their two print forms (``profiler.dumps``).

Statistics are kept per domain (``operator``, ``Custom Operator``, a user
``Domain``'s name, ``event``, ...) and per name inside a domain, as MXNet keeps
them.  A *duration* entry counts calls and sums their times; a *counter* entry
(``profiler.Counter``) counts value changes and keeps the last, smallest, largest
value and their sum.  ``dumps`` prints them in MXNet 1.9's layout: domains in
byte order of their names, entries sorted by the chosen statistic, ties broken by
name (descending, as MXNet's heap gives them), the table's column widths, and the
JSON document's ``Time``/``Memory``/``Unit`` sections.

Where MXNet's numbers are artefacts of its implementation, the mathematics wins:
a counter's ``Avg`` is the mean of the values it took (MXNet prints half the range)
and counter values are printed as set (MXNet divides them by 1000, as if they were
microseconds).  Memory domains (``Device Storage``) are printed in MXNet's form
when they hold entries; gluonlite records none (see ``gluonlite.profiler``).
"""
from __future__ import annotations

import numpy as np

__all__ = ["Stat", "SORT_KEYS", "MEMORY_DOMAINS", "format_table", "format_json"]

SORT_KEYS = ("total", "avg", "min", "max", "count")
MEMORY_DOMAINS = ("Device Storage", "Pool Memory")

DURATION, COUNTER, INSTANT = "duration", "counter", "instant"


class Stat:
    """One entry: durations in nanoseconds, or a counter's values (bytes for memory)."""

    __slots__ = ("kind", "count", "total", "low", "high", "sum")

    def __init__(self, kind: str):
        self.kind = kind
        self.count = 0
        self.total = 0       # durations: their sum; counters: the last value
        self.low = None
        self.high = None
        self.sum = 0         # counters: the sum of the values (for the mean)

    def add_duration(self, ns: int) -> None:
        self.count += 1
        self.total += ns
        self._extend(ns)

    def add_value(self, value) -> None:
        self.count += 1
        self.total = value
        self.sum += value
        self._extend(value)

    def _extend(self, v) -> None:
        self.low = v if self.low is None or v < self.low else self.low
        self.high = v if self.high is None or v > self.high else self.high

    def copy(self) -> "Stat":
        other = Stat(self.kind)
        for slot in self.__slots__:
            setattr(other, slot, getattr(self, slot))
        return other

    def printed(self, memory: bool) -> dict:
        """``Count``, ``Total``, ``Min``, ``Max``, ``Avg`` as printed: milliseconds for
        durations, kB for memory counters, a user counter's values as they are."""
        if self.kind == DURATION:
            scale = 1e-6
            avg = self.total / self.count
        else:
            scale = 1e-3 if memory else 1.0
            avg = self.sum / self.count
        return {"Count": self.count, "Total": self.total * scale,
                "Min": (self.low or 0) * scale, "Max": (self.high or 0) * scale,
                "Avg": avg * scale}


def _sorted(entries: dict, sort_by: str, ascending: bool, memory: bool) -> list:
    """``(name, printed)`` pairs in MXNet's order: by the statistic (descending unless
    ``ascending``), ties by name descending."""
    key = {"total": "Total", "avg": "Avg", "min": "Min", "max": "Max",
           "count": "Count"}[sort_by]
    rows = [(name, st.printed(memory)) for name, st in entries.items()
            if st.kind != INSTANT and st.count]
    sign = -1.0 if ascending else 1.0
    rows.sort(key=lambda r: (sign * r[1][key], r[0]), reverse=True)
    return rows


def _g4(value) -> str:
    """A number as C++ streams print a ``float`` with precision 4 (``%.4g``)."""
    text = "%.4g" % np.float32(value)
    return "0" if text == "-0" else text


def format_table(stats: dict, sort_by: str, ascending: bool) -> str:
    """MXNet's aggregate table (``dumps(format='table')``)."""
    lines = ["", "Profile Statistics:", "\tNote the difference in units for different entries."]
    for domain in sorted(stats, key=lambda s: s.encode("utf-8")):
        memory = domain in MEMORY_DOMAINS
        lines += [domain, "=" * 17]
        if memory:
            head = ("Min Use  (kB)", "Max Use  (kB)", "Avg Use  (kB)")
            lines.append(f"{'Name':<25}{'Total Count':>16} " + " ".join(f"{h:>16}" for h in head))
            lines.append(f"{'----':<25}{'-----------':>16} "
                         + " ".join(f"{'-------------':>16}" for _ in head))
        else:
            head = ("Time (ms)", "Min Time (ms)", "Max Time (ms)", "Avg Time (ms)")
            lines.append(f"{'Name':<25}{'Total Count':>16} " + " ".join(f"{h:>16}" for h in head))
            lines.append(f"{'----':<25}{'-----------':>16} " + f"{'---------':>16} "
                         + " ".join(f"{'-------------':>16}" for _ in head[1:]))
        for name, p in _sorted(stats[domain], sort_by, ascending, memory):
            cols = ("Min", "Max", "Avg") if memory else ("Total", "Min", "Max", "Avg")
            lines.append(f"{name:<25}{p['Count']:>16} "
                         + " ".join(f"{float(np.float32(p[c])):>16.4f}" for c in cols))
        lines.append("")
    return "\n".join(lines) + "\n"


def format_json(stats: dict, sort_by: str, ascending: bool) -> str:
    """MXNet's aggregate JSON document (``dumps(format='json')``), laid out as MXNet
    writes it."""
    sections = {False: [], True: []}
    for domain in sorted(stats, key=lambda s: s.encode("utf-8")):
        memory = domain in MEMORY_DOMAINS
        out = sections[memory]
        if out:
            out.append("        ,")
        out.append(f'        "{domain}": {{')
        first = True
        for name, p in _sorted(stats[domain], sort_by, ascending, memory):
            if not first:
                out.append("            ,")
            first = False
            out.append(f'            "{name}": {{')
            out.append(f'                "Count": {p["Count"]},')
            if not memory:
                out.append(f'                "Total": {_g4(p["Total"])},')
            out.append(f'                "Min": {_g4(p["Min"])},')
            out.append(f'                "Max": {_g4(p["Max"])},')
            out.append(f'                "Avg": {_g4(p["Avg"])}')
            out.append("            }")
        out.append("        }")
    lines = ["{", '    "Time": {', *sections[False], "    }", "    ,", '    "Memory": {',
             *sections[True], "    }", ",", '    "Unit": {', '        "Time": "ms",',
             '        "Memory": "kB"', "    }", "}"]
    return "\n".join(lines) + "\n"
