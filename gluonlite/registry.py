"""``mx.registry``: name-to-class registries behind ``mx.init.create``,
``mx.optimizer.create`` and the like (MXNet 1.9's ``mxnet.registry``).

A registry belongs to a base class.  ``get_register_func`` gives the decorator
that files a subclass under its lowercased class name, ``get_alias_func`` one
that files it under more names, and ``get_create_func`` the factory that turns
an instance, a registered name, a ``'["name", {kwargs}]'`` JSON string, a
``'{"<nickname>": name, ...}'`` JSON string or a dict into an instance.
"""
from __future__ import annotations

import json
import warnings
from typing import Callable, Dict

from .base import MXNetError

__all__ = ["get_registry", "get_register_func", "get_alias_func", "get_create_func",
           "RegistryError"]

_REGISTRY: Dict[type, Dict[str, type]] = {}


class RegistryError(MXNetError, AssertionError):
    """A failed registry look-up; an ``AssertionError`` as in MXNet, and an ``MXNetError``."""


def get_registry(base_class: type) -> Dict[str, type]:
    """A copy of the registry of ``base_class`` (name -> class)."""
    return dict(_REGISTRY.get(base_class, {}))


def get_register_func(base_class: type, nickname: str) -> Callable:
    """The registrator of ``base_class``: ``register(klass, name=None)`` files ``klass``
    under ``name`` (default: its class name), lowercased, and returns ``klass``.

    Parameters
    ----------
    base_class : type
        Base class of the classes that will be registered.
    nickname : str
        Name of the kind of class, used in messages (``'initializer'``).
    """
    registry = _REGISTRY.setdefault(base_class, {})

    def register(klass, name=None):
        if not isinstance(klass, type):
            raise TypeError(f"issubclass() arg 1 must be a class, not {type(klass).__name__}")
        if not issubclass(klass, base_class):
            raise RegistryError(f"Can only register subclass of {base_class.__name__}")
        key = (name if name is not None else klass.__name__).lower()
        old = registry.get(key)
        if old is not None:
            warnings.warn(f"\033[91mNew {nickname} {klass.__module__}.{klass.__name__} "
                          f"registered with name {key} isoverriding existing {nickname} "
                          f"{old.__module__}.{old.__name__}\033[0m", UserWarning, stacklevel=2)
        registry[key] = klass
        return klass

    register.__doc__ = f"Register {nickname} to the {nickname} factory"
    return register


def get_alias_func(base_class: type, nickname: str) -> Callable:
    """The alias decorator of ``base_class``: ``@alias('a', 'b')`` registers the class
    under each given name."""
    register = get_register_func(base_class, nickname)

    def alias(*aliases):
        def reg(klass):
            for name in aliases:
                register(klass, name)
            return klass
        return reg

    alias.__doc__ = "alias registrator"
    return alias


def get_create_func(base_class: type, nickname: str) -> Callable:
    """The factory of ``base_class``: ``create(x, *args, **kwargs)``.

    ``x`` may be an instance (returned as is; no further arguments allowed), a
    registered name (case-insensitive; the arguments go to the constructor),
    ``'["name", {kwargs}]'`` (what ``dumps()`` writes), ``'{"<nickname>": name, ...}'``
    or a dict ``{nickname: name, **kwargs}``.
    """
    registry = _REGISTRY.setdefault(base_class, {})

    def create(*args, **kwargs):
        if args:
            name, args = args[0], args[1:]
        elif nickname in kwargs:
            name = kwargs.pop(nickname)
        else:
            raise RegistryError(f"create() needs the {nickname} to create")
        if isinstance(name, base_class):
            if args or kwargs:
                raise RegistryError(f"{nickname} is already an instance. "
                                    "Additional arguments are invalid")
            return name
        if isinstance(name, dict):
            return create(**name)
        if not isinstance(name, str):
            raise RegistryError(f"{nickname} must be of string type")
        if name.startswith("[") or name.startswith("{"):
            if args or kwargs:
                raise RegistryError(f"{nickname} given as JSON takes no further arguments")
            spec = json.loads(name)
            if isinstance(spec, dict):
                return create(**spec)
            name, kwargs = spec
            return create(name, **kwargs)
        key = name.lower()
        if key not in registry:
            raise RegistryError(f"{key} is not registered. Please register with "
                                f"{nickname}.register first")
        return registry[key](*args, **kwargs)

    create.__doc__ = f"Create a {nickname} instance from config."
    return create
