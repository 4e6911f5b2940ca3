"""``mx.kv``: the single-process key-value store (``local`` and ``device``).

A store holds one array per key.  ``push`` sums the values given for a key (one per
device) and either stores the sum or, once an optimizer is set, applies it to the
stored weight through an :class:`~gluonlite.optimizer.Updater`; ``pull`` copies the
stored value to each output.  ``device`` differs from ``local`` in MXNet only by where
the sum is computed; here both sum on the device of the first value.  Stores that
span processes (``dist_*``, ``nccl``, Horovod) are not in gluonlite yet.

Sparse values follow MXNet: ``row_sparse`` values pushed for one key are summed
with ``add_n`` (the union of their rows); without an updater the sum replaces the
stored value (storage type included), with one the updater gets the ``row_sparse``
sum.  ``pull`` skips ``row_sparse`` outputs unless ``ignore_sparse=False``, and
``row_sparse_pull`` fills ``row_sparse`` outputs with the requested rows of a
``row_sparse`` stored value.
"""
from __future__ import annotations

import warnings

import numpy as np

from ..base import MXNetError, write_atomically
from ..ndarray import NDArray
from .. import optimizer as opt
from .base import KVStoreBase, _as_list

__all__ = ["KVStore"]



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
        """The sum of ``vals`` on the stored value's device (a new array: never one of
        ``vals``); ``row_sparse`` values are summed as ``row_sparse``."""
        for v in vals:
            if v.shape != stored.shape:
                raise MXNetError(f"KVStore.push: value of shape {v.shape} for key {key!r} "
                                 f"whose stored shape is {stored.shape}")
        ctx = stored.context
        if any(v.stype != "default" for v in vals):
            if len(vals) == 1:
                return vals[0].copyto(ctx)
            from ..ndarray import add_n
            return add_n(*[v.as_in_context(ctx) for v in vals])
        total = vals[0].copyto(ctx)
        for v in vals[1:]:
            total += v.as_in_context(ctx)
        return total

    def push(self, key, value, priority: int = 0) -> None:
        """Sum the values of each key and store the sum or apply it with the updater.

        Without an updater the sum replaces the stored value, taking its storage type
        (a pushed ``row_sparse`` gradient makes the stored value ``row_sparse``)."""
        keys, values = self._keys_values(key, value, "push")
        for k, vals in zip(keys, values):
            stored = self._stored(k, "push")
            merged = self._sum(vals, k, stored)
            if self._updater is not None:
                self._updater(k, merged, stored)
            elif merged.stype != stored.stype:
                self._store[k] = merged
            else:
                merged.copyto(stored)

    def pull(self, key, out=None, priority: int = 0, ignore_sparse: bool = True) -> None:
        """Copy each key's stored value to its output array(s), cast to each output's
        storage type; ``row_sparse`` outputs are skipped when ``ignore_sparse``
        (use :meth:`row_sparse_pull` for them)."""
        if out is None:
            raise MXNetError("KVStore.pull: out is required")
        keys, outs = self._keys_values(key, out, "pull")
        for k, targets in zip(keys, outs):
            stored = self._stored(k, "pull")
            for t in targets:
                if t.stype != "default" and ignore_sparse:
                    warnings.warn("non-default weights detected during kvstore pull. This "
                                  "call has been ignored. Please make sure to use "
                                  "kv.row_sparse_pull() or module.prepare() with row_ids.",
                                  stacklevel=2)
                    continue
                stored.copyto(t)

    def pushpull(self, key, value, out=None, priority: int = 0) -> None:
        """``push`` then ``pull``; without ``out`` the result goes back into ``value``."""
        self.push(key, value, priority)
        self.pull(key, value if out is None else out, priority)

    def broadcast(self, key, value, out, priority: int = 0) -> None:
        """``init`` with ``value`` then ``pull`` into ``out``.

        An output that is ``value`` itself already holds the value and is not written
        (so its version does not change under a recorded graph that uses it)."""
        self.init(key, value)
        keys, values = self._keys_values(key, value, "broadcast")
        _, outs = self._keys_values(key, out, "broadcast")
        for k, vals, targets in zip(keys, values, outs):
            targets = [t for t in targets if not any(t is v for v in vals)]
            if targets:
                self.pull(k, targets, priority, ignore_sparse=False)

    def row_sparse_pull(self, key, out=None, priority: int = 0, row_ids=None) -> None:
        """Fill ``row_sparse`` outputs with rows of the stored ``row_sparse`` value.

        Parameters
        ----------
        key : int or str, or a list of them
            Key(s) of ``row_sparse`` stored values.
        out : RowSparseNDArray or list (one per device; a list of lists for several keys)
            Outputs; each receives exactly the unique sorted ``row_ids`` as its rows
            (zero where the stored value holds nothing).
        priority : int
            Ignored (operations run in order).
        row_ids : NDArray or list of NDArray
            Row indices, one array per output, or one for all outputs.
        """
        if out is None:
            raise MXNetError("KVStore.row_sparse_pull: out is required")
        if row_ids is None:
            raise MXNetError("KVStore.row_sparse_pull: row_ids is required")
        if isinstance(row_ids, NDArray):
            row_ids = [row_ids]
        if not isinstance(row_ids, (list, tuple)):
            raise MXNetError("KVStore.row_sparse_pull: row_ids should be NDArray or list of "
                             "NDArray")
        keys, outs = self._keys_values(key, out, "row_sparse_pull")
        flat_outs = [t for targets in outs for t in targets]
        if len(row_ids) == 1:
            row_ids = list(row_ids) * len(flat_outs)
        else:
            flat_ids = []
            for r in row_ids:
                flat_ids.extend(_as_list(r))
            row_ids = flat_ids
        if len(row_ids) != len(flat_outs):
            raise MXNetError(f"KVStore.row_sparse_pull: {len(row_ids)} row_ids for "
                             f"{len(flat_outs)} outputs: the number of row_ids doesn't match "
                             f"the number of values")
        pos = 0
        for k, targets in zip(keys, outs):
            stored = self._stored(k, "row_sparse_pull")
            if stored.stype != "row_sparse":
                raise MXNetError(f"KVStore.row_sparse_pull: key {k!r} holds a "
                                 f"{stored.stype} value; row_sparse_pull expects a "
                                 f"row_sparse stored value")
            for t in targets:
                rows = row_ids[pos]
                pos += 1
                if t.stype != "row_sparse":
                    raise MXNetError(f"KVStore.row_sparse_pull: expected row_sparse outputs "
                                     f"for key {k!r}, got storage type {t.stype}")
                if t.shape != stored.shape:
                    raise MXNetError(f"KVStore.row_sparse_pull: output of shape {t.shape} "
                                     f"for key {k!r} whose stored shape is {stored.shape}")
                t._assign_raw(_gather_rows(stored, rows, t.context).handle)

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


def _gather_rows(stored, row_ids: NDArray, ctx):
    """A row_sparse array on ``ctx`` holding rows ``unique(row_ids)`` (sorted) of the
    row_sparse ``stored`` value; rows it does not hold are zero (MXNet's
    ``row_sparse_pull``)."""
    from ..ndarray import sparse
    rows = np.unique(row_ids.asnumpy().astype(np.int64).reshape(-1))
    n_rows = stored.shape[0]
    if rows.size and (rows[0] < 0 or rows[-1] >= n_rows):
        raise MXNetError(f"KVStore.row_sparse_pull: row ids must be in [0, {n_rows}), got "
                         f"values from {rows[0]} to {rows[-1]}")
    held = stored.indices.asnumpy()
    values = stored.data.asnumpy()
    out = np.zeros((rows.size,) + tuple(stored.shape[1:]), dtype=values.dtype)
    where = np.searchsorted(held, rows)
    found = where < held.size
    found[found] = held[where[found]] == rows[found]
    out[found] = values[where[found]]
    return sparse.row_sparse_array((out, rows), shape=stored.shape, ctx=ctx,
                                   dtype=values.dtype)
