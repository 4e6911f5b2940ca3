"""Metrics over a model's probabilities or losses: ``Perplexity``, ``CrossEntropy``,
``NegativeLogLikelihood``, ``Loss`` (and its legacy names ``Torch`` and ``Caffe``)."""
from __future__ import annotations

import math

import numpy

from .. import ndarray
from ..ndarray import NDArray
from .base import EvalMetric, _numpy, alias, check_label_shapes, register

__all__ = ["Perplexity", "CrossEntropy", "NegativeLogLikelihood", "Loss", "Torch", "Caffe"]


@register
class Perplexity(EvalMetric):
    """``exp`` of the mean negative log-probability of the labels; labels equal to
    ``ignore_label`` are left out."""

    def __init__(self, ignore_label, axis: int = -1, name: str = "perplexity",
                 output_names=None, label_names=None):
        super().__init__(name, ignore_label=ignore_label, output_names=output_names,
                         label_names=label_names, has_global_stats=True)
        self.ignore_label = ignore_label
        self.axis = axis

    def update(self, labels, preds) -> None:
        if len(labels) != len(preds):
            raise ValueError(f"Perplexity: {len(labels)} labels for {len(preds)} predictions")
        loss, num = 0.0, 0
        for label, pred in zip(labels, preds):
            if label.size != pred.size / pred.shape[-1]:
                raise ValueError(f"shape mismatch: {label.shape} vs. {pred.shape}")
            label = label.as_in_context(pred.context).reshape((label.size,))
            prob = ndarray.pick(pred, label.astype(dtype="int32"), axis=self.axis)
            if self.ignore_label is not None:
                ignore = (label == self.ignore_label).astype(prob.dtype)
                num -= ndarray.sum(ignore).asscalar()
                prob = prob * (1 - ignore) + ignore
            loss -= float(ndarray.sum(ndarray.log(ndarray.maximum(1e-10, prob))).asscalar())
            num += prob.size
        self._add(loss, num)

    def get(self):
        if self.num_inst == 0:
            return self.name, float("nan")
        return self.name, math.exp(self.sum_metric / self.num_inst)

    def get_global(self):
        if self.global_num_inst == 0:
            return self.name, float("nan")
        return self.name, math.exp(self.global_sum_metric / self.global_num_inst)


class _LabelLogLoss(EvalMetric):
    """``-log(pred[i, label_i] + eps)`` summed over samples."""

    def __init__(self, eps, name, output_names, label_names):
        super().__init__(name, eps=eps, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.eps = eps

    def update(self, labels, preds) -> None:
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label, pred = _numpy(label).ravel(), _numpy(pred)
            if label.shape[0] != pred.shape[0]:
                raise ValueError(f"{type(self).__name__}: {label.shape[0]} labels for "
                                 f"{pred.shape[0]} predictions (shape {pred.shape})")
            prob = pred[numpy.arange(label.shape[0]), numpy.int64(label)]
            self._add((-numpy.log(prob + self.eps)).sum(), label.shape[0])


@register
@alias("ce")
class CrossEntropy(_LabelLogLoss):
    """Cross-entropy of predicted probabilities against class labels."""

    def __init__(self, eps: float = 1e-12, name: str = "cross-entropy", output_names=None,
                 label_names=None):
        super().__init__(eps, name, output_names, label_names)


@register
@alias("nll_loss")
class NegativeLogLikelihood(_LabelLogLoss):
    """Negative log-likelihood of the labels under the predicted probabilities."""

    def __init__(self, eps: float = 1e-12, name: str = "nll-loss", output_names=None,
                 label_names=None):
        super().__init__(eps, name, output_names, label_names)


@register
class Loss(EvalMetric):
    """Mean of the predictions themselves (for outputs that are losses)."""

    def __init__(self, name: str = "loss", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    def update(self, _, preds) -> None:
        if isinstance(preds, NDArray):
            preds = [preds]
        for pred in preds:
            self._add(ndarray.sum(pred).asscalar(), pred.size)


@register
class Torch(Loss):
    """:class:`Loss` named ``torch``."""

    def __init__(self, name: str = "torch", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names)


@register
class Caffe(Loss):
    """:class:`Loss` named ``caffe``."""

    def __init__(self, name: str = "caffe", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names)
