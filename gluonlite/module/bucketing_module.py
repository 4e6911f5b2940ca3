"""``BucketingModule``: one Module per bucket key (e.g. sequence length), all sharing
the default bucket's Parameters, gradients and optimizer.

Each bucket's Module has its own SymbolBlock (from ``sym_gen(bucket_key)``) over the
same Parameter objects, so a batch for a bucket seen before reuses that bucket's
compiled plans and every update moves the shared weights.
"""
from __future__ import annotations

import logging
import warnings

import numpy as np

from .. import ndarray as nd
from .. import symbol as sym
from ..base import MXNetError
from ..context import cpu
from ..initializer import Uniform
from ..model import load_params
from ..name import NameManager
from .base_module import BaseModule, _check_input_names
from .module import Module

__all__ = ["BucketingModule"]


class BucketingModule(BaseModule):
    """A module switching between networks generated per bucket key.

    Parameters
    ----------
    sym_gen : callable
        ``sym_gen(bucket_key) -> (symbol, data_names, label_names)``.
    default_bucket_key : hashable
        The largest bucket; its module owns the parameters.
    logger, context, work_load_list, fixed_param_names, state_names, group2ctxs,
    compression_params
        As for :class:`Module`.
    """

    def __init__(self, sym_gen, default_bucket_key=None, logger=logging, context=None,
                 work_load_list=None, fixed_param_names=None, state_names=None,
                 group2ctxs=None, compression_params=None):
        super().__init__(logger=logger)
        assert default_bucket_key is not None
        self._default_bucket_key = default_bucket_key
        self._sym_gen = sym_gen
        symbol, data_names, label_names = self._call_sym_gen(default_bucket_key)
        self._fixed_param_names = list(fixed_param_names or [])
        self._state_names = list(state_names or [])
        _check_input_names(symbol, list(data_names or []), "data", True)
        _check_input_names(symbol, list(label_names or []), "label", False)
        _check_input_names(symbol, self._state_names, "state", True)
        _check_input_names(symbol, self._fixed_param_names, "fixed_param", True)
        self._module_kwargs = dict(logger=logger, context=context if context else cpu(),
                                   work_load_list=work_load_list,
                                   fixed_param_names=self._fixed_param_names,
                                   state_names=self._state_names, group2ctxs=group2ctxs,
                                   compression_params=compression_params)
        self._context = self._module_kwargs["context"]
        self._buckets = {}
        self._curr_module = None
        self._curr_bucket_key = None
        self._params_dirty = False
        self._grad_req = None
        self._monitor = None

    def _call_sym_gen(self, *args, **kwargs):
        with NameManager():
            return self._sym_gen(*args, **kwargs)

    def _new_module(self, bucket_key) -> Module:
        symbol, data_names, label_names = self._call_sym_gen(bucket_key)
        return Module(symbol, data_names, label_names, **self._module_kwargs)

    def _reset_bind(self) -> None:
        self.binded = False
        self._buckets = {}
        self._curr_module = None
        self._curr_bucket_key = None

    # -- names and shapes -----------------------------------------------------------------
    @property
    def data_names(self) -> list:
        if self.binded:
            return self._curr_module.data_names
        return list(self._call_sym_gen(self._default_bucket_key)[1])

    @property
    def output_names(self) -> list:
        if self.binded:
            return self._curr_module.output_names
        return self._call_sym_gen(self._default_bucket_key)[0].list_outputs()

    @property
    def data_shapes(self):
        assert self.binded
        return self._curr_module.data_shapes

    @property
    def label_shapes(self):
        assert self.binded
        return self._curr_module.label_shapes

    @property
    def output_shapes(self):
        assert self.binded
        return self._curr_module.output_shapes

    @property
    def symbol(self):
        assert self.binded
        return self._curr_module.symbol

    # -- parameters ---------------------------------------------------------------------------
    def get_params(self) -> tuple:
        assert self.params_initialized
        self._curr_module._params_dirty = self._params_dirty
        params = self._curr_module.get_params()
        self._params_dirty = False
        return params

    def set_params(self, arg_params, aux_params, allow_missing: bool = False,
                   force_init: bool = True, allow_extra: bool = False) -> None:
        if not allow_missing:
            self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                             allow_missing=allow_missing, force_init=force_init,
                             allow_extra=allow_extra)
            return
        if self.params_initialized and not force_init:
            warnings.warn("Parameters already initialized and force_init=False. "
                          "set_params call ignored.", stacklevel=2)
            return
        self._curr_module.set_params(arg_params, aux_params, allow_missing=allow_missing,
                                     force_init=force_init, allow_extra=allow_extra)
        self._params_dirty = True
        self.params_initialized = True

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing: bool = False, force_init: bool = False,
                    allow_extra: bool = False) -> None:
        if self.params_initialized and not force_init:
            return
        assert self.binded, "call bind before initializing the parameters"
        self._curr_module.init_params(initializer=initializer, arg_params=arg_params,
                                      aux_params=aux_params, allow_missing=allow_missing,
                                      force_init=force_init, allow_extra=allow_extra)
        self._params_dirty = False
        self.params_initialized = True

    def get_states(self, merge_multi_context: bool = True) -> list:
        assert self.binded and self.params_initialized
        return self._curr_module.get_states(merge_multi_context=merge_multi_context)

    def set_states(self, states=None, value=None) -> None:
        assert self.binded and self.params_initialized
        self._curr_module.set_states(states, value)

    # -- binding and buckets -----------------------------------------------------------------
    def bind(self, data_shapes, label_shapes=None, for_training: bool = True,
             inputs_need_grad: bool = False, force_rebind: bool = False, shared_module=None,
             grad_req="write") -> None:
        """Bind the default bucket's module (the others are bound on first use)."""
        params = self.get_params() if self.params_initialized else None
        if force_rebind:
            self._reset_bind()
        if self.binded:
            self.logger.warning("Already bound, ignoring bind()")
            return
        if shared_module is not None:
            raise MXNetError("BucketingModule.bind: shared_module is not supported")
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self.binded = True
        self._grad_req = grad_req
        module = self._buckets.get(self._default_bucket_key) or \
            self._new_module(self._default_bucket_key)  # (a loaded module, or a new one)
        module.bind(data_shapes, label_shapes, for_training, inputs_need_grad,
                    force_rebind=False, shared_module=None, grad_req=grad_req)
        self._curr_module = module
        self._curr_bucket_key = self._default_bucket_key
        self._buckets[self._default_bucket_key] = module
        if params is not None:
            self.set_params(*params)

    def switch_bucket(self, bucket_key, data_shapes, label_shapes=None) -> None:
        """Make ``bucket_key``'s module current, creating and binding it (sharing the
        default bucket's parameters) the first time."""
        assert self.binded, "call bind before switching bucket"
        if bucket_key not in self._buckets:
            self._buckets[bucket_key] = self._new_module(bucket_key)
        module = self._buckets[bucket_key]
        if not module.binded:
            module.bind(data_shapes, label_shapes, self._curr_module.for_training,
                        self._curr_module.inputs_need_grad, force_rebind=False,
                        shared_module=self._buckets[self._default_bucket_key],
                        grad_req=self._grad_req)  # (borrows the optimizer if there is one)
            if self._monitor is not None:
                module.install_monitor(self._monitor)
        self._curr_module = self._buckets[bucket_key]
        self._curr_bucket_key = bucket_key

    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init: bool = False):
        """One optimizer for every bucket (the others borrow the current module's)."""
        assert self.binded and self.params_initialized
        if self.optimizer_initialized and not force_init:
            self.logger.warning("optimizer already initialized, ignoring.")
            return
        self._curr_module.init_optimizer(kvstore, optimizer, optimizer_params,
                                         force_init=force_init)
        for module in self._buckets.values():
            if module is not self._curr_module:
                module.borrow_optimizer(self._curr_module)
        self.optimizer_initialized = True

    def prepare(self, data_batch, sparse_row_id_fn=None) -> None:
        """Bind the bucket of ``data_batch`` ahead of its forward."""
        assert self.binded and self.params_initialized
        original = self._curr_bucket_key
        self.switch_bucket(data_batch.bucket_key, data_batch.provide_data,
                           data_batch.provide_label)
        self._curr_module.prepare(data_batch, sparse_row_id_fn=sparse_row_id_fn)
        self.switch_bucket(original, None, None)

    # -- running ---------------------------------------------------------------------------------
    def forward(self, data_batch, is_train: bool | None = None) -> None:
        assert self.binded and self.params_initialized
        self.switch_bucket(data_batch.bucket_key, data_batch.provide_data,
                           data_batch.provide_label)
        self._curr_module.forward(data_batch, is_train=is_train)

    def backward(self, out_grads=None) -> None:
        assert self.binded and self.params_initialized
        self._curr_module.backward(out_grads=out_grads)

    def update(self) -> None:
        assert self.binded and self.params_initialized and self.optimizer_initialized
        self._params_dirty = True
        self._curr_module.update()

    def get_outputs(self, merge_multi_context: bool = True) -> list:
        assert self.binded and self.params_initialized
        return self._curr_module.get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context: bool = True) -> list:
        assert self.binded and self.params_initialized and self.inputs_need_grad
        return self._curr_module.get_input_grads(merge_multi_context=merge_multi_context)

    def update_metric(self, eval_metric, labels, pre_sliced: bool = False) -> None:
        assert self.binded and self.params_initialized
        self._curr_module.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon) -> None:
        """Install ``mon`` on every bucket's module (and on those bound later)."""
        assert self.binded
        self._monitor = mon
        for module in self._buckets.values():
            module.install_monitor(mon)

    # -- checkpoints -----------------------------------------------------------------------------
    def save_checkpoint(self, prefix: str, epoch: int, remove_amp_cast: bool = False) -> None:
        """Write ``prefix-%04d.params``, one ``prefix-<key>-symbol.json`` per bucket and
        ``prefix.buckets`` (the keys), as MXNet does."""
        if not self._buckets:
            raise MXNetError("Empty BucketingModule cannot be saved")
        self.save_params("%s-%04d.params" % (prefix, epoch))
        for bucket_key in self._buckets:
            symbol = self._call_sym_gen(bucket_key)[0]
            symbol.save("%s-%s-symbol.json" % (prefix, bucket_key),
                        remove_amp_cast=remove_amp_cast)
        nd.save("%s.buckets" % prefix, nd.array(list(self._buckets), dtype=np.int32))

    @staticmethod
    def load_dict(sym_dict=None, sym_gen=None, default_bucket_key=None, arg_params=None,
                  aux_params=None, **kwargs):
        """A BucketingModule from ``{bucket_key: symbol}`` and shared parameters (bind it
        next); ``kwargs`` are the constructor's (``context``, ``logger``, ...)."""
        for name, value in (("sym_dict", sym_dict), ("arg_params", arg_params),
                            ("aux_params", aux_params),
                            ("default_bucket_key", default_bucket_key)):
            if value is None:
                raise MXNetError(f"BucketingModule.load_dict: {name} needs to be provided")
        mod = BucketingModule(sym_gen, default_bucket_key, **kwargs)
        _, data_names, label_names = sym_gen(default_bucket_key)
        for key, symbol in sym_dict.items():
            mod._buckets[key] = Module(symbol, data_names, label_names, **mod._module_kwargs)
        if default_bucket_key not in mod._buckets:
            raise MXNetError(f"BucketingModule.load_dict: default bucket {default_bucket_key} "
                             f"is not among the buckets {list(sym_dict)}")
        mod._curr_module = mod._buckets[default_bucket_key]
        mod._curr_module._arg_params = arg_params
        mod._curr_module._aux_params = aux_params
        mod._curr_module.params_initialized = True
        mod.params_initialized = True
        return mod

    @staticmethod
    def load(prefix: str, epoch: int, sym_gen=None, default_bucket_key=None, **kwargs):
        """A BucketingModule from :meth:`save_checkpoint` files (bind it next)."""
        assert sym_gen is not None, "sym_gen is required for loading BucketingModule"
        assert default_bucket_key is not None, \
            "default_bucket_key is required for loading BucketingModule"
        keys = [int(k) for k in nd.load("%s.buckets" % prefix)[0].asnumpy()]
        mod = BucketingModule(sym_gen, default_bucket_key, **kwargs)
        for key in keys:
            _, data_names, label_names = sym_gen(key)
            symbol = sym.load("%s-%s-symbol.json" % (prefix, key))
            mod._buckets[key] = Module(symbol, data_names, label_names, **kwargs)
            if key == default_bucket_key:
                mod._curr_module = mod._buckets[key]
        if mod._curr_module is None:
            raise MXNetError(f"BucketingModule.load: default bucket {default_bucket_key} "
                             f"is not among the saved buckets {keys}")
        arg_params, aux_params = load_params(prefix, epoch)
        mod._curr_module._arg_params = arg_params
        mod._curr_module._aux_params = aux_params
        mod._curr_module.params_initialized = True
        mod.params_initialized = True
        return mod
