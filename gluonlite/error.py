"""``mx.error``: MXNet's error classes and ``register``.

MXNet maps error names raised in its C++ core to Python classes through this table.
gluonlite raises Python exceptions directly; the table still answers which class a
name stands for (:func:`error_class`), so code that registers its own errors runs."""
from __future__ import annotations

from .base import MXNetError

__all__ = ["MXNetError", "register", "register_error", "InternalError", "error_class"]

_ERRORS: dict = {}


def register_error(func_name=None, cls=None):
    """Register an error class under a name: ``register_error(cls)``,
    ``register_error("Name", cls)`` or as a decorator ``@register_error``/
    ``@register_error("Name")``."""
    if isinstance(func_name, type):
        cls, func_name = func_name, func_name.__name__

    def do_register(klass):
        _ERRORS[func_name if func_name is not None else klass.__name__] = klass
        return klass

    return do_register if cls is None else do_register(cls)


register = register_error


def error_class(name: str) -> type:
    """The class registered under ``name`` (``MXNetError`` when none is)."""
    return _ERRORS.get(name, MXNetError)


@register_error
class InternalError(MXNetError):
    """An internal error: a bug in the library rather than in the caller's code."""

    def __init__(self, msg: str):
        if "MXNet hint:" not in msg:
            msg += ("\nMXNet hint: You hit an internal error. Please report it to the "
                    "gluonlite developers.")
        super().__init__(msg)


for _cls in (ValueError, TypeError, AttributeError, IndexError, NotImplementedError):
    register_error(_cls.__name__, _cls)
