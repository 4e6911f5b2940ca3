"""``mx.io.ImageRecordIter``: batches of images from a RecordIO file, in pure Python
(Pillow decoding, the registry's resize operator) instead of MXNet's C++ reader.

Per image, as MXNet 1.9's default augmenter does: decode (RGB, or grey for
``data_shape[0] == 1``); resize the shorter side to ``resize``; random scale; pad;
crop (random-resized, random-size, random or centre; the centre crop takes the
``data_shape`` window without resizing, upsampling only an image that is too small);
mirror; ``(pixel - mean) * scale / std`` in float32, channels first.  Deterministic
settings give MXNet's batches (resizes may differ from OpenCV's by one grey level);
the ``round_batch`` wrap-around and the epoch boundaries follow MXNet's.

Random choices come from a ``random.Random(seed)`` of the iterator, so they are
reproducible but not MXNet's (its C++ generators are not reproduced).  Shuffling
shuffles whole records each epoch; ``num_parts`` splits the records into equal
contiguous parts (MXNet splits the file by bytes).  Options of MXNet's C++ iterator
that are not supported here raise ``MXNetError`` (``_UNSUPPORTED``).
"""
from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .. import ndarray as nd
from .. import recordio
from ..base import MXNetError
from ..image.image import _decode_array, _get_interp_method
from ..image.lst import read_lst
from ..ops.image_resize import resize_numpy
from .io import DataBatch, DataDesc, MXDataIter

__all__ = ["ImageRecordIter", "ImageRecordUInt8Iter", "ImageRecordInt8Iter"]

# MXNet options this reader does not implement (non-default values raise)
_UNSUPPORTED = {"max_rotate_angle": 0.0, "rotate": -1.0, "rotate_list": "",
                "max_shear_ratio": 0.0, "brightness": 0.0, "contrast": 0.0,
                "saturation": 0.0, "pca_noise": 0.0, "random_h": 0, "random_s": 0,
                "random_l": 0, "max_random_contrast": 0.0, "max_random_illumination": 0.0,
                "mean_img": "", "max_img_size": 1e10, "min_img_size": 0.0}
# MXNet options that change nothing here (threads, prefetching, devices, logging)
_IGNORED = ("prefetch_buffer", "ctx", "device_id", "verbose", "shuffle_chunk_size",
            "shuffle_chunk_seed", "seed_aug", "mean_a", "std_a", "aug_seq",
            "num_decode_threads", "fill_value_a")
_OUT_DTYPES = ("float32", "uint8", "int8")


def _check_options(kwargs: dict) -> None:
    for name, value in kwargs.items():
        if name in _IGNORED:
            continue
        if name in _UNSUPPORTED:
            if value != _UNSUPPORTED[name]:
                raise MXNetError(f"ImageRecordIter: option {name}={value!r} of MXNet's C++ "
                                 "iterator is not supported by gluonlite; use "
                                 "mx.image.ImageIter with augmenters instead")
            continue
        raise MXNetError(f"ImageRecordIter: unknown argument {name!r}")


def _resize(img: np.ndarray, w: int, h: int, interp: int) -> np.ndarray:
    """``(H, W, C)`` uint8 image resized to ``(h, w)`` (OpenCV codes, 9 and 10 too)."""
    if img.shape[0] == h and img.shape[1] == w:
        return img
    code = _get_interp_method(interp, (img.shape[0], img.shape[1], h, w))
    return resize_numpy(img, w, h, code)


class _Augment:
    """MXNet's default per-image augmentation, with one ``random.Random`` per image."""

    def __init__(self, data_shape, resize: int, rand_crop: bool, random_resized_crop: bool,
                 max_random_scale: float, min_random_scale: float, max_aspect_ratio: float,
                 min_aspect_ratio, max_random_area: float, min_random_area: float,
                 max_crop_size: int, min_crop_size: int, pad: int, fill_value: int,
                 inter_method: int, rand_mirror: bool, mirror: bool):
        self.channels, self.height, self.width = data_shape
        self.resize = resize
        self.rand_crop = rand_crop
        self.random_resized_crop = random_resized_crop
        self.scale_range = (min_random_scale, max_random_scale)
        if min_aspect_ratio is None:
            self.ratio_range = (1 - max_aspect_ratio, 1 + max_aspect_ratio)
        else:
            self.ratio_range = (min_aspect_ratio, max_aspect_ratio)
        self.area_range = (min_random_area, max_random_area)
        self.crop_range = (min_crop_size, max_crop_size)
        self.pad, self.fill_value = pad, fill_value
        self.interp = inter_method
        self.rand_mirror, self.mirror = rand_mirror, mirror

    def _crop(self, img: np.ndarray, rng: random.Random) -> np.ndarray:
        rows, cols = img.shape[:2]
        if self.random_resized_crop and (self.area_range != (1.0, 1.0)
                                         or self.ratio_range != (1.0, 1.0)):
            for _ in range(10):
                target = rows * cols * rng.uniform(*self.area_range)
                ratio = rng.uniform(*self.ratio_range)
                h, w = round(np.sqrt(target / ratio)), round(np.sqrt(target * ratio))
                if rng.random() > 0.5:
                    h, w = w, h
                if h <= rows and w <= cols:
                    y, x = rng.randint(0, rows - h), rng.randint(0, cols - w)
                    return _resize(img[y:y + h, x:x + w], self.width, self.height, self.interp)
        elif not self.random_resized_crop and self.crop_range != (-1, -1):
            low, high = self.crop_range
            if min(rows, cols) < high or high < low:
                raise MXNetError(f"ImageRecordIter: image of {rows}x{cols} is smaller than "
                                 f"max_crop_size={high} (or max_crop_size < min_crop_size)")
            size = rng.randint(low, high)
            y, x = rows - size, cols - size
            y, x = (rng.randint(0, y), rng.randint(0, x)) if self.rand_crop else (y // 2, x // 2)
            return _resize(img[y:y + size, x:x + size], self.width, self.height, self.interp)
        return self._centre(img, rng)

    def _centre(self, img: np.ndarray, rng: random.Random) -> np.ndarray:
        rows, cols = img.shape[:2]
        if rows < self.height:
            img = _resize(img, int(np.float32(self.height) / np.float32(rows)
                                   * np.float32(cols)), self.height, self.interp)
            rows, cols = img.shape[:2]
        if cols < self.width:
            img = _resize(img, self.width, int(np.float32(self.width) / np.float32(cols)
                                               * np.float32(rows)), self.interp)
            rows, cols = img.shape[:2]
        y, x = rows - self.height, cols - self.width
        y, x = (rng.randint(0, y), rng.randint(0, x)) if self.rand_crop else (y // 2, x // 2)
        return img[y:y + self.height, x:x + self.width]

    def __call__(self, img: np.ndarray, rng: random.Random):
        """``(cropped (H, W, C) uint8 image, mirrored?)``."""
        if self.resize > 0:
            rows, cols = img.shape[:2]
            if rows > cols:
                size = (self.resize, self.resize * rows // cols)
            else:
                size = (self.resize * cols // rows, self.resize)
            img = _resize(img, *size, self.interp)
        if self.scale_range != (1.0, 1.0) and not self.random_resized_crop:
            scale = rng.uniform(*self.scale_range)
            rows, cols = img.shape[:2]
            img = _resize(img, max(int(scale * cols), 1), max(int(scale * rows), 1),
                          self.interp)
        if self.pad > 0:
            p = self.pad
            img = np.pad(img, ((p, p), (p, p), (0, 0)), constant_values=self.fill_value)
        img = self._crop(img, rng)
        mirrored = (self.rand_mirror and rng.random() < 0.5) or self.mirror
        return img, mirrored


class ImageRecordIter(MXDataIter):
    """Batches of decoded, cropped and normalised images from a ``.rec`` file.

    Parameters
    ----------
    path_imgrec : str
        The RecordIO file (``im2rec`` format: ``IRHeader`` + encoded image).
    data_shape : tuple of int
        ``(C, H, W)`` with ``C`` 3 (RGB) or 1 (grey).
    batch_size : int
    path_imgidx : str, optional
        Index of the file (random access for ``shuffle`` and ``num_parts``).
    path_imglist : str, optional
        ``index<TAB>label(s)<TAB>path`` list whose labels replace the records' labels.
    label_width : int, default 1
    shuffle : bool, default False
    seed : int, default 0
        Seed of the shuffles and random augmentations.
    rand_crop, rand_mirror, mirror : bool, default False
    resize : int, default -1
        Resize the shorter side to this first (when > 0).
    max_random_scale, min_random_scale : float, default 1
    random_resized_crop : bool, default False
    max_random_area, min_random_area, max_aspect_ratio : float
    min_aspect_ratio : float, optional
    max_crop_size, min_crop_size : int, default -1
    pad, fill_value : int, default 0, 255
    inter_method : int, default 1
    mean_r, mean_g, mean_b, std_r, std_g, std_b : float, default 0 and 1
    scale : float, default 1
    dtype : {'float32', 'uint8', 'int8'}, default 'float32'
        Type of the data batches (uint8 skips normalisation; int8 subtracts the rounded
        mean and saturates).
    round_batch : bool, default True
        Fill the last batch from the start of the data (reported in ``pad``); the next
        epoch then continues after those images, as in MXNet.
    preprocess_threads : int, default 4
        Threads decoding and augmenting.
    num_parts, part_index : int, default 1, 0
    data_name, label_name : str
    **kwargs
        Other MXNet options: accepted when they change nothing here (prefetching,
        devices), otherwise ``MXNetError``.
    """

    def __init__(self, path_imgrec: str, data_shape, batch_size: int,
                 path_imgidx: str = "", path_imglist: str = "", label_width: int = 1,
                 shuffle: bool = False, seed: int = 0, rand_crop: bool = False,
                 rand_mirror: bool = False, mirror: bool = False, resize: int = -1,
                 max_random_scale: float = 1.0, min_random_scale: float = 1.0,
                 random_resized_crop: bool = False, max_random_area: float = 1.0,
                 min_random_area: float = 1.0, max_aspect_ratio: float = 0.0,
                 min_aspect_ratio: float | None = None, max_crop_size: int = -1,
                 min_crop_size: int = -1, pad: int = 0, fill_value: int = 255,
                 inter_method: int = 1, mean_r: float = 0.0, mean_g: float = 0.0,
                 mean_b: float = 0.0, std_r: float = 1.0, std_g: float = 1.0,
                 std_b: float = 1.0, scale: float = 1.0, dtype: str = "float32",
                 round_batch: bool = True, preprocess_threads: int = 4, num_parts: int = 1,
                 part_index: int = 0, data_name: str = "data",
                 label_name: str = "softmax_label", **kwargs):
        super().__init__(batch_size)
        _check_options(kwargs)
        data_shape = tuple(int(d) for d in data_shape)
        if len(data_shape) != 3 or data_shape[0] not in (1, 3):
            raise MXNetError(f"ImageRecordIter: data_shape {data_shape} must be (3, H, W) "
                             "or (1, H, W) (4-channel images are not supported)")
        if dtype not in _OUT_DTYPES:
            raise MXNetError(f"ImageRecordIter: dtype {dtype!r} must be one of {_OUT_DTYPES}")
        if random_resized_crop and (rand_crop or max_crop_size != -1 or min_crop_size != -1
                                    or (min_random_scale, max_random_scale) != (1.0, 1.0)):
            raise MXNetError("ImageRecordIter: random_resized_crop conflicts with "
                             "min_random_scale, max_random_scale, min_crop_size, "
                             "max_crop_size and rand_crop")
        if not 0 <= part_index < num_parts:
            raise MXNetError(f"ImageRecordIter: part_index {part_index} must be in "
                             f"[0, num_parts={num_parts})")
        self.data_shape = data_shape
        self.label_width = label_width
        self.dtype = dtype
        self.round_batch = round_batch
        self.shuffle = shuffle
        self.path_imgrec = path_imgrec
        self._augment = _Augment(data_shape, resize, rand_crop, random_resized_crop,
                                 max_random_scale, min_random_scale, max_aspect_ratio,
                                 min_aspect_ratio, max_random_area, min_random_area,
                                 max_crop_size, min_crop_size, pad, fill_value, inter_method,
                                 rand_mirror, mirror)
        channels = data_shape[0]
        self._mean = np.array([mean_r, mean_g, mean_b][:channels], np.float32)
        self._mult = (np.float32(scale) / np.array([std_r, std_g, std_b][:channels],
                                                   np.float32)).astype(np.float32)
        self._labels = _read_labels(path_imglist) if path_imglist else None
        self._rng = random.Random(seed)
        self._record, self._keys = _open_records(path_imgrec, path_imgidx, shuffle,
                                                 num_parts, part_index)
        self._pool = ThreadPoolExecutor(preprocess_threads) if preprocess_threads > 1 else None
        self.provide_data = [DataDesc(data_name, (batch_size,) + data_shape, np.dtype(dtype).type)]
        label_shape = (batch_size, label_width) if label_width > 1 else (batch_size,)
        self.provide_label = [DataDesc(label_name, label_shape)]
        self._cursor = 0
        self._overflow = False
        self._done = False
        self._start_epoch()

    # -- record order ----------------------------------------------------------------
    def _start_epoch(self) -> None:
        self._cursor = 0
        if self._keys is None:
            self._record.reset()
        elif self.shuffle:
            self._rng.shuffle(self._keys)

    def reset(self) -> None:
        """Start the next epoch (after a wrapped-around batch it continues from there)."""
        self._done = False
        if self.round_batch and self._overflow:
            self._overflow = False
            return
        self._start_epoch()

    def _read(self) -> bytes | None:
        if self._keys is None:
            return self._record.read()
        if self._cursor >= len(self._keys):
            return None
        key = self._keys[self._cursor]
        self._cursor += 1
        return self._record.read_idx(key) if isinstance(self._record, recordio.MXIndexedRecordIO) \
            else self._record.read_at(key)

    # -- one image ----------------------------------------------------------------------
    def _label(self, header) -> np.ndarray:
        if self._labels is not None:
            if header.id not in self._labels:
                raise MXNetError(f"ImageRecordIter: image index {header.id} of "
                                 f"{self.path_imgrec} is not in path_imglist")
            label = self._labels[header.id]
        else:
            label = np.atleast_1d(np.asarray(header.label, np.float32))
        if label.size != self.label_width:
            raise MXNetError(f"ImageRecordIter: record {header.id} of {self.path_imgrec} has "
                             f"{label.size} labels but label_width is {self.label_width}")
        return label

    def _process(self, payload: bytes, seed: int) -> np.ndarray:
        """``(C, H, W)`` output image of one encoded image."""
        flag = 1 if self.data_shape[0] == 3 else 0
        try:
            img = _decode_array(payload, flag)
        except MXNetError as err:
            raise MXNetError(f"ImageRecordIter: {self.path_imgrec}: {err}") from err
        img, mirrored = self._augment(img, random.Random(seed))
        if mirrored:
            img = img[:, ::-1]
        chw = img.transpose(2, 0, 1)
        if self.dtype == "uint8":
            return chw
        if self.dtype == "int8":
            mean = np.round(self._mean).astype(np.int16)[:, None, None]
            return np.clip(chw.astype(np.int16) - mean, -128, 127).astype(np.int8)
        return (chw.astype(np.float32) - self._mean[:, None, None]) * self._mult[:, None, None]

    # -- batches ---------------------------------------------------------------------
    def next(self) -> DataBatch:
        """The next batch; ``StopIteration`` at the end of the epoch."""
        if self._done:
            raise StopIteration
        payloads, pad, wrapped = [], 0, False
        while len(payloads) < self.batch_size:
            record = self._read()
            if record is not None:
                payloads.append(record)
                continue
            if not payloads:
                raise StopIteration
            if not self.round_batch:
                break
            if wrapped:
                raise MXNetError("ImageRecordIter: number of input images must be bigger "
                                 "than the batch size")
            wrapped, pad = True, self.batch_size - len(payloads)
            self._start_epoch()
        if wrapped:
            self._overflow = self._done = True
        elif len(payloads) < self.batch_size:
            self._done = True
        headers, images = zip(*(recordio.unpack(p) for p in payloads))
        seeds = [self._rng.getrandbits(64) for _ in images]
        data = np.zeros((self.batch_size,) + self.data_shape, np.dtype(self.dtype))
        mapper = self._pool.map if self._pool is not None else map
        for i, img in enumerate(mapper(self._process, images, seeds)):
            data[i] = img
        labels = np.zeros((self.batch_size, self.label_width), np.float32)
        for i, header in enumerate(headers):
            labels[i] = self._label(header)
        if self.label_width == 1:
            labels = labels.reshape(self.batch_size)
        return DataBatch([nd.from_numpy(data)], [nd.from_numpy(labels)], pad=pad,
                         index=np.zeros(self.batch_size, np.uint64))

    def __del__(self):
        pool = getattr(self, "_pool", None)
        if pool is not None:
            pool.shutdown(wait=False)


class _ScannedRecordIO(recordio.MXRecordIO):
    """A ``.rec`` file without an index: record positions found by one scan."""

    def positions(self) -> list:
        self.reset()
        found = []
        while True:
            pos = self.tell()
            if self.read() is None:
                return found
            found.append(pos)

    def read_at(self, pos: int) -> bytes:
        self._file.seek(pos)
        return self.read()


def _open_records(path_imgrec: str, path_imgidx: str, shuffle: bool, num_parts: int,
                  part_index: int):
    """``(reader, keys)``: keys to read in order, or None to read sequentially."""
    if path_imgidx:
        record = recordio.MXIndexedRecordIO(path_imgidx, path_imgrec, "r")
        keys = list(record.keys)
    elif shuffle or num_parts > 1:
        record = _ScannedRecordIO(path_imgrec, "r")
        keys = record.positions()
    else:
        return recordio.MXRecordIO(path_imgrec, "r"), None
    if num_parts > 1:
        n = len(keys)
        keys = keys[part_index * n // num_parts:(part_index + 1) * n // num_parts]
    return record, keys


def _read_labels(path: str) -> dict:
    """``{image index: float32 labels}`` of a ``.lst`` file."""
    return {key: np.array(labels, np.float32)
            for key, labels, _ in read_lst(path, "ImageRecordIter")}


def ImageRecordUInt8Iter(*args, **kwargs) -> ImageRecordIter:  # noqa: N802 - MXNet's name
    """``ImageRecordIter(dtype='uint8')`` (MXNet's deprecated spelling of it)."""
    return ImageRecordIter(*args, dtype="uint8", **kwargs)


def ImageRecordInt8Iter(*args, **kwargs) -> ImageRecordIter:  # noqa: N802 - MXNet's name
    """``ImageRecordIter(dtype='int8')`` (MXNet's deprecated spelling of it)."""
    return ImageRecordIter(*args, dtype="int8", **kwargs)
