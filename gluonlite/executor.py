"""``mx.executor``: where MXNet users import :class:`Executor` from."""
from .symbol.executor import Executor  # noqa: F401

__all__ = ["Executor"]
