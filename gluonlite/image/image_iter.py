"""``mx.image.ImageIter``: batches of augmented images from a RecordIO file, an image
list file (``.lst``) or a Python list, as MXNet 1.9's.

Each image is decoded (RGB, :func:`imdecode`), run through the augmenter list
(``CreateAugmenter(data_shape, **kwargs)`` unless ``aug_list`` is given), transposed to
``(C, H, W)`` and written into a float32 ``(N, C, H, W)`` batch; labels go into a
float32 ``(N,)`` or ``(N, label_width)`` batch.  Shuffling uses ``random.shuffle``.
"""
from __future__ import annotations

import logging
import numbers
import os
import random

from .. import ndarray as nd
from .. import recordio
from ..io.io import DataBatch, DataIter
from .augmenters import CreateAugmenter
from .image import imdecode
from .lst import read_lst

__all__ = ["ImageIter"]

_LAST_BATCH = ("pad", "discard", "roll_over")
_LABEL_DTYPES = ("int32", "float32", "int64", "float64")


def _read_list_file(path: str, dtype: str):
    """``({key: (label NDArray, relative path)}, [keys])`` of a ``.lst`` file."""
    rows = read_lst(path, "ImageIter")
    entries = {key: (nd.array(labels, dtype=dtype), rel) for key, labels, rel in rows}
    return entries, [key for key, _, _ in rows]


def _read_list(imglist: list, dtype: str):
    """``({key: (label NDArray, path)}, [keys])`` of ``[label(s)..., path]`` items; the
    keys are ``'1'``, ``'2'``, ... as MXNet's."""
    entries, keys = {}, []
    for index, item in enumerate(imglist, 1):
        if len(item) > 2:
            label = nd.array(item[:-1], dtype=dtype)
        elif isinstance(item[0], numbers.Number):
            label = nd.array([item[0]], dtype=dtype)
        else:
            label = nd.array(item[0], dtype=dtype)
        entries[str(index)] = (label, item[-1])
        keys.append(str(index))
    return entries, keys


class ImageIter(DataIter):
    """Image data iterator with MXNet's augmentations.

    Parameters
    ----------
    batch_size : int
        Images per batch.
    data_shape : tuple of int
        ``(3, H, W)`` of each output image.
    label_width : int, default 1
        Labels per image.
    path_imgrec : str, optional
        RecordIO file (``.rec``) of packed images.
    path_imglist : str, optional
        Image list (``.lst``): ``index<TAB>label(s)<TAB>path`` per line.
    path_root : str, optional
        Folder the list's paths are relative to.
    path_imgidx : str, optional
        Index of ``path_imgrec``; needed for shuffling and partitions of a ``.rec``.
    shuffle : bool, default False
        Shuffle the images at every reset (``random.shuffle``).
    part_index, num_parts : int, default 0, 1
        Read only part ``part_index`` of ``num_parts`` equal parts.
    aug_list : list of Augmenter, optional
        Augmenters; by default ``CreateAugmenter(data_shape, **kwargs)``.
    imglist : list, optional
        ``[label(s)..., path]`` items instead of a list file.
    data_name, label_name : str
        Names in ``provide_data`` and ``provide_label``.
    dtype : str, default 'float32'
        Type of the labels read from a list ('int32', 'float32', 'int64', 'float64').
    last_batch_handle : {'pad', 'discard', 'roll_over'}, default 'pad'
        The last incomplete batch: filled from the start, dropped, or completed from
        the next epoch.
    **kwargs
        Arguments of :func:`CreateAugmenter`.
    """

    def __init__(self, batch_size: int, data_shape, label_width: int = 1,
                 path_imgrec: str | None = None, path_imglist: str | None = None,
                 path_root: str | None = None, path_imgidx: str | None = None,
                 shuffle: bool = False, part_index: int = 0, num_parts: int = 1,
                 aug_list: list | None = None, imglist: list | None = None,
                 data_name: str = "data", label_name: str = "softmax_label",
                 dtype: str = "float32", last_batch_handle: str = "pad", **kwargs):
        super().__init__(batch_size)
        assert path_imgrec or path_imglist or isinstance(imglist, list), \
            "ImageIter needs path_imgrec, path_imglist or imglist"
        assert dtype in _LABEL_DTYPES, dtype + " label not supported"
        if last_batch_handle not in _LAST_BATCH:
            raise ValueError(f"ImageIter: last_batch_handle must be one of {_LAST_BATCH}, "
                             f"not {last_batch_handle!r}")
        name = type(self).__name__
        self.imgidx = None
        self.imgrec = None
        if path_imgrec:
            logging.info("%s: loading recordio %s...", name, path_imgrec)
            if path_imgidx:
                self.imgrec = recordio.MXIndexedRecordIO(path_imgidx, path_imgrec, "r")
                self.imgidx = list(self.imgrec.keys)
            else:
                self.imgrec = recordio.MXRecordIO(path_imgrec, "r")
        keys = None
        if path_imglist:
            logging.info("%s: loading image list %s...", name, path_imglist)
            self.imglist, keys = _read_list_file(path_imglist, dtype)
        elif isinstance(imglist, list):
            self.imglist, keys = _read_list(imglist, dtype)
        else:
            self.imglist = None
        self.path_root = path_root
        data_shape = tuple(data_shape)
        self.check_data_shape(data_shape)
        self.provide_data = [(data_name, (batch_size,) + data_shape)]
        self.provide_label = [(label_name, (batch_size, label_width) if label_width > 1
                               else (batch_size,))]
        self.data_shape = data_shape
        self.label_width = label_width
        self.shuffle = shuffle
        if self.imgrec is None:
            self.seq = keys
        elif shuffle or num_parts > 1 or path_imgidx:
            assert self.imgidx is not None, \
                "ImageIter: shuffle and num_parts > 1 need path_imgidx for a .rec file"
            self.seq = self.imgidx
        else:
            self.seq = None
        if num_parts > 1:
            assert part_index < num_parts, \
                f"ImageIter: part_index {part_index} must be < num_parts {num_parts}"
            per_part = len(self.seq) // num_parts
            self.seq = self.seq[part_index * per_part:(part_index + 1) * per_part]
        self.auglist = CreateAugmenter(data_shape, **kwargs) if aug_list is None else aug_list
        self.cur = 0
        self._allow_read = True
        self.last_batch_handle = last_batch_handle
        self.num_image = len(self.seq) if self.seq is not None else None
        self._cache_data = None
        self._cache_label = None
        self._cache_idx = None
        self.reset()

    # -- epoch control ------------------------------------------------------------
    def reset(self) -> None:
        """Back to the first image (reshuffled); rolled-over images stay pending."""
        if self.seq is not None and self.shuffle:
            random.shuffle(self.seq)
        if self.last_batch_handle != "roll_over" or self._cache_data is None:
            if self.imgrec is not None:
                self.imgrec.reset()
            self.cur = 0
            self._allow_read = True

    def hard_reset(self) -> None:
        """Back to the first image, dropping rolled-over images."""
        if self.seq is not None and self.shuffle:
            random.shuffle(self.seq)
        if self.imgrec is not None:
            self.imgrec.reset()
        self.cur = 0
        self._allow_read = True
        self._cache_data = None
        self._cache_label = None
        self._cache_idx = None

    # -- reading ------------------------------------------------------------------
    def next_sample(self):
        """``(label, encoded image bytes)`` of the next image; ``StopIteration`` at the
        end of the epoch."""
        if not self._allow_read:
            raise StopIteration
        if self.seq is None:
            record = self.imgrec.read()
            if record is None:
                if self.last_batch_handle != "discard":
                    self.imgrec.reset()
                raise StopIteration
            header, img = recordio.unpack(record)
            return header.label, img
        if self.cur >= self.num_image:
            if self.last_batch_handle != "discard":
                self.cur = 0
            raise StopIteration
        idx = self.seq[self.cur]
        self.cur += 1
        if self.imgrec is not None:
            header, img = recordio.unpack(self.imgrec.read_idx(idx))
            if self.imglist is None:
                return header.label, img
            return self.imglist[idx][0], img
        label, fname = self.imglist[idx]
        return label, self.read_image(fname)

    def _batchify(self, batch_data, batch_label, start: int = 0) -> int:
        """Fill ``batch_data``/``batch_label`` from position ``start``; returns the
        number of filled positions (``StopIteration`` when there was nothing to read)."""
        i = start
        try:
            while i < self.batch_size:
                label, encoded = self.next_sample()
                data = self.imdecode(encoded)
                try:
                    self.check_valid_image(data)
                except RuntimeError as err:
                    logging.debug("Invalid image, skipping:  %s", err)
                    continue
                data = self.augmentation_transform(data)
                batch_data[i] = self.postprocess_data(data)
                if self.label_width == 1:
                    # a (1,) label array fills the scalar slot, as in MXNet
                    batch_label[i:i + 1] = label
                else:
                    batch_label[i] = label
                i += 1
        except StopIteration:
            if not i:
                raise
        return i

    def next(self) -> DataBatch:
        """The next batch (``pad`` = number of filler images at its end)."""
        if self._cache_data is not None:
            batch_data, batch_label = self._cache_data, self._cache_label
            i = self._cache_idx
        else:
            batch_data, batch_label = self._new_batch()
            i = self._batchify(batch_data, batch_label)
        pad = self.batch_size - i
        if pad:
            if self.last_batch_handle == "discard":
                raise StopIteration
            if self.last_batch_handle == "roll_over" and self._cache_data is None:
                self._cache_data, self._cache_label, self._cache_idx = \
                    batch_data, batch_label, i
                raise StopIteration
            self._batchify(batch_data, batch_label, i)
            if self.last_batch_handle == "pad":
                self._allow_read = False
            else:
                self._cache_data = self._cache_label = self._cache_idx = None
        return DataBatch([batch_data], [batch_label], pad=pad)

    # -- hooks subclasses override ---------------------------------------------------
    def _new_batch(self):
        """Fresh ``(data, label)`` arrays of one batch."""
        return nd.zeros((self.batch_size,) + self.data_shape), \
            nd.empty(self.provide_label[0][1])

    def check_data_shape(self, data_shape) -> None:
        """``data_shape`` must be ``(3, H, W)``."""
        if len(data_shape) != 3:
            raise ValueError("data_shape should have length 3, with dimensions CxHxW")
        if data_shape[0] != 3:
            raise ValueError("This iterator expects inputs to have 3 channels.")

    def check_valid_image(self, data) -> None:
        """Raise ``RuntimeError`` for an image to skip."""
        if len(data[0].shape) == 0:
            raise RuntimeError("Data shape is wrong")

    def _locate(self) -> str:
        if self.seq is None:
            return "record before byte offset {}".format(self.imgrec.tell())
        idx = self.seq[(self.cur % self.num_image) - 1]
        if self.imglist is not None and idx in self.imglist:
            return f"filename: {self.imglist[idx][1]}"
        return f"index: {idx}"

    def imdecode(self, s: bytes):
        """Decode one image (RGB); ``RuntimeError`` naming the image when it fails."""
        try:
            return imdecode(s)
        except Exception as err:
            raise RuntimeError(f"Broken image {self._locate()}, {err}") from err

    def read_image(self, fname: str) -> bytes:
        """The bytes of image file ``fname`` (relative to ``path_root``)."""
        path = os.path.join(self.path_root, fname) if self.path_root else fname
        with open(path, "rb") as f:
            return f.read()

    def augmentation_transform(self, data):
        """Run ``data`` through the augmenter list."""
        for aug in self.auglist:
            data = aug(data)
        return data

    def postprocess_data(self, datum):
        """``(H, W, C)`` to ``(C, H, W)``."""
        return nd.transpose(datum, axes=(2, 0, 1))
