"""``nd.save``, ``nd.load`` and ``nd.load_frombuffer`` in MXNet's binary format."""
from __future__ import annotations

import hashlib
import os
import warnings
from typing import Dict, List, Union

import numpy as np

from ..base import MXNetError, stale_temporaries, write_atomically
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
    write_atomically(_fname(fname), _payload(data))


def _payload(data) -> bytes:
    """The bytes of an MXNet NDArray file holding ``data`` (what ``save`` writes)."""
    np_shape = is_np_shape()
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
    return payload


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


# -- checkpoint pairs ------------------------------------------------------------------------
# A checkpoint is two files, ``-symbol.json`` and ``.params``: a process killed between
# their renames would leave new parameters beside an old graph, which load silently where
# names and shapes agree.  So the parameters file of a pair ends with a record of the graph
# file saved with it: this magic, the SHA-256 of the graph file's bytes and the first 8
# bytes of the SHA-256 of its name.  MXNet's loaders (like ``load`` here) stop after the
# arrays and their names and never read it.  The pair is renamed parameters first, graph
# last, after both temporary files are complete: where the graph's rename was cut off, its
# complete temporary file is still there, and :func:`check_paired` finishes the save.
PAIR_MAGIC = b"GLPAIR\x00\x01"
_PAIR_RECORD = len(PAIR_MAGIC) + 32 + 8


def _name_digest(partner_file: str) -> bytes:
    return hashlib.sha256(os.path.basename(partner_file).encode("utf-8")).digest()[:8]


def paired_payload(data, partner_file: str, partner: bytes) -> bytes:
    """What ``save`` writes for ``data``, followed by the record that the file belongs
    with ``partner_file`` (a checkpoint's ``-symbol.json``, in the same folder) holding
    the bytes ``partner``; see :func:`check_paired`."""
    return (_payload(data) + PAIR_MAGIC + hashlib.sha256(partner).digest()
            + _name_digest(_fname(partner_file)))


def _sha256(path: str) -> bytes:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).digest()


def check_paired(fname, partner_file) -> None:
    """Check, before loading a checkpoint pair, that the parameters file ``fname`` belongs
    with ``partner_file``, when that is the graph file it was saved with (same folder, same
    name).

    Parameters loaded with another graph file, and files without the record of
    :func:`paired_payload` (MXNet's, or saved by ``nd.save``), are not checked.  Where a
    save was interrupted between its two renames, the graph it was writing is still
    complete in a temporary file: it is renamed into place (the save is finished, with a
    warning).

    Raises
    ------
    MXNetError
        If the graph file saved with ``fname`` has been replaced or is mixed with another
        save's, naming both files.
    """
    fname, partner_file = _fname(fname), _fname(partner_file)
    same_folder = (os.path.dirname(os.path.abspath(fname))
                   == os.path.dirname(os.path.abspath(partner_file)))
    try:
        with open(fname, "rb") as f:
            f.seek(0, os.SEEK_END)
            if f.tell() < _PAIR_RECORD:
                return
            f.seek(-_PAIR_RECORD, os.SEEK_END)
            record = f.read(_PAIR_RECORD)
        if not record.startswith(PAIR_MAGIC) or not same_folder \
                or record[-8:] != _name_digest(partner_file):
            return
        want = record[len(PAIR_MAGIC):-8]
        if os.path.exists(partner_file) and _sha256(partner_file) == want:
            return
        for leftover in stale_temporaries(partner_file):
            if _sha256(leftover) == want:
                os.replace(leftover, partner_file)
                warnings.warn(f"checkpoint: finished the save of {partner_file} that was "
                              f"interrupted after writing {fname}")
                return
    except OSError as err:
        raise MXNetError(f"checkpoint: cannot read {err.filename}: {err.strerror}") from None
    raise MXNetError(
        f"checkpoint: {fname} was saved with another {partner_file} than the one there "
        f"now: the two files do not belong together (one of them replaced, or a save "
        f"interrupted).  Save the checkpoint again; to use these parameters with this "
        f"graph anyway, load them with nd.load and save them with nd.save.")
