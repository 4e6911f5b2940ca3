"""``mx.log``: MXNet's colored logger (``get_logger``)."""
from __future__ import annotations

import logging
import sys
import warnings

__all__ = ["get_logger", "getLogger", "CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG",
           "NOTSET"]

CRITICAL = logging.CRITICAL
ERROR = logging.ERROR
WARNING = logging.WARNING
INFO = logging.INFO
DEBUG = logging.DEBUG
NOTSET = logging.NOTSET

_LABELS = {CRITICAL: "C", ERROR: "E", WARNING: "W", INFO: "I", DEBUG: "D"}


class _Formatter(logging.Formatter):
    """``<level letter><mmdd HH:MM:SS> <pid> <path>:<function>:<line>] <message>``,
    red for warnings and worse, green for info, blue below (MXNet's format)."""

    def __init__(self):
        super().__init__(datefmt="%m%d %H:%M:%S")

    def format(self, record: logging.LogRecord) -> str:
        color = "\x1b[31m" if record.levelno >= WARNING else \
            "\x1b[32m" if record.levelno >= INFO else "\x1b[34m"
        self._style._fmt = (color + _LABELS.get(record.levelno, "U")
                            + "%(asctime)s %(process)d %(pathname)s:%(funcName)s:%(lineno)d"
                            "]\x1b[0m %(message)s")
        return super().format(record)


def get_logger(name: str | None = None, filename: str | None = None,
               filemode: str | None = None, level: int = WARNING) -> logging.Logger:
    """A logger with MXNet's format, writing to ``filename`` (mode ``filemode``, ``'a'`` by
    default) or to stderr; called again for a configured name, it only sets the level."""
    logger = logging.getLogger(name)
    if name is not None and not getattr(logger, "_init_done", False):
        logger._init_done = True
        if filename:
            handler = logging.FileHandler(filename, filemode or "a")
        else:
            handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(_Formatter())
        logger.addHandler(handler)
    logger.setLevel(level)
    return logger


def getLogger(name: str | None = None, filename: str | None = None,  # noqa: N802
              filemode: str | None = None, level: int = WARNING) -> logging.Logger:
    """Deprecated name of :func:`get_logger`."""
    warnings.warn("getLogger is deprecated, Use get_logger instead.", DeprecationWarning,
                  stacklevel=2)
    return get_logger(name, filename, filemode, level)
