"""``mx.sym.np``: MXNet's NumPy interface on symbols.

``_Symbol`` is a :class:`~gluonlite.symbol.Symbol` whose operators and methods follow
``mx.np`` (``+`` is ``_npi_add``, comparisons give ``bool``, ``reshape`` is NumPy's,
``x[1:3, 0]`` slices).  The functions build nodes of the same registry operators as
``mx.np`` runs imperatively, with attributes that need no input shape, so a graph traced
before shapes are known (a hybridized block under ``npx.set_np()``) computes what the
imperative code computes.  Functions whose meaning depends on the input's rank beyond
what an operator can resolve at shape inference are left out; the imperative
``mx.np`` has them.
"""
from __future__ import annotations

import numbers

import numpy as onp

from ...base import MXNetError
from ...ops.registry import get_op
from ..register import create
from ..symbol import Symbol

__all__ = ["_Symbol", "apply"]


class _Symbol(Symbol):
    """A symbol with ``mx.np`` semantics (MXNet's ``mx.sym.np._Symbol``)."""

    def as_nd_ndarray(self) -> Symbol:
        """The same graph as a legacy symbol."""
        return Symbol(self._heads)

    def as_np_ndarray(self) -> "_Symbol":
        return self

    def __getitem__(self, key):
        if isinstance(key, str):
            return Symbol.__getitem__(self, key)
        if len(self._heads) > 1:  # a group: index its outputs as legacy symbols do
            res = Symbol.__getitem__(self, key)
            return _Symbol(res._heads)
        return _slice(self, key)

    def __iter__(self):
        if len(self._heads) > 1:
            return (_Symbol([h]) for h in self._heads)
        raise TypeError("iterating over a single mx.np symbol needs its shape; index it")

    # -- shape ----------------------------------------------------------------------------
    def reshape(self, *shape, order: str = "C", **kwargs) -> "_Symbol":
        shape = kwargs.pop("newshape", kwargs.pop("shape", shape))
        if kwargs:
            raise TypeError(f"reshape() got unexpected arguments {sorted(kwargs)}")
        if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
            shape = shape[0]
        if isinstance(shape, numbers.Integral):
            shape = (shape,)
        return apply("_np_reshape", [self], newshape=tuple(shape), order=order)

    @property
    def T(self) -> "_Symbol":  # noqa: N802 - NumPy's name
        return apply("_np_transpose", [self])

    def transpose(self, *axes) -> "_Symbol":
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (list, tuple))):
            axes = axes[0]
        return apply("_np_transpose", [self], axes=tuple(axes) if axes else None)

    def astype(self, dtype, copy: bool = True) -> "_Symbol":
        return apply("Cast", [self], dtype=onp.dtype(dtype))

    def flatten(self, order: str = "C") -> "_Symbol":
        return self.reshape(-1)


def apply(op_name: str, inputs: list, name=None, **attrs) -> _Symbol:
    """A node of registry operator ``op_name`` on symbols ``inputs``, as an ``mx.np``
    symbol (a group when the operator has several visible outputs)."""
    op = get_op(op_name)
    hint = op_name.lstrip("_").lower()
    out = create(op, hint, list(inputs), {}, {k: v for k, v in attrs.items() if v is not None},
                 name)
    return _Symbol(out._heads)


def _slice(x: _Symbol, key) -> _Symbol:
    """Basic indexing (ints, slices, ``None``) without knowing the rank: a ``slice`` over
    the leading axes, then the integer-indexed axes squeezed out."""
    parts = key if isinstance(key, tuple) else (key,)
    if any(p is Ellipsis for p in parts):
        raise MXNetError("mx.np symbol indexing with '...' is not supported; index the "
                         "leading axes")
    begin, end, step, drop, new_axes = [], [], [], [], []
    axis = 0
    res_pos = 0  # the axis of the result the next slice or None becomes
    for p in parts:
        if p is None:
            new_axes.append(res_pos)
            res_pos += 1
            continue
        if isinstance(p, (numbers.Integral, onp.integer)) and not isinstance(p, bool):
            k = int(p)
            begin.append(k)
            end.append(k + 1 if k != -1 else None)
            step.append(1)
            drop.append(axis)
        elif isinstance(p, slice):
            begin.append(p.start)
            end.append(p.stop)
            step.append(p.step)
            res_pos += 1
        else:
            raise MXNetError(f"mx.np symbol indexing supports ints, slices and None, got "
                             f"{type(p).__name__}")
        axis += 1
    out = x
    if begin:
        out = apply("slice", [out], begin=tuple(begin), end=tuple(end), step=tuple(step))
    if drop:
        out = apply("squeeze", [out], axis=tuple(drop))
    for pos in new_axes:  # ascending: each counts the result's axes, as in NumPy
        out = apply("expand_dims", [out], axis=pos)
    return out
