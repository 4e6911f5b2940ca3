"""Which way a monitored metric improves (``mode`` of the checkpoint and
early-stopping handlers)."""
from __future__ import annotations

import warnings
from typing import Callable

import numpy as np

__all__ = ["improvement_op"]


def improvement_op(monitor, mode: str, who: str) -> Callable:
    """``np.greater`` or ``np.less``: the comparison saying a new value is better.

    Parameters
    ----------
    monitor : EvalMetric
        The monitored metric; in ``'auto'`` mode its name decides: accuracy and F1
        improve upwards, anything else downwards.
    mode : {'auto', 'min', 'max'}
        Unknown values fall back to ``'auto'`` with a ``RuntimeWarning``.
    who : str
        Handler name for the warning (``'EarlyStopping'``, ``'ModelCheckpoint'``).

    Returns
    -------
    callable
        ``np.less`` for ``'min'``, ``np.greater`` for ``'max'``.
    """
    if mode not in ("auto", "min", "max"):
        warnings.warn(f"{who} mode {mode} is unknown, fallback to auto mode. "
                      "CheckpointHandler will use max mode for f1 and accuracy metric "
                      "comparison and use min mode other wise", RuntimeWarning)
        mode = "auto"
    if mode == "min":
        return np.less
    if mode == "max":
        return np.greater
    name = monitor.get()[0]
    if any(key in str(name).lower() for key in ("acc", "f1")):
        warnings.warn(f"`greater` operator will be used to determine if {name} has "
                      "improved. Please specify `mode='min'` to use the `less` operator. "
                      "Specify `mode='max' to disable this warning.`")
        return np.greater
    warnings.warn(f"`less` operator will be used to determine if {name} has improved. "
                  "Please specify `mode='max'` to use the `greater` operator. "
                  "Specify `mode='min' to disable this warning.`")
    return np.less
