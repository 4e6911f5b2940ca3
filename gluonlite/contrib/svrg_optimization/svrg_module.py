"""``SVRGModule``: a Module trained with stochastic variance-reduced gradients (MXNet's
``contrib.svrg_optimization.svrg_module``).

The module runs two copies of its network.  The main one holds the current weights
``w``; the auxiliary one (``_mod_aux``, a plain :class:`Module`) holds the "special"
weights ``w~`` copied from ``w`` each time :meth:`SVRGModule.update_full_grads` runs
(every ``update_freq`` epochs in :meth:`SVRGModule.fit`), which also averages the
gradients of the whole dataset at ``w~`` into ``_param_dict``.  A training step
runs both copies on the batch and hands the optimizer

    g_batch(w) - g_batch(w~) + full_gradient(w~)

in place of ``g_batch(w)``.  Gradients are the raw sums over the batch, as the
gradient arrays hold them; the optimizer's ``rescale_grad = 1/batch_size`` scales
the corrected gradient as it scales a plain one.

As in MXNet, the averages are not reset between two calls of ``update_full_grads``:
each call starts from the previous average (``init_optimizer`` starts them at
zero), which is part of MXNet's numbers.
"""
from __future__ import annotations

import logging

from ... import ndarray as nd
from ... import optimizer as opt
from ...base import MXNetError
from ...module import Module
from .svrg_optimizer import FULL_SUFFIX, _SVRGOptimizer

__all__ = ["SVRGModule"]


class _SVRGValueError(MXNetError, ValueError):
    """A bad value (MXNet raises ``ValueError``)."""


class _SVRGTypeError(MXNetError, TypeError):
    """A value of the wrong type (MXNet raises ``TypeError``)."""


class _SVRGStateError(MXNetError, AssertionError):
    """A call out of order (MXNet fails an assertion or on a missing attribute)."""


class SVRGModule(Module):
    """A Module whose updates use SVRG's variance-reduced gradients.

    Parameters
    ----------
    symbol : Symbol
        The network, loss head included.
    data_names, label_names : sequence of str
        Inputs fed from ``DataBatch.data`` / ``DataBatch.label``.
    logger : logging.Logger
    context : Context or list of Context, default cpu()
    work_load_list : list of float, optional
    fixed_param_names : list of str, optional
    state_names : list of str, optional
    group2ctxs : dict or list of dict, optional
    compression_params : dict, optional
        As for :class:`~gluonlite.module.Module`.
    update_freq : int
        Recompute the full gradients every ``update_freq`` epochs (a positive int).

    Raises
    ------
    MXNetError
        When ``update_freq`` is not an int (also a ``TypeError``) or not positive (also
        a ``ValueError``), as MXNet raises those.

    Examples
    --------
    >>> mod = SVRGModule(symbol=lro, data_names=['data'], label_names=['lin_reg_label'],
    ...                  update_freq=2)
    >>> mod.fit(di, eval_metric='mse', optimizer='sgd',
    ...         optimizer_params=(('learning_rate', 0.025),), num_epoch=10)
    """

    def __init__(self, symbol, data_names=("data",), label_names=("softmax_label",),
                 logger=logging, context=None, work_load_list=None, fixed_param_names=None,
                 state_names=None, group2ctxs=None, compression_params=None,
                 update_freq=None):
        super().__init__(symbol, data_names=data_names, label_names=label_names,
                         logger=logger, context=context, work_load_list=work_load_list,
                         fixed_param_names=fixed_param_names, state_names=state_names,
                         group2ctxs=group2ctxs, compression_params=compression_params)
        self.update_freq = _check_update_freq(update_freq)
        self._mod_aux = Module(symbol, data_names, label_names, logger, context,
                               work_load_list, fixed_param_names, state_names, group2ctxs,
                               compression_params)
        self._param_dict = None
        self._full_keys: dict = {}
        self._ctx_len = len(self._context)
        self._aux_pending_backward = False

    def _reset_bind(self) -> None:
        """Unbind both modules (``Module.__init__`` calls this before ``_mod_aux``
        exists)."""
        super()._reset_bind()
        aux = getattr(self, "_mod_aux", None)
        if aux is not None:
            aux._reset_bind()

    # -- binding ------------------------------------------------------------------------
    def bind(self, data_shapes, label_shapes=None, for_training: bool = True,
             inputs_need_grad: bool = False, force_rebind: bool = False, shared_module=None,
             grad_req="write") -> None:
        """Bind the module and, for training, the auxiliary module (same arguments as
        :meth:`Module.bind`; a shared SVRGModule shares its auxiliary module too)."""
        super().bind(data_shapes, label_shapes, for_training, inputs_need_grad,
                     force_rebind, shared_module, grad_req)
        if for_training:
            shared_aux = getattr(shared_module, "_mod_aux", None)
            if shared_aux is not None and not shared_aux.params_initialized:
                shared_aux = None
            self._mod_aux.bind(data_shapes, label_shapes, for_training, inputs_need_grad,
                               force_rebind, shared_aux, grad_req)

    def reshape(self, data_shapes, label_shapes=None) -> None:
        """New input shapes for both modules."""
        super().reshape(data_shapes, label_shapes=label_shapes)
        if self._mod_aux.binded:
            self._mod_aux.reshape(data_shapes, label_shapes=label_shapes)

    # -- optimizer ------------------------------------------------------------------------
    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),),
                       force_init: bool = False) -> None:
        """Install ``_SVRGOptimizer`` around ``optimizer`` and zero the full gradients.

        Parameters
        ----------
        kvstore : str or KVStore
            As for :meth:`Module.init_optimizer`.  When a store is used, the full
            gradients are also gathered in it, under extra keys.
        optimizer : str or Optimizer
            The optimizer that applies the corrected gradients.
        optimizer_params : dict or sequence of pairs
            Its arguments; ``rescale_grad`` defaults to ``1/batch_size``.
        force_init : bool
            Replace an optimizer already installed.
        """
        if not (self.binded and self.params_initialized):
            raise _SVRGStateError("SVRGModule.init_optimizer: bind the module and "
                                  "initialize its parameters first")
        # MXNet zeroes the full gradients on every call, installed optimizer or not
        self._param_dict = [{name: nd.zeros(value.shape, ctx=ctx, dtype=value.dtype)
                             for name, value in self.get_params()[0].items()}
                            for ctx in self._context]
        if self.optimizer_initialized and not force_init:
            self.logger.warning("optimizer already initialized, ignoring...")
            return
        svrg_optimizer = self._create_optimizer(_SVRGOptimizer.__name__, optimizer, kvstore,
                                                optimizer_params)
        super().init_optimizer(kvstore=kvstore, optimizer=svrg_optimizer,
                               optimizer_params=optimizer_params, force_init=force_init)
        self._init_full_keys()

    def _create_optimizer(self, optimizer: str, default_opt, kvstore,
                          optimizer_params) -> opt.Optimizer:
        """An ``optimizer`` (``_SVRGOptimizer``) around ``default_opt``, whose
        ``param_idx2name`` names the parameters by the Trainer's indices and one
        ``<name>_full`` key per parameter after them."""
        batch_size = self._exec_group.batch_size
        kv_type = getattr(kvstore, "type", "") if not isinstance(kvstore, str) else ""
        if "dist" in kv_type and "_sync" in kv_type:
            batch_size *= kvstore.num_workers
        idx2name = dict(enumerate(self._exec_group.param_names))
        for name in self._param_dict[0]:
            idx2name[max(idx2name, default=-1) + 1] = name + FULL_SUFFIX
        params = dict(optimizer_params)
        params.setdefault("rescale_grad", 1.0 / batch_size)
        params["default_optimizer"] = default_opt
        params["param_idx2name"] = idx2name
        return opt.create(optimizer, **params)

    def _init_full_keys(self) -> None:
        """With a kvstore, add one zero-initialized key per parameter to gather its
        full gradient (the index ``param_idx2name`` gives ``<name>_full``)."""
        names = {value: key for key, value in self._optimizer.idx2name.items()}
        self._full_keys = {name: names[name + FULL_SUFFIX]
                           for name in self._exec_group.param_names
                           if name + FULL_SUFFIX in names}
        self._trainer._prepare()  # the Trainer creates its store lazily; MXNet's exists now
        if self._kvstore is None:
            return
        arg_params = self.get_params()[0]
        for name, key in self._full_keys.items():
            self._kvstore.init(key, nd.zeros(arg_params[name].shape,
                                             dtype=arg_params[name].dtype))

    # -- running --------------------------------------------------------------------------
    def forward(self, data_batch, is_train: bool | None = None) -> None:
        """Run the module on ``data_batch``; with ``is_train=True`` (as
        ``forward_backward`` and ``fit`` pass it) also the auxiliary module, at the
        special weights.  ``is_train=None`` runs the main module alone, as in MXNet."""
        if is_train and not self._mod_aux.params_initialized:
            raise _SVRGStateError("SVRGModule.forward(is_train=True): the auxiliary "
                                  "module has no weights yet; call update_full_grads "
                                  "(fit does) first")
        super().forward(data_batch, is_train)
        if is_train:
            self._mod_aux.forward(data_batch, is_train)
            self._aux_pending_backward = True

    def backward(self, out_grads=None) -> None:
        """Gradients of the last forward, for both modules (the auxiliary module's
        only after it ran the batch; otherwise its last gradients stay, which are
        what MXNet's re-run of its last forward gives)."""
        super().backward(out_grads)
        if self._mod_aux.binded and self._aux_pending_backward:
            self._mod_aux.backward(out_grads)
            self._aux_pending_backward = False

    def update(self) -> None:
        """Replace the gradients by SVRG's corrected ones, then apply the optimizer."""
        if not self.optimizer_initialized or self._param_dict is None:
            raise _SVRGStateError("SVRGModule.update: call init_optimizer first")
        self._update_svrg_gradients()
        super().update()

    def update_full_grads(self, train_data) -> None:
        """Copy the current weights to the auxiliary module and average its gradients
        over a full pass of ``train_data`` into ``_param_dict``.

        The average divides by the number of batches less the padded fraction of the
        last one; it starts from the previous average (MXNet's behaviour).  With a
        kvstore, the averages of all devices are summed in it and each device gets
        ``sum / num_devices``.

        Parameters
        ----------
        train_data : DataIter
            The training data; it is reset first.
        """
        if self._param_dict is None:
            raise _SVRGStateError("SVRGModule.update_full_grads: call init_optimizer first")
        if not self._mod_aux.binded:
            raise _SVRGStateError("SVRGModule.update_full_grads: the module must be bound "
                                  "for training")
        arg_params, aux_params = self.get_params()
        self._mod_aux.set_params(arg_params=arg_params, aux_params=aux_params)
        train_data.reset()
        nbatch, padding = 0, 0
        for batch in train_data:
            self._mod_aux.forward(batch, is_train=True)
            self._mod_aux.backward()
            self._aux_pending_backward = False
            self._add_aux_gradients()
            nbatch += 1
            padding = getattr(batch, "pad", 0) or 0
        if nbatch == 0:
            raise _SVRGValueError("SVRGModule.update_full_grads: train_data gave no batch")
        true_num_batch = nbatch - padding / train_data.batch_size
        for name in _gradients(self._mod_aux):
            per_device = []
            for k in range(self._ctx_len):
                self._param_dict[k][name] /= true_num_batch
                per_device.append(self._param_dict[k][name])
            if self._kvstore is not None:
                self._accumulate_kvstore(name, per_device)

    def _add_aux_gradients(self) -> None:
        """Add the auxiliary module's batch gradients to the running sums."""
        for name, grads in _gradients(self._mod_aux).items():
            for k in range(self._ctx_len):
                self._param_dict[k][name] = self._param_dict[k][name] + grads[k]

    def _accumulate_kvstore(self, key: str, value: list) -> None:
        """Sum the per-device averages ``value`` of parameter ``key`` in the kvstore
        (under its full-gradient key), pull the sum back into ``value`` and hand each
        device its share."""
        full_key = self._full_keys[key]
        self._kvstore.push(full_key, value)
        self._kvstore._barrier()
        self._kvstore.pull(full_key, value)
        self._allocate_gradients(key, value)

    def _allocate_gradients(self, key: str, value: list) -> None:
        """Give device ``i`` the full gradient ``value[i] / num_devices``."""
        for i in range(self._ctx_len):
            self._param_dict[i][key] = value[i] / self._ctx_len

    @staticmethod
    def _svrg_grads_update_rule(g_curr_batch_curr_weight, g_curr_batch_special_weight,
                                g_special_weight_all_batch):
        """SVRG's gradient, written into the first argument(s) and returned:
        ``g(w) - g(w~) + full_gradient(w~)`` (each an NDArray, or lists of them)."""
        if isinstance(g_curr_batch_curr_weight, nd.NDArray):
            g_curr_batch_curr_weight -= g_curr_batch_special_weight
            g_curr_batch_curr_weight += g_special_weight_all_batch
            return g_curr_batch_curr_weight
        for i, grad in enumerate(g_curr_batch_curr_weight):
            grad -= g_curr_batch_special_weight[i]
            grad += g_special_weight_all_batch[i]
        return g_curr_batch_curr_weight

    def _update_svrg_gradients(self) -> None:
        """Overwrite every device's gradients with SVRG's (parameters without a
        gradient, such as fixed ones, are skipped).  Before the first
        :meth:`update_full_grads` the auxiliary module has run nothing and its
        gradients count as zeros, as MXNet's freshly bound gradient arrays are."""
        aux_ran = self._mod_aux.binded and self._mod_aux.params_initialized
        special = _gradients(self._mod_aux) if aux_ran else {}
        for name, grads in _gradients(self).items():
            for k in range(self._ctx_len):
                full = self._param_dict[k][name]
                if name in special:
                    self._svrg_grads_update_rule(grads[k], special[name][k], full)
                else:
                    grads[k] += full

    def prepare(self, data_batch, sparse_row_id_fn=None) -> None:
        """Prepare both modules for ``data_batch``."""
        super().prepare(data_batch, sparse_row_id_fn=sparse_row_id_fn)
        if self._mod_aux.binded:
            self._mod_aux.prepare(data_batch, sparse_row_id_fn=sparse_row_id_fn)

    # -- training loop --------------------------------------------------------------------
    def _begin_epoch(self, epoch: int, train_data) -> None:
        """``fit``'s epoch start: every ``update_freq`` epochs the full gradients
        (:meth:`update_full_grads`), then ``train_data`` rewound (MXNet's order)."""
        if epoch % self.update_freq == 0:
            self.update_full_grads(train_data)
        train_data.reset()

    def _finish_epoch(self, train_data) -> None:
        """Nothing: the next epoch rewinds ``train_data`` (after its full gradients)."""


def _check_update_freq(update_freq) -> int:
    """``update_freq`` if it is a positive int; MXNet's errors otherwise."""
    if not isinstance(update_freq, int):
        raise _SVRGTypeError("update_freq in SVRGModule must be an integer to represent the "
                             "frequency for calculating full gradients")
    if update_freq <= 0:
        raise _SVRGValueError("update_freq in SVRGModule must be a positive integer to "
                              "represent the frequency for calculating full gradients")
    return update_freq


def _gradients(module: Module) -> dict:
    """Per parameter with a gradient (in ``param_names`` order), its gradient array on
    each device."""
    group = module._exec_group
    params = group._params
    return {name: params[name].list_grad() for name in group.param_names
            if params[name].grad_req != "null"}
