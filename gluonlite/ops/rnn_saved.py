"""Hand the ``RNN`` operator's forward caches to its backward.

Back-propagation through time needs every step's gates and states.  Without this
module the backward reruns the whole forward to rebuild them (a third of the
work of a training step).  A forward run in training mode keeps its caches here,
keyed by the identity of its first output; the backward whose ``outputs[0]`` and
inputs are the very same array objects takes them (MXNet keeps the same thing,
its "reserve space", between the two passes).  Anything else (no entry, an entry
pushed out, other arrays, a second backward over a retained graph) makes the
backward recompute the forward, so this is only ever a shortcut.

At most :data:`MAX_ENTRIES` entries are held (oldest dropped first): a forward in
training mode whose backward never runs holds its caches only until a few more
``RNN`` calls have pushed them out.
"""
from __future__ import annotations

import threading
from collections import OrderedDict

MAX_ENTRIES = 4

_entries: "OrderedDict[int, tuple]" = OrderedDict()
_lock = threading.Lock()


def save(out0, inputs, payload) -> None:
    """Keep ``payload`` for the backward of the call that produced ``out0`` from ``inputs``."""
    with _lock:
        # strong references to out0 and the inputs: their ids cannot be reused meanwhile
        _entries[id(out0)] = (out0, tuple(inputs), payload)
        _entries.move_to_end(id(out0))
        while len(_entries) > MAX_ENTRIES:
            _entries.popitem(last=False)


def forget(out0) -> None:
    """Drop any entry keyed by ``out0`` (a new forward wrote into it without caching)."""
    if _entries:
        with _lock:
            _entries.pop(id(out0), None)


def take(out0, inputs):
    """The payload saved for (``out0``, ``inputs``), removed from the store; else ``None``."""
    with _lock:
        entry = _entries.get(id(out0))
        if entry is None or entry[0] is not out0 or len(entry[1]) != len(inputs):
            return None
        if any(a is not b for a, b in zip(entry[1], inputs)):
            return None
        del _entries[id(out0)]
    return entry[2]


def clear() -> None:
    """Drop every entry (tests, or to release memory at once)."""
    with _lock:
        _entries.clear()
