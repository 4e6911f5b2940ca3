"""``mx.io.CSVIter`` and ``mx.io.MNISTIter``: MXNet's C++ file iterators, reading the
whole file with NumPy and batching with :class:`~.batch_loader.BatchLoader`."""
from __future__ import annotations

import gzip
import os
import struct

import numpy as np

from ..base import MXNetError
from .batch_loader import BatchLoader

__all__ = ["CSVIter", "MNISTIter"]


def _read_csv(path: str, shape: tuple, dtype, what: str) -> np.ndarray:
    if not os.path.exists(path):
        raise MXNetError(f"CSVIter: {what} file {path} not found")
    try:
        rows = np.loadtxt(path, delimiter=",", dtype=np.float64, ndmin=2)
    except ValueError as err:
        raise MXNetError(f"CSVIter: cannot parse {what} file {path}: {err}") from err
    size = int(np.prod(shape))
    if rows.shape[1] != size:
        raise MXNetError(f"CSVIter: rows of {path} have {rows.shape[1]} values but "
                         f"{what}_shape {tuple(shape)} needs {size}")
    return rows.astype(dtype).reshape((len(rows),) + tuple(shape))


class CSVIter(BatchLoader):
    """Batches from CSV files: one sample per row.

    Parameters
    ----------
    data_csv : str
    data_shape : tuple
        Shape of one sample (a row has ``prod(data_shape)`` values).
    label_csv : str, optional
        Labels, one row per sample (zeros when absent).
    label_shape : tuple, default (1,)
        A ``(1,)`` label gives label batches of shape ``(batch_size,)``.
    batch_size : int
    round_batch : bool, default True
        Fill the last batch from the start (see :class:`BatchLoader`).
    dtype : {'float32', 'int32', 'int64'}, default 'float32'
    data_name, label_name : str
    """

    def __init__(self, data_csv: str, data_shape, batch_size: int, label_csv: str | None = None,
                 label_shape=(1,), round_batch: bool = True, dtype="float32",
                 data_name: str = "data", label_name: str = "softmax_label",
                 prefetch_buffer: int = 4, ctx=None, **kwargs):
        if kwargs:
            raise MXNetError(f"CSVIter: unknown arguments {sorted(kwargs)}")
        dtype = np.dtype(dtype)
        data = _read_csv(data_csv, tuple(data_shape), dtype, "data")
        label_shape = tuple(label_shape)
        if label_csv is not None:
            label = _read_csv(label_csv, label_shape, dtype, "label")
            if len(label) != len(data):
                raise MXNetError(f"CSVIter: {label_csv} has {len(label)} rows but "
                                 f"{data_csv} has {len(data)}")
        else:
            label = np.zeros((len(data),) + label_shape, dtype)
        if label_shape == (1,):
            label = label.reshape(len(label))
        super().__init__(data, label, batch_size, round_batch=round_batch,
                         data_name=data_name, label_name=label_name)


def _read_idx(path: str, magic: int) -> np.ndarray:
    if not os.path.exists(path):
        raise MXNetError(f"MNISTIter: file {path} not found")
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        buf = f.read()
    ndim = magic - 2048
    if len(buf) < 4 + 4 * ndim or struct.unpack(">I", buf[:4])[0] != magic:
        raise MXNetError(f"MNISTIter: {path} is not an idx file with magic number {magic}")
    dims = struct.unpack(">" + "I" * ndim, buf[4:4 + 4 * ndim])
    count = int(np.prod(dims))
    body = np.frombuffer(buf, dtype=np.uint8, offset=4 + 4 * ndim)
    if body.size < count:
        raise MXNetError(f"MNISTIter: {path} is truncated ({body.size} of {count} bytes)")
    return body[:count].reshape(dims)


class MNISTIter(BatchLoader):
    """Batches of MNIST idx files: images scaled to ``[0, 1)`` (pixel / 256, as MXNet),
    shape ``(batch, 1, 28, 28)`` or ``(batch, 784)`` with ``flat``; an incomplete last
    batch is dropped.

    Parameters
    ----------
    image, label : str
        The idx files (``train-images-idx3-ubyte`` ...; ``.gz`` also read).
    batch_size : int, default 128
    shuffle : bool, default True
        Reorder once with ``seed`` (NumPy's generator: the order differs from MXNet's).
    flat : bool, default False
    seed : int, default 0
    num_parts, part_index : int
        Read only part ``part_index`` of ``num_parts``.
    """

    def __init__(self, image: str = "./train-images-idx3-ubyte",
                 label: str = "./train-labels-idx1-ubyte", batch_size: int = 128,
                 shuffle: bool = True, flat: bool = False, seed: int = 0, silent: bool = False,
                 num_parts: int = 1, part_index: int = 0, prefetch_buffer: int = 4, ctx=None,
                 dtype=None, data_name: str = "data", label_name: str = "softmax_label",
                 **kwargs):
        # MXNet's MNISTIter ignores arguments it does not know (its parameters are
        # parsed with InitAllowUnknown): MXNet's train/test_mlp.py passes data_shape
        del kwargs
        images = _read_idx(image, 2051).astype(np.float32) / 256
        labels = _read_idx(label, 2049).astype(np.float32)
        if len(images) != len(labels):
            raise MXNetError(f"MNISTIter: {image} has {len(images)} images but {label} has "
                             f"{len(labels)} labels")
        per_part = len(images) // num_parts
        part = slice(part_index * per_part, (part_index + 1) * per_part)
        images, labels = images[part], labels[part]
        if shuffle:
            order = np.random.RandomState(seed).permutation(len(images))
            images, labels = images[order], labels[order]
        images = images.reshape(len(images), -1) if flat else images[:, None]
        super().__init__(images, labels, batch_size, round_batch=False, drop_last=True,
                         data_name=data_name, label_name=label_name)
