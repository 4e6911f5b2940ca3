"""``NDArray.__getitem__`` and ``__setitem__`` with MXNet's view rules.

An integer or a step-1 slice on the first axis, and any basic index (integers,
slices, ``None``, ``...``) whose result is C-contiguous in the source, give a view
sharing storage with the source (when autograd is not recording it); every other
index copies.  While recording, indexing goes through registry operators so
gradients flow, and assigning a recorded value to part of an array is an error.
"""
from __future__ import annotations

import numpy as np

from .. import autograd as _ag
from ..backend import array_module
from ..base import MXNetError, integer_types
from ..ops.registry import get_op
from .invoke import invoke
from .ndarray import NDArray


class NDIndexError(MXNetError, IndexError):
    """An out-of-bounds index: MXNet raises ``IndexError`` here, which Python's sequence
    protocol (``iter`` over ``__getitem__``, ``np.asarray`` of a ``Dataset``) relies on."""


def _in_graph(x: NDArray) -> bool:
    return _ag._state.recording and (x._entry is not None or x._grad_req not in (None, "null"))


def _first_axis_view(x: NDArray, key):
    """The view for an int or step-1 slice on axis 0, or ``None`` for other keys."""
    n = x.shape[0] if x.ndim else 0
    if isinstance(key, integer_types) and not isinstance(key, (bool, np.bool_)):
        k = int(key)
        if not -n <= k < n:
            raise NDIndexError(f"index {k} is out of bounds for axis 0 with size {n} "
                               f"(array shape {x.shape})")
        k %= n
        data = x._data[k]
        return x._view(data.reshape(1) if data.ndim == 0 else data)
    if isinstance(key, slice) and (key.step is None or key.step == 1):
        start, stop, _ = key.indices(n)
        return x._view(x._data[start:max(start, stop)])
    return None


def _to_raw_key(x: NDArray, key):
    """Convert NDArray parts of an index to raw integer arrays of the same module."""
    if isinstance(key, NDArray):
        return key._data.astype(np.int64)
    if isinstance(key, tuple):
        return tuple(_to_raw_key(x, k) for k in key)
    if isinstance(key, list):
        return array_module(x._data).asarray(key, dtype=np.int64)
    return key


def _is_array(p) -> bool:
    return hasattr(p, "shape") and not np.isscalar(p)


def _check_device_bounds(x: NDArray, raw, key) -> None:
    """Raise for out-of-bounds integer-array indices of a GPU array.

    NumPy raises ``IndexError`` for them (and MXNet an error); CuPy silently wraps them
    around, so on a GPU each integer index array is checked (one reduction each).
    """
    if array_module(x._data) is np:
        return
    parts = raw if isinstance(raw, tuple) else (raw,)
    if not any(_is_array(p) for p in parts):
        return

    def width(p):  # axes of ``x`` that index part ``p`` consumes
        if p is None:
            return 0
        return p.ndim if _is_array(p) and p.dtype == np.bool_ else 1
    shape = x.shape
    rest = len(shape) - sum(width(p) for p in parts if p is not Ellipsis)
    xp = array_module(x._data)
    axis = 0
    for p in parts:
        if p is Ellipsis:
            axis += rest
            continue
        if _is_array(p) and p.dtype.kind in "iu" and axis < len(shape) and p.size:
            n = shape[axis]
            idx = xp.asarray(p)
            bad = (idx < -n) | (idx >= n)
            if bool(bad.any()):
                raise MXNetError(f"index {key!r} is invalid for an array of shape {shape}: "
                                 f"index {int(idx[bad][0])} is out of bounds for axis "
                                 f"{axis} with size {n}")
        axis += width(p)


def _is_advanced(raw) -> bool:
    parts = raw if isinstance(raw, tuple) else (raw,)
    return any(hasattr(p, "shape") and not np.isscalar(p) for p in parts)


def basic_slice_is_contiguous(slc_key, shape) -> bool:
    """Whether slicing an array of ``shape`` with ``slc_key`` (one ``slice`` per axis)
    gives a C-contiguous block of it (MXNet's
    ``NDArray._basic_indexing_slice_is_contiguous``).

    Every axis with more than one selected element must advance by exactly the number
    of elements selected after it: step 1 (or any step when one element is selected)
    and all axes after it whole, up to axes of one element.
    """
    if len(slc_key) != len(shape):
        raise ValueError(f"slice key {slc_key} and shape {shape} differ in length")
    lens, steps = [], []
    for slc, n in zip(slc_key, shape):
        start, stop, step = slc.indices(n)
        lens.append(len(range(start, stop, step)))
        steps.append(step)
    if int(np.prod(lens)) in (0, 1):
        return True
    for i, n_sel in enumerate(lens):
        if n_sel > 1 and steps[i] * int(np.prod(shape[i + 1:])) != int(np.prod(lens[i + 1:])):
            return False
    return True


def _basic_view(x: NDArray, raw, data):
    """A view of ``data`` (``x._data[raw]``) when ``raw`` is a basic index giving a
    C-contiguous block, as MXNet returns; ``None`` otherwise."""
    if _is_advanced(raw) or data.ndim == 0 or not isinstance(data, type(x._data)) or \
            not data.flags.c_contiguous:
        return None
    return x._view(data)


def getitem(x: NDArray, key) -> NDArray:
    """``x[key]`` with MXNet's view rules."""
    if x.ndim == 0:
        raise MXNetError("cannot index a 0-d NDArray")
    if isinstance(key, tuple) and len(key) == 1:
        key = key[0]
    if not _in_graph(x):
        view = _first_axis_view(x, key)
        if view is not None:
            return view
        raw = _to_raw_key(x, key)
        _check_device_bounds(x, raw, key)
        try:
            data = x._data[raw]
        except IndexError as err:
            raise NDIndexError(f"index {key!r} is invalid for an array of shape {x.shape}: "
                               f"{err}") from err
        view = _basic_view(x, raw, data)
        if view is not None:
            return view
        if data.ndim == 0:
            data = data.reshape(1)
        # other basic indexing gives a NumPy view, which MXNet semantics say must be a copy
        return NDArray(data if _is_advanced(raw) else data.copy(), x._ctx)
    return _recorded_getitem(x, key)


def _recorded_getitem(x: NDArray, key) -> NDArray:
    """Indexing as registry operators, so the result is part of the recorded graph."""
    op = get_op("_index")
    raw = _to_raw_key(x, key)
    _check_device_bounds(x, raw, key)
    # _parse, not parse_attrs: each key is a new object, and the attribute cache would
    # keep up to 512 of them (and their index arrays) alive
    return invoke(op, [x], op._parse({"key": _Key(raw)}))


class _Key:
    """An index expression carried as the attribute of the ``_index`` operator."""

    __slots__ = ("key",)

    def __init__(self, key):
        self.key = key

    def __hash__(self):
        return id(self)


def _drop_leading_ones(v, ndim: int):
    """``v`` without leading 1-sized axes beyond ``ndim`` (unchanged when others stand)."""
    shape = getattr(v, "shape", ())
    extra = len(shape) - ndim
    if extra <= 0 or any(d != 1 for d in shape[:extra]):
        return v
    return v.reshape(shape[extra:])


def _is_whole(key) -> bool:
    """Whether ``key`` selects the whole array (``None``, ``...``, ``:`` or a tuple of
    them): MXNet assigns to it by a copy, which autograd does not see."""
    parts = key if isinstance(key, tuple) else (key,)
    return all(p is None or p is Ellipsis or (isinstance(p, slice) and p == slice(None))
               for p in parts)


def setitem(x: NDArray, key, value) -> None:
    """``x[key] = value`` in place; bumps the storage version.

    Raises
    ------
    MXNetError
        While recording, when ``value`` is part of the recorded graph and ``key`` selects
        part of ``x`` (MXNet refuses such in-place writes).
    """
    if isinstance(value, NDArray) and _in_graph(value) and not _is_whole(key):
        raise MXNetError("Inplace operations (+=, -=, x[:]=, etc) are not supported when "
                         "recording with autograd.")
    if isinstance(value, NDArray):
        v = value._data
        if array_module(v) is not array_module(x._data):
            from .ndarray import _move
            v = _move(v, x._ctx)
    elif isinstance(value, (list, tuple)) or np.isscalar(value) or isinstance(value, np.ndarray):
        v = value if np.isscalar(value) else array_module(x._data).asarray(value)
    else:
        raise MXNetError(f"cannot assign {type(value).__name__} to an NDArray")
    raw = _to_raw_key(x, key)
    if isinstance(raw, tuple) and len(raw) == 1:
        raw = raw[0]
    _check_device_bounds(x, raw, key)
    try:
        try:
            x._data[raw] = v
        except ValueError:
            # MXNet broadcasts a value with extra leading 1-sized axes onto the target
            # (Y[i, j] = <NDArray of shape (1,)>, Y[i, :] = <shape (1, n)>)
            x._data[raw] = _drop_leading_ones(v, x._data[raw].ndim)
    except (ValueError, IndexError) as err:
        shape = getattr(v, "shape", ())
        raise MXNetError(f"cannot assign a value of shape {tuple(shape)} to index {key!r} "
                         f"of an array of shape {x.shape}: {err}") from err
    x._bump()
