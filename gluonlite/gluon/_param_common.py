"""The errors, messages and shape rules of Gluon's ``Parameter`` (MXNet's texts): each
error is an :class:`~gluonlite.base.MXNetError` and, where MXNet raises a built-in
exception, also that type."""
from __future__ import annotations

import numpy as np

from ..base import MXNetError

_NOT_INIT = ("Parameter '{}' has not been initialized. Note that you should initialize "
             "parameters and create Trainer with Block.collect_params() instead of "
             "Block.params because the later does not include Parameters of nested child "
             "Blocks")
_DEFERRED = ("Parameter '{}' has not been initialized yet because initialization was "
             "deferred. Actual initialization happens during the first forward pass. Please "
             "pass one batch of data through the network before accessing Parameters. You "
             "can also avoid deferred initialization by specifying in_units, num_features, "
             "etc., for network layers.")


class DeferredInitializationError(MXNetError):
    """Raised when a parameter's data is used before its deferred initialization ran."""


class _AssertionError(MXNetError, AssertionError):
    """An MXNetError where MXNet raises ``AssertionError``."""


class _ValueError(MXNetError, ValueError):
    """An MXNetError where MXNet raises ``ValueError``."""


class _KeyError(MXNetError, KeyError):
    """An MXNetError where MXNet raises ``KeyError``."""


class _TypeError(MXNetError, TypeError):
    """An MXNetError where MXNet raises ``TypeError``."""


def _as_shape(shape):
    """Normalize a shape: ``int`` -> 1-tuple, sequence -> tuple, ``None`` stays."""
    if shape is None:
        return None
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(d) for d in shape)


def shape_is_known(shape) -> bool:
    """Whether every dimension is known (MXNet's legacy rule: 0 means unknown, and a
    0-dimensional shape is unknown); negative sizes are an error."""
    if shape is None or len(shape) == 0:
        return False
    for d in shape:
        if d < 0:
            raise _AssertionError(f"shape dimension size cannot be less than 0, while "
                                  f"received {d}")
        if d == 0:
            return False
    return True
