"""``gluon.Trainer``: applies an optimizer to a set of Parameters (MXNet 1.9 behaviour).

``step(batch_size)`` rescales gradients by ``1 / batch_size``, sums the gradients of
parameters that live on several devices (through a kvstore) and updates every copy.
The kvstore is only created for several devices, as in MXNet; with one device the
updaters run directly, in groups so that the aggregated update operators serve
SGD.  Sparse parameters follow MXNet: a ``row_sparse`` weight always lives in a
kvstore that updates it (its rows reach the devices by ``row_sparse_pull``), and
``row_sparse`` gradients of dense weights are pushed and pulled separately.
Gradients no backward has written since the last step are stale: MXNet's
``UserWarning`` is raised unless ``ignore_stale_grad=True``.
"""
from __future__ import annotations

import os

import numpy as np

from ..base import MXNetError, write_atomically
from .. import kvstore as kvs
from .. import optimizer as opt
from .parameter import Parameter, ParameterDict, _AssertionError, _ValueError

__all__ = ["Trainer"]

_STALE = ("Gradient of Parameter `{name}` on context {ctx} has not been updated by backward "
          "since last `step`. This could mean a bug in your model that made it only use a "
          "subset of the Parameters (Blocks) for this iteration. If you are intentionally "
          "only using a subset, call step with ignore_stale_grad=True to suppress this "
          "warning and skip updating of Parameters with stale gradient")


def _parameter_list(params) -> list:
    if isinstance(params, (dict, ParameterDict)):
        params = [params[key] for key in sorted(params.keys())]
    if not isinstance(params, (list, tuple)):
        raise ValueError(f"First argument must be a list or dict of Parameters, got "
                         f"{type(params)}.")
    unique, seen = [], set()
    for param in params:
        if not isinstance(param, Parameter):
            raise ValueError(f"First argument must be a list or dict of Parameters, got list "
                             f"of {type(param)}.")
        if id(param) not in seen:  # a shared parameter is updated once
            seen.add(id(param))
            unique.append(param)
    return unique


class Trainer:
    """Updates Parameters with an optimizer.

    Parameters
    ----------
    params : ParameterDict, dict or list of Parameter
        The parameters to update (a dict is taken in sorted key order).
    optimizer : str or Optimizer
        An optimizer name for :func:`mx.optimizer.create`, or an instance.
    optimizer_params : dict, optional
        Keyword arguments of the optimizer (only with a name).
    kvstore : str or KVStore
        Store used to sum gradients over devices (``'device'``, ``'local'``); not
        created for parameters on a single device.
    compression_params : dict, optional
        Gradient compression for the kvstore (only ``{'type': 'none'}`` here).
    update_on_kvstore : bool, optional
        Run the updates in the kvstore; default: yes on several devices unless the
        optimizer aggregates updates.
    """

    def __init__(self, params, optimizer, optimizer_params=None, kvstore="device",
                 compression_params=None, update_on_kvstore=None):
        self._params = _parameter_list(params)
        self._param2idx = {id(p): i for i, p in enumerate(self._params)}
        self._contains_sparse_weight = False
        self._contains_sparse_grad = False
        for param in self._params:
            param._set_trainer(self)
            if param._stype != "default":
                self._contains_sparse_weight = True
            if param._grad_stype != "default":
                self._contains_sparse_grad = True
        self._compression_params = compression_params
        self._contexts = self._check_contexts()
        self._init_optimizer(optimizer, optimizer_params or {})
        self._scale = self._optimizer.rescale_grad
        self._kvstore_params = {"kvstore": kvstore, "update_on_kvstore": update_on_kvstore}
        self._reset_kvstore()

    def _check_contexts(self):
        contexts = None
        for param in self._params:
            ctx = param.list_ctx()
            if contexts is not None and contexts != ctx:
                raise MXNetError(f"All Parameters must be initialized on the same set of "
                                 f"contexts, but Parameter {param.name} is initialized on "
                                 f"{ctx} while previous Parameters are initialized on "
                                 f"{contexts}.")
            contexts = ctx
        return contexts or []

    def _init_optimizer(self, optimizer, optimizer_params: dict) -> None:
        param_dict = dict(enumerate(self._params))
        if isinstance(optimizer, opt.Optimizer):
            if optimizer_params:
                raise MXNetError("optimizer_params must be None if optimizer is an instance "
                                 "of Optimizer instead of str")
            self._optimizer = optimizer
            self._optimizer.param_dict = param_dict
        else:
            self._optimizer = opt.create(optimizer, param_dict=param_dict, **optimizer_params)
        self._updaters = [opt.get_updater(self._optimizer) for _ in self._contexts or [None]]

    def _reset_kvstore(self) -> None:
        """Forget the kvstore; the next step creates it again and re-reads the weights."""
        self._kv_initialized = False
        self._kvstore = None
        self._update_on_kvstore = None
        self._distributed = None
        self._params_to_init = list(self._params)

    def _init_kvstore(self) -> None:
        """Create the kvstore and decide ``update_on_kvstore`` as MXNet does."""
        config = self._kvstore_params
        user_update = config["update_on_kvstore"]
        self._distributed = False
        if self._contains_sparse_weight:
            # sparse weights live in the store, which updates them
            kvstore, update_on_kvstore = self._create_sparse_kvstore(config["kvstore"])
            if user_update is False:
                raise _ValueError("Cannot set update_on_kvstore=False when sparse weights "
                                  "are present.")
        elif self._contains_sparse_grad:
            # dense weights with sparse gradients: summing the gradients in the store and
            # updating on the devices is the faster choice in one process
            kvstore, _ = self._create_kvstore(config["kvstore"])
            update_on_kvstore = False
            if user_update is not None:
                update_on_kvstore = user_update
            if kvstore is not None and not isinstance(kvstore, kvs.KVStore):
                raise _ValueError(f"Cannot use {type(kvstore)} for multi-device training "
                                  f"with sparse gradients")
        else:
            kvstore, update_on_kvstore = self._create_kvstore(config["kvstore"])
            if user_update is not None:
                update_on_kvstore = user_update
            if kvstore is not None and update_on_kvstore and \
                    not kvstore.is_capable(kvs.KVStoreBase.OPTIMIZER):
                if user_update:
                    raise _ValueError(f"Please set update_on_kvstore=False when training "
                                      f"with {type(kvstore)}")
                update_on_kvstore = False
        if kvstore is not None:
            if self._compression_params:
                kvstore.set_gradient_compression(self._compression_params)
            if update_on_kvstore:
                kvstore.set_optimizer(self._optimizer)
            self._kvstore = kvstore
            self._update_on_kvstore = update_on_kvstore
        else:
            self._kvstore = None
            self._update_on_kvstore = None
        self._kv_initialized = True

    @staticmethod
    def _create_sparse_kvstore(kvstore):
        """``(store, True)`` for sparse weights: a store is always created, and it must
        be able to run the optimizer."""
        if isinstance(kvstore, kvs.KVStoreBase):
            store = kvstore
        elif isinstance(kvstore, str):
            store = kvs.create(kvstore)
        else:
            raise TypeError(f"Cannot create '{kvstore}' KVStore with row_sparse parameters. "
                            f"The type must be KVStore or str.")
        if not store.is_capable(kvs.KVStoreBase.OPTIMIZER):
            raise _AssertionError(f"KVStore with sparse weight requires optimizer support. "
                                  f"However, {type(store)} does not support optimizer.")
        return store, True

    def _create_kvstore(self, kvstore):
        """``(store or None, update_on_kvstore)`` as MXNet chooses them."""
        update_on_kvstore = bool(int(os.getenv("MXNET_UPDATE_ON_KVSTORE", "1")))
        if kvstore is None:
            return None, False
        if isinstance(kvstore, kvs.KVStoreBase):
            return kvstore, update_on_kvstore
        if not isinstance(kvstore, str):
            raise TypeError("kvstore must be KVStore, str or None")
        if len(self._contexts) <= 1 and "dist" not in kvstore:
            return None, False  # one device (or no parameters): nothing to sum
        store = kvs.create(kvstore)
        if kvstore == "local":
            biggest = max(int(np.prod(p.shape)) for p in self._params)
            if biggest > 1024 * 1024 * 16:
                update_on_kvstore = False
        return store, update_on_kvstore

    def _init_params(self) -> None:
        """Put the initialized parameters into the kvstore (deferred ones wait)."""
        waiting = []
        for param in self._params_to_init:
            if param._deferred_init:
                waiting.append(param)
                continue
            if self._kvstore is not None:
                idx = self._param2idx[id(param)]
                arrays = param._check_and_get(param._data, list)
                if param._stype != "default":
                    # the store keeps the full value; devices pull the rows they need
                    self._kvstore.init(idx, arrays[0])
                else:
                    self._kvstore.broadcast(idx, arrays[0], arrays, priority=-idx)
        self._params_to_init = waiting

    def _row_sparse_pull(self, parameter: Parameter, out, row_id, full_idx: bool = False):
        """Fill ``out`` (one array or one per context) with the rows ``row_id`` of
        ``parameter`` as the kvstore holds them; ``full_idx`` (all rows) pulls whole."""
        self._prepare()
        idx = self._param2idx[id(parameter)]
        if full_idx and "dist" not in self._kvstore.type:
            if row_id.size != out.shape[0]:
                raise _AssertionError(f"Trainer._row_sparse_pull: full_idx with "
                                      f"{row_id.size} row ids for Parameter "
                                      f"'{parameter.name}' of shape {parameter.shape}")
            self._kvstore.pull(idx, out=out, priority=-idx, ignore_sparse=False)
        else:
            self._kvstore.row_sparse_pull(idx, out=out, row_ids=row_id, priority=-idx)

    # -- public API -----------------------------------------------------------------------
    @property
    def learning_rate(self) -> float:
        """The optimizer's current learning rate."""
        if not isinstance(self._optimizer, opt.Optimizer):
            raise UserWarning("Optimizer has to be defined before its learning rate can be "
                              "accessed.")
        return self._optimizer.learning_rate

    @property
    def optimizer(self):
        """The optimizer."""
        if isinstance(self._optimizer, opt.Optimizer):
            return self._optimizer
        raise UserWarning("Optimizer has not been initialized yet")

    def set_learning_rate(self, lr: float) -> None:
        """Set the optimizer's learning rate."""
        if not isinstance(self._optimizer, opt.Optimizer):
            raise UserWarning("Optimizer has to be defined before its learning rate is "
                              "mutated.")
        self._optimizer.set_learning_rate(lr)

    def _prepare(self) -> None:
        if not self._kv_initialized:
            self._init_kvstore()
        if self._params_to_init:
            self._init_params()

    def _check_and_rescale_grad(self, scale: float) -> None:
        self._optimizer.rescale_grad = scale

    def step(self, batch_size: float, ignore_stale_grad: bool = False) -> None:
        """One update: gradients scaled by ``1 / batch_size``, summed over devices,
        applied by the optimizer."""
        self._check_and_rescale_grad(self._scale / batch_size)
        self._prepare()
        if not ignore_stale_grad:
            self._check_stale()
        self._allreduce_grads()
        self._update(ignore_stale_grad)

    def allreduce_grads(self) -> None:
        """Sum the gradients over devices (for ``update`` after a custom step, such as
        gradient clipping)."""
        self._prepare()
        if self._kvstore is not None and self._update_on_kvstore:
            raise _AssertionError("allreduce_grads() when parameters are updated on kvstore is not "
                             "supported. Try setting `update_on_kvstore` to False when "
                             "creating trainer.")
        self._allreduce_grads()

    def _allreduce_grads(self) -> None:
        if self._kvstore is None:
            return
        for i, param in enumerate(self._params):
            if param.grad_req == "null":
                continue
            grads = param.list_grad()
            if grads[0].stype != "default":
                # sparse gradients: push, then pull what the devices need (a sparse
                # weight's rows are pulled by row_sparse_data before the next forward)
                self._kvstore.push(i, grads, priority=-i)
                if param._stype == "default":
                    out = param.list_data() if self._update_on_kvstore else grads
                    self._kvstore.pull(i, out, priority=-i,
                                       ignore_sparse=bool(self._distributed))
                continue
            # with updates in the store, the summed gradient updates its copy of the
            # weight, which comes back to every device
            out = param.list_data() if self._update_on_kvstore else None
            self._kvstore.pushpull(i, grads, out=out, priority=-i)

    def update(self, batch_size: float, ignore_stale_grad: bool = False) -> None:
        """The update half of :meth:`step` (after :meth:`allreduce_grads`)."""
        self._prepare()
        if self._kvstore is not None and self._update_on_kvstore:
            raise _AssertionError("update() when parameters are updated on kvstore is not "
                             "supported. Try setting `update_on_kvstore` to False when "
                             "creating trainer.")
        self._check_and_rescale_grad(self._scale / batch_size)
        if not ignore_stale_grad:
            self._check_stale()
        self._update(ignore_stale_grad)

    def _check_stale(self) -> None:
        """MXNet's error for a parameter whose gradient no backward wrote since the last
        step, raised before anything is updated."""
        for param in self._params:
            if param.grad_req == "null":
                continue
            for data in param._check_and_get(param._data, list):
                if not data._fresh_grad:
                    raise UserWarning(_STALE.format(name=param.name, ctx=data.context))

    def _update(self, ignore_stale_grad: bool = False) -> None:
        scaler = getattr(self, "_amp_loss_scaler", None)  # set by contrib.amp.init_trainer
        if scaler is not None and scaler.has_overflow(self._params):
            return  # AMP: skip the update of a step whose gradients overflowed
        on_kvstore = self._kvstore is not None and self._update_on_kvstore
        batches = [[] for _ in self._updaters]
        for i, param in enumerate(self._params):
            if param.grad_req == "null":
                continue
            datas = param._check_and_get(param._data, list)
            if on_kvstore:  # updated in the store by _allreduce_grads
                for data in datas:
                    data._fresh_grad = False
                continue
            for batch, data, grad in zip(batches, datas, param.list_grad()):
                if not ignore_stale_grad or data._fresh_grad:
                    batch.append((i, grad, data))
                    data._fresh_grad = False
        if on_kvstore:
            return
        for updater, batch in zip(self._updaters, batches):
            if batch:
                indices, grads, datas = zip(*batch)
                updater(list(indices), list(grads), list(datas))

    def save_states(self, fname: str) -> None:
        """Write the optimizer and its states (MXNet's pickled layout)."""
        self._prepare()
        if self._update_on_kvstore:
            self._kvstore.save_optimizer_states(fname, dump_optimizer=True)
            return
        write_atomically(fname, self._updaters[0].get_states(dump_optimizer=True))

    def load_states(self, fname: str) -> None:
        """Read states written by :meth:`save_states` (or by MXNet's Trainer).  Loading
        unpickles: only arrays, optimizers and schedulers are accepted."""
        self._prepare()
        if self._update_on_kvstore:
            self._kvstore.load_optimizer_states(fname)
            self._optimizer = self._kvstore._updater.optimizer
        else:
            with open(fname, "rb") as f:
                states = f.read()
            for updater in self._updaters:
                updater.set_states(states)
                updater.optimizer = self._updaters[0].optimizer
            self._optimizer = self._updaters[0].optimizer
        self._check_states_fit()
        self._optimizer.param_dict = dict(enumerate(self._params))

    def _check_states_fit(self) -> None:
        """States of another model (other shapes) must not reach the update."""
        states = self._updaters[0].states
        for idx, state in states.items():
            if not isinstance(idx, int) or not 0 <= idx < len(self._params):
                raise MXNetError(f"Trainer.load_states: the file has states for parameter "
                                 f"index {idx!r}, this Trainer has {len(self._params)} "
                                 "parameters")
            param = self._params[idx]
            for arr in _arrays(state):
                if arr.shape != param.shape:
                    raise MXNetError(f"Trainer.load_states: state of shape {arr.shape} for "
                                     f"Parameter '{param.name}' of shape {param.shape}; the "
                                     "file belongs to another model")


def _arrays(state):
    from ..ndarray import NDArray
    if isinstance(state, NDArray):
        yield state
    elif isinstance(state, (tuple, list)):
        for s in state:
            yield from _arrays(s)
