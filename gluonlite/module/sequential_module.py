"""``SequentialModule``: modules chained so each one's outputs feed the next's data;
backward runs in reverse, handing each module the input gradients of the next."""
from __future__ import annotations

import copy
import logging

from ..initializer import Uniform
from .base_module import BaseModule

__all__ = ["SequentialModule"]


class SequentialModule(BaseModule):
    """A chain of modules (``add`` them in order).

    ``add(module, take_labels=True)`` gives that module the batch's labels (loss heads);
    ``auto_wiring=True`` renames the previous outputs to the module's data names.
    """

    META_TAKE_LABELS = "take_labels"
    META_AUTO_WIRING = "auto_wiring"

    def __init__(self, logger=logging):
        super().__init__(logger=logger)
        self._modules = []
        self._metas = []
        self._label_shapes = None
        self._data_shapes = None
        self._meta_keys = {self.META_TAKE_LABELS, self.META_AUTO_WIRING}

    def add(self, module, **kwargs) -> "SequentialModule":
        """Append ``module`` (returns ``self`` for chaining); unbinds the chain."""
        for key in kwargs:
            assert key in self._meta_keys, f'Unknown meta "{key}", a typo?'
        self._modules.append(module)
        self._metas.append(kwargs)
        self.binded = False
        self.params_initialized = False
        self.optimizer_initialized = False
        return self

    @property
    def data_names(self) -> list:
        return self._modules[0].data_names if self._modules else []

    @property
    def output_names(self) -> list:
        return self._modules[-1].output_names if self._modules else []

    @property
    def data_shapes(self):
        assert self.binded
        return self._modules[0].data_shapes

    @property
    def label_shapes(self):
        assert self.binded
        return self._label_shapes

    @property
    def output_shapes(self):
        assert self.binded
        return self._modules[-1].output_shapes

    def get_params(self) -> tuple:
        assert self.binded and self.params_initialized
        arg_params, aux_params = {}, {}
        for module in self._modules:
            arg, aux = module.get_params()
            arg_params.update(arg)
            aux_params.update(aux)
        return arg_params, aux_params

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing: bool = False, force_init: bool = False,
                    allow_extra: bool = False) -> None:
        if self.params_initialized and not force_init:
            return
        assert self.binded, "call bind before initializing the parameters"
        for module in self._modules:
            module.init_params(initializer=initializer, arg_params=arg_params,
                               aux_params=aux_params, allow_missing=allow_missing,
                               force_init=force_init, allow_extra=allow_extra)
        owners = ({}, {})  # parameter name -> the layer that has it (args, auxs)
        for layer, module in enumerate(self._modules):
            for names, owner in zip(module.get_params(), owners):
                for name in names:
                    assert name not in owner, (
                        f'Duplicated parameter names: name "{name}" in layer {layer} '
                        f"({type(module)}) is already used in layer {owner[name]} "
                        f"({type(self._modules[owner[name]])}).")
                    owner[name] = layer
        self.params_initialized = True

    def bind(self, data_shapes, label_shapes=None, for_training: bool = True,
             inputs_need_grad: bool = False, force_rebind: bool = False, shared_module=None,
             grad_req="write") -> None:
        if self.binded and not force_rebind:
            self.logger.warning("Already bound, ignoring bind()")
            return
        if inputs_need_grad:
            assert for_training is True
        assert shared_module is None, "Shared module is not supported"
        assert self._modules, "Attempting to bind an empty SequentialModule"
        self.binded = True
        self._label_shapes = label_shapes
        shapes = data_shapes
        needs_label = False
        for layer, (module, meta) in enumerate(zip(self._modules, self._metas)):
            takes_labels = bool(meta.get(self.META_TAKE_LABELS, False))
            needs_label = needs_label or takes_labels
            if meta.get(self.META_AUTO_WIRING, False):
                assert len(module.data_names) == len(shapes)
                shapes = [(name, tuple(desc[1])) for name, desc in zip(module.data_names,
                                                                        shapes)]
            module.bind(data_shapes=shapes, label_shapes=label_shapes if takes_labels else None,
                        for_training=for_training,
                        inputs_need_grad=bool(inputs_need_grad or (for_training and layer > 0)),
                        force_rebind=force_rebind, shared_module=None, grad_req=grad_req)
            shapes = module.output_shapes
        if not needs_label:
            self._label_shapes = None

    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),),
                       force_init: bool = False) -> None:
        assert self.binded and self.params_initialized
        if self.optimizer_initialized and not force_init:
            self.logger.warning("optimizer already initialized, ignoring.")
            return
        for module in self._modules:
            module.init_optimizer(kvstore=kvstore, optimizer=optimizer,
                                  optimizer_params=optimizer_params, force_init=force_init)
        self.optimizer_initialized = True

    def forward(self, data_batch, is_train: bool | None = None) -> None:
        assert self.binded and self.params_initialized
        batch = copy.copy(data_batch)
        for layer, module in enumerate(self._modules):
            module.forward(batch, is_train=is_train)
            if layer + 1 == len(self._modules):
                break
            batch.data = module.get_outputs()
            if hasattr(batch, "provide_data"):
                names = [x[0] for x in module.output_shapes]
                assert len(names) == len(batch.data)
                batch.provide_data = [(name, x.shape) for name, x in zip(names, batch.data)]

    def backward(self, out_grads=None) -> None:
        assert self.binded and self.params_initialized
        for layer in range(len(self._modules) - 1, -1, -1):
            self._modules[layer].backward(out_grads=out_grads)
            if layer:
                out_grads = self._modules[layer].get_input_grads()

    def update(self) -> None:
        assert self.binded and self.params_initialized and self.optimizer_initialized
        for module in self._modules:
            module.update()

    def get_outputs(self, merge_multi_context: bool = True) -> list:
        assert self.binded and self.params_initialized
        return self._modules[-1].get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context: bool = True) -> list:
        assert self.binded and self.params_initialized and self.inputs_need_grad
        return self._modules[0].get_input_grads(merge_multi_context=merge_multi_context)

    def update_metric(self, eval_metric, labels, pre_sliced: bool = False) -> None:
        assert self.binded and self.params_initialized
        for meta, module in zip(self._metas, self._modules):
            if meta.get(self.META_TAKE_LABELS, False):
                module.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon) -> None:
        assert self.binded
        for module in self._modules:
            module.install_monitor(mon)
