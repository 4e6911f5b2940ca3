"""``mx.contrib.tensorboard``: a training callback that writes metric values as
TensorBoard scalars (MXNet 1.9's ``mxnet.contrib.tensorboard``).

The event files are written by a ``SummaryWriter``: mxboard's (what MXNet uses), else
tensorboardX's, else PyTorch's ``torch.utils.tensorboard``; all three have
``SummaryWriter(logdir)`` and ``add_scalar(tag, value, global_step=...)``.
"""
from __future__ import annotations

import importlib
import logging

__all__ = ["LogMetricsCallback"]

# the packages tried, in order, for a ``SummaryWriter`` class
_WRITER_MODULES = ("mxboard", "tensorboardX", "torch.utils.tensorboard")


def _summary_writer_class() -> type:
    """The first ``SummaryWriter`` class importable from :data:`_WRITER_MODULES`.

    Raises
    ------
    ImportError
        When none is installed.
    """
    for name in _WRITER_MODULES:
        try:
            return importlib.import_module(name).SummaryWriter
        except (ImportError, AttributeError):
            continue
    logging.error("You can install mxboard via `pip install mxboard`.")
    raise ImportError("mx.contrib.tensorboard.LogMetricsCallback needs a SummaryWriter: "
                      "pip install mxboard (or tensorboardX)")


class LogMetricsCallback:
    """Writes the values of the evaluation metric as TensorBoard scalars, one point per
    call at step ``param.epoch`` (a ``batch_end_callback``/``eval_end_callback`` of
    ``fit``).

    Parameters
    ----------
    logging_dir : str
        The directory of the event files (``tensorboard --logdir=...`` reads it).
    prefix : str, optional
        Written before each metric name as ``"<prefix>-<name>"``, so that training
        and evaluation curves of one metric can be told apart in a shared plot.

    Raises
    ------
    ImportError
        When neither mxboard, tensorboardX nor torch's tensorboard is installed.

    Examples
    --------
    >>> train_cb = mx.contrib.tensorboard.LogMetricsCallback('logs/train')
    >>> eval_cb = mx.contrib.tensorboard.LogMetricsCallback('logs/eval')
    >>> mod.fit(train, eval_data=val, batch_end_callback=train_cb,
    ...         eval_end_callback=eval_cb)
    """

    def __init__(self, logging_dir: str, prefix: str | None = None):
        self.prefix = prefix
        self.summary_writer = _summary_writer_class()(logging_dir)

    def __call__(self, param) -> None:
        """Write each ``(name, value)`` of ``param.eval_metric`` (nothing without a
        metric)."""
        if param.eval_metric is None:
            return
        for name, value in param.eval_metric.get_name_value():
            if self.prefix is not None:
                name = f"{self.prefix}-{name}"
            self.summary_writer.add_scalar(name, value, global_step=param.epoch)
