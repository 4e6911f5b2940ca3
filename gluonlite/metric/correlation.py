"""Metrics built on confusion counts and correlations: ``F1``, ``MCC`` (binary),
``PCC`` (multi-class Matthews correlation) and ``PearsonCorrelation``.

"""
from __future__ import annotations

import math

import numpy

from .base import EvalMetric, _numpy, _scalar, alias, check_label_shapes, register

__all__ = ["F1", "MCC", "PCC", "PearsonCorrelation"]


class _Confusion:
    """True/false positive/negative counts of a binary classifier, local and global."""

    FIELDS = ("tp", "fp", "fn", "tn")

    def __init__(self):
        self.local = dict.fromkeys(self.FIELDS, 0)
        self.total = dict.fromkeys(self.FIELDS, 0)

    def add(self, label, pred) -> None:
        pred = _numpy(pred)
        label = _numpy(label).astype("int32")
        check_label_shapes(label, pred)
        if len(numpy.unique(label)) > 2:
            raise ValueError(f"{type(self).__name__} currently only supports binary "
                             "classification.")
        pred_true = numpy.argmax(pred, axis=1) == 1
        label_true = label == 1
        counts = {"tp": (pred_true & label_true).sum(), "fp": (pred_true & ~label_true).sum(),
                  "fn": (~pred_true & label_true).sum(), "tn": (~pred_true & ~label_true).sum()}
        for key, value in counts.items():
            self.local[key] += value
            self.total[key] += value

    def reset_local(self) -> None:
        self.local = dict.fromkeys(self.FIELDS, 0)

    def reset(self) -> None:
        self.reset_local()
        self.total = dict.fromkeys(self.FIELDS, 0)

    @staticmethod
    def count(c: dict) -> int:
        return c["tp"] + c["fp"] + c["fn"] + c["tn"]

    @staticmethod
    def fscore(c: dict) -> float:
        precision = c["tp"] / (c["tp"] + c["fp"]) if c["tp"] + c["fp"] > 0 else 0.0
        recall = c["tp"] / (c["tp"] + c["fn"]) if c["tp"] + c["fn"] > 0 else 0.0
        if precision + recall <= 0:
            return 0.0
        return 2 * precision * recall / (precision + recall)

    @staticmethod
    def matthews(c: dict) -> float:
        if not _Confusion.count(c):
            return 0.0
        tp, fp, fn, tn = (float(c[k]) for k in ("tp", "fp", "fn", "tn"))
        denom = 1.0
        for term in (tp + fp, tp + fn, tn + fp, tn + fn):
            if term != 0.0:  # MXNet leaves empty margins out of the product
                denom *= term
        return (tp * tn - fp * fn) / math.sqrt(denom)


class _BinaryMetric(EvalMetric):
    """``macro``: the score of each update averaged over updates; ``micro``: the score
    of all counts together, weighted by the number of samples."""

    def __init__(self, name, output_names, label_names, average):
        self.average = average
        self._confusion = _Confusion()
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    def _score(self, counts: dict) -> float:
        raise NotImplementedError

    def update(self, labels, preds) -> None:
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            self._confusion.add(label, pred)
        conf = self._confusion
        if self.average == "macro":
            self._add(self._score(conf.local), 1)
            self.global_sum_metric += self._score(conf.total) - self._score(conf.local)
            conf.reset()
        else:
            self.sum_metric = self._score(conf.local) * conf.count(conf.local)
            self.global_sum_metric = self._score(conf.total) * conf.count(conf.total)
            self.num_inst = conf.count(conf.local)
            self.global_num_inst = conf.count(conf.total)

    def reset(self) -> None:
        super().reset()
        self._confusion.reset()

    def reset_local(self) -> None:
        super().reset_local()
        self._confusion.reset_local()


@register
class F1(_BinaryMetric):
    """F1 score of a binary classifier (class 1 positive; predictions are ``(N, 2)``
    scores)."""

    def __init__(self, name: str = "f1", output_names=None, label_names=None,
                 average: str = "macro"):
        super().__init__(name, output_names, label_names, average)

    def _score(self, counts):
        return _Confusion.fscore(counts)


@register
class MCC(_BinaryMetric):
    """Matthews correlation coefficient of a binary classifier."""

    def __init__(self, name: str = "mcc", output_names=None, label_names=None,
                 average: str = "macro"):
        super().__init__(name, output_names, label_names, average)

    def _score(self, counts):
        return _Confusion.matthews(counts)


@register
@alias("pearsonr")
class PearsonCorrelation(EvalMetric):
    """Pearson correlation of predictions and labels: per update averaged (``macro``)
    or over all values seen, from running moments (``micro``)."""

    def __init__(self, name: str = "pearsonr", output_names=None, label_names=None,
                 average: str = "macro"):
        self.average = average
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    def reset_micro(self) -> None:
        self._sse_p = self._mean_p = self._sse_l = self._mean_l = 0.0
        self._pred_nums = self._label_nums = 0
        self._conv = 0.0

    def reset(self) -> None:
        super().reset()
        if self.average == "micro":
            self.reset_micro()

    @staticmethod
    def update_variance(new_values, count, mean, m_2):
        """Welford's update of (count, mean, sum of squared deviations)."""
        count += len(new_values)
        delta = new_values - mean
        mean += numpy.sum(delta / count)
        m_2 += numpy.sum(delta * (new_values - mean))
        return count, mean, m_2

    def update(self, labels, preds) -> None:
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            check_label_shapes(label, pred, False, True)
            label = _numpy(label).ravel().astype(numpy.float64)
            pred = _numpy(pred).ravel().astype(numpy.float64)
            if self.average == "macro":
                self._add(numpy.corrcoef(pred, label)[0, 1], 1)
                continue
            self.num_inst += 1
            self.global_num_inst += 1
            self._label_nums, self._mean_l, self._sse_l = self.update_variance(
                label, self._label_nums, self._mean_l, self._sse_l)
            self._conv += numpy.sum((label - self._mean_l) * (pred - self._mean_p))
            self._pred_nums, self._mean_p, self._sse_p = self.update_variance(
                pred, self._pred_nums, self._mean_p, self._sse_p)

    def get(self):
        if self.num_inst == 0:
            return self.name, float("nan")
        if self.average == "macro":
            return self.name, _scalar(self.sum_metric / self.num_inst)
        n = self._label_nums
        return self.name, _scalar(self._conv / ((n - 1) * numpy.sqrt(self._sse_p / (n - 1))
                                                * numpy.sqrt(self._sse_l / (n - 1))))


@register
class PCC(EvalMetric):
    """Multi-class Matthews correlation from a confusion matrix that grows with the
    classes seen."""

    def __init__(self, name: str = "pcc", output_names=None, label_names=None,
                 has_global_stats: bool = True):
        self.k = 2
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=has_global_stats)

    def _grow(self, inc: int) -> None:
        self.lcm = numpy.pad(self.lcm, ((0, inc), (0, inc)), "constant")
        self.gcm = numpy.pad(self.gcm, ((0, inc), (0, inc)), "constant")
        self.k += inc

    @staticmethod
    def _calc_mcc(cmat) -> float:
        n = cmat.sum()
        x = cmat.sum(axis=1)
        y = cmat.sum(axis=0)
        cov_xx = numpy.sum(x * (n - x))
        cov_yy = numpy.sum(y * (n - y))
        if cov_xx == 0 or cov_yy == 0:
            return float("nan")
        cov_xy = numpy.sum(cmat.diagonal() * n - x * y)
        return cov_xy / (cov_xx * cov_yy) ** 0.5

    def update(self, labels, preds) -> None:
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label = _numpy(label).astype("int32").ravel()
            pred = _numpy(pred)
            pred = pred.argmax(axis=1) if pred.shape != label.shape else pred.astype("int32")
            pred = pred.ravel()
            n = max(pred.max(), label.max())
            if n >= self.k:
                self._grow(n + 1 - self.k)
            counts = numpy.zeros((self.k, self.k))
            numpy.add.at(counts, (pred, label), 1)
            self.lcm += counts
            self.gcm += counts
        self.num_inst += 1
        self.global_num_inst += 1

    @property
    def sum_metric(self):
        return self._calc_mcc(self.lcm) * self.num_inst

    @sum_metric.setter
    def sum_metric(self, value):
        pass  # derived from the confusion matrix

    @property
    def global_sum_metric(self):
        return self._calc_mcc(self.gcm) * self.global_num_inst

    @global_sum_metric.setter
    def global_sum_metric(self, value):
        pass  # derived from the confusion matrix

    def reset(self) -> None:
        self.global_num_inst = 0.0
        self.gcm = numpy.zeros((self.k, self.k))
        self.reset_local()

    def reset_local(self) -> None:
        self.num_inst = 0.0
        self.lcm = numpy.zeros((self.k, self.k))
