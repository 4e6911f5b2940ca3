"""Python-level ``mx.nd`` functions MXNet defines on top of its operators:
``moveaxis`` and ``contrib.isinf`` / ``isfinite`` / ``isnan``."""
from __future__ import annotations

import numpy as np

__all__ = ["moveaxis", "isinf", "isfinite", "isnan"]


def _axes(value, ndim: int, what: str) -> tuple:
    values = (value,) if isinstance(value, (int, np.integer)) else tuple(value)
    out = []
    for v in values:
        if not -ndim <= v < ndim:
            raise ValueError(f"{what} should verify 0 <= {what} < tensor.ndim ({ndim}). "
                             f"Got {v}")
        out.append(v % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"repeated axis in `{what}` argument")
    return tuple(out)


def moveaxis(tensor, source, destination):
    """Move axes ``source`` to positions ``destination``, the others keeping their
    order (``numpy.moveaxis``); a transpose.

    Parameters
    ----------
    tensor : NDArray
    source, destination : int or sequence of int
    """
    source = _axes(source, tensor.ndim, "source")
    destination = _axes(destination, tensor.ndim, "destination")
    if len(source) != len(destination):
        raise ValueError("`source` and `destination` arguments must have the same number "
                         "of elements")
    order = [n for n in range(tensor.ndim) if n not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return tensor.transpose(order)


def isinf(data):
    """1 where ``data`` is +-inf, else 0 (``data``'s dtype)."""
    return data.abs() == np.inf


def isfinite(data):
    """1 where ``data`` is neither inf nor nan, else 0."""
    from .arith import logical_and
    return logical_and(data.abs() != np.inf, data == data)


def isnan(data):
    """1 where ``data`` is nan, else 0."""
    return data != data
