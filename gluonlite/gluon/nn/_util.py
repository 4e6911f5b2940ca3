"""Small argument helpers shared by the nn layers."""
from __future__ import annotations

import numbers

from ..parameter import _AssertionError


def check(condition: bool, message: str) -> None:
    """Raise MXNet's ``AssertionError`` (also an ``MXNetError``) when ``condition`` fails."""
    if not condition:
        raise _AssertionError(message)


def is_number(value) -> bool:
    """Whether ``value`` is a plain number (``int``, ``float``, numpy scalar)."""
    return isinstance(value, numbers.Number)


def expand(value, ndim: int):
    """``value`` as an ``ndim``-tuple (a number is repeated, a sequence kept as a tuple)."""
    if is_number(value):
        return (value,) * ndim
    return tuple(value)
