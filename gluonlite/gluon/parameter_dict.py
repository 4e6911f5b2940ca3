"""Gluon's ``ParameterDict`` (MXNet 1.9 ``mx.gluon.ParameterDict``).

An ordered mapping of full parameter names (``prefix + name``) to :class:`Parameter`,
with MXNet's creation-or-retrieval rule (:meth:`ParameterDict.get`), sharing with
another dict, and bulk initialize / save / load in MXNet's ``.params`` format.
"""
from __future__ import annotations

import re
from collections import OrderedDict
from typing import Iterable, Optional

import numpy as np

from ..base import MXNetError
from .parameter import (Constant, Parameter, _AssertionError, _KeyError, _TypeError,
                        _ValueError)

__all__ = ["ParameterDict"]

_NAMING_HELP = ("For more info on naming, please see "
                "https://mxnet.io/api/python/docs/tutorials/packages/gluon/blocks/naming.html")


def _brief_print_list(names: Iterable, limit: int = 7) -> str:
    """``'a', 'b', 'c'``; a long list shows its first 3 and last 4 names (MXNet's form)."""
    names = list(names)
    if len(names) > limit:
        head, tail = names[:limit // 2], names[len(names) - (limit + 1) // 2:]
        return _brief_print_list(head, limit) + ", ..., " + _brief_print_list(tail, limit)
    return ", ".join(f"'{n}'" for n in names)


def _indent(text: str, spaces: int) -> str:
    return text.replace("\n", "\n" + " " * spaces)


def _reconcile_shape(wanted, stored):
    """Merged shape if ``wanted`` and ``stored`` agree where both are known, else None."""
    if len(wanted) != len(stored):
        return None
    merged = []
    for w, s in zip(wanted, stored):
        if w == s:
            merged.append(w)
        elif w > 0 and s > 0:
            return None
        elif w in (0, -1):
            merged.append(s)
        else:
            merged.append(w)
    return tuple(merged)


class ParameterDict:
    """Parameters by full name, created or retrieved with a common ``prefix``.

    Parameters
    ----------
    prefix : str
        Prepended to the names given to :meth:`get` and :meth:`get_constant`.
    shared : ParameterDict, optional
        Looked up (by full name) before a new parameter is created.
    """

    def __init__(self, prefix: str = "", shared: Optional["ParameterDict"] = None):
        self._prefix = prefix
        self._params = OrderedDict()
        self._shared = shared

    def __repr__(self) -> str:
        name = self._prefix + " " if self._prefix else ""
        content = "\n".join(_indent(f"  {v}", 2) for v in self.values())
        return f"{name}(\n{content}\n)"

    # -- mapping protocol ------------------------------------------------------------
    def __getitem__(self, key: str) -> Parameter:
        return self._params[key]

    def __iter__(self):
        return iter(self._params)

    def __len__(self) -> int:
        return len(self._params)

    def __bool__(self) -> bool:
        # MXNet's ParameterDict has no __len__ and is always true; keep that for `if params:`
        return True

    def __contains__(self, key) -> bool:
        return key in self._params

    def items(self):
        return self._params.items()

    def keys(self):
        return self._params.keys()

    def values(self):
        return self._params.values()

    @property
    def prefix(self) -> str:
        """Prefix of the names this dict creates."""
        return self._prefix

    # -- creation and retrieval -------------------------------------------------------
    def _get_impl(self, name: str) -> Optional[Parameter]:
        if name in self._params:
            return self._params[name]
        if self._shared is not None and name in self._shared._params:
            self._params[name] = self._shared._params[name]
            return self._params[name]
        return None

    def get(self, name: str, **kwargs) -> Parameter:
        """The parameter ``prefix + name``, created with ``kwargs`` if it does not exist.

        For an existing parameter each keyword must agree with the stored attribute:
        shapes merge where one side has unknown (0) dimensions, dtypes compare as NumPy
        dtypes; attributes that are unset (``None``) or absent are set.
        """
        name = self._prefix + name
        param = self._get_impl(name)
        if param is None:
            param = Parameter(name, **kwargs)
            self._params[name] = param
            return param
        for key, value in kwargs.items():
            existing = getattr(param, key, None)
            if existing is None:
                setattr(param, key, value)
                continue
            if key == "shape" and value is not None:
                value = tuple(value) if not isinstance(value, int) else (value,)
                merged = _reconcile_shape(value, existing)
                if merged is not None:
                    param._shape = merged
                    continue
            elif key == "dtype" and value is not None and np.dtype(value) == np.dtype(existing):
                continue
            if value is not None and not _same(value, existing):
                raise _AssertionError(
                    f"Cannot retrieve Parameter '{name}' because desired attribute does not "
                    f"match with stored for attribute '{key}': desired '{value}' vs stored "
                    f"'{existing}'.")
        return param

    def get_constant(self, name: str, value=None) -> Constant:
        """The constant ``prefix + name``, created with ``value`` if it does not exist;
        an existing one must equal ``value`` when given."""
        name = self._prefix + name
        param = self._get_impl(name)
        if param is None:
            if value is None:
                raise _KeyError(f"No constant named '{name}'. Please specify value if you "
                                f"want to create a new constant.")
            param = Constant(name, value)
            self._params[name] = param
        elif value is not None:
            if not isinstance(param, Constant):
                raise _AssertionError(f"Parameter '{name}' already exists but it is not a "
                                      f"constant.")
            new = value.asnumpy() if hasattr(value, "asnumpy") else np.asarray(value)
            old = param.value.asnumpy()
            if old.shape != new.shape or not (old == new).all():
                raise _AssertionError(f"Constant '{name}' already exists but it's value "
                                      f"doesn't match new value")
        return param

    def update(self, other) -> None:
        """Add the parameters of ``other`` (a ParameterDict or dict); a name already here
        must map to the very same Parameter."""
        for key, value in other.items():
            if key in self._params and self._params[key] is not value:
                raise _AssertionError(f"Cannot update self with other because they have "
                                      f"different Parameters with the same name '{key}'")
        for key, value in other.items():
            self._params[key] = value

    def _select(self, pattern) -> "ParameterDict":
        """A ParameterDict (same prefix) of the parameters whose full name matches the
        regular expression ``pattern`` at its start (``re.match``), as
        ``Block.collect_params(select)`` does; an empty/None pattern selects all."""
        ret = ParameterDict(self._prefix)
        if not pattern:
            ret.update(self)
            return ret
        regex = re.compile(pattern) if isinstance(pattern, str) else pattern
        ret.update(OrderedDict((k, v) for k, v in self.items() if regex.match(k)))
        return ret

    # -- bulk operations --------------------------------------------------------------
    def initialize(self, init=None, ctx=None, verbose: bool = False,
                   force_reinit: bool = False) -> None:
        """Initialize every parameter; ``init`` (default ``Uniform()``) is the default
        initializer: a parameter's own ``init`` takes precedence."""
        if init is None:
            from .. import initializer
            init = initializer.Uniform()
        if verbose and hasattr(init, "set_verbosity"):
            init.set_verbosity(verbose=verbose)
        for param in self.values():
            param.initialize(None, ctx, init, force_reinit=force_reinit)

    def zero_grad(self) -> None:
        """Set every gradient buffer to 0."""
        for param in self.values():
            param.zero_grad()

    def reset_ctx(self, ctx) -> None:
        """Move every parameter to ``ctx``."""
        for param in self.values():
            param.reset_ctx(ctx)

    def list_ctx(self) -> list:
        """The contexts any parameter lives on."""
        seen = []
        for param in self.values():
            for c in param.list_ctx():
                if c not in seen:
                    seen.append(c)
        return seen

    def setattr(self, name: str, value) -> None:
        """Set attribute ``name`` (``grad_req``, ``lr_mult``, ...) on every parameter."""
        for param in self.values():
            setattr(param, name, value)

    # -- files -------------------------------------------------------------------------
    def save(self, filename: str, strip_prefix: str = "") -> None:
        """Save the values (mean over contexts) with ``nd.save``, names less
        ``strip_prefix``."""
        from .. import ndarray
        arrays = OrderedDict()
        for param in self.values():
            if not param.name.startswith(strip_prefix):
                raise _ValueError(
                    f"Prefix '{strip_prefix}' is to be striped before saving, but Parameter's "
                    f"name '{param.name}' does not start with '{strip_prefix}'. this may be "
                    f"due to your Block shares parameters from other Blocks or you forgot to "
                    f"use 'with name_scope()' when creating child blocks. {_NAMING_HELP}")
            arrays[param.name[len(strip_prefix):]] = param._reduce()
        ndarray.save(filename, arrays)

    def load(self, filename: str, ctx=None, allow_missing: bool = False,
             ignore_extra: bool = False, restore_prefix: str = "", cast_dtype: bool = False,
             dtype_source: str = "current") -> None:
        """Load values saved by :meth:`save` (or MXNet; ``arg:``/``aux:`` keys accepted).

        Parameters
        ----------
        filename : str
            File in MXNet's ``.params`` format.
        ctx : Context or list of Context, optional
            Where uninitialized parameters go (default ``cpu()``); initialized ones must
            already live exactly there.
        allow_missing, ignore_extra : bool
            Tolerate parameters absent from the file / names in the file not here.
        restore_prefix : str
            Prepended to the names in the file.
        cast_dtype, dtype_source : bool, {'current', 'saved'}
            Cast on dtype mismatch, to this dict's dtype or to the file's.
        """
        if restore_prefix:
            for name in self.keys():
                if not name.startswith(restore_prefix):
                    raise _AssertionError(
                        f"restore_prefix is '{restore_prefix}' but Parameters name '{name}' "
                        f"does not start with '{restore_prefix}'. {_NAMING_HELP}")
        from .. import ndarray
        loaded = ndarray.load(filename)
        if isinstance(loaded, list) and not loaded:
            loaded = {}  # a file of nothing (nd.save of an empty dict) holds no parameters
        if not isinstance(loaded, dict):
            raise _TypeError(f"ParameterDict.load: file {filename} holds a list of arrays "
                             f"without names; it needs a dict of name to array (nd.save of "
                             f"a dict)")
        self.load_dict(loaded, ctx, allow_missing, ignore_extra, restore_prefix, filename,
                       cast_dtype, dtype_source)

    def load_dict(self, param_dict, ctx=None, allow_missing: bool = False,
                  ignore_extra: bool = False, restore_prefix: str = "",
                  filename: Optional[str] = None, cast_dtype: bool = False,
                  dtype_source: str = "current") -> None:
        """Load values from a dict of name to NDArray (see :meth:`load`)."""
        skip = len(restore_prefix)
        arrays = OrderedDict()
        for key, value in param_dict.items():
            if key.startswith("arg:") or key.startswith("aux:"):
                key = key[4:]
            arrays[restore_prefix + key] = value
        where = f"file: {filename}" if filename else "param_dict"
        if not allow_missing:
            for name in self.keys():
                if name not in arrays:
                    raise _AssertionError(
                        f"Parameter '{name[skip:]}' is missing in {where}, which contains "
                        f"parameters: {_brief_print_list(arrays.keys())}. Please make sure "
                        f"source and target networks have the same prefix.{_NAMING_HELP}")
        if not ignore_extra:
            for name in arrays:
                if name not in self._params:
                    raise _AssertionError(
                        f"Parameter '{name[skip:]}' loaded from {where} is not present in "
                        f"ParameterDict, choices are: {_brief_print_list(self._params.keys())}"
                        f". Set ignore_extra to True to ignore. Please make sure source and "
                        f"target networks have the same prefix.{_NAMING_HELP}")
        for name, value in arrays.items():
            if name in self._params:
                self._params[name]._load_init(value, ctx, cast_dtype=cast_dtype,
                                              dtype_source=dtype_source)


def _same(a, b) -> bool:
    try:
        return bool(a == b)
    except (ValueError, TypeError, MXNetError):  # arrays compare elementwise
        return a is b
