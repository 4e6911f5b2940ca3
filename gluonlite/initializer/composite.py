"""Initializers that delegate: ``Load`` (saved values by name, a default for the rest) and
``Mixed`` (one initializer per name pattern)."""
from __future__ import annotations

import logging
import re

from ..ndarray import load
from .base import InitAssertionError, InitValueError, create

__all__ = ["Load", "Mixed"]


class Load:
    """Initialize parameters from saved values, by name.

    Parameters
    ----------
    param : str or dict of str to NDArray
        A file written by ``nd.save`` (or a dict); ``arg:`` and ``aux:`` prefixes of
        the names are dropped.
    default_init : Initializer, optional
        Used for parameters not in ``param``.
    verbose : bool
        Log where each parameter came from.
    """

    def __init__(self, param, default_init=None, verbose: bool = False) -> None:
        if isinstance(param, str):
            param = load(param)
        if not isinstance(param, dict):
            raise InitAssertionError("Load initializer needs a dict of named arrays (or a file "
                                     f"saved from one); got {type(param).__name__}")
        self.param = {}
        for name, arr in param.items():
            if name.startswith("arg:") or name.startswith("aux:"):
                name = name[4:]
            self.param[name] = arr
        if isinstance(default_init, (str, dict)):
            default_init = create(default_init)
        self.default_init = default_init
        self.verbose = verbose

    def __call__(self, name, arr) -> None:
        """Copy the saved value of ``name`` into ``arr``, or use the default initializer."""
        if name in self.param:
            saved = self.param[name]
            if tuple(arr.shape) != tuple(saved.shape):
                raise InitAssertionError(
                    f"Parameter {name} cannot be initialized from loading. Shape mismatch, "
                    f"target {tuple(arr.shape)} vs loaded {tuple(saved.shape)}")
            arr[:] = saved
            if self.verbose:
                logging.info("Initialized %s by loading", name)
        else:
            if self.default_init is None:
                raise InitAssertionError(
                    f"Cannot Initialize {name}. Not found in loaded param and no default "
                    "Initializer is provided.")
            self.default_init(name, arr)
            if self.verbose:
                logging.info("Initialized %s by default", name)


class Mixed:
    """Initialize each parameter with the first initializer whose pattern matches its name.

    Parameters
    ----------
    patterns : list of str
        Regular expressions, matched at the start of the name (``re.match``).
    initializers : list of Initializer
        One initializer (or registered name) per pattern.
    """

    def __init__(self, patterns, initializers) -> None:
        if len(patterns) != len(initializers):
            raise InitAssertionError(f"Mixed: {len(patterns)} patterns but "
                                     f"{len(initializers)} initializers")
        inits = [create(i) if isinstance(i, (str, dict)) else i for i in initializers]
        self.map = list(zip([re.compile(p) for p in patterns], inits))

    def __call__(self, name, arr) -> None:
        for prog, init in self.map:
            if prog.match(name):
                init(name, arr)
                return
        raise InitValueError(f"Parameter name {name} did not match any pattern. Consider"
                             'add a ".*" pattern at the and with default Initializer.')
