"""``Module``: MXNet's symbolic training API as an adapter over the Gluon engine.

A bound Module holds a :class:`~gluonlite.gluon.SymbolBlock` made from its symbol
(its data, label and state names are the block's inputs, every other argument and
auxiliary state a Parameter) and, once ``init_optimizer`` ran, a
:class:`~gluonlite.gluon.Trainer` over those Parameters.  So forward, backward and
the updates run on the same CachedOp and optimizers as Gluon code.

What Module does differently from Gluon, and keeps from MXNet:

* the optimizer gets ``rescale_grad = 1/batch_size`` when created and the Trainer
  steps with a batch size of 1, so the gradient is scaled once;
* weight decay applies only to parameters named ``*_weight`` / ``*_gamma`` and
  ``lr_mult`` / ``wd_mult`` come from symbol attributes (the optimizer's ``sym``
  rules, copied onto the Parameters the Trainer reads);
* a list of contexts splits each batch by ``work_load_list``; the Trainer sums the
  gradients over the devices.
"""
from __future__ import annotations

import logging
import os
import warnings

from .. import ndarray as nd
from .. import optimizer as opt
from ..symbol.creation import declared_stype
from ..base import MXNetError
from ..context import Context, cpu
from ..initializer import InitDesc, Uniform
from ..io import DataDesc
from ..base import write_atomically
from ..model import load_checkpoint, save_checkpoint
from .base_module import BaseModule, _check_input_names, _parse_data_desc
from .executor_group import DataParallelExecutorGroup

__all__ = ["Module"]


class Module(BaseModule):
    """A symbol with parameters, trained and run as MXNet's ``mx.mod.Module``.

    Parameters
    ----------
    symbol : Symbol
        The network (loss heads such as ``SoftmaxOutput`` included).
    data_names, label_names : sequence of str
        Inputs fed from ``DataBatch.data`` / ``DataBatch.label``.
    logger : logging.Logger
    context : Context or list of Context, default cpu()
    work_load_list : list of float, optional
        Share of each batch per context (default even).
    fixed_param_names : list of str, optional
        Parameters not updated.
    state_names : list of str, optional
        Inputs that are states (set with :meth:`set_states`, not from batches).
    group2ctxs : dict or list of dict, optional
        Model parallelism: ``ctx_group`` name -> Context (or one Context per device of
        ``context``), or one such dict per device; nodes of a group run on its device.
    compression_params
        Accepted for compatibility (no gradient compression across devices).
    """

    def __init__(self, symbol, data_names=("data",), label_names=("softmax_label",),
                 logger=logging, context=None, work_load_list=None, fixed_param_names=None,
                 state_names=None, group2ctxs=None, compression_params=None):
        super().__init__(logger=logger)
        context = cpu() if context is None else context
        self._context = [context] if isinstance(context, Context) else list(context)
        self._work_load_list = list(work_load_list or [1] * len(self._context))
        if len(self._work_load_list) != len(self._context):
            raise ValueError("Module: work_load_list must have one entry per context")
        self._group2ctxs = group2ctxs
        self._symbol = symbol
        self._data_names = list(data_names or [])
        self._label_names = list(label_names or [])
        self._state_names = list(state_names or [])
        self._fixed_param_names = list(fixed_param_names or [])
        _check_input_names(symbol, self._data_names, "data", True)
        _check_input_names(symbol, self._label_names, "label", False)
        _check_input_names(symbol, self._state_names, "state", True)
        _check_input_names(symbol, self._fixed_param_names, "fixed_param", True)
        inputs = set(self._data_names + self._label_names + self._state_names)
        self._param_names = [n for n in symbol.list_arguments() if n not in inputs]
        self._aux_names = symbol.list_auxiliary_states()
        self._output_names = symbol.list_outputs()
        self._compression_params = compression_params
        self._arg_params = None
        self._aux_params = None
        self._params_dirty = False
        self._optimizer = None
        self._trainer = None
        self._preload_opt_states = None
        self._reset_bind()

    def _reset_bind(self) -> None:
        self.binded = False
        self._exec_group = None
        self._data_shapes = None
        self._label_shapes = None

    # -- names and shapes ---------------------------------------------------------------
    @property
    def data_names(self) -> list:
        return self._data_names

    @property
    def label_names(self) -> list:
        return self._label_names

    @property
    def output_names(self) -> list:
        return self._output_names

    @property
    def data_shapes(self) -> list:
        assert self.binded
        return self._data_shapes

    @property
    def label_shapes(self) -> list | None:
        assert self.binded
        return self._label_shapes

    @property
    def output_shapes(self) -> list:
        assert self.binded
        known = {d.name: tuple(d.shape) for d in self._data_shapes + (self._label_shapes or [])}
        _, out_shapes, _ = self._symbol.infer_shape(**known)
        return list(zip(self._output_names, out_shapes))

    @property
    def _updater(self):
        """The updater applying the optimizer (MXNet's ``Module._updater``)."""
        return self._trainer._updaters[0] if self._trainer is not None else None

    @property
    def _kvstore(self):
        return self._trainer._kvstore if self._trainer is not None else None

    @property
    def _update_on_kvstore(self):
        return self._trainer._update_on_kvstore if self._trainer is not None else None

    # -- binding --------------------------------------------------------------------------
    def bind(self, data_shapes, label_shapes=None, for_training: bool = True,
             inputs_need_grad: bool = False, force_rebind: bool = False, shared_module=None,
             grad_req="write") -> None:
        """Build the network for these input shapes (``[(name, shape)]`` or DataDesc)."""
        if force_rebind:
            self._reset_bind()
        if self.binded:
            self.logger.warning("Already bound, ignoring bind()")
            return
        if not for_training and inputs_need_grad:
            raise MXNetError("Module.bind: inputs_need_grad needs for_training=True")
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self._grad_req = grad_req
        self._data_shapes, self._label_shapes = _parse_data_desc(
            self._data_names, self._label_names, data_shapes, label_shapes)
        shared_group = shared_module._exec_group if shared_module is not None else None
        self._exec_group = DataParallelExecutorGroup(
            self._symbol, self._context, self._work_load_list, self._data_shapes,
            self._label_shapes, self._param_names, for_training, inputs_need_grad,
            shared_group, logger=self.logger, fixed_param_names=self._fixed_param_names,
            grad_req=grad_req, state_names=self._state_names, group2ctxs=self._group2ctxs)
        self.binded = True
        if self.params_initialized:
            self._copy_params_to_devices()
        elif shared_module is not None:
            assert shared_module.binded and shared_module.params_initialized
            self.params_initialized = True
            self._arg_params, self._aux_params = shared_module.get_params()
        if shared_module is not None and shared_module.optimizer_initialized:
            self.borrow_optimizer(shared_module)

    def reshape(self, data_shapes, label_shapes=None) -> None:
        """New input shapes for the bound module (the engine re-plans on the next run)."""
        assert self.binded
        self._data_shapes, self._label_shapes = _parse_data_desc(
            self._data_names, self._label_names, data_shapes, label_shapes)
        self._exec_group.reshape(self._data_shapes, self._label_shapes)

    # -- parameters -----------------------------------------------------------------------
    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing: bool = False, force_init: bool = False,
                    allow_extra: bool = False) -> None:
        """Initialize the parameters, from ``arg_params``/``aux_params`` where given and
        with ``initializer`` otherwise (in sorted name order, as MXNet does)."""
        if self.params_initialized and not force_init:
            warnings.warn("Parameters already initialized and force_init=False. "
                          "init_params call ignored.", stacklevel=2)
            return
        assert self.binded, "call bind before initializing the parameters"
        params = self._exec_group._params
        attrs = self._symbol.attr_dict()
        # the CPU copies keep a variable's declared storage type (stype='row_sparse'); the
        # devices compute on dense arrays
        stypes = {n: declared_stype(a) for n, a in attrs.items()}
        if self._arg_params is None:
            self._arg_params = {n: nd.zeros(params[n].shape, dtype=params[n].dtype,
                                            stype=stypes.get(n, "default"))
                                for n in self._param_names}
        if self._aux_params is None:
            self._aux_params = {n: nd.zeros(params[n].shape, dtype=params[n].dtype)
                                for n in self._aux_names}
        for table, given in ((self._arg_params, arg_params), (self._aux_params, aux_params)):
            for name, arr in sorted(table.items()):
                desc = InitDesc(name, attrs.get(name, None))
                if given is not None and name in given:
                    if given[name] is not arr:
                        _assign(name, arr, given[name])
                elif given is not None and not allow_missing:
                    raise RuntimeError(f"{name} is not presented")
                elif initializer is not None:
                    initializer(desc, arr)
        for given in (arg_params, aux_params):
            extra = set(given or {}) - set(self._symbol.list_arguments()) - set(self._aux_names)
            if extra and not allow_extra:
                raise ValueError(f"Find name \"{sorted(extra)[0]}\" that is not in the "
                                 "arguments")
        self.params_initialized = True
        self._params_dirty = False
        self._copy_params_to_devices()

    def _copy_params_to_devices(self) -> None:
        self._exec_group.set_params(self._arg_params, self._aux_params)

    def _sync_params_from_devices(self) -> None:
        """Average each parameter over the devices into the module's CPU copies."""
        self._exec_group.get_params(self._arg_params, self._aux_params)
        self._params_dirty = False

    def get_params(self) -> tuple:
        """``(arg_params, aux_params)``: CPU copies of the current values."""
        assert self.params_initialized
        if self._params_dirty:
            self._sync_params_from_devices()
        return self._arg_params, self._aux_params

    # -- optimizer --------------------------------------------------------------------------
    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init: bool = False):
        """Create the optimizer (``rescale_grad = 1/batch_size`` unless given) and the
        Trainer that applies it."""
        assert self.binded and self.params_initialized
        if self.optimizer_initialized and not force_init:
            self.logger.warning("optimizer already initialized, ignoring...")
            return
        if self._params_dirty:
            self._sync_params_from_devices()
        batch_size = self._exec_group.batch_size
        if kvstore is not None and not isinstance(kvstore, str) and \
                "dist" in getattr(kvstore, "type", "") and "_sync" in kvstore.type:
            batch_size *= kvstore.num_workers
        rescale_grad = 1.0 / batch_size
        idx2name = dict(enumerate(self._param_names))
        if isinstance(optimizer, str):
            optimizer_params = dict(optimizer_params)
            optimizer_params.setdefault("rescale_grad", rescale_grad)
            optimizer = opt.create(optimizer, sym=self._symbol, param_idx2name=idx2name,
                                   **optimizer_params)
        else:
            if not isinstance(optimizer, opt.Optimizer):
                raise TypeError("optimizer must be a name or an Optimizer")
            if optimizer.rescale_grad != rescale_grad:
                warnings.warn("Optimizer created manually outside Module but rescale_grad is "
                              f"not normalized to 1.0/batch_size/num_workers "
                              f"({optimizer.rescale_grad} vs. {rescale_grad}). Is this "
                              "intended?", stacklevel=2)
            if not optimizer.idx2name:
                optimizer.idx2name = idx2name.copy()
        self._optimizer = optimizer
        self._trainer = self._make_trainer(optimizer, kvstore)
        self.optimizer_initialized = True
        if self._preload_opt_states is not None:
            self.load_optimizer_states(self._preload_opt_states)
            self._preload_opt_states = None

    def _make_trainer(self, optimizer, kvstore):
        from ..gluon import Trainer
        params = self._exec_group._params
        ordered = [params[n] for n in self._param_names]
        # the Trainer reads multipliers from the Parameters: give them the optimizer's
        # Module rules (no decay for biases, symbol __lr_mult__/__wd_mult__)
        optimizer.param_dict = {}
        for i, param in enumerate(ordered):
            param.lr_mult = optimizer._multiplier(i, optimizer.lr_mult, "lr_mult")
            param.wd_mult = optimizer._multiplier(i, optimizer.wd_mult, "wd_mult")
        return Trainer(ordered, optimizer, kvstore=kvstore,
                       compression_params=self._compression_params)

    def borrow_optimizer(self, shared_module) -> None:
        """Use ``shared_module``'s optimizer and Trainer (for modules sharing parameters)."""
        assert shared_module.optimizer_initialized
        self._optimizer = shared_module._optimizer
        self._trainer = shared_module._trainer
        self.optimizer_initialized = True

    def save_optimizer_states(self, fname: str) -> None:
        """Write the updater states (MXNet's pickled layout)."""
        assert self.optimizer_initialized
        trainer = self._trainer
        trainer._prepare()
        if trainer._kvstore is not None and trainer._update_on_kvstore:
            trainer._kvstore.save_optimizer_states(fname)
            return
        states = trainer._updaters[0].get_states()
        write_atomically(fname, states)

    def load_optimizer_states(self, fname: str) -> None:
        """Read states written by :meth:`save_optimizer_states` (or MXNet's Module)."""
        assert self.optimizer_initialized
        trainer = self._trainer
        trainer._prepare()
        if trainer._kvstore is not None and trainer._update_on_kvstore:
            trainer._kvstore.load_optimizer_states(fname)
            return
        with open(fname, "rb") as f:
            states = f.read()
        for updater in trainer._updaters:
            updater.set_states(states)
        trainer._check_states_fit()

    # -- running ------------------------------------------------------------------------------
    def forward(self, data_batch, is_train: bool | None = None) -> None:
        """Run the network on a batch (re-planning if its shapes differ from the bound
        ones); ``is_train`` defaults to ``for_training``."""
        assert self.binded and self.params_initialized
        self._maybe_reshape(data_batch)
        self._exec_group.forward(data_batch, is_train)
        if is_train or (is_train is None and self.for_training):
            self._params_dirty = True

    def _maybe_reshape(self, data_batch) -> None:
        new = tuple(tuple(d.shape) for d in data_batch.data)
        if new == tuple(tuple(d.shape) for d in self._data_shapes):
            return
        if getattr(data_batch, "provide_data", None):
            data_shapes = data_batch.provide_data
        else:
            data_shapes = [DataDesc(d.name, s, d.dtype, d.layout)
                           for d, s in zip(self._data_shapes, new)]
        label_shapes = None
        labels = getattr(data_batch, "label", None)
        if getattr(data_batch, "provide_label", None):
            label_shapes = data_batch.provide_label
        elif labels and self._label_shapes:
            label_shapes = [DataDesc(d.name, l.shape, d.dtype, d.layout)
                            for d, l in zip(self._label_shapes, labels)]
        self.reshape(data_shapes, label_shapes)

    def backward(self, out_grads=None) -> None:
        """Gradients of the last training forward (``out_grads`` for non-loss heads)."""
        assert self.binded and self.params_initialized
        self._exec_group.backward(out_grads)

    def update(self) -> None:
        """Apply the optimizer to the gradients of the last backward."""
        assert self.binded and self.params_initialized and self.optimizer_initialized
        self._params_dirty = True
        self._trainer.step(1, ignore_stale_grad=True)

    def get_outputs(self, merge_multi_context: bool = True) -> list:
        """Outputs of the last forward: one array per output (devices concatenated), or
        per output a list over devices."""
        assert self.binded and self.params_initialized
        if self._exec_group._outputs is None:
            raise MXNetError("Module.get_outputs: call forward first")
        return self._exec_group.get_outputs(merge_multi_context)

    def get_input_grads(self, merge_multi_context: bool = True) -> list:
        """Gradients of the data inputs (needs ``inputs_need_grad=True`` at bind)."""
        assert self.binded and self.params_initialized and self.inputs_need_grad
        return self._exec_group.get_input_grads(merge_multi_context)

    def get_states(self, merge_multi_context: bool = True) -> list:
        """The state inputs (``state_names``)."""
        assert self.binded and self.params_initialized
        return self._exec_group.get_states(merge_multi_context)

    def set_states(self, states=None, value=None) -> None:
        """Set the state inputs from ``states`` (per state, per device) or to ``value``."""
        assert self.binded and self.params_initialized
        self._exec_group.set_states(states, value)

    def install_monitor(self, mon) -> None:
        """Report node outputs of every device to ``mx.mon.Monitor`` ``mon``."""
        assert self.binded
        self._exec_group.install_monitor(mon)

    def update_metric(self, eval_metric, labels, pre_sliced: bool = False) -> None:
        """Update ``eval_metric`` with ``labels`` and the last outputs, per device."""
        self._exec_group.update_metric(eval_metric, labels, pre_sliced)

    # -- checkpoints ------------------------------------------------------------------------
    def save_checkpoint(self, prefix: str, epoch: int, save_optimizer_states: bool = False,
                        remove_amp_cast: bool = True) -> None:
        """Write ``prefix-symbol.json``, ``prefix-%04d.params`` (and ``.states``)."""
        param_name = "%s-%04d.params" % (prefix, epoch)
        save_checkpoint(prefix, epoch, self._symbol, *self.get_params(),
                        remove_amp_cast=remove_amp_cast)
        logging.info('Saved checkpoint to "%s"', param_name)
        if save_optimizer_states:
            state_name = "%s-%04d.states" % (prefix, epoch)
            self.save_optimizer_states(state_name)
            logging.info('Saved optimizer state to "%s"', state_name)

    @staticmethod
    def load(prefix: str, epoch: int, load_optimizer_states: bool = False, **kwargs):
        """A Module from a checkpoint; bind it, then train or predict (the parameters
        and, with ``load_optimizer_states``, the optimizer states are applied then)."""
        sym, args, auxs = load_checkpoint(prefix, epoch)
        mod = Module(symbol=sym, **kwargs)
        mod._arg_params = args
        mod._aux_params = auxs
        mod.params_initialized = True
        if load_optimizer_states:
            mod._preload_opt_states = "%s-%04d.states" % (prefix, epoch)
            if not os.path.exists(mod._preload_opt_states):
                raise MXNetError(f"Module.load: {mod._preload_opt_states} not found")
        return mod


def _assign(name: str, dst, src) -> None:
    if tuple(dst.shape) != tuple(src.shape):
        raise MXNetError(f"Module: parameter '{name}' has shape {tuple(dst.shape)} but the "
                         f"given value has shape {tuple(src.shape)}")
    dst[:] = src.as_in_context(dst.context)
