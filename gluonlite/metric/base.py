"""The metric protocol of ``mx.metric``: :class:`EvalMetric` (local and global sums),
the name registry (``register``, ``alias``, ``create``), :class:`CompositeEvalMetric`,
:class:`CustomMetric` and ``np``, and the label checks every metric shares."""
from __future__ import annotations

from collections import OrderedDict

import numpy

from .. import registry
from ..ndarray import NDArray

__all__ = ["EvalMetric", "CompositeEvalMetric", "CustomMetric", "np", "create", "register",
           "alias", "check_label_shapes"]


def _scalar(value):
    """A NumPy scalar as a Python float (MXNet's metrics return Python floats; under
    NumPy 2 a numpy.float64 would compare with float32 values in float64)."""
    return float(value) if isinstance(value, numpy.floating) else value


def check_label_shapes(labels, preds, wrap: bool = False, shape: bool = False):
    """Raise ``ValueError`` when the numbers (or, with ``shape``, the shapes) of labels
    and predictions differ; with ``wrap``, single NDArrays become one-element lists."""
    if shape:
        label_shape, pred_shape = labels.shape, preds.shape
    else:
        label_shape, pred_shape = len(labels), len(preds)
    if label_shape != pred_shape:
        raise ValueError(f"Shape of labels {label_shape} does not match shape of "
                         f"predictions {pred_shape}")
    if wrap:
        if isinstance(labels, NDArray):
            labels = [labels]
        if isinstance(preds, NDArray):
            preds = [preds]
    return labels, preds


def _numpy(x):
    return x.asnumpy() if isinstance(x, NDArray) else numpy.asarray(x)


class EvalMetric:
    """Base class of metrics; users subclass it and define ``update``.

    Parameters
    ----------
    name : str
        Name of the metric.
    output_names, label_names : list of str, optional
        Which outputs and labels :meth:`update_dict` feeds to the metric.
    """

    def __init__(self, name, output_names=None, label_names=None, **kwargs):
        self.name = str(name)
        self.output_names = output_names
        self.label_names = label_names
        self._has_global_stats = kwargs.pop("has_global_stats", False)
        self._kwargs = kwargs
        self.reset()

    def __str__(self) -> str:
        return f"EvalMetric: {dict(self.get_name_value())}"

    def get_config(self) -> dict:
        """The arguments that re-create this metric with :func:`create`."""
        config = dict(self._kwargs)
        config.update(metric=type(self).__name__, name=self.name,
                      output_names=self.output_names, label_names=self.label_names)
        return config

    def update_dict(self, label: dict, pred: dict) -> None:
        """Update from dicts of named labels and outputs."""
        preds = [pred[n] for n in self.output_names] if self.output_names is not None \
            else list(pred.values())
        labels = [label[n] for n in self.label_names] if self.label_names is not None \
            else list(label.values())
        self.update(labels, preds)

    def update(self, labels, preds) -> None:
        raise NotImplementedError(f"{type(self).__name__} must define update()")

    def _add(self, value, count) -> None:
        """Add to the local and the global sums.

        A NumPy scalar is taken as float64: MXNet's sums, made under NumPy < 2, grow as
        ``0.0 + numpy.float32`` -> float64, where NumPy 2 would keep float32.
        """
        if isinstance(value, (numpy.floating, numpy.integer)):
            value = numpy.float64(value)
        self.sum_metric += value
        self.global_sum_metric += value
        self.num_inst += count
        self.global_num_inst += count

    def reset(self) -> None:
        """Clear the local and global statistics."""
        self.num_inst = 0
        self.sum_metric = 0.0
        self.global_num_inst = 0
        self.global_sum_metric = 0.0

    def reset_local(self) -> None:
        """Clear the local statistics only."""
        self.num_inst = 0
        self.sum_metric = 0.0

    def get(self):
        """``(name, value)`` over the updates since the last local reset."""
        if self.num_inst == 0:
            return self.name, float("nan")
        return self.name, _scalar(self.sum_metric / self.num_inst)

    def get_global(self):
        """``(name, value)`` over the updates since the last full reset."""
        if not self._has_global_stats:
            return self.get()
        if self.global_num_inst == 0:
            return self.name, float("nan")
        return self.name, _scalar(self.global_sum_metric / self.global_num_inst)

    @staticmethod
    def _pairs(name, value) -> list:
        names = name if isinstance(name, list) else [name]
        values = value if isinstance(value, list) else [value]
        return list(zip(names, values))

    def get_name_value(self) -> list:
        """``[(name, value), ...]`` of :meth:`get`."""
        return self._pairs(*self.get())

    def get_global_name_value(self) -> list:
        """``[(name, value), ...]`` of :meth:`get_global`."""
        if not self._has_global_stats:
            return self.get_name_value()
        return self._pairs(*self.get_global())


register = registry.get_register_func(EvalMetric, "metric")
alias = registry.get_alias_func(EvalMetric, "metric")
_create = registry.get_create_func(EvalMetric, "metric")


def create(metric, *args, **kwargs) -> EvalMetric:
    """A metric from a name (``'acc'``, ``'ce'``, ...), an instance, a callable
    ``feval(label, pred)`` (a :class:`CustomMetric`) or a list of those (a
    :class:`CompositeEvalMetric`)."""
    if callable(metric) and not isinstance(metric, EvalMetric):
        return CustomMetric(metric, *args, **kwargs)
    if isinstance(metric, list):
        composite = CompositeEvalMetric()
        for child in metric:
            composite.add(create(child, *args, **kwargs))
        return composite
    return _create(metric, *args, **kwargs)


def _flatten(name, value, names, values):
    names.extend(name if isinstance(name, list) else [name])
    values.extend(value if isinstance(value, list) else [value])


@register
@alias("composite")
class CompositeEvalMetric(EvalMetric):
    """Several metrics updated together; ``get`` returns lists of names and values."""

    def __init__(self, metrics=None, name="composite", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.metrics = [create(m) for m in (metrics or [])]

    def add(self, metric) -> None:
        """Add a child metric (anything :func:`create` accepts)."""
        self.metrics.append(create(metric))

    def get_metric(self, index: int):
        """The child metric at ``index``."""
        try:
            return self.metrics[index]
        except IndexError:
            return ValueError(f"Metric index {index} is out of range 0 and "
                              f"{len(self.metrics)}")

    def update_dict(self, labels, preds) -> None:
        if self.label_names is not None:
            labels = OrderedDict(i for i in labels.items() if i[0] in self.label_names)
        if self.output_names is not None:
            preds = OrderedDict(i for i in preds.items() if i[0] in self.output_names)
        for metric in self.metrics:
            metric.update_dict(labels, preds)

    def update(self, labels, preds) -> None:
        for metric in self.metrics:
            metric.update(labels, preds)

    def reset(self) -> None:
        for metric in getattr(self, "metrics", ()):
            metric.reset()

    def reset_local(self) -> None:
        for metric in getattr(self, "metrics", ()):
            metric.reset_local()

    def get(self):
        names, values = [], []
        for metric in self.metrics:
            _flatten(*metric.get(), names, values)
        return names, values

    def get_global(self):
        names, values = [], []
        for metric in self.metrics:
            _flatten(*metric.get_global(), names, values)
        return names, values

    def get_config(self) -> dict:
        config = super().get_config()
        config["metrics"] = [m.get_config() for m in self.metrics]
        return config



@register
class CustomMetric(EvalMetric):
    """A metric from ``feval(label, pred)`` on NumPy arrays, returning a value or
    ``(sum, count)``."""

    def __init__(self, feval, name=None, allow_extra_outputs: bool = False,
                 output_names=None, label_names=None):
        if name is None:
            name = feval.__name__
            if "<" in name:
                name = f"custom({name})"
        super().__init__(name, feval=feval, allow_extra_outputs=allow_extra_outputs,
                         output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self._feval = feval
        self._allow_extra_outputs = allow_extra_outputs

    def update(self, labels, preds) -> None:
        if not self._allow_extra_outputs:
            labels, preds = check_label_shapes(labels, preds, True)
        for pred, label in zip(preds, labels):
            result = self._feval(_numpy(label), _numpy(pred))
            if isinstance(result, tuple):
                self._add(*result)
            else:
                self._add(result, 1)

    def get_config(self):
        raise NotImplementedError("CustomMetric cannot be serialized")


def np(numpy_feval, name=None, allow_extra_outputs: bool = False) -> CustomMetric:
    """A :class:`CustomMetric` from a function of NumPy ``(label, pred)``."""
    def feval(label, pred):
        return numpy_feval(label, pred)
    feval.__name__ = numpy_feval.__name__
    return CustomMetric(feval, name, allow_extra_outputs)
