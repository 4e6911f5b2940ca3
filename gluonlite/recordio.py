"""``mx.recordio``: MXNet's RecordIO files, read and written byte for byte.

A record is ``magic (u32 0xced7230a) | lrec (u32) | data | zero padding to 4 bytes``
with ``lrec = cflag << 29 | length``.  A payload that holds the magic number at a
4-byte aligned offset is split there into parts (``cflag`` 1 = first, 2 = middle,
3 = last; the magic itself is dropped and restored on reading), so that a reader can
always resynchronise on the magic.  ``MXIndexedRecordIO`` keeps ``key\\tpos`` lines in
an index file.  ``pack``/``unpack`` prepend MXNet's ``IRHeader`` (flag, label, id,
id2; ``flag > 0`` means ``flag`` float32 labels follow the header).  ``pack_img``
and ``unpack_img`` encode and decode images with Pillow, in OpenCV's BGR channel
order as MXNet's do.
"""
from __future__ import annotations

import numbers
import struct
from collections import namedtuple
from multiprocessing import current_process

import numpy as np

from .base import MXNetError

__all__ = ["MXRecordIO", "MXIndexedRecordIO", "IRHeader", "pack", "unpack", "pack_img",
           "unpack_img"]

_MAGIC = 0xCED7230A
_MAGIC_BYTES = struct.pack("<I", _MAGIC)
_LEN_MASK = (1 << 29) - 1


def _split_at_magic(buf: bytes) -> list:
    """The parts of ``buf`` between magic numbers at 4-byte aligned offsets."""
    aligned = len(buf) & ~3
    words = np.frombuffer(buf, dtype="<u4", count=aligned // 4)
    hits = np.flatnonzero(words == _MAGIC) * 4
    if hits.size == 0:
        return [buf]
    starts = np.concatenate(([0], hits + 4))
    ends = np.concatenate((hits, [len(buf)]))
    return [buf[s:e] for s, e in zip(starts.tolist(), ends.tolist())]


def _record_bytes(buf: bytes) -> bytes:
    parts = _split_at_magic(buf)
    out = []
    last = len(parts) - 1
    for i, part in enumerate(parts):
        cflag = 0 if last == 0 else (1 if i == 0 else (3 if i == last else 2))
        out.append(struct.pack("<II", _MAGIC, (cflag << 29) | len(part)))
        out.append(part)
        out.append(b"\0" * (-len(part) % 4))
    return b"".join(out)


class MXRecordIO:
    """Sequential reader (``flag='r'``) or writer (``flag='w'``) of a ``.rec`` file.

    Parameters
    ----------
    uri : str
        Path of the file.
    flag : {'r', 'w'}
        Read or write.
    """

    def __init__(self, uri: str, flag: str):
        self.uri = str(uri)
        self.flag = flag
        self.pid = None
        self.is_open = False
        self._file = None
        self.open()

    def open(self) -> None:
        """Open (or reopen) the file."""
        if self.flag == "w":
            self.writable = True
        elif self.flag == "r":
            self.writable = False
        else:
            raise ValueError(f"Invalid flag {self.flag}")
        try:
            self._file = open(self.uri, "wb" if self.writable else "rb")
        except OSError as err:
            raise MXNetError(f"RecordIO: cannot open {self.uri}: {err}") from err
        self.pid = current_process().pid
        self.is_open = True

    def __del__(self):
        self.close()

    def __getstate__(self):
        is_open = self.is_open
        self.close()
        state = dict(self.__dict__)
        state["is_open"] = is_open
        state["_file"] = None
        return state

    def __setstate__(self, state):
        self.__dict__ = state
        self.is_open = False
        if state["is_open"]:
            self.open()

    def _check_pid(self, allow_reset: bool = False) -> None:
        if self.pid != current_process().pid:
            if not allow_reset:
                raise RuntimeError("Forbidden operation in multiple processes")
            self.reset()

    def close(self) -> None:
        """Close the file (a closed writer's file is complete)."""
        if not getattr(self, "is_open", False):
            return
        self._file.close()
        self._file = None
        self.is_open = False
        self.pid = None

    def reset(self) -> None:
        """Back to the start (a writer starts the file anew)."""
        self.close()
        self.open()

    def write(self, buf: bytes) -> None:
        """Append one record."""
        if not self.writable:
            raise AssertionError("RecordIO: write on a file opened for reading")
        self._check_pid(allow_reset=False)
        self._file.write(_record_bytes(bytes(buf)))

    def _fail(self, offset: int, what: str) -> MXNetError:
        return MXNetError(f"RecordIO file {self.uri}: {what} at byte offset {offset}")

    def read(self):
        """The next record's payload, or ``None`` at the end of the file."""
        if self.writable:
            raise AssertionError("RecordIO: read on a file opened for writing")
        self._check_pid(allow_reset=False)
        parts = []
        while True:
            offset = self._file.tell()
            head = self._file.read(8)
            if not head:
                if parts:
                    raise self._fail(offset, "the file ends inside a multi-part record")
                return None
            if len(head) < 8:
                raise self._fail(offset, "truncated record header")
            magic, lrec = struct.unpack("<II", head)
            if magic != _MAGIC:
                raise self._fail(offset, f"bad magic number 0x{magic:08x} (not a RecordIO "
                                         "record, or a corrupt file)")
            cflag, length = lrec >> 29, lrec & _LEN_MASK
            data = self._file.read(length + (-length % 4))
            if len(data) < length:
                raise self._fail(offset, f"truncated record (needs {length} bytes, "
                                         f"{len(data)} left)")
            data = data[:length]
            if cflag == 0:
                if parts:
                    raise self._fail(offset, "a whole record inside a multi-part record")
                return data
            if (cflag == 1) != (not parts) or cflag > 3:
                raise self._fail(offset, f"unexpected part flag {cflag}")
            parts.append(data)
            if cflag == 3:
                return _MAGIC_BYTES.join(parts)

    def tell(self) -> int:
        """Byte position where the next record starts."""
        return self._file.tell()


class MXIndexedRecordIO(MXRecordIO):
    """A RecordIO file with an index (``key\\tposition`` per line) for random access.

    Parameters
    ----------
    idx_path : str
        Path of the index file.
    uri : str
        Path of the ``.rec`` file.
    flag : {'r', 'w'}
        Read or write.
    key_type : type
        Type of the keys in the index (``int`` by default).
    """

    def __init__(self, idx_path: str, uri: str, flag: str, key_type=int):
        self.idx_path = idx_path
        self.idx: dict = {}
        self.keys: list = []
        self.key_type = key_type
        self.fidx = None
        super().__init__(uri, flag)

    def open(self) -> None:
        super().open()
        self.idx = {}
        self.keys = []
        try:
            self.fidx = open(self.idx_path, self.flag)
        except OSError as err:
            raise MXNetError(f"RecordIO: cannot open index {self.idx_path}: {err}") from err
        if self.writable:
            return
        for number, line in enumerate(self.fidx, 1):
            fields = line.strip().split("\t")
            if fields == [""]:
                continue
            try:
                key, pos = self.key_type(fields[0]), int(fields[1])
            except (IndexError, ValueError) as err:
                raise MXNetError(f"RecordIO index {self.idx_path}: line {number} is not "
                                 f"'key<TAB>position': {line!r}") from err
            self.idx[key] = pos
            self.keys.append(key)

    def close(self) -> None:
        if not getattr(self, "is_open", False):
            return
        super().close()
        self.fidx.close()

    def __getstate__(self):
        state = super().__getstate__()
        state["fidx"] = None
        return state

    def seek(self, idx) -> None:
        """Position the reader at the record of key ``idx``."""
        if self.writable:
            raise AssertionError("RecordIO: seek on a file opened for writing")
        self._check_pid(allow_reset=True)
        if idx not in self.idx:
            raise KeyError(f"RecordIO index {self.idx_path} has no key {idx!r}")
        self._file.seek(self.idx[idx])

    def read_idx(self, idx):
        """The payload of the record with key ``idx``."""
        self.seek(idx)
        return self.read()

    def write_idx(self, idx, buf: bytes) -> None:
        """Append a record under key ``idx``."""
        key = self.key_type(idx)
        pos = self.tell()
        self.write(buf)
        self.fidx.write(f"{key}\t{pos}\n")
        self.idx[key] = pos
        self.keys.append(key)


IRHeader = namedtuple("HEADER", ["flag", "label", "id", "id2"])
_IR_FORMAT = "IfQQ"
_IR_SIZE = struct.calcsize(_IR_FORMAT)


def pack(header, s: bytes) -> bytes:
    """``IRHeader`` + payload; a non-scalar label goes after the header as float32 and
    its length becomes ``flag``."""
    header = IRHeader(*header)
    if isinstance(header.label, numbers.Number):
        header = header._replace(flag=0)
    else:
        label = np.asarray(header.label, dtype=np.float32)
        header = header._replace(flag=label.size, label=0)
        s = label.tobytes() + s
    return struct.pack(_IR_FORMAT, *header) + s


def unpack(s: bytes):
    """``(IRHeader, payload)`` of a packed record (vector labels as float32 arrays)."""
    if len(s) < _IR_SIZE:
        raise MXNetError(f"recordio.unpack: record of {len(s)} bytes is shorter than the "
                         f"{_IR_SIZE}-byte header")
    header = IRHeader(*struct.unpack(_IR_FORMAT, s[:_IR_SIZE]))
    s = s[_IR_SIZE:]
    if header.flag > 0:
        if len(s) < header.flag * 4:
            raise MXNetError(f"recordio.unpack: header announces {header.flag} labels but "
                             f"only {len(s)} bytes follow")
        header = header._replace(label=np.frombuffer(s, np.float32, header.flag))
        s = s[header.flag * 4:]
    return header, s


def _pil():
    try:
        from PIL import Image
    except ImportError as err:
        raise MXNetError("image encoding and decoding need Pillow: pip install Pillow "
                         "(or gluonlite[image])") from err
    return Image


def unpack_img(s: bytes, iscolor: int = -1):
    """``(IRHeader, image)``: the payload decoded as OpenCV would (BGR channel order;
    ``iscolor`` 1 colour, 0 grey, -1 as stored)."""
    import io
    header, s = unpack(s)
    image = _pil()
    try:
        img = image.open(io.BytesIO(s))
        img.load()
    except Exception as err:  # Pillow raises several types for corrupt data
        raise MXNetError(f"recordio.unpack_img: cannot decode the image of record id "
                         f"{header.id}: {err}") from err
    if iscolor == 0:  # OpenCV's grey conversion, shared with mx.image.imdecode
        from .image.image import _decode_array
        return header, _decode_array(s, flag=0)[:, :, 0]
    if iscolor == 1 or img.mode not in ("L", "RGBA"):
        arr = np.asarray(img.convert("RGB"))
        return header, np.ascontiguousarray(arr[:, :, ::-1])
    arr = np.asarray(img)
    if img.mode == "RGBA":
        arr = np.ascontiguousarray(arr[:, :, [2, 1, 0, 3]])
    return header, arr


def pack_img(header, img, quality: int = 95, img_fmt: str = ".jpg") -> bytes:
    """Encode ``img`` (HWC uint8 in BGR order, or HW grey) as JPEG or PNG and
    :func:`pack` it."""
    import io
    image = _pil()
    arr = np.asarray(img)
    if arr.ndim == 3 and arr.shape[2] == 3:
        arr = arr[:, :, ::-1]
    fmt = img_fmt.upper().lstrip(".")
    buf = io.BytesIO()
    pil = image.fromarray(np.ascontiguousarray(arr))
    if fmt in ("JPG", "JPEG"):
        pil.save(buf, format="JPEG", quality=quality)
    elif fmt == "PNG":
        # OpenCV's PNG "quality" is the compression level 0-9
        pil.save(buf, format="PNG", compress_level=min(max(int(quality), 0), 9))
    else:
        raise MXNetError(f"pack_img: unsupported image format {img_fmt}")
    return pack(header, buf.getvalue())

