"""Small helpers shared by operator definitions."""
from __future__ import annotations

import numpy as np

from ..base import MXNetError


def to_host(a) -> np.ndarray:
    """``a`` as a NumPy array (a CuPy array is copied to the host)."""
    return a if isinstance(a, np.ndarray) else a.get()


def put(out, i: int, value):
    """Return ``value`` as output ``i``, copying it into ``out[i]`` when a buffer was given."""
    if out is None:
        return value
    buf = out[i]
    buf[...] = value
    return buf


def norm_axis(op: str, axis: int, ndim: int) -> int:
    """Normalize a possibly negative axis; raise ``MXNetError`` naming ``op`` when out of range."""
    if not -ndim <= axis < max(ndim, 1):
        raise MXNetError(f"Operator {op}: axis {axis} is out of range for an input of "
                         f"{ndim} dimension(s)")
    return axis % ndim if ndim else 0


def fail(op: str, message: str, *shapes) -> None:
    """Raise ``MXNetError`` naming the operator and, when given, the input shapes."""
    if shapes:
        message += " (input shapes: " + ", ".join(str(tuple(s)) if s is not None else "?"
                                                  for s in shapes) + ")"
    raise MXNetError(f"Operator {op}: {message}")


def known(shape) -> bool:
    """True when ``shape`` is given and has no unknown (0) dimension."""
    return shape is not None and all(d != 0 for d in shape)


def merge_shapes(op: str, what: str, a, b):
    """Merge two partial shapes (``None`` = unknown, dim 0 = unknown); raise on conflict."""
    if a is None:
        return None if b is None else tuple(b)
    if b is None:
        return tuple(a)
    if len(a) != len(b):
        fail(op, f"shape mismatch for {what}: {tuple(a)} vs {tuple(b)}")
    out = []
    for x, y in zip(a, b):
        if x and y and x != y:
            fail(op, f"shape mismatch for {what}: {tuple(a)} vs {tuple(b)}")
        out.append(x or y)
    return tuple(out)


def elementwise_rule(infer):
    """Mark a shape rule as elementwise (one shape for every input and output), so that
    an ``OpDef`` using it declares ``elementwise=True`` unless it says otherwise."""
    infer.elementwise = True
    return infer


def same_shape_infer(op_name: str):
    """Shape rule for elementwise operators: every input and output has one shape.

    Operators using it are declared elementwise (see :func:`elementwise_rule`).
    """
    def infer(attrs, in_shapes):
        shape = None
        for s in in_shapes:
            shape = merge_shapes(op_name, "inputs", shape, s)
        return [shape] * len(in_shapes), [shape]
    return elementwise_rule(infer)
