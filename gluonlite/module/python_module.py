"""Modules written in Python (``mx.mod.PythonModule``, ``PythonLossModule``): no
parameters, the computation supplied by the subclass or a gradient function."""
from __future__ import annotations

import logging

from .. import ndarray as nd
from ..initializer import Uniform
from .base_module import BaseModule

__all__ = ["PythonModule", "PythonLossModule"]


class PythonModule(BaseModule):
    """Base of parameterless modules implemented in Python; subclasses define
    ``_compute_output_shapes``, ``forward``, ``backward``, ``get_outputs`` and
    ``get_input_grads``.

    Parameters
    ----------
    data_names, label_names, output_names : list of str
    logger : logging.Logger
    """

    def __init__(self, data_names, label_names, output_names, logger=logging):
        super().__init__(logger=logger)
        self._data_names = list(data_names) if isinstance(data_names, tuple) else data_names
        self._label_names = list(label_names) if isinstance(label_names, tuple) \
            else label_names
        self._output_names = output_names
        self._data_shapes = None
        self._label_shapes = None
        self._output_shapes = None

    @property
    def data_names(self) -> list:
        return self._data_names

    @property
    def output_names(self) -> list:
        return self._output_names

    @property
    def data_shapes(self):
        return self._data_shapes

    @property
    def label_shapes(self):
        return self._label_shapes

    @property
    def output_shapes(self):
        return self._output_shapes

    def get_params(self) -> tuple:
        return {}, {}

    def init_params(self, initializer=Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing: bool = False, force_init: bool = False,
                    allow_extra: bool = False) -> None:
        """Nothing to initialize."""

    def update(self) -> None:
        """Nothing to update."""

    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),),
                       force_init: bool = False) -> None:
        """No parameters, no optimizer."""

    def update_metric(self, eval_metric, labels, pre_sliced: bool = False) -> None:
        if self._label_shapes is None:
            return  # a module without labels has nothing to score
        if pre_sliced:
            raise RuntimeError("PythonModule does not support presliced labels")
        eval_metric.update(labels, self.get_outputs())

    def bind(self, data_shapes, label_shapes=None, for_training: bool = True,
             inputs_need_grad: bool = False, force_rebind: bool = False, shared_module=None,
             grad_req="write") -> None:
        if self.binded and not force_rebind:
            self.logger.warning("Already bound, ignoring bind()")
            return
        assert grad_req == "write", "Python module only support write gradient"
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        assert len(data_shapes) == len(self._data_names)
        assert [x[0] for x in data_shapes] == self._data_names
        self._data_shapes = data_shapes
        self._label_shapes = label_shapes
        if label_shapes is not None:
            assert self._label_names is not None
            assert len(self._label_names) == len(label_shapes)
            assert [x[0] for x in label_shapes] == self._label_names
        self._output_shapes = self._compute_output_shapes()
        self.binded = True

    def _compute_output_shapes(self) -> list:
        raise NotImplementedError


class PythonLossModule(PythonModule):
    """A loss head in Python: the output is the data, the gradient ``grad_func(scores,
    labels)``.

    Parameters
    ----------
    name : str, default 'pyloss'
    data_names, label_names : one name each
    grad_func : callable, optional
        ``grad_func(scores, labels) -> gradient`` (NDArray or array-like).
    """

    def __init__(self, name: str = "pyloss", data_names=("data",),
                 label_names=("softmax_label",), logger=logging, grad_func=None):
        super().__init__(data_names, label_names, [name + "_output"], logger=logger)
        self._name = name
        assert len(data_names) == 1
        assert len(label_names) == 1
        if grad_func is not None:
            assert callable(grad_func)
        self._grad_func = grad_func
        self._scores = None
        self._labels = None
        self._scores_grad = None

    def _compute_output_shapes(self) -> list:
        return [(self._name + "_output", self._data_shapes[0][1])]

    def forward(self, data_batch, is_train: bool | None = None) -> None:
        self._scores = data_batch.data[0]
        if is_train is None:
            is_train = self.for_training
        if is_train:
            self._labels = data_batch.label[0]

    def get_outputs(self, merge_multi_context: bool = True) -> list:
        assert merge_multi_context is True
        return [self._scores]

    def backward(self, out_grads=None) -> None:
        assert out_grads is None, "For a loss module, out_grads should be None"
        assert self.for_training
        self._backward_impl()

    def _backward_impl(self) -> None:
        if self._grad_func is None:
            raise NotImplementedError("PythonLossModule needs grad_func (or a subclass "
                                      "overriding _backward_impl)")
        grad = self._grad_func(self._scores, self._labels)
        self._scores_grad = grad if isinstance(grad, nd.NDArray) else nd.array(grad)

    def get_input_grads(self, merge_multi_context: bool = True) -> list:
        assert merge_multi_context is True
        return [self._scores_grad]
