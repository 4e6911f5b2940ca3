"""Classification metrics: ``Accuracy`` and ``TopKAccuracy``."""
from __future__ import annotations

import numpy

from .. import ndarray
from .base import EvalMetric, _numpy, alias, check_label_shapes, register

__all__ = ["Accuracy", "TopKAccuracy"]


@register
@alias("acc")
class Accuracy(EvalMetric):
    """Fraction of correct predictions; predictions whose shape differs from the
    label's are reduced by ``argmax`` along ``axis``."""

    def __init__(self, axis: int = 1, name: str = "accuracy", output_names=None,
                 label_names=None):
        super().__init__(name, axis=axis, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.axis = axis

    def update(self, labels, preds) -> None:
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            if pred.shape != label.shape:
                pred = ndarray.argmax(pred, axis=self.axis)
            pred = _numpy(pred).astype("int32").ravel()
            label = _numpy(label).astype("int32").ravel()
            check_label_shapes(label, pred)
            self._add((pred == label).sum(), len(pred))


@register
@alias("top_k_accuracy", "top_k_acc")
class TopKAccuracy(EvalMetric):
    """Fraction of samples whose label is among the ``top_k`` highest predictions."""

    def __init__(self, top_k: int = 1, name: str = "top_k_accuracy", output_names=None,
                 label_names=None):
        super().__init__(name, top_k=top_k, output_names=output_names,
                         label_names=label_names, has_global_stats=True)
        self.top_k = top_k
        if self.top_k <= 1:
            raise AssertionError("Please use Accuracy if top_k is no more than 1")
        self.name += f"_{self.top_k}"

    def update(self, labels, preds) -> None:
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            if len(pred.shape) > 2:
                raise AssertionError("Predictions should be no more than 2 dims")
            order = numpy.argpartition(_numpy(pred).astype("float32"), -self.top_k)
            label = _numpy(label).astype("int32")
            check_label_shapes(label, order)
            if order.ndim == 1:
                correct = (order.ravel() == label.ravel()).sum()
            else:
                k = min(order.shape[1], self.top_k)
                correct = (order[:, -k:] == label.reshape(-1, 1)).sum()
            self._add(correct, order.shape[0])
