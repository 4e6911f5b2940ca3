"""``nd.save``, ``nd.load`` and ``nd.load_frombuffer`` in MXNet's binary format."""
from __future__ import annotations

import os
from typing import Dict, List, Union

import numpy as np

from ..base import MXNetError, write_atomically
from ..context import Context
from ..util import is_np_shape
from .ndarray import NDArray
from .serialization import dumps, loads

__all__ = ["save", "load", "load_frombuffer"]

_CPU = Context("cpu", 0)


def _fname(fname) -> str:
    if isinstance(fname, os.PathLike):
        fname = os.fspath(fname)
    if not isinstance(fname, str):
        raise TypeError(f"fname required to be a string, got {type(fname).__name__}")
    return fname


def _entry(arr) -> tuple:
    if not isinstance(arr, NDArray):
        raise TypeError(f"nd.save only accepts NDArrays, got {type(arr).__name__}")
    ctx = arr.context
    if arr.stype != "default":               # the storage record, components on the host
        return _host_storage(arr.handle), ctx.device_typeid, ctx.device_id
    return arr.asnumpy(), ctx.device_typeid, ctx.device_id


def _host_storage(st):
    from ..backend import to_numpy
    from ..ops.sparse_storage import CSRStorage, RowSparseStorage
    if st.stype == "csr":
        return CSRStorage(to_numpy(st.values), to_numpy(st.indices), to_numpy(st.indptr),
                          st.shape)
    return RowSparseStorage(to_numpy(st.values), to_numpy(st.indices), st.shape)


def save(fname, data) -> None:
    """Save arrays to a file in MXNet's binary NDArray format.

    Parameters
    ----------
    fname : str or os.PathLike
        Destination file.
    data : NDArray, list of NDArray or dict of str to NDArray
        A dict stores names (``load`` then returns a dict); a list stores none.

    Notes
    -----
    The file is byte-identical to what MXNet 1.9.1's ``mx.nd.save`` writes for the same
    arrays (sparse arrays included, in their storage), and MXNet loads it.  In NumPy-shape
    semantics (``np_shape()``, ``set_np()``) the records are MXNet's V3 records, which load
    only in those semantics (MXNet's rule); sparse arrays cannot be saved there.
    """
    np_shape = is_np_shape()
    fname = _fname(fname)
    if isinstance(data, NDArray):
        data = [data]
    if isinstance(data, dict):
        names = []
        for key in data:
            if not isinstance(key, str):
                raise TypeError(f"nd.save: dict keys must be str, got {type(key).__name__}")
            names.append(key)
        payload = dumps([_entry(v) for v in data.values()], names, np_shape)
    elif isinstance(data, (list, tuple)):
        payload = dumps([_entry(v) for v in data], None, np_shape)
    else:
        raise ValueError("data needs to either be a NDArray, dict of str, NDArray pairs "
                         "or a list of NDarrays.")
    write_atomically(fname, payload)


def _wrap(arr):
    if arr is None:                           # MXNet "none" array
        arr = np.zeros((0,), dtype=np.float32)
    if getattr(arr, "stype", "default") != "default":
        from .sparse import RowSparseNDArray, CSRNDArray
        cls = CSRNDArray if arr.stype == "csr" else RowSparseNDArray
        return cls(arr, _CPU)
    return NDArray(arr, _CPU)


def _result(parsed) -> Union[List[NDArray], Dict[str, NDArray]]:
    arrays, names = parsed
    wrapped = [_wrap(a) for a in arrays]
    if names is None:
        return wrapped
    return dict(zip(names, wrapped))


def load(fname) -> Union[List[NDArray], Dict[str, NDArray]]:
    """Load arrays saved by ``nd.save`` (gluonlite's or MXNet's).

    Parameters
    ----------
    fname : str or os.PathLike
        Source file.

    Returns
    -------
    list of NDArray or dict of str to NDArray
        A dict when the file stores names, else a list. Arrays are placed on ``cpu(0)``;
        sparse records load as ``RowSparseNDArray`` / ``CSRNDArray``.

    Raises
    ------
    MXNetError
        If the file cannot be read or is not a valid MXNet NDArray file, or was saved in
        other shape semantics than the current ones (MXNet's V3 records, written in
        NumPy-shape semantics, load only in them; older records only outside them).
    """
    fname = _fname(fname)
    try:
        with open(fname, "rb") as f:
            buf = f.read()
    except OSError as err:
        raise MXNetError(f"nd.load: cannot open {fname!r}: {err.strerror or err}") from None
    return _result(loads(buf, what=f"nd.load({fname!r})", np_shape=is_np_shape()))


def load_frombuffer(buf) -> Union[List[NDArray], Dict[str, NDArray]]:
    """Load arrays from the bytes of an MXNet NDArray file.

    Parameters
    ----------
    buf : bytes, bytearray or memoryview
        File contents.

    Returns
    -------
    list of NDArray or dict of str to NDArray
        As :func:`load`.
    """
    if not isinstance(buf, (bytes, bytearray, memoryview)):
        raise TypeError(f"buf required to be bytes or bytearray, got {type(buf).__name__}")
    return _result(loads(buf, what="nd.load_frombuffer", np_shape=is_np_shape()))
