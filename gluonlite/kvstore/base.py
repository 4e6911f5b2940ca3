"""``mx.kvstore.base``: what every key-value store offers, the registry of Python stores,
``TestStore`` (MXNet's minimal Python store) and ``create``, which makes a store by name
(a registered Python store, or the built-in single-process :class:`~.kvstore.KVStore`)."""
from __future__ import annotations

import warnings

from ..base import MXNetError

__all__ = ["KVStoreBase", "TestStore", "create"]

class _NotSupported(MXNetError, NotImplementedError):
    """An operation the store does not offer (MXNet raises ``NotImplementedError``)."""


_TYPES = ("local", "device", "local_allreduce_cpu", "local_allreduce_device", "local_update_cpu")


class KVStoreBase:
    """What every store offers; ``is_capable(KVStoreBase.OPTIMIZER)`` says whether
    updates can run inside the store.  Subclasses registered with :meth:`register`
    are created by name with :func:`create`."""

    OPTIMIZER = "optimizer"
    kv_registry: dict = {}

    @staticmethod
    def register(klass: type) -> type:
        """Make ``klass`` available to :func:`create` under its lower-cased name."""
        if not isinstance(klass, type):
            raise TypeError("KVStoreBase.register expects a class")
        name = klass.__name__.lower()
        if name in KVStoreBase.kv_registry:
            old = KVStoreBase.kv_registry[name]
            warnings.warn(f"WARNING: New kvstore {klass.__module__}.{klass.__name__} is "
                          f"overriding existing kvstore {old.__module__}.{old.__name__}")
        KVStoreBase.kv_registry[name] = klass
        return klass

    @staticmethod
    def is_capable(capability: str) -> bool:
        """Whether the store supports ``capability`` (only ``'optimizer'`` is known)."""
        if capability.lower() != KVStoreBase.OPTIMIZER:
            raise ValueError(f"Unknown capability: {capability}")
        return True

    def set_optimizer(self, optimizer) -> None:
        """Run ``optimizer`` inside the store; stores without the ``'optimizer'``
        capability raise ``NotImplementedError`` (an ``MXNetError``), as in MXNet."""
        raise _NotSupported(f"{type(self).__name__} cannot run an optimizer "
                            "(is_capable('optimizer') is False)")

    def save_optimizer_states(self, fname: str, dump_optimizer: bool = False) -> None:
        """Save the store's optimizer states; see :meth:`set_optimizer`."""
        raise _NotSupported(f"{type(self).__name__} has no optimizer states to save")

    def load_optimizer_states(self, fname: str) -> None:
        """Load the store's optimizer states; see :meth:`set_optimizer`."""
        raise _NotSupported(f"{type(self).__name__} has no optimizer states to load")

    @property
    def rank(self) -> int:
        """This worker's rank: always 0 in one process."""
        return 0

    @property
    def num_workers(self) -> int:
        """Number of workers: always 1 in one process."""
        return 1


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


@KVStoreBase.register
class TestStore(KVStoreBase):
    """MXNet's minimal Python store: ``broadcast`` and ``pushpull`` only, no optimizer
    (so a Trainer using it updates outside the store)."""

    def broadcast(self, key, value, out, priority: int = 0) -> None:
        for o in _as_list(out):
            if o is not value:
                o[:] = value

    def pushpull(self, key, value, out=None, priority: int = 0) -> None:
        values = _as_list(value)
        ctx = values[0].context
        total = values[0].as_in_context(ctx).copy()
        for v in values[1:]:
            total += v.as_in_context(ctx)
        for o in (values if out is None else _as_list(out)):
            o[:] = total

    @staticmethod
    def is_capable(capability: str) -> bool:
        if capability.lower() != KVStoreBase.OPTIMIZER:
            raise ValueError(f"Unknown capability: {capability}")
        return False

    @property
    def type(self) -> str:
        return "teststore"


def create(name: str = "local") -> KVStoreBase:
    """A store of type ``name``: a registered Python store (``'teststore'``),
    ``'local'`` or ``'device'`` (and MXNet's other local variants); multi-process
    types raise ``MXNetError``."""
    if not isinstance(name, str):
        raise TypeError("name must be a string")
    name = name.lower()
    if name in KVStoreBase.kv_registry:
        return KVStoreBase.kv_registry[name]()
    if name in _TYPES:
        from .kvstore import KVStore
        return KVStore(name)
    if name.startswith("dist") or name in ("nccl", "horovod", "byteps"):
        raise MXNetError(f"kvstore '{name}' spans processes or uses NCCL/Horovod; gluonlite "
                         "supports only the single-process 'local' and 'device' stores")
    raise MXNetError(f"Unknown kvstore type '{name}'")
