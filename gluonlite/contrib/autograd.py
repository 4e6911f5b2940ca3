"""``mx.contrib.autograd``: MXNet's first, deprecated autograd API, on
:mod:`gluonlite.autograd` (where training and recording are one switch)."""
from __future__ import annotations

import functools

from .. import autograd as _ag
from ..ndarray import NDArray, zeros_like

__all__ = ["set_is_training", "TrainingStateScope", "train_section", "test_section",
           "mark_variables", "backward", "compute_gradient", "grad_and_loss", "grad"]


def set_is_training(is_train: bool) -> bool:
    """Switch training mode and recording together; returns the previous state."""
    prev = _ag.set_training(bool(is_train))
    _ag.set_recording(bool(is_train))
    return prev


class TrainingStateScope:
    """``with`` scope that sets the training/recording state and restores it on exit."""

    def __init__(self, enter_state: bool):
        self._enter_state = enter_state
        self._prev = None

    def __enter__(self):
        self._prev = set_is_training(self._enter_state)

    def __exit__(self, ptype, value, trace):
        if self._prev != self._enter_state:
            set_is_training(self._prev)


def train_section() -> TrainingStateScope:
    """Record and train inside the scope."""
    return TrainingStateScope(True)


def test_section() -> TrainingStateScope:
    """Neither record nor train inside the scope."""
    return TrainingStateScope(False)


mark_variables = _ag.mark_variables


def backward(outputs, out_grads=None, retain_graph: bool = False) -> None:
    """Gradients of a list of ``outputs`` with respect to the marked variables."""
    if not isinstance(outputs, (list, tuple)):
        raise AssertionError("outputs must be a list or tuple of NDArrays")
    if out_grads is not None and len(out_grads) != len(outputs):
        raise AssertionError("outputs and out_grads must have the same length")
    _ag.backward(list(outputs), out_grads, retain_graph=retain_graph)


def compute_gradient(outputs) -> None:
    """Deprecated name of :func:`backward`."""
    backward(outputs)


def _selected(args, argnum):
    if argnum is None:
        return list(args)
    return [args[i] for i in (argnum if isinstance(argnum, list) else [argnum])]


def grad_and_loss(func, argnum=None):
    """Wrap ``func`` to return ``(gradients of the selected arguments, func's outputs)``."""
    @functools.wraps(func)
    def wrapped(*args):
        variables = _selected(args, argnum)
        for x in variables:
            if not isinstance(x, NDArray):
                raise AssertionError("type of autograd input should NDArray.")
        grads = [zeros_like(x) for x in variables]
        mark_variables(variables, grads)
        with train_section():
            outputs = func(*args)
        compute_gradient([outputs] if isinstance(outputs, NDArray) else outputs)
        return grads, outputs
    return wrapped


def grad(func, argnum=None):
    """Wrap ``func`` to return the gradients of the selected arguments."""
    grad_with_loss_func = grad_and_loss(func, argnum)

    @functools.wraps(grad_with_loss_func)
    def wrapped(*args):
        return grad_with_loss_func(*args)[0]
    return wrapped
