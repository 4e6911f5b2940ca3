"""``Updater``: applies an optimizer to weights by index and keeps their states.

``get_states``/``set_states`` use MXNet's pickled layout: the pickle of the states
dict, or of ``(states, optimizer)`` with ``dump_optimizer=True``.  Loading goes through
a restricted unpickler: it builds only NDArrays, optimizers, learning-rate schedulers
and plain containers, and maps the ``mxnet.*`` classes of a file MXNet wrote to
gluonlite's, so a ``.states`` file from MXNet loads (and a tampered file cannot run
code).
"""
from __future__ import annotations

import io
import pickle

from ..base import MXNetError
from ..ndarray import NDArray
from ..ndarray import serialization
from .optimizer import Optimizer

__all__ = ["Updater", "get_updater"]


class Updater:
    """Callable ``updater(index, grad, weight)`` (or lists of each) that creates each
    weight's state on first use and calls ``optimizer.update_multi_precision``.

    With an optimizer whose ``aggregate_num > 0``, lists are updated in groups of
    that many weights of one dtype, so aggregated update operators run.
    """

    def __init__(self, optimizer: Optimizer):
        self.optimizer = optimizer
        self.states: dict = {}
        self.states_synced: dict = {}
        self.aggregate_updates = optimizer.aggregate_num > 0

    def __call__(self, index, grad, weight) -> None:
        if isinstance(index, (list, tuple)):
            indices, grads, weights = list(index), list(grad), list(weight)
        else:
            indices, grads, weights = [index], [grad], [weight]
        if weights:
            self.optimizer._set_current_context(weights[0].context.device_id)
        for i, idx in enumerate(indices):
            if isinstance(idx, bytes):
                idx = indices[i] = idx.decode()
            if idx not in self.states:
                self.states[idx] = self.optimizer.create_state_multi_precision(idx, weights[i])
                self.states_synced[idx] = True
            elif not self.states_synced[idx]:
                self.states[idx] = self.sync_state_context(self.states[idx], weights[i].context)
                self.states_synced[idx] = True
        if not self.aggregate_updates:
            for i, w, g in zip(indices, weights, grads):
                self.optimizer.update_multi_precision(i, w, g, self.states[i])
            return
        by_dtype: dict = {}
        for entry in zip(indices, weights, grads):
            by_dtype.setdefault(entry[1].dtype, []).append(entry)
        size = self.optimizer.aggregate_num
        for group in by_dtype.values():
            for start in range(0, len(group), size):
                idxs, ws, gs = zip(*group[start:start + size])
                self.optimizer.update_multi_precision(list(idxs), list(ws), list(gs),
                                                      [self.states[i] for i in idxs])

    def sync_state_context(self, state, context):
        """``state`` (an NDArray or nested tuples/lists of them) moved to ``context``."""
        if isinstance(state, NDArray):
            return state.as_in_context(context)
        if isinstance(state, (tuple, list)):
            synced = [self.sync_state_context(s, context) for s in state]
            return tuple(synced) if isinstance(state, tuple) else synced
        return state

    def set_states(self, states: bytes) -> None:
        """Load states pickled by :meth:`get_states` (gluonlite's or MXNet's)."""
        loaded = loads_states(states)
        if isinstance(loaded, tuple) and len(loaded) == 2 and isinstance(loaded[1], Optimizer):
            self.states, self.optimizer = loaded
        elif isinstance(loaded, dict):
            self.states = loaded
        else:
            raise MXNetError("Updater.set_states: the data holds no optimizer states (got "
                             f"{type(loaded).__name__})")
        self.states_synced = dict.fromkeys(self.states.keys(), False)

    def get_states(self, dump_optimizer: bool = False) -> bytes:
        """The states pickled (with the optimizer when ``dump_optimizer``)."""
        return pickle.dumps((self.states, self.optimizer) if dump_optimizer else self.states)


def get_updater(optimizer: Optimizer) -> Updater:
    """An :class:`Updater` for ``optimizer``."""
    return Updater(optimizer)


class _MXNetArray:
    """Stands for ``mxnet.ndarray.ndarray.NDArray`` while unpickling: MXNet pickles an
    NDArray as ``NDArray(None)`` plus the state ``{'handle': <one saved array>}``."""

    def __init__(self, handle=None):
        self.array = None

    def __setstate__(self, state):
        raw = state.get("handle") if isinstance(state, dict) else None
        if raw is None:
            raise MXNetError("optimizer states: an MXNet NDArray without data")
        r = serialization._Reader(bytes(raw), "optimizer states")
        data = serialization._read_record(r, zero_dim_scalar=True)
        self.array = None if data is None else _wrap_loaded(data)


def _wrap_loaded(data) -> NDArray:
    """A loaded record as an NDArray: sparse records keep their storage type."""
    from ..ndarray.utils import _wrap
    return _wrap(data)


def _optimizer_classes() -> dict:
    return {cls.__name__: cls for cls in Optimizer.opt_registry.values()}


def _scheduler_classes() -> dict:
    from .. import lr_scheduler
    return {name: getattr(lr_scheduler, name) for name in lr_scheduler.__all__}


_SAFE = {("builtins", "bytearray"), ("builtins", "set"), ("builtins", "frozenset"),
         ("builtins", "object"), ("builtins", "slice"), ("__builtin__", "bytearray"),
         ("__builtin__", "set"), ("__builtin__", "object"), ("copyreg", "_reconstructor"),
         ("copy_reg", "_reconstructor"), ("collections", "OrderedDict"),
         ("_codecs", "encode"), ("numpy", "dtype"), ("numpy", "ndarray"),
         ("numpy.core.multiarray", "scalar"), ("numpy.core.multiarray", "_reconstruct"),
         ("numpy._core.multiarray", "scalar"), ("numpy._core.multiarray", "_reconstruct")}


class _StatesUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if (module, name) in _SAFE:
            return super().find_class(module.replace("__builtin__", "builtins")
                                      .replace("copy_reg", "copyreg"), name)
        top = module.split(".")[0]
        if top in ("mxnet", "gluonlite"):
            if name == "NDArray":
                return _MXNetArray if top == "mxnet" else NDArray
            if top == "mxnet" and name in ("RowSparseNDArray", "CSRNDArray"):
                return _MXNetArray  # MXNet pickles sparse arrays as raw NDArray bytes too
            if module.endswith("ndarray.ndarray") and name == "_unpickle":
                return super().find_class("gluonlite.ndarray.ndarray", "_unpickle")
            if module.endswith("ndarray.sparse") and name == "_unpickle":
                return super().find_class("gluonlite.ndarray.sparse", "_unpickle")
            if ".optimizer" in module and name in _optimizer_classes():
                return _optimizer_classes()[name]
            if module.endswith("lr_scheduler") and name in _scheduler_classes():
                return _scheduler_classes()[name]
        raise MXNetError(f"optimizer states: refusing to load {module}.{name} (only arrays, "
                         "optimizers and learning-rate schedulers are allowed)")


def _unwrap(obj):
    if isinstance(obj, _MXNetArray):
        return obj.array
    if isinstance(obj, dict):
        return {k: _unwrap(v) for k, v in obj.items()}
    if isinstance(obj, tuple):
        return tuple(_unwrap(v) for v in obj)
    if isinstance(obj, list):
        return [_unwrap(v) for v in obj]
    if isinstance(obj, Optimizer):
        for key, value in vars(obj).items():
            setattr(obj, key, _unwrap(value))
    return obj


def loads_states(data: bytes):
    """Unpickle optimizer states written by gluonlite or MXNet; anything that is not
    an array, an optimizer, a scheduler or a plain container raises ``MXNetError``."""
    try:
        loaded = _StatesUnpickler(io.BytesIO(data)).load()
    except MXNetError:
        raise
    except Exception as err:  # truncated or not a pickle at all
        raise MXNetError(f"optimizer states: cannot read the data ({type(err).__name__}: "
                         f"{err})") from err
    return _unwrap(loaded)
