"""Constant folding of ONNX shape arithmetic with NumPy.

Traced models compute reshape targets at run time (``Shape`` -> ``Gather`` ->
``Unsqueeze`` -> ``Concat`` -> ``Reshape``).  When the model's input shapes fix those
values, the importer evaluates such nodes here, with ONNX's own semantics (0-d
tensors included, which gluonlite's operators do not have), and the consumers read the
results as constants.
"""
from __future__ import annotations

import numpy as np

from . import _translation_utils as tu

__all__ = ["FOLDABLE", "fold"]


def _axes(attrs, values, k=1):
    if len(values) > k and values[k] is not None:
        return [int(a) for a in np.asarray(values[k]).ravel()]
    return [int(a) for a in attrs.get("axes", ())]


def _unsqueeze(attrs, values):
    out = values[0]
    ndim = out.ndim + len(_axes(attrs, values))
    for axis in sorted(tu.normalize_axis(a, ndim) for a in _axes(attrs, values)):
        out = np.expand_dims(out, axis)
    return out


def _squeeze(attrs, values):
    axes = _axes(attrs, values)
    return np.squeeze(values[0], axis=tuple(axes) if axes else None)


def _slice(attrs, values):
    data = values[0]
    if len(values) > 1:
        starts, ends = values[1].ravel(), values[2].ravel()
        axes = values[3].ravel() if len(values) > 3 and values[3] is not None \
            else range(len(starts))
        steps = values[4].ravel() if len(values) > 4 and values[4] is not None \
            else [1] * len(starts)
    else:
        starts, ends = attrs["starts"], attrs["ends"]
        axes, steps = attrs.get("axes", range(len(starts))), [1] * len(starts)
    index = [slice(None)] * data.ndim
    for b, e, a, s in zip(starts, ends, axes, steps):
        index[int(a)] = slice(int(b), int(e), int(s))
    return data[tuple(index)]


def _reshape(attrs, values):
    shape = [int(d) for d in values[1].ravel()]
    shape = [values[0].shape[k] if d == 0 else d for k, d in enumerate(shape)]
    return values[0].reshape(shape)


def _binary(fn):
    def run(attrs, values):
        a, b = values
        out = fn(a, b)
        return out.astype(np.result_type(a, b)) if np.issubdtype(a.dtype, np.integer) else out
    return run


FOLDABLE = {
    "Identity": lambda attrs, v: v[0],
    "Gather": lambda attrs, v: np.take(v[0], v[1], axis=int(attrs.get("axis", 0))),
    "Unsqueeze": _unsqueeze,
    "Squeeze": _squeeze,
    "Concat": lambda attrs, v: np.concatenate([np.atleast_1d(x) for x in v],
                                              axis=int(attrs.get("axis", 0))),
    "Cast": lambda attrs, v: v[0].astype(tu.onnx_dtype(attrs["to"])),
    "Slice": _slice,
    "Reshape": _reshape,
    "Add": _binary(np.add),
    "Sub": _binary(np.subtract),
    "Mul": _binary(np.multiply),
    "Div": _binary(lambda a, b: a // b if np.issubdtype(a.dtype, np.integer) else a / b),
    "ReduceProd": lambda attrs, v: np.prod(v[0], axis=tuple(_axes(attrs, v)) or None,
                                           keepdims=bool(int(attrs.get("keepdims", 1)))),
}


def fold(op_type: str, attrs: dict, values: list) -> list | None:
    """The outputs of ``op_type`` on constant ``values``, or ``None`` when the node is not
    one this module folds (or NumPy refuses it)."""
    run = FOLDABLE.get(op_type)
    if run is None:
        return None
    try:
        return [np.asarray(run(attrs, values))]
    except Exception:  # noqa: BLE001 - not foldable: the node stays in the graph
        return None
