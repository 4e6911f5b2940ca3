"""``mx.sym.np``'s ``append``, ``insert`` and ``delete``: the same ``_npi_insert_*`` /
``_npi_delete`` / ``Concat`` nodes as ``mx.np`` builds, positions given as an int, a
slice or an integer symbol."""
from __future__ import annotations

import numbers

from ..symbol import Symbol
from ._op import _sym
from ._symbol import _Symbol, apply

__all__ = ["append", "insert", "delete"]


def _position_attrs(name: str, obj) -> dict:
    """Attributes naming an int or slice position; empty for a symbol of positions."""
    if isinstance(obj, slice):
        return dict(start=obj.start, stop=obj.stop, step=1 if obj.step is None else obj.step)
    if isinstance(obj, numbers.Integral) and not isinstance(obj, bool):
        return dict(int_ind=int(obj))
    if isinstance(obj, Symbol):
        return {}
    raise TypeError(f"mx.sym.np.{name}: positions must be an int, a slice or a symbol, got "
                    f"{type(obj).__name__}")


def append(arr, values, axis=None) -> _Symbol:
    """``values`` joined to the end of ``arr`` along ``axis`` (both flattened when None).

    Parameters
    ----------
    arr, values : _Symbol
        The arrays to join.
    axis : int, optional
        The axis to join along.

    Returns
    -------
    _Symbol
    """
    a, v = _sym(arr), _sym(values)
    if axis is None:
        a, v = a.reshape(-1), v.reshape(-1)
        axis = 0
    return apply("Concat", [a, v], dim=axis, num_args=2)


def delete(arr, obj, axis=None) -> _Symbol:
    """``arr`` without the entries ``obj`` (an int, a slice or an integer symbol) along
    ``axis`` (of the flattened array when None).

    Parameters
    ----------
    arr : _Symbol
        The input.
    obj : int, slice or _Symbol
        The positions to remove.
    axis : int, optional
        The axis to delete along.

    Returns
    -------
    _Symbol
    """
    attrs = _position_attrs("delete", obj)
    if attrs:
        return apply("_npi_delete", [_sym(arr)], axis=axis, **attrs)
    return apply("_npi_delete", [_sym(arr), _sym(obj)], axis=axis)


def insert(arr, obj, values, axis=None) -> _Symbol:
    """``values`` (a symbol or a scalar) inserted into ``arr`` before the positions ``obj``
    (an int, a slice or an integer symbol) along ``axis`` (of the flattened array when
    None), with NumPy's rules for scalar and array positions.

    Parameters
    ----------
    arr : _Symbol
        The input.
    obj : int, slice or _Symbol
        Positions before which ``values`` are inserted.
    values : _Symbol or scalar
        The values, cast to ``arr``'s dtype and broadcast.
    axis : int, optional
        The axis to insert along.

    Returns
    -------
    _Symbol
    """
    if isinstance(values, numbers.Number):
        inputs, kw = [_sym(arr)], dict(val=float(values))
    else:
        inputs, kw = [_sym(arr), _sym(values)], {}
    attrs = _position_attrs("insert", obj)
    if isinstance(obj, slice):
        return apply("_npi_insert_slice", inputs, axis=axis, **attrs, **kw)
    if attrs:
        return apply("_npi_insert_scalar", inputs, axis=axis, **attrs, **kw)
    return apply("_npi_insert_tensor", inputs + [_sym(obj)], axis=axis, **kw)
