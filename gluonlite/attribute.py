"""``mx.AttrScope``: attributes attached to every symbol created inside a ``with`` block."""
from __future__ import annotations

import threading
from collections import defaultdict

__all__ = ["AttrScope"]


class _ThreadCurrentMeta(type):
    """Metaclass of the scope classes (``AttrScope``, ``NameManager``): assigning
    ``Cls.current = scope`` sets the calling thread's current scope (the class's
    ``_current`` thread-local), as MXNet's class property does, instead of replacing
    the per-thread property for every thread."""

    def __setattr__(cls, key, value):
        if key == "current":
            cls._current.value = value
            return
        super().__setattr__(key, value)


class _CurrentProperty:
    def __get__(self, obj, owner):
        local = AttrScope._current
        if not hasattr(local, "value"):
            local.value = AttrScope()
        return local.value


class AttrScope(metaclass=_ThreadCurrentMeta):
    """Attribute scope: string attributes given to the symbols created within it.

    Scopes nest; an inner scope adds to (and overrides) the outer one's attributes.

    Parameters
    ----------
    **kwargs : str
        Attributes such as ``ctx_group='dev1'`` or ``__lr_mult__='2'``.
    """

    _current = threading.local()
    current = _CurrentProperty()
    # how many control-flow subgraphs of each base name were made (``foreach0``, ...)
    _subgraph_names: "defaultdict[str, int]" = defaultdict(int)

    def __init__(self, **kwargs: str) -> None:
        self._old_scope = None
        for value in kwargs.values():
            if not isinstance(value, str):
                raise ValueError("Attributes need to be string")
        self._attr = kwargs

    def get(self, attr: dict | None) -> dict:
        """The scope's attributes updated with ``attr`` (a new dict)."""
        if self._attr:
            ret = self._attr.copy()
            if attr:
                ret.update(attr)
            return ret
        return dict(attr) if attr else {}

    def __enter__(self) -> "AttrScope":
        self._old_scope = AttrScope.current
        merged = self._old_scope._attr.copy()
        merged.update(self._attr)
        self._attr = merged
        AttrScope._current.value = self
        return self

    def __exit__(self, ptype, value, trace) -> None:
        assert self._old_scope is not None
        AttrScope._current.value = self._old_scope
