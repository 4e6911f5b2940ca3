"""Checks shared by the estimator and its event handlers (MXNet 1.9's
``gluon.contrib.estimator.utils``)."""
from __future__ import annotations

from typing import Iterable, List, Optional

from ...loss import SoftmaxCrossEntropyLoss
from ....metric import Accuracy, CompositeEvalMetric, EvalMetric

__all__: List[str] = []


def _check_metrics(metrics) -> List[EvalMetric]:
    """A list of metrics from a metric, a list of them or None; composite metrics are
    flattened into their parts.

    Raises
    ------
    ValueError
        When something is not an ``EvalMetric``.
    """
    if isinstance(metrics, CompositeEvalMetric):
        return [m for part in metrics.metrics for m in _check_metrics(part)]
    if isinstance(metrics, EvalMetric):
        return [metrics]
    metrics = list(metrics or [])
    if not all(isinstance(m, EvalMetric) for m in metrics):
        raise ValueError("metrics must be a Metric or a list of Metric, "
                         f"refer to mxnet.metric.EvalMetric: {metrics}")
    return metrics


def _check_metric_known(handler, metric, known_metrics: Iterable[EvalMetric]) -> None:
    if metric not in known_metrics:
        raise ValueError(
            f"Event handler {type(handler).__name__} refers to a metric instance {metric} "
            "outside of the known training and validation metrics. Please use the metrics "
            "from estimator.train_metrics and estimator.val_metrics instead.")


def _check_handler_metric_ref(handler, known_metrics) -> None:
    """Every metric a handler holds in an attribute whose name has ``metric`` in it must
    be one of the estimator's (MXNet checks these attributes, not ``monitor``)."""
    for attribute in dir(handler):
        if "metric" not in attribute:
            continue
        reference = getattr(handler, attribute)
        if not reference or callable(reference):
            continue
        for metric in (reference if isinstance(reference, list) else [reference]):
            _check_metric_known(handler, metric, known_metrics)


def _suggest_metric_for_loss(loss) -> Optional[EvalMetric]:
    """Accuracy for a softmax cross-entropy loss, else None."""
    if isinstance(loss, SoftmaxCrossEntropyLoss):
        return Accuracy()
    return None
