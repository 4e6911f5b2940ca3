"""MXNet's binary NDArray container format (``nd.save`` / ``nd.load`` / ``.params``).

Layout (all integers little-endian), as MXNet 1.9.1 writes it::

    u64  list magic 0x112
    u64  reserved (0)
    u64  number of arrays N
    N    array records
    u64  number of names (0, or N)
    per name: u64 byte length, UTF-8 bytes

A V2 record (magic 0xF993FAC9, what MXNet 1.9.1 writes in its default shape
semantics; V3 = 0xF993FACA is the same layout written in NumPy-shape mode)::

    u32  record magic
    i32  storage type (0 dense, 1 row_sparse, 2 csr)
    [sparse only: storage shape]
    u32  ndim, then ndim x i64 dims
    i32  device type, i32 device id
    i32  dtype flag
    [sparse only: per aux array i32 dtype flag + shape]
    raw data (C order), [sparse only: raw aux data]

V1 records (0xF993FAC8) have no storage type; pre-V1 records have no magic
(the first u32 is ndim) and store dims as u32.  In V1/V2 semantics a record
with ``ndim == 0`` is an empty ("none") array with nothing after its shape;
MXNet 1.9.1 nevertheless writes a context, a dtype and the data after a
0-d shape, so the reader first tries to read such a record as a 0-d array and
falls back to the "none" reading if the file does not parse that way.

dtype flags: 0 float32, 1 float64, 2 float16, 3 uint8, 4 int32, 5 int8, 6 int64,
7 bool, 12 bfloat16 (read into float32 by shifting the 16 bits up; never written).
Flags 8-11 (int16, uint16, uint32, uint64) come from MXNet 2.x: they are read and
written here, but MXNet 1.9.1 refuses them ("Unknown type enum").  The V1 and pre-V1
layouts above were confirmed by having MXNet 1.9.1 load hand-built files
(tests/fixtures/gen_ndarray_files.py).

Sparse records (row_sparse, csr) are read into and written from the storage records
of :mod:`gluonlite.ops.sparse_storage` (NumPy components): the storage shape is
``(nnz_rows, *rest)`` for row_sparse and ``(nnz,)`` for csr; the aux arrays are the
row indices (row_sparse), or ``indptr`` then the column indices (csr), as int64.

Everything is checked against the bytes that remain before anything is
allocated; a malformed buffer raises :class:`~gluonlite.base.MXNetError`.
"""
from __future__ import annotations

import math
import struct
from typing import List, Optional, Sequence, Tuple

import numpy as np

from ..base import MXNetError
from ..ops.sparse_storage import CSRStorage, RowSparseStorage

LIST_MAGIC = 0x112
V1_MAGIC = 0xF993FAC8
V2_MAGIC = 0xF993FAC9
V3_MAGIC = 0xF993FACA
MAX_NDIM = 32
BFLOAT16_FLAG = 12
MAX_ELEMENTS = 2 ** 56        # bound on the product of the non-zero dims of a shape

DTYPE_BY_FLAG = {
    0: np.dtype(np.float32), 1: np.dtype(np.float64), 2: np.dtype(np.float16),
    3: np.dtype(np.uint8), 4: np.dtype(np.int32), 5: np.dtype(np.int8),
    6: np.dtype(np.int64), 7: np.dtype(np.bool_), 8: np.dtype(np.int16),
    9: np.dtype(np.uint16), 10: np.dtype(np.uint32), 11: np.dtype(np.uint64),
}
FLAG_BY_DTYPE = {dt: flag for flag, dt in DTYPE_BY_FLAG.items()}
DEVICE_TYPES = (1, 2, 3, 5)          # cpu, gpu, cpu_pinned, cpu_shared
STYPE_NAMES = {0: "default", 1: "row_sparse", 2: "csr"}

__all__ = ["dumps", "loads", "loads_record", "LIST_MAGIC", "V1_MAGIC", "V2_MAGIC", "V3_MAGIC",
           "DTYPE_BY_FLAG", "FLAG_BY_DTYPE"]


# ----------------------------------------------------------------------------- writing
def _dtype_flag(dt) -> int:
    dt = np.dtype(dt)
    if dt not in FLAG_BY_DTYPE:
        raise MXNetError(f"nd.save: dtype {dt} cannot be stored in an MXNet NDArray file")
    return FLAG_BY_DTYPE[dt]


def _shape_bytes(shape) -> bytes:
    shape = tuple(int(d) for d in shape)
    return struct.pack(f"<i{len(shape)}q", len(shape), *shape)


def _raw(arr: np.ndarray) -> bytes:
    dt = np.dtype(arr.dtype)
    return np.ascontiguousarray(arr).astype(dt.newbyteorder("<"), copy=False).tobytes()


def _sparse_record(st, dev_type: int, dev_id: int) -> bytes:
    values = np.asarray(st.values)
    flag = _dtype_flag(values.dtype)
    if st.stype == "row_sparse":
        aux = [np.asarray(st.indices).astype(np.int64, copy=False)]
        storage_shape, stype = values.shape, 1
    else:
        aux = [np.asarray(st.indptr).astype(np.int64, copy=False),
               np.asarray(st.indices).astype(np.int64, copy=False)]
        storage_shape, stype = values.shape, 2
    parts = [struct.pack("<Ii", V2_MAGIC, stype), _shape_bytes(storage_shape),
             _shape_bytes(st.shape), struct.pack("<iii", dev_type, dev_id, flag)]
    for a in aux:
        parts.append(struct.pack("<i", FLAG_BY_DTYPE[np.dtype(np.int64)]))
        parts.append(_shape_bytes(a.shape))
    parts.append(_raw(values))
    parts.extend(_raw(a) for a in aux)
    return b"".join(parts)


def _record(arr, dev_type: int, dev_id: int, np_shape: bool = False) -> bytes:
    if getattr(arr, "stype", "default") != "default":
        if np_shape:
            raise MXNetError("nd.save: only allow serializing ndarray of default storage "
                             f"type in np shape semantics (got a {arr.stype} array of shape "
                             f"{tuple(arr.shape)})")
        return _sparse_record(arr, dev_type, dev_id)
    flag = _dtype_flag(arr.dtype)
    parts = [struct.pack("<IiI", V3_MAGIC if np_shape else V2_MAGIC, 0, arr.ndim)]
    if arr.ndim:
        parts.append(struct.pack(f"<{arr.ndim}q", *arr.shape))
    parts.append(struct.pack("<iii", dev_type, dev_id, flag))
    parts.append(_raw(arr))
    return b"".join(parts)


def dumps(arrays: Sequence[Tuple[np.ndarray, int, int]], names: Optional[Sequence[str]],
          np_shape: bool = False) -> bytes:
    """Serialize arrays to MXNet's format.

    Parameters
    ----------
    arrays : sequence of (array, device type id, device id)
        The arrays with the context they are recorded under: NumPy arrays, or sparse
        storage records (``RowSparseStorage`` / ``CSRStorage`` with NumPy components).
    names : sequence of str or None
        One name per array (dict form) or ``None`` (list form).
    np_shape : bool
        Write V3 records, as MXNet does in NumPy-shape semantics (dense arrays only:
        a sparse array raises ``MXNetError``, as in MXNet).

    Returns
    -------
    bytes
        The file contents, byte-identical to what MXNet 1.9.1 writes.
    """
    parts = [struct.pack("<QQQ", LIST_MAGIC, 0, len(arrays))]
    parts.extend(_record(a, t, i, np_shape) for a, t, i in arrays)
    names = list(names or ())
    parts.append(struct.pack("<Q", len(names)))
    for name in names:
        raw = name.encode("utf-8")
        parts.append(struct.pack("<Q", len(raw)))
        parts.append(raw)
    return b"".join(parts)


# ----------------------------------------------------------------------------- reading
class _Reader:
    """Bounds-checked cursor over a byte buffer."""

    def __init__(self, buf, what: str):
        self.buf = memoryview(buf).cast("B")
        self.pos = 0
        self.what = what

    @property
    def remaining(self) -> int:
        return len(self.buf) - self.pos

    def fail(self, msg: str) -> MXNetError:
        return MXNetError(f"{self.what}: {msg}")

    def take(self, n: int, field: str) -> memoryview:
        if n < 0 or n > self.remaining:
            raise self.fail(f"truncated at byte {self.pos} while reading {field} "
                            f"(needs {n} bytes, {self.remaining} left)")
        out = self.buf[self.pos:self.pos + n]
        self.pos += n
        return out

    def unpack(self, fmt: str, field: str):
        size = struct.calcsize(fmt)
        return struct.unpack(fmt, self.take(size, field))

    def u32(self, field: str) -> int:
        return self.unpack("<I", field)[0]

    def i32(self, field: str) -> int:
        return self.unpack("<i", field)[0]

    def u64(self, field: str) -> int:
        return self.unpack("<Q", field)[0]


def _read_shape(r: _Reader, wide: bool, ndim: Optional[int] = None) -> Tuple[int, ...]:
    at = r.pos
    if ndim is None:
        ndim = r.i32("shape ndim")
    if ndim < 0 or ndim > MAX_NDIM:
        raise r.fail(f"invalid ndim {ndim} at byte {at} (expected 0..{MAX_NDIM})")
    if ndim == 0:
        return ()
    dims = r.unpack(f"<{ndim}{'q' if wide else 'I'}", "shape dims")
    if any(d < 0 for d in dims):
        raise r.fail(f"invalid shape {dims} at byte {at} (unknown or negative dimension)")
    if math.prod(max(d, 1) for d in dims) >= MAX_ELEMENTS:
        raise r.fail(f"invalid shape {dims} at byte {at} (too many elements)")
    return tuple(dims)


def _read_dtype(r: _Reader) -> int:
    at = r.pos
    flag = r.i32("dtype flag")
    if flag not in DTYPE_BY_FLAG and flag != BFLOAT16_FLAG:
        raise r.fail(f"unknown dtype flag {flag} at byte {at}")
    return flag


def _read_data(r: _Reader, shape: Tuple[int, ...], flag: int, field: str) -> np.ndarray:
    itemsize = 2 if flag == BFLOAT16_FLAG else DTYPE_BY_FLAG[flag].itemsize
    if math.prod(max(d, 1) for d in shape) >= MAX_ELEMENTS:
        raise r.fail(f"invalid {field} shape {shape} (too many elements)")
    nbytes = math.prod(shape) * itemsize     # Python int: no overflow; checked by take()
    raw = r.take(nbytes, f"{field} of shape {shape}")
    if flag == BFLOAT16_FLAG:
        bits = np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16
        return bits.view(np.float32).reshape(shape)
    dt = DTYPE_BY_FLAG[flag]
    return np.frombuffer(raw, dtype=dt.newbyteorder("<")).astype(dt).reshape(shape)


def _read_context(r: _Reader) -> Tuple[int, int]:
    at = r.pos
    dev_type, dev_id = r.unpack("<ii", "context")
    if dev_type not in DEVICE_TYPES or dev_id < 0:
        raise r.fail(f"invalid context (device type {dev_type}, id {dev_id}) at byte {at}")
    return dev_type, dev_id


def _sparse_storage(r: _Reader, stype: int, shape, data: np.ndarray,
                    aux: List[np.ndarray]):
    """The storage record of a sparse array read from a file, checked for consistency."""
    if stype == 1:                           # row_sparse: aux[0] = row indices
        rows = aux[0].astype(np.int64)
        if data.shape[:1] != rows.shape or (rows.size and (rows.min() < 0 or rows.max() >= shape[0])):
            raise r.fail(f"corrupt row_sparse array of shape {shape}")
        data = data.reshape((rows.size,) + tuple(shape[1:]))
        if rows.size > 1 and np.any(np.diff(rows) <= 0):
            order = np.argsort(rows, kind="stable")
            rows, data = rows[order], data[order]
            if np.any(np.diff(rows) == 0):
                raise r.fail(f"corrupt row_sparse array of shape {shape} (repeated rows)")
        return RowSparseStorage(data, rows, shape)
    indptr, indices = aux[0].astype(np.int64), aux[1].astype(np.int64)   # csr
    nrows, ncols = shape
    ok = (indptr.size == nrows + 1 and indices.size == data.size
          and (indptr.size == 0 or (indptr[0] == 0 and indptr[-1] == data.size
                                    and np.all(np.diff(indptr) >= 0)))
          and (indices.size == 0 or (indices.min() >= 0 and indices.max() < ncols)))
    if not ok:
        raise r.fail(f"corrupt csr array of shape {shape}")
    return CSRStorage(data.reshape(-1), indices, indptr, shape)


def _read_sparse(r: _Reader, stype: int):
    _read_shape(r, True)                     # storage shape; the aux shapes are authoritative
    shape = _read_shape(r, True)
    if len(shape) == 0:
        return None
    if (stype == 2 and len(shape) != 2) or (stype == 1 and len(shape) < 1):
        raise r.fail(f"invalid {STYPE_NAMES[stype]} shape {shape}")
    _read_context(r)
    flag = _read_dtype(r)
    naux = 2 if stype == 2 else 1
    aux_meta = []
    for _ in range(naux):
        aflag = _read_dtype(r)
        if aflag == BFLOAT16_FLAG or not np.issubdtype(DTYPE_BY_FLAG[aflag], np.integer):
            raise r.fail(f"invalid sparse index dtype flag {aflag}")
        aux_meta.append((aflag, _read_shape(r, True)))
    idx_len = aux_meta[-1][1][0] if aux_meta[-1][1] else 0
    dshape = (idx_len,) if stype == 2 else (idx_len,) + tuple(shape[1:])
    data = _read_data(r, dshape, flag, "sparse data")
    aux = [_read_data(r, s, f, "sparse indices") for f, s in aux_meta]
    return _sparse_storage(r, stype, shape, data, aux)


def _check_semantics(r: _Reader, head: int, np_shape: Optional[bool], start: int) -> None:
    """MXNet's rule: V3 records (written in NumPy-shape semantics) load only in those
    semantics, older records only outside them (a 0 in a V1/V2 shape means "unknown",
    in a V3 shape it is a size)."""
    if np_shape is None:
        return
    if head == V3_MAGIC and not np_shape:
        raise r.fail(f"the ndarray at byte {start} was saved in np shape semantics, must be "
                     "loaded in the same semantics: turn on np shape semantics with "
                     "`with mx.np_shape(True)` (or `use_np_shape`) around the load")
    if head != V3_MAGIC and np_shape:
        raise r.fail(f"the ndarray at byte {start} was not saved in np shape semantics, but "
                     "is being loaded in np shape semantics: load it inside "
                     "`with mx.np_shape(False)`")


def _read_record(r: _Reader, zero_dim_scalar: bool, np_shape: Optional[bool] = None):
    start = r.pos
    head = r.u32("array record")
    _check_semantics(r, head, np_shape, start)
    if head in (V2_MAGIC, V3_MAGIC):
        stype = r.i32("storage type")
        if stype in (1, 2):
            return _read_sparse(r, stype)
        if stype != 0:
            raise r.fail(f"unknown storage type {stype} at byte {start + 4}")
        shape, wide = _read_shape(r, True), True
        none_possible = head == V2_MAGIC
    elif head == V1_MAGIC:
        shape, wide, none_possible = _read_shape(r, True), True, True
    else:                                    # pre-V1: the first u32 is ndim
        if head > MAX_NDIM:
            raise r.fail(f"bad array record magic 0x{head:08X} at byte {start}")
        shape, wide, none_possible = _read_shape(r, False, ndim=head), False, True
    if not shape and none_possible and not zero_dim_scalar:
        return None
    _read_context(r)
    flag = _read_dtype(r)
    return _read_data(r, shape, flag, "array data")


def _parse(buf, what: str, zero_dim_scalar: bool, np_shape: Optional[bool] = None):
    r = _Reader(buf, what)
    if r.remaining < 8:
        raise r.fail(f"is not an MXNet NDArray file (only {r.remaining} bytes)")
    magic = r.u64("header")
    if magic != LIST_MAGIC:
        raise r.fail(f"is not an MXNet NDArray file (magic 0x{magic:X}, expected 0x112)")
    r.u64("reserved header field")
    at = r.pos
    count = r.u64("array count")
    if count * 4 > r.remaining:
        raise r.fail(f"array count {count} at byte {at} does not fit in the "
                     f"{r.remaining} remaining bytes")
    arrays = [_read_record(r, zero_dim_scalar, np_shape) for _ in range(count)]
    at = r.pos
    nnames = r.u64("name count")
    if nnames not in (0, count):
        raise r.fail(f"name count {nnames} at byte {at} does not match the array count {count}")
    names = []
    for _ in range(nnames):
        at = r.pos
        length = r.u64("name length")
        raw = r.take(length, f"name of {length} bytes at byte {at}")
        try:
            names.append(bytes(raw).decode("utf-8"))
        except UnicodeDecodeError:
            raise r.fail(f"name at byte {at} is not valid UTF-8") from None
    return arrays, (names if nnames else None)


def loads(buf, what: str = "buffer", np_shape: Optional[bool] = None
          ) -> Tuple[List[Optional[np.ndarray]], Optional[List[str]]]:
    """Parse an MXNet NDArray file.

    Parameters
    ----------
    buf : bytes-like
        File contents.
    what : str
        Source description for error messages (a file name).
    np_shape : bool or None
        Whether NumPy-shape semantics are on (``nd.load`` passes them): as in MXNet,
        V3 records then load and older ones raise, and the other way round when off.
        ``None`` reads every version.

    Returns
    -------
    (arrays, names)
        ``arrays``: NumPy arrays, sparse storage records (row_sparse / csr records) or
        ``None`` (MXNet "none" arrays); ``names``: a list of names, or ``None`` when the
        file holds none (list form).

    Raises
    ------
    MXNetError
        If ``buf`` is not a well-formed MXNet NDArray file.
    """
    try:
        return _parse(buf, what, zero_dim_scalar=True, np_shape=np_shape)
    except MXNetError as first:
        if np_shape:                          # V3 only: 0-d records are scalars
            raise
        try:                                  # 0-d records may be legacy "none" arrays
            return _parse(buf, what, zero_dim_scalar=False, np_shape=np_shape)
        except MXNetError:
            raise first from None


_DEVICE_NAMES = {1: "cpu", 2: "gpu", 3: "cpu_pinned", 5: "cpu_shared"}


def loads_record(buf, what: str = "pickled NDArray state") -> dict:
    """Parse one dense V2/V3 array record, what MXNet's ``NDArray.__getstate__`` keeps
    under ``'handle'`` (``MXNDArraySaveRawBytes``).

    Returns
    -------
    dict
        ``{'data': numpy array, 'ctx': (device type name, device id)}``.

    Raises
    ------
    MXNetError
        If ``buf`` is not one well-formed dense array record.
    """
    r = _Reader(bytes(buf), what)
    head = r.u32("array record")
    if head not in (V2_MAGIC, V3_MAGIC) or r.i32("storage type") != 0:
        raise r.fail("is not a dense MXNet array record")
    shape = _read_shape(r, True)
    dev_type, dev_id = _read_context(r)
    data = _read_data(r, shape, _read_dtype(r), "array data")
    if r.remaining:
        raise r.fail(f"has {r.remaining} bytes after the array record")
    return {"data": data, "ctx": (_DEVICE_NAMES[dev_type], dev_id)}
