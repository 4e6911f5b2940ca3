"""Which outputs of AMP's cast operators pass an input through.

MXNet strips ``amp_cast`` and ``amp_multicast`` nodes when it writes a graph
(``Symbol.tojson``/``save`` with ``remove_amp_cast=True``): their readers read the
cast input instead.  Operator knowledge, so it lives with the operators.
"""
from __future__ import annotations

__all__ = ["cast_source"]


def cast_source(op, index: int) -> int | None:
    """The input that output ``index`` of an ``amp_cast``/``amp_multicast`` node is a cast
    of; ``None`` for a variable (``op`` None) or any other operator."""
    if op is None:
        return None
    if op.name == "amp_cast":
        return 0
    if op.name == "amp_multicast":
        return index
    return None
