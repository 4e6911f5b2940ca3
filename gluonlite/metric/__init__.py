"""``mx.metric``: evaluation metrics with MXNet 1.9's names, conventions and values.

``update(labels, preds)`` takes lists of NDArrays (or single NDArrays); each metric
keeps a local sum and count (``reset_local``) and a global one (``reset``), and
``get()`` returns ``(name, value)``.

The package, by purpose: ``base`` (the protocol, the registry, composite and custom
metrics), ``classification``, ``regression``, ``loss`` (perplexity, cross-entropy,
losses) and ``correlation`` (F1, MCC, PCC, Pearson); every name is exported here,
at MXNet's import path ``mx.metric.X``.
"""
from .base import (CompositeEvalMetric, CustomMetric, EvalMetric, alias, check_label_shapes,
                   create, np, register)
from .classification import Accuracy, TopKAccuracy
from .correlation import F1, MCC, PCC, PearsonCorrelation
from .loss import Caffe, CrossEntropy, Loss, NegativeLogLikelihood, Perplexity, Torch
from .regression import MAE, MSE, RMSE

__all__ = ["EvalMetric", "CompositeEvalMetric", "Accuracy", "TopKAccuracy", "F1", "MCC",
           "Perplexity", "MAE", "MSE", "RMSE", "CrossEntropy", "NegativeLogLikelihood",
           "PearsonCorrelation", "PCC", "Loss", "Torch", "Caffe", "CustomMetric", "np",
           "create", "register", "alias", "check_label_shapes"]
