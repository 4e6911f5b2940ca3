"""Regression metrics: ``MAE``, ``MSE`` and ``RMSE``."""
from __future__ import annotations

import numpy

from .base import EvalMetric, _numpy, check_label_shapes, register

__all__ = ["MAE", "MSE", "RMSE"]


class _Regression(EvalMetric):
    """Mean of a per-batch error; 1-D labels and predictions count as columns."""

    def __init__(self, name, output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    @staticmethod
    def _error(diff: numpy.ndarray) -> float:
        raise NotImplementedError

    def update(self, labels, preds) -> None:
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label, pred = _numpy(label), _numpy(pred)
            if label.ndim == 1:
                label = label.reshape(label.shape[0], 1)
            if pred.ndim == 1:
                pred = pred.reshape(pred.shape[0], 1)
            self._add(self._error(label - pred), 1)


@register
class MAE(_Regression):
    """Mean absolute error."""

    def __init__(self, name: str = "mae", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    @staticmethod
    def _error(diff):
        return numpy.abs(diff).mean()


@register
class MSE(_Regression):
    """Mean squared error."""

    def __init__(self, name: str = "mse", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    @staticmethod
    def _error(diff):
        return (diff ** 2.0).mean()


@register
class RMSE(_Regression):
    """Root mean squared error (averaged over batches)."""

    def __init__(self, name: str = "rmse", output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    @staticmethod
    def _error(diff):
        return numpy.sqrt((diff ** 2.0).mean())
