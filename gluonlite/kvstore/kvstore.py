"""``mx.kv``: the single-process key-value store (``local`` and ``device``).

A store holds one array per key.  ``push`` sums the values given for a key (one per
device) and either stores the sum or, once an optimizer is set, applies it to the
stored weight through an :class:`~gluonlite.optimizer.Updater`; ``pull`` copies the
stored value to each output.  ``device`` differs from ``local`` in MXNet only by where
the sum is computed; here both sum on the device of the first value.  Stores that
span processes (``dist_*``, ``nccl``, Horovod) are not in gluonlite yet.
"""
from __future__ import annotations

import warnings

from ..base import MXNetError, write_atomically
from ..ndarray import NDArray
from .. import optimizer as opt

__all__ = ["KVStoreBase", "KVStore", "TestStore", "create"]

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


class KVStore(KVStoreBase):
    """A store in this process, for one or several devices.

    Parameters
    ----------
    kvstore_type : str
        ``'local'`` or ``'device'`` (and MXNet's other local names).
    """

    def __init__(self, kvstore_type: str = "local"):
        self._type = kvstore_type
        self._store: dict = {}
        self._updater = None
        self._key_type = None
        self._compression: dict = {}

    # -- properties -----------------------------------------------------------------
    @property
    def type(self) -> str:
        """The store's type string."""
        return self._type

    # -- keys -----------------------------------------------------------------------
    def _keys_values(self, key, value, what: str):
        """Pair each key with its list of values (one per device)."""
        if isinstance(key, (list, tuple)):
            keys = list(key)
            values = list(value)
            if len(keys) != len(values):
                raise MXNetError(f"KVStore.{what}: {len(keys)} keys for {len(values)} values")
            values = [_as_list(v) for v in values]
        else:
            keys, values = [key], [_as_list(value)]
        for k in keys:
            self._check_key(k, what)
        return keys, values

    def _check_key(self, key, what: str) -> None:
        kind = str if isinstance(key, str) else int if isinstance(key, int) else None
        if kind is None:
            raise MXNetError(f"KVStore.{what}: keys must be int or str, got "
                             f"{type(key).__name__}")
        if self._key_type is None:
            self._key_type = kind
        elif kind is not self._key_type:
            raise MXNetError(f"KVStore.{what}: key {key!r} is a {kind.__name__} but this "
                             f"store uses {self._key_type.__name__} keys")

    def _stored(self, key, what: str) -> NDArray:
        if key not in self._store:
            raise MXNetError(f"KVStore.{what}: key {key!r} has not been initialized "
                             "(call init first)")
        return self._store[key]

    # -- data ---------------------------------------------------------------------------
    def init(self, key, value) -> None:
        """Store the initial value(s); a key cannot be initialized twice."""
        keys, values = self._keys_values(key, value, "init")
        for k, vals in zip(keys, values):
            if k in self._store:
                raise MXNetError(f"KVStore.init: duplicate init of key {k!r}")
            self._store[k] = vals[0].copy()

    @staticmethod
    def _sum(vals: list, key, stored: NDArray) -> NDArray:
        for v in vals:
            if v.shape != stored.shape:
                raise MXNetError(f"KVStore.push: value of shape {v.shape} for key {key!r} "
                                 f"whose stored shape is {stored.shape}")
        if len(vals) == 1:
            return vals[0].as_in_context(stored.context)
        total = vals[0].copyto(stored.context)
        for v in vals[1:]:
            total += v.as_in_context(stored.context)
        return total

    def push(self, key, value, priority: int = 0) -> None:
        """Sum the values of each key and store the sum or apply it with the updater."""
        keys, values = self._keys_values(key, value, "push")
        for k, vals in zip(keys, values):
            stored = self._stored(k, "push")
            merged = self._sum(vals, k, stored)
            if self._updater is not None:
                self._updater(k, merged, stored)
            else:
                stored[:] = merged

    def pull(self, key, out=None, priority: int = 0, ignore_sparse: bool = True) -> None:
        """Copy each key's stored value to its output array(s)."""
        if out is None:
            raise MXNetError("KVStore.pull: out is required")
        keys, outs = self._keys_values(key, out, "pull")
        for k, targets in zip(keys, outs):
            stored = self._stored(k, "pull")
            for t in targets:
                stored.copyto(t)

    def pushpull(self, key, value, out=None, priority: int = 0) -> None:
        """``push`` then ``pull``; without ``out`` the result goes back into ``value``."""
        self.push(key, value, priority)
        self.pull(key, value if out is None else out, priority)

    def broadcast(self, key, value, out, priority: int = 0) -> None:
        """``init`` with ``value`` then ``pull`` into ``out``."""
        self.init(key, value)
        self.pull(key, out, priority)

    def row_sparse_pull(self, key, out=None, priority: int = 0, row_ids=None):
        raise MXNetError("KVStore.row_sparse_pull: gluonlite has no sparse storage")

    # -- optimizer ----------------------------------------------------------------------
    def set_gradient_compression(self, compression_params: dict) -> None:
        """MXNet compresses gradients only for device and distributed stores; gluonlite
        sums in full precision, so only ``{'type': 'none'}`` is accepted."""
        kind = str(compression_params.get("type", "none")).lower()
        if kind != "none":
            raise MXNetError(f"KVStore.set_gradient_compression: compression type '{kind}' "
                             "is not supported by gluonlite's single-process store")
        self._compression = dict(compression_params)

    def set_optimizer(self, optimizer) -> None:
        """Run updates inside the store with ``optimizer``."""
        if not isinstance(optimizer, opt.Optimizer):
            raise MXNetError("KVStore.set_optimizer: expects an Optimizer, got "
                             f"{type(optimizer).__name__}")
        self._set_updater(opt.get_updater(optimizer))

    def _set_updater(self, updater) -> None:
        self._updater = updater

    def save_optimizer_states(self, fname: str, dump_optimizer: bool = False) -> None:
        """Write the updater's states (written to a temporary name, then renamed)."""
        if self._updater is None:
            raise MXNetError("KVStore.save_optimizer_states: no optimizer is set")
        write_atomically(fname, self._updater.get_states(dump_optimizer))

    def load_optimizer_states(self, fname: str) -> None:
        """Read states written by :meth:`save_optimizer_states` (or MXNet)."""
        if self._updater is None:
            raise MXNetError("KVStore.load_optimizer_states: no optimizer is set")
        with open(fname, "rb") as f:
            self._updater.set_states(f.read())

    def _barrier(self) -> None:
        """Nothing to wait for in one process."""

    def _send_command_to_servers(self, head, body) -> None:
        raise MXNetError("KVStore: there are no servers in a single-process store")


@KVStoreBase.register
class TestStore(KVStoreBase):
    """MXNet's minimal Python store: ``broadcast`` and ``pushpull`` only, no optimizer
    (so a Trainer using it updates outside the store)."""

    def broadcast(self, key, value, out, priority: int = 0) -> None:
        for o in _as_list(out):
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

    def set_optimizer(self, optimizer) -> None:
        raise MXNetError("TestStore cannot run an optimizer")


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
        return KVStore(name)
    if name.startswith("dist") or name in ("nccl", "horovod", "byteps"):
        raise MXNetError(f"kvstore '{name}' spans processes or uses NCCL/Horovod; gluonlite "
                         "supports only the single-process 'local' and 'device' stores")
    raise MXNetError(f"Unknown kvstore type '{name}'")

