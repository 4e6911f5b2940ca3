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

import numpy as np

from .. import autograd
from .. import ndarray as nd
from .. import optimizer as opt
from .. import symbol as _sym
from ..base import MXNetError
from ..context import Context, cpu
from ..initializer import InitDesc, Uniform
from ..io import DataDesc
from ..model import _replace_atomically, load_checkpoint
from .base_module import BaseModule, _check_input_names, _parse_data_desc

__all__ = ["Module"]


def _split_slices(batch_size: int, work_load_list) -> list:
    """Batch slices proportional to ``work_load_list`` (MXNet's rounding)."""
    total = float(sum(work_load_list))
    sizes = [round(w * batch_size / total) for w in work_load_list]
    sizes[-1] = batch_size - sum(sizes[:-1])
    if min(sizes) <= 0:
        raise MXNetError(f"Module: batch size {batch_size} is too small to split over "
                         f"{len(work_load_list)} devices with work loads {work_load_list}")
    slices, start = [], 0
    for size in sizes:
        slices.append(slice(start, start + size))
        start += size
    return slices


def _slice_batch(arr, sl: slice, axis: int, ctx):
    if sl.start == 0 and sl.stop == arr.shape[axis] and arr.context == ctx:
        return arr
    part = nd.slice_axis(arr, axis=axis, begin=sl.start, end=sl.stop)
    return part.as_in_context(ctx)


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
    group2ctxs, compression_params
        Accepted for compatibility; model parallelism by groups is not supported.
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
        if group2ctxs:
            raise MXNetError("Module: group2ctxs (model parallelism) is not supported by "
                             "gluonlite")
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
        self._block = None
        self._data_shapes = None
        self._label_shapes = None
        self._outputs = None
        self._inputs = None
        self._states = None

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
        _, out_shapes, _ = self._symbol.infer_shape(**self._known_shapes())
        return list(zip(self._output_names, out_shapes))

    def _known_shapes(self) -> dict:
        shapes = {d.name: tuple(d.shape) for d in self._data_shapes}
        shapes.update({d.name: tuple(d.shape) for d in self._label_shapes or []})
        return shapes

    @property
    def _batch_axis(self) -> int:
        return DataDesc.get_batch_axis(getattr(self._data_shapes[0], "layout", None))

    @property
    def _label_inputs(self) -> list:
        args = self._symbol.list_arguments()
        return [n for n in self._label_names if n in args]

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
        self._data_shapes, self._label_shapes = _parse_data_desc(
            self._data_names, self._label_names, data_shapes, label_shapes)
        shared_params = shared_module._block.collect_params() if shared_module else None
        input_names = self._data_names + self._label_inputs + self._state_names
        from ..gluon import SymbolBlock
        dtypes = {d.name: d.dtype for d in self._data_shapes + (self._label_shapes or [])}
        self._block = SymbolBlock(self._symbol,
                                  [_sym.var(n, dtype=dtypes.get(n, np.float32))
                                   for n in input_names],
                                  params=shared_params)
        self._set_param_shapes(grad_req)
        self.binded = True
        if self.params_initialized:
            self._copy_params_to_devices()
        elif shared_module is not None:
            assert shared_module.binded and shared_module.params_initialized
            self.params_initialized = True
            self._arg_params, self._aux_params = shared_module.get_params()
        if shared_module is not None and shared_module.optimizer_initialized:
            self.borrow_optimizer(shared_module)

    def _grad_req_of(self, name: str, grad_req) -> str:
        if not self.for_training or name in self._fixed_param_names:
            return "null"
        if isinstance(grad_req, dict):
            return grad_req.get(name, "write")
        if isinstance(grad_req, (list, tuple)):
            return grad_req[self._symbol.list_arguments().index(name)]
        return grad_req

    def _set_param_shapes(self, grad_req) -> None:
        arg_shapes, _, aux_shapes = self._symbol.infer_shape(**self._known_shapes())
        arg_types, _, aux_types = self._symbol.infer_type(
            **{d.name: d.dtype for d in self._data_shapes + (self._label_shapes or [])})
        if arg_types is None:  # types not all decidable: parameters default to float32
            arg_types = [None] * len(arg_shapes)
            aux_types = [None] * len(aux_shapes)
        args = dict(zip(self._symbol.list_arguments(), zip(arg_shapes, arg_types)))
        auxs = dict(zip(self._aux_names, zip(aux_shapes, aux_types)))
        self._input_shapes = {n: args[n][0] for n in self._label_inputs + self._state_names}
        params = self._block.collect_params()
        for name in self._param_names:
            param = params[name]
            param.shape, param.dtype = args[name][0], args[name][1] or np.float32
            param.grad_req = self._grad_req_of(name, grad_req)
        for name in self._aux_names:
            params[name].shape, params[name].dtype = auxs[name][0], auxs[name][1] or np.float32
        if self._states is None:
            self._states = {n: [nd.zeros(self._device_shape(self._input_shapes[n], k), ctx=c)
                                for k, c in enumerate(self._context)]
                            for n in self._state_names}

    def _device_shape(self, shape, k: int) -> tuple:
        """``shape`` with the batch axis cut to device ``k``'s slice."""
        axis = self._batch_axis
        sl = _split_slices(shape[axis], self._work_load_list)[k]
        return tuple(shape[:axis]) + (sl.stop - sl.start,) + tuple(shape[axis + 1:])

    def reshape(self, data_shapes, label_shapes=None) -> None:
        """New input shapes for the bound module (the engine re-plans on the next run)."""
        assert self.binded
        self._data_shapes, self._label_shapes = _parse_data_desc(
            self._data_names, self._label_names, data_shapes, label_shapes)

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
        params = self._block.collect_params()
        if self._arg_params is None:
            self._arg_params = {n: nd.zeros(params[n].shape, dtype=params[n].dtype)
                                for n in self._param_names}
        if self._aux_params is None:
            self._aux_params = {n: nd.zeros(params[n].shape, dtype=params[n].dtype)
                                for n in self._aux_names}
        for given in (arg_params, aux_params):
            extra = set(given or {}) - set(self._symbol.list_arguments()) - set(self._aux_names)
            if extra and not allow_extra:
                raise ValueError(f"Find name \"{sorted(extra)[0]}\" that is not in the "
                                 "arguments")
        attrs = self._symbol.attr_dict()
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
        self.params_initialized = True
        self._params_dirty = False
        self._copy_params_to_devices()

    def _copy_params_to_devices(self) -> None:
        params = self._block.collect_params()
        for table in (self._arg_params, self._aux_params):
            for name, arr in table.items():
                params[name]._load_init(arr, self._context)

    def _sync_params_from_devices(self) -> None:
        """Average each parameter over the devices into the module's CPU copies."""
        params = self._block.collect_params()
        for table in (self._arg_params, self._aux_params):
            for name, arr in table.items():
                datas = params[name].list_data()
                total = datas[0].copyto(cpu())
                for d in datas[1:]:
                    total += d.copyto(cpu())
                arr[:] = total / len(datas) if len(datas) > 1 else total
        self._params_dirty = False

    def get_params(self) -> tuple:
        """``(arg_params, aux_params)``: CPU copies of the current values."""
        assert self.binded and self.params_initialized
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
        batch_size = self._data_shapes[0].shape[self._batch_axis]
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
        params = self._block.collect_params()
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
        _replace_atomically(fname, lambda f: open(f, "wb").write(states))

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
    def _device_inputs(self, data_batch) -> list:
        """Per device, the input arrays in the block's input order."""
        data = list(data_batch.data)
        labels = list(data_batch.label or [])
        label_inputs = self._label_inputs
        batch = data[0].shape[self._batch_axis]
        slices = _split_slices(batch, self._work_load_list)
        per_device = []
        for k, (sl, ctx) in enumerate(zip(slices, self._context)):
            arrays = [_slice_batch(d, sl, self._batch_axis, ctx) for d in data]
            if labels and len(labels) >= len(label_inputs):
                arrays += [_slice_batch(l, sl, 0, ctx) for l in labels[:len(label_inputs)]]
            else:  # no labels (prediction): zeros of the inferred label shape
                arrays += [nd.zeros((sl.stop - sl.start,) + tuple(self._input_shapes[n][1:]),
                                    ctx=ctx) for n in label_inputs]
            arrays += [self._states[n][k] for n in self._state_names]
            per_device.append(arrays)
        return per_device

    def forward(self, data_batch, is_train: bool | None = None) -> None:
        """Run the network on a batch (re-planning if its shapes differ from the bound
        ones); ``is_train`` defaults to ``for_training``."""
        assert self.binded and self.params_initialized
        if is_train is None:
            is_train = self.for_training
        self._maybe_reshape(data_batch)
        self._inputs = self._device_inputs(data_batch)
        outputs = []
        for arrays in self._inputs:
            if self.inputs_need_grad and is_train:
                for arr in arrays[:len(self._data_names)]:
                    arr.attach_grad()
            if is_train and self.for_training:
                with autograd.record(train_mode=True):
                    out = self._block(*arrays)
            elif is_train:
                with autograd.train_mode():
                    out = self._block(*arrays)
            else:
                with autograd.predict_mode():
                    out = self._block(*arrays)
            outputs.append(out if isinstance(out, (list, tuple)) else [out])
        self._outputs = outputs
        self._is_train = is_train
        if is_train:
            self._params_dirty = True

    def _maybe_reshape(self, data_batch) -> None:
        new = tuple(d.shape for d in data_batch.data)
        if new == tuple(tuple(d.shape) for d in self._data_shapes):
            return
        if getattr(data_batch, "provide_data", None):
            data_shapes = data_batch.provide_data
        else:
            data_shapes = [DataDesc(d.name, s, d.dtype, d.layout)
                           for d, s in zip(self._data_shapes, new)]
        label_shapes = None
        if getattr(data_batch, "provide_label", None):
            label_shapes = data_batch.provide_label
        elif data_batch.label and self._label_shapes:
            label_shapes = [DataDesc(d.name, l.shape, d.dtype, d.layout)
                            for d, l in zip(self._label_shapes, data_batch.label)]
        self.reshape(data_shapes, label_shapes)
        self._input_shapes.update(
            {n: (new[0][self._batch_axis],) + tuple(s[1:]) for n, s in self._input_shapes.items()
             if n in self._label_inputs})

    def backward(self, out_grads=None) -> None:
        """Gradients of the last training forward (``out_grads`` for non-loss heads)."""
        assert self.binded and self.params_initialized
        if not self.for_training:
            raise MXNetError("Module.backward: the module was bound with for_training=False")
        if self._outputs is None or not self._is_train:
            raise MXNetError("Module.backward: call forward(is_train=True) first")
        slices = _split_slices(self._outputs_batch(), self._work_load_list)
        for k, (outs, ctx) in enumerate(zip(self._outputs, self._context)):
            heads = None
            if out_grads is not None:
                grads = out_grads if isinstance(out_grads, (list, tuple)) else [out_grads]
                heads = [_slice_batch(g, slices[k], 0, ctx) for g in grads]
            autograd.backward(outs, head_grads=heads)

    def _outputs_batch(self) -> int:
        return sum(outs[0].shape[0] for outs in self._outputs)

    def update(self) -> None:
        """Apply the optimizer to the gradients of the last backward."""
        assert self.binded and self.params_initialized and self.optimizer_initialized
        self._params_dirty = True
        self._trainer.step(1, ignore_stale_grad=True)

    def get_outputs(self, merge_multi_context: bool = True) -> list:
        """Outputs of the last forward: one array per output (devices concatenated), or
        per output a list over devices."""
        assert self.binded and self.params_initialized and self._outputs is not None
        per_output = [list(outs) for outs in zip(*self._outputs)]
        if not merge_multi_context:
            return per_output
        return [_merge(outs, 0) for outs in per_output]

    def get_input_grads(self, merge_multi_context: bool = True) -> list:
        """Gradients of the data inputs (needs ``inputs_need_grad=True`` at bind)."""
        assert self.binded and self.params_initialized and self.inputs_need_grad
        per_input = [[arrays[i].grad for arrays in self._inputs]
                     for i in range(len(self._data_names))]
        if not merge_multi_context:
            return per_input
        return [_merge(g, self._batch_axis) for g in per_input]

    def get_states(self, merge_multi_context: bool = True) -> list:
        """The state inputs (``state_names``)."""
        assert self.binded and self.params_initialized
        per_state = [self._states[n] for n in self._state_names]
        if not merge_multi_context:
            return per_state
        return [_merge(s, self._batch_axis) for s in per_state]

    def set_states(self, states=None, value=None) -> None:
        """Set the state inputs from ``states`` (per state, per device) or to ``value``."""
        assert self.binded and self.params_initialized
        if (states is None) == (value is None):
            raise ValueError("Module.set_states: give exactly one of states and value")
        for i, name in enumerate(self._state_names):
            for k, arr in enumerate(self._states[name]):
                if value is not None:
                    arr[:] = value
                else:
                    src = states[i][k] if isinstance(states[i], (list, tuple)) else states[i]
                    arr[:] = src.as_in_context(arr.context)

    def update_metric(self, eval_metric, labels, pre_sliced: bool = False) -> None:
        """Update ``eval_metric`` with ``labels`` and the last outputs, per device."""
        slices = _split_slices(self._outputs_batch(), self._work_load_list)
        for k, outs in enumerate(self._outputs):
            if pre_sliced:
                device_labels = labels[k]
            else:
                device_labels = [_slice_batch(l, slices[k], 0, l.context) for l in labels]
            eval_metric.update_dict(dict(zip(self._label_names, device_labels)),
                                    dict(zip(self._output_names, outs)))

    # -- checkpoints ------------------------------------------------------------------------
    def save_checkpoint(self, prefix: str, epoch: int, save_optimizer_states: bool = False,
                        remove_amp_cast: bool = True) -> None:
        """Write ``prefix-symbol.json``, ``prefix-%04d.params`` (and ``.states``)."""
        _replace_atomically(f"{prefix}-symbol.json", self._symbol.save)
        param_name = "%s-%04d.params" % (prefix, epoch)
        self.save_params(param_name)
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


def _merge(arrays: list, axis: int):
    """One array from per-device parts (on the first part's device)."""
    if len(arrays) == 1:
        return arrays[0]
    ctx = arrays[0].context
    return nd.concat(*[a.as_in_context(ctx) for a in arrays], dim=axis)


def _assign(name: str, dst, src) -> None:
    if tuple(dst.shape) != tuple(src.shape):
        raise MXNetError(f"Module: parameter '{name}' has shape {tuple(dst.shape)} but the "
                         f"given value has shape {tuple(src.shape)}")
    dst[:] = src.as_in_context(dst.context)
