"""Automatic naming of symbols (``mxnet.name``): ``NameManager`` and ``Prefix``.

An operator created without ``name=`` is named ``<hint><n>``, where the hint is
the lowercased function name (``fullyconnected0``, ``_plus1``) and ``n`` counts
per hint within the current manager.  Managers nest with ``with``.
"""
from __future__ import annotations

import threading

from .attribute import _ThreadCurrentMeta

__all__ = ["NameManager", "Prefix"]


class _CurrentProperty:
    """Class-level property returning the thread's active manager (created on demand)."""

    def __get__(self, obj, owner):
        local = NameManager._current
        if not hasattr(local, "value"):
            local.value = NameManager()
        return local.value


class NameManager(metaclass=_ThreadCurrentMeta):
    """Gives each unnamed symbol a unique name ``<hint><counter>``.

    Use as a context manager to start fresh counters::

        with mx.name.NameManager():
            fc = mx.sym.FullyConnected(data, num_hidden=10)   # fullyconnected0
    """

    _current = threading.local()
    current = _CurrentProperty()

    def __init__(self) -> None:
        self._counter: dict[str, int] = {}
        self._old_manager = None

    def get(self, name: str | None, hint: str) -> str:
        """``name`` when given, else ``hint`` followed by the next counter value for it."""
        if name:
            return name
        n = self._counter.get(hint, 0)
        self._counter[hint] = n + 1
        return f"{hint}{n}"

    def __enter__(self) -> "NameManager":
        self._old_manager = NameManager.current
        NameManager._current.value = self
        return self

    def __exit__(self, ptype, value, trace) -> None:
        assert self._old_manager is not None
        NameManager._current.value = self._old_manager


class Prefix(NameManager):
    """A name manager that prepends ``prefix`` to every name, given or automatic.

    Examples
    --------
    >>> with mx.name.Prefix('mynet_'):
    ...     net = mx.sym.FullyConnected(data, num_hidden=10, name='fc1')
    >>> net.list_arguments()
    ['data', 'mynet_fc1_weight', 'mynet_fc1_bias']
    """

    def __init__(self, prefix: str) -> None:
        super().__init__()
        self._prefix = prefix

    def get(self, name: str | None, hint: str) -> str:
        return self._prefix + super().get(name, hint)
