"""``gluon.loss``: MXNet 1.9's loss blocks.

Each loss is a ``HybridBlock`` whose ``hybrid_forward(F, pred, label, ...)`` returns
one value per sample (averaged over every axis but ``batch_axis``), so it runs
imperatively and inside hybridized networks alike.  ``weight`` scales the loss (a
number); ``sample_weight`` is broadcast-multiplied onto the elementwise loss.
"""
from __future__ import annotations

import numbers

import numpy as np

from ..base import MXNetError
from .. import ndarray
from .block import HybridBlock

__all__ = ["Loss", "L2Loss", "L1Loss", "SigmoidBinaryCrossEntropyLoss", "SigmoidBCELoss",
           "SoftmaxCrossEntropyLoss", "SoftmaxCELoss", "KLDivLoss", "CTCLoss", "HuberLoss",
           "HingeLoss", "SquaredHingeLoss", "LogisticLoss", "TripletLoss", "PoissonNLLLoss",
           "CosineEmbeddingLoss", "SDMLLoss"]


def _apply_weighting(F, loss, weight=None, sample_weight=None):
    """``loss * sample_weight`` (broadcast) and ``* weight`` (a number)."""
    if sample_weight is not None:
        loss = F.broadcast_mul(loss, sample_weight)
    if weight is not None:
        if not isinstance(weight, numbers.Number):
            raise MXNetError(f"loss weight must be a number, got {type(weight).__name__}")
        loss = loss * weight
    return loss


def _reshape_like(F, x, y, loss_name: str = "reshape_like"):
    """``x`` reshaped to ``y``'s shape (the label to the prediction's).  MXNet's helper
    takes ``(F, x, y)`` only, and GluonCV imports and calls it so: ``loss_name`` (for
    the message) is optional."""
    if F is ndarray:
        if x.size != y.size:
            raise MXNetError(f"{loss_name}: label of shape {x.shape} cannot be matched to "
                             f"the prediction of shape {y.shape}")
        return x.reshape(y.shape)
    return F.reshape_like(x, y)


class Loss(HybridBlock):
    """Base class of losses.

    Parameters
    ----------
    weight : float or None
        Global scalar weight of the loss.
    batch_axis : int
        The axis that indexes samples; the loss is averaged over all others.
    """

    def __init__(self, weight, batch_axis: int, **kwargs):
        super().__init__(**kwargs)
        self._weight = weight
        self._batch_axis = batch_axis

    def __repr__(self) -> str:
        return f"{type(self).__name__}(batch_axis={self._batch_axis}, w={self._weight})"

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define hybrid_forward")

    def _per_sample(self, F, loss, sample_weight, weight=None):
        """Weighting, then the mean over every axis but the batch axis."""
        loss = _apply_weighting(F, loss, self._weight if weight is None else weight,
                                sample_weight)
        return F.mean(loss, axis=self._batch_axis, exclude=True)


class L2Loss(Loss):
    """``0.5 * weight * (label - pred) ** 2`` averaged per sample."""

    def __init__(self, weight: float = 1.0, batch_axis: int = 0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred, "L2Loss")
        return self._per_sample(F, F.square(label - pred), sample_weight, self._weight / 2)


class L1Loss(Loss):
    """``|label - pred|`` averaged per sample."""

    def __init__(self, weight=None, batch_axis: int = 0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred, "L1Loss")
        return self._per_sample(F, F.abs(label - pred), sample_weight)


def _softrelu_neg_abs(F, x):
    """``log(1 + exp(-|x|))``, the stable tail of the logistic loss."""
    return F.Activation(-F.abs(x), act_type="softrelu")


class SigmoidBinaryCrossEntropyLoss(Loss):
    """Binary cross-entropy; with ``from_sigmoid=False`` ``pred`` are logits and the
    sigmoid is applied stably inside.  ``pos_weight`` weights the positive term."""

    def __init__(self, from_sigmoid: bool = False, weight=None, batch_axis: int = 0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_sigmoid = from_sigmoid

    def hybrid_forward(self, F, pred, label, sample_weight=None, pos_weight=None):
        label = _reshape_like(F, label, pred, "SigmoidBinaryCrossEntropyLoss")
        if not self._from_sigmoid:
            if pos_weight is None:
                loss = F.relu(pred) - pred * label + _softrelu_neg_abs(F, pred)
            else:
                log_weight = 1 + F.broadcast_mul(pos_weight - 1, label)
                loss = pred - pred * label + log_weight * (_softrelu_neg_abs(F, pred)
                                                           + F.relu(-pred))
        else:
            eps = 1e-12
            positive = F.log(pred + eps) * label
            if pos_weight is not None:
                positive = F.broadcast_mul(positive, pos_weight)
            loss = -(positive + F.log(1.0 - pred + eps) * (1.0 - label))
        return self._per_sample(F, loss, sample_weight)


SigmoidBCELoss = SigmoidBinaryCrossEntropyLoss


class SoftmaxCrossEntropyLoss(Loss):
    """Softmax cross-entropy along ``axis``; ``sparse_label`` labels are class indices,
    otherwise distributions of ``pred``'s shape; ``from_logits`` means ``pred`` already
    holds log-probabilities."""

    def __init__(self, axis: int = -1, sparse_label: bool = True, from_logits: bool = False,
                 weight=None, batch_axis: int = 0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._axis = axis
        self._sparse_label = sparse_label
        self._from_logits = from_logits

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        if not self._from_logits:
            pred = F.log_softmax(pred, axis=self._axis)
        if self._sparse_label:
            loss = -F.pick(pred, label, axis=self._axis, keepdims=True)
        else:
            label = _reshape_like(F, label, pred, "SoftmaxCrossEntropyLoss")
            loss = -F.sum(pred * label, axis=self._axis, keepdims=True)
        return self._per_sample(F, loss, sample_weight)


SoftmaxCELoss = SoftmaxCrossEntropyLoss


class KLDivLoss(Loss):
    """Kullback-Leibler divergence ``label * (log label - pred)`` summed per sample;
    ``pred`` holds log-probabilities unless ``from_logits=False``."""

    def __init__(self, from_logits: bool = True, axis: int = -1, weight=None,
                 batch_axis: int = 0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._axis = axis

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        if not self._from_logits:
            pred = F.log_softmax(pred, axis=self._axis)
        loss = label * (F.log(label + 1e-12) - pred)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.sum(loss, axis=self._batch_axis, exclude=True)


class CTCLoss(Loss):
    """Connectionist temporal classification loss (the ``CTCLoss`` operator with the
    blank as the last class).  ``layout`` of ``pred`` is ``NTC`` or ``TNC``; of
    ``label`` ``NT`` or ``TN``."""

    def __init__(self, layout: str = "NTC", label_layout: str = "NT", weight=None, **kwargs):
        if layout not in ("NTC", "TNC"):
            raise ValueError(f"Only 'NTC' and 'TNC' layouts for pred are supported. Got: {layout}")
        if label_layout not in ("NT", "TN"):
            raise ValueError("Only 'NT' and 'TN' layouts for label are supported. Got: "
                             f"{label_layout}")
        self._layout = layout
        self._label_layout = label_layout
        super().__init__(weight, label_layout.find("N"), **kwargs)

    def hybrid_forward(self, F, pred, label, pred_lengths=None, label_lengths=None,
                       sample_weight=None):
        if self._layout == "NTC":
            pred = F.swapaxes(pred, 0, 1)
        if self._batch_axis == 1:
            label = F.swapaxes(label, 0, 1)
        inputs = [pred, label] + [x for x in (pred_lengths, label_lengths) if x is not None]
        loss = F.CTCLoss(*inputs, use_data_lengths=pred_lengths is not None,
                         use_label_lengths=label_lengths is not None, blank_label="last")
        return _apply_weighting(F, loss, self._weight, sample_weight)


class HuberLoss(Loss):
    """Smooth L1: quadratic below ``rho``, linear above."""

    def __init__(self, rho: float = 1, weight=None, batch_axis: int = 0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._rho = rho

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred, "HuberLoss")
        err = F.abs(label - pred)
        loss = F.where(err > self._rho, err - 0.5 * self._rho,
                       (0.5 / self._rho) * F.square(err))
        return self._per_sample(F, loss, sample_weight)


class HingeLoss(Loss):
    """``max(0, margin - pred * label)`` with labels in {-1, 1}."""

    def __init__(self, margin: float = 1, weight=None, batch_axis: int = 0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred, "HingeLoss")
        return self._per_sample(F, F.relu(self._margin - pred * label), sample_weight)


class SquaredHingeLoss(Loss):
    """``max(0, margin - pred * label) ** 2`` with labels in {-1, 1}."""

    def __init__(self, margin: float = 1, weight=None, batch_axis: int = 0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred, "SquaredHingeLoss")
        return self._per_sample(F, F.square(F.relu(self._margin - pred * label)),
                                sample_weight)


class LogisticLoss(Loss):
    """``log(1 + exp(-pred * label))``; ``label_format`` ``signed`` ({-1, 1}) or
    ``binary`` ({0, 1})."""

    def __init__(self, weight=None, batch_axis: int = 0, label_format: str = "signed",
                 **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        if label_format not in ("signed", "binary"):
            raise ValueError("label_format can only be signed or binary, recieved "
                             f"{label_format}.")
        self._label_format = label_format

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred, "LogisticLoss")
        if self._label_format == "signed":
            label = (label + 1.0) / 2.0
        loss = F.relu(pred) - pred * label + _softrelu_neg_abs(F, pred)
        return self._per_sample(F, loss, sample_weight)


class TripletLoss(Loss):
    """``max(0, |pos - pred|^2 - |neg - pred|^2 + margin)`` per sample."""

    def __init__(self, margin: float = 1, weight=None, batch_axis: int = 0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, positive, negative):
        positive = _reshape_like(F, positive, pred, "TripletLoss")
        negative = _reshape_like(F, negative, pred, "TripletLoss")
        gap = F.sum(F.square(positive - pred) - F.square(negative - pred),
                    axis=self._batch_axis, exclude=True)
        return _apply_weighting(F, F.relu(gap + self._margin), self._weight, None)


class PoissonNLLLoss(Loss):
    """Poisson negative log-likelihood, averaged over everything (one value);
    ``compute_full`` adds Stirling's approximation of ``log(target!)``."""

    def __init__(self, weight=None, from_logits: bool = True, batch_axis: int = 0,
                 compute_full: bool = False, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._compute_full = compute_full

    def hybrid_forward(self, F, pred, target, sample_weight=None, epsilon=1e-08):
        target = _reshape_like(F, target, pred, "PoissonNLLLoss")
        if self._from_logits:
            loss = F.exp(pred) - target * pred
        else:
            loss = pred - target * F.log(pred + epsilon)
        if self._compute_full:
            stirling = target * F.log(target) - target + 0.5 * F.log(2 * target * np.pi)
            loss = loss + stirling * (target > 1)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss)


class CosineEmbeddingLoss(Loss):
    """``1 - cos(x1, x2)`` for label 1, ``max(0, cos(x1, x2) - margin)`` for -1."""

    def __init__(self, weight=None, batch_axis: int = 0, margin: float = 0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, input1, input2, label, sample_weight=None):
        input1 = _reshape_like(F, input1, input2, "CosineEmbeddingLoss")
        label = label.reshape((-1, 1))
        cos = self._cosine_similarity(F, input1, input2)
        similar = (1 - cos) * (label == 1)
        zero = F.zeros((1, 1)) if F is not ndarray else ndarray.array([0], ctx=cos.context)
        dissimilar = F.broadcast_maximum(zero, (label == -1) * (cos - self._margin))
        return _apply_weighting(F, similar + dissimilar, self._weight, sample_weight)

    @staticmethod
    def _cosine_similarity(F, x, y, axis: int = -1):
        x_norm = F.norm(x, axis=axis).reshape((-1, 1))
        y_norm = F.norm(y, axis=axis).reshape((-1, 1))
        dot = F.sum(x * y, axis=axis).reshape((-1, 1))
        eps = F.full((1, 1), 1e-12) if F is not ndarray else \
            ndarray.array([1e-12], ctx=dot.context)
        return dot / F.broadcast_maximum(x_norm * y_norm, eps)


class SDMLLoss(Loss):
    """Smoothed deep metric learning loss: rows of ``x1`` and ``x2`` at the same index
    are positives, every other pair in the batch a negative; the loss is the KL
    divergence from smoothed one-hot labels to the softmax of negative distances."""

    def __init__(self, smoothing_parameter: float = 0.3, weight: float = 1.0,
                 batch_axis: int = 0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self.kl_loss = KLDivLoss(from_logits=True)
        self.smoothing_parameter = smoothing_parameter

    @staticmethod
    def _compute_distances(x1, x2):
        if x1.shape != x2.shape:
            raise MXNetError(f"SDMLLoss: inputs must have one shape, got {x1.shape} and "
                             f"{x2.shape}")
        batch, dim = x1.shape
        a = x1.expand_dims(1).broadcast_to([batch, batch, dim])
        b = x2.expand_dims(0).broadcast_to([batch, batch, dim])
        return ((a - b) ** 2).sum(axis=2)

    def _compute_labels(self, F, batch_size: int):
        gold = F.eye(batch_size)
        off = self.smoothing_parameter / (batch_size - 1)
        return gold * (1 - self.smoothing_parameter) + (1 - gold) * off

    def hybrid_forward(self, F, x1, x2):
        batch = x1.shape[0]
        distances = self._compute_distances(x1, x2)
        log_probs = F.log_softmax(-distances, axis=1)
        labels = self._compute_labels(F, batch).as_in_context(distances.context)
        return self.kl_loss(log_probs, labels)
