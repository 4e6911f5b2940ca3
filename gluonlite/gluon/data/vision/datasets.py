"""Vision datasets of ``gluon.data.vision`` (MXNet 1.9): MNIST, Fashion-MNIST, CIFAR-10/100
read from local files, and datasets over image folders, image lists and RecordIO files.

gluonlite never downloads anything.  MNIST-style and CIFAR datasets read the files MXNet
would have downloaded from ``root``; when one is missing they raise an error (an
:class:`~gluonlite.base.MXNetError` that is also a :class:`FileNotFoundError`) naming the
files, the directory and where to get them.  SHA-1 sums are not checked, so locally built
files in the standard formats are accepted.

Samples are ``(image, label)``: the image is an ``(H, W, C)`` uint8 NDArray, the label
a NumPy ``int32`` scalar (MNIST, CIFAR), a Python ``int`` (``ImageFolderDataset``), the
record's label (``ImageRecordDataset``: a float, or a float32 array for vector labels)
or a float32 NDArray (``ImageListDataset``).
"""
from __future__ import annotations

import gzip
import os
import struct
import tarfile
import warnings
from typing import Callable, Optional, Sequence, Union

import numpy as np

from ....base import MXNetError, data_dir, numeric_types
from .... import ndarray as nd
from .... import image, recordio
from ....image.lst import read_lst
from ...utils import _get_repo_file_url
from ..dataset import Dataset, RecordFileDataset

__all__ = ["MNIST", "FashionMNIST", "CIFAR10", "CIFAR100", "ImageRecordDataset",
           "ImageFolderDataset", "ImageListDataset"]


class _DatasetFileMissing(MXNetError, FileNotFoundError):
    """A dataset file is not on disk (gluonlite does not download); catch it as
    ``MXNetError`` or as ``FileNotFoundError``."""


def _missing_error(dataset: str, root: str, names: Sequence[str],
                   how: str) -> _DatasetFileMissing:
    root = os.path.abspath(root)
    return _DatasetFileMissing(
        f"{dataset}: missing file(s) {', '.join(names)} in {root}. gluonlite does not "
        f"download datasets: {how} (or pass root= naming the folder that holds the "
        "files).")


class _DownloadedDataset(Dataset):
    """Base of the datasets MXNet downloads: ``_data[idx]`` and ``_label[idx]`` from
    arrays that ``_get_data`` loads at construction."""

    def __init__(self, root: str, transform: Optional[Callable]) -> None:
        super().__init__()
        self._transform = transform
        self._data = None
        self._label = None
        root = os.path.expanduser(root)
        self._root = root
        # MXNet creates the folder the files are expected in before looking at it
        os.makedirs(root, exist_ok=True)
        self._get_data()

    def __getitem__(self, idx):
        if self._transform is not None:
            return self._transform(self._data[idx], self._label[idx])
        return self._data[idx], self._label[idx]

    def __len__(self) -> int:
        return len(self._label)

    def _get_data(self) -> None:
        raise NotImplementedError


# IDX type codes (third byte of the magic number) and their big-endian NumPy dtypes
_IDX_DTYPES = {0x08: np.dtype(np.uint8), 0x09: np.dtype(np.int8), 0x0B: np.dtype(">i2"),
               0x0C: np.dtype(">i4"), 0x0D: np.dtype(">f4"), 0x0E: np.dtype(">f8")}


def _read_idx(path: str) -> np.ndarray:
    """Read an IDX file (gzipped when its name ends in ``.gz``) into an array of the
    shape its header gives.

    Parameters
    ----------
    path : str
        The ``*-idx?-ubyte[.gz]`` file.

    Returns
    -------
    numpy.ndarray
        The file's content (a read-only view of the bytes read).
    """
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rb") as fin:
            buf = fin.read()
    except (OSError, EOFError) as err:
        raise MXNetError(f"cannot read IDX file {path}: {err}") from err
    if len(buf) < 4 or buf[0] != 0 or buf[1] != 0 or buf[2] not in _IDX_DTYPES:
        raise MXNetError(f"{path} is not an IDX file (bad magic number {buf[:4]!r})")
    dtype, ndim = _IDX_DTYPES[buf[2]], buf[3]
    offset = 4 + 4 * ndim
    if len(buf) < offset:
        raise MXNetError(f"{path}: truncated IDX header")
    shape = struct.unpack(f">{ndim}I", buf[4:offset])
    count = int(np.prod(shape, dtype=np.int64))
    if len(buf) - offset < count * dtype.itemsize:
        raise MXNetError(f"{path}: the header announces shape {shape} but only "
                         f"{len(buf) - offset} data bytes follow")
    return np.frombuffer(buf, dtype=dtype, count=count, offset=offset).reshape(shape)


class MNIST(_DownloadedDataset):
    """The MNIST handwritten digits (http://yann.lecun.com/exdb/mnist), read from the
    gzipped IDX files in ``root``.

    Each sample is ``(image, label)``: a ``(28, 28, 1)`` uint8 NDArray and a NumPy
    ``int32`` scalar.  ``root`` must hold ``train-images-idx3-ubyte.gz`` and
    ``train-labels-idx1-ubyte.gz`` (``train=True``) or ``t10k-images-idx3-ubyte.gz`` and
    ``t10k-labels-idx1-ubyte.gz``; uncompressed files of those names without ``.gz``
    are accepted too.  Nothing is downloaded: a missing file raises an error (an
    ``MXNetError`` that is also a ``FileNotFoundError``).

    Parameters
    ----------
    root : str, default $MXNET_HOME/datasets/mnist
        Folder holding the files (``~`` is expanded; it is created when missing).
    train : bool, default True
        Whether to load the training or the test set.
    transform : callable, default None
        Called as ``transform(data, label)`` on each sample, e.g.
        ``lambda data, label: (data.astype(np.float32) / 255, label)``.
    """

    def __init__(self, root: str = os.path.join(data_dir(), "datasets", "mnist"),
                 train: bool = True, transform: Optional[Callable] = None) -> None:
        self._train = train
        self._train_data = ("train-images-idx3-ubyte.gz", None)
        self._train_label = ("train-labels-idx1-ubyte.gz", None)
        self._test_data = ("t10k-images-idx3-ubyte.gz", None)
        self._test_label = ("t10k-labels-idx1-ubyte.gz", None)
        self._namespace = "mnist"
        super().__init__(root, transform)

    def _locate(self, names: Sequence[str]) -> list:
        found, missing = [], []
        for name in names:
            path = os.path.join(self._root, name)
            raw = path[:-3] if path.endswith(".gz") else None
            if os.path.isfile(path):
                found.append(path)
            elif raw is not None and os.path.isfile(raw):
                found.append(raw)
            else:
                missing.append(name)
        if missing:
            urls = [_get_repo_file_url("gluon/dataset/" + self._namespace, name)
                    for name in missing]
            how = (f"download {' and '.join(urls)} on a machine with network access and "
                   f"put them in {os.path.abspath(self._root)}")
            raise _missing_error(type(self).__name__, self._root, missing, how)
        return found

    def _get_data(self) -> None:
        if self._train:
            data, label = self._train_data, self._train_label
        else:
            data, label = self._test_data, self._test_label
        data_file, label_file = self._locate([data[0], label[0]])
        labels = _read_idx(label_file)
        images = _read_idx(data_file)
        if labels.ndim != 1 or images.ndim != 3:
            raise MXNetError(f"{type(self).__name__}: expected a 3-d image file and a 1-d "
                             f"label file, got shapes {images.shape} ({data_file}) and "
                             f"{labels.shape} ({label_file})")
        if images.shape[0] != labels.shape[0]:
            raise MXNetError(f"{type(self).__name__}: {data_file} holds {images.shape[0]} "
                             f"images but {label_file} {labels.shape[0]} labels")
        images = images.astype(np.uint8, copy=False).reshape(images.shape + (1,))
        self._data = nd.array(images, dtype=images.dtype)
        self._label = labels.astype(np.int32)


class FashionMNIST(MNIST):
    """Zalando's Fashion-MNIST (https://github.com/zalandoresearch/fashion-mnist), a
    drop-in replacement of MNIST with the same file names and formats.

    Each sample is ``(image, label)``: a ``(28, 28, 1)`` uint8 NDArray and a NumPy
    ``int32`` scalar.

    Parameters
    ----------
    root : str, default $MXNET_HOME/datasets/fashion-mnist
        Folder holding the files (``~`` is expanded; it is created when missing).
    train : bool, default True
        Whether to load the training or the test set.
    transform : callable, default None
        Called as ``transform(data, label)`` on each sample.
    """

    def __init__(self, root: str = os.path.join(data_dir(), "datasets", "fashion-mnist"),
                 train: bool = True, transform: Optional[Callable] = None) -> None:
        self._train = train
        self._train_data = ("train-images-idx3-ubyte.gz", None)
        self._train_label = ("train-labels-idx1-ubyte.gz", None)
        self._test_data = ("t10k-images-idx3-ubyte.gz", None)
        self._test_label = ("t10k-labels-idx1-ubyte.gz", None)
        self._namespace = "fashion-mnist"
        _DownloadedDataset.__init__(self, root, transform)


def _safe_extract(archive: str, dest: str) -> None:
    """Extract a tar archive into ``dest``, refusing members that would land outside."""
    try:
        with tarfile.open(archive) as tar:
            if hasattr(tarfile, "data_filter"):
                tar.extractall(dest, filter="data")
                return
            base = os.path.realpath(dest)
            for member in tar.getmembers():
                target = os.path.realpath(os.path.join(dest, member.name))
                if os.path.commonpath([base, target]) != base or \
                        member.issym() or member.islnk():
                    raise MXNetError(f"{archive}: refusing to extract {member.name!r}")
            tar.extractall(dest)
    except (tarfile.TarError, OSError, EOFError) as err:
        raise MXNetError(f"cannot extract {archive}: {err}") from err


class CIFAR10(_DownloadedDataset):
    """CIFAR-10 (https://www.cs.toronto.edu/~kriz/cifar.html), read from the binary
    version of the dataset.

    Each sample is ``(image, label)``: a ``(32, 32, 3)`` uint8 NDArray and a NumPy
    ``int32`` scalar.  The files ``data_batch_1.bin`` ... ``data_batch_5.bin`` and
    ``test_batch.bin`` are looked for in ``root`` (MXNet's layout) and in
    ``root/cifar-10-batches-bin`` (the layout of the official archive); when neither has
    them, an archive ``root/cifar-10-binary.tar.gz`` is extracted into ``root``.
    Nothing is downloaded: missing files raise an error (an ``MXNetError`` that is also
    a ``FileNotFoundError``).

    Parameters
    ----------
    root : str, default $MXNET_HOME/datasets/cifar10
        Folder holding the files (``~`` is expanded; it is created when missing).
    train : bool, default True
        Whether to load the training or the test set.
    transform : callable, default None
        Called as ``transform(data, label)`` on each sample.
    """

    _record_header = 1
    _subdir = "cifar-10-batches-bin"
    _official_url = "https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz"

    def __init__(self, root: str = os.path.join(data_dir(), "datasets", "cifar10"),
                 train: bool = True, transform: Optional[Callable] = None) -> None:
        self._train = train
        self._archive_file = ("cifar-10-binary.tar.gz", None)
        self._train_data = [(f"data_batch_{i}.bin", None) for i in range(1, 6)]
        self._test_data = [("test_batch.bin", None)]
        self._namespace = "cifar10"
        super().__init__(root, transform)

    def _read_batch(self, filename: str):
        """``(images, labels)`` of one binary batch: ``(N, 32, 32, 3)`` uint8 and
        ``(N,)`` int32."""
        head = self._record_header
        with open(filename, "rb") as fin:
            buf = fin.read()
        if len(buf) % (3072 + head):
            raise MXNetError(f"{filename}: {len(buf)} bytes is not a whole number of "
                             f"{3072 + head}-byte CIFAR records")
        data = np.frombuffer(buf, dtype=np.uint8).reshape(-1, 3072 + head)
        return (data[:, head:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1),
                data[:, self._label_column()].astype(np.int32))

    def _label_column(self) -> int:
        return 0

    def _find(self, names: Sequence[str]) -> Optional[str]:
        for folder in (self._root, os.path.join(self._root, self._subdir)):
            if all(os.path.isfile(os.path.join(folder, name)) for name in names):
                return folder
        return None

    def _get_data(self) -> None:
        files = self._train_data if self._train else self._test_data
        names = [name for name, _ in files]
        folder = self._find(names)
        archive = os.path.join(self._root, self._archive_file[0])
        if folder is None and os.path.isfile(archive):
            _safe_extract(archive, self._root)
            folder = self._find(names)
        if folder is None:
            missing = [n for n in names if not os.path.isfile(os.path.join(self._root, n))]
            url = _get_repo_file_url("gluon/dataset/" + self._namespace,
                                     self._archive_file[0])
            if os.path.isfile(archive):
                how = (f"{archive} was extracted but does not hold them all; replace it with "
                       f"{url} or {self._official_url}")
            else:
                how = (f"download {url} or {self._official_url} on a machine with network "
                       f"access and put the archive (it is extracted on first use) or "
                       f"the extracted files in {os.path.abspath(self._root)}")
            raise _missing_error(type(self).__name__, self._root, missing, how)
        data, label = zip(*(self._read_batch(os.path.join(folder, name)) for name in names))
        data = np.concatenate(data)
        label = np.concatenate(label)
        self._data = nd.array(data, dtype=data.dtype)
        self._label = label


class CIFAR100(CIFAR10):
    """CIFAR-100 (https://www.cs.toronto.edu/~kriz/cifar.html), read from the binary
    version of the dataset.

    Each sample is ``(image, label)``: a ``(32, 32, 3)`` uint8 NDArray and a NumPy
    ``int32`` scalar (the coarse label, or the fine one with ``fine_label=True``).  The
    files ``train.bin`` and ``test.bin`` are looked for in ``root`` and in
    ``root/cifar-100-binary``; when neither has them, ``root/cifar-100-binary.tar.gz``
    is extracted into ``root``.  Nothing is downloaded.

    Parameters
    ----------
    root : str, default $MXNET_HOME/datasets/cifar100
        Folder holding the files (``~`` is expanded; it is created when missing).
    fine_label : bool, default False
        Whether to give the fine-grained (100 classes) or the coarse (20 super-classes)
        labels.
    train : bool, default True
        Whether to load the training or the test set.
    transform : callable, default None
        Called as ``transform(data, label)`` on each sample.
    """

    _record_header = 2
    _subdir = "cifar-100-binary"
    _official_url = "https://www.cs.toronto.edu/~kriz/cifar-100-binary.tar.gz"

    def __init__(self, root: str = os.path.join(data_dir(), "datasets", "cifar100"),
                 fine_label: bool = False, train: bool = True,
                 transform: Optional[Callable] = None) -> None:
        self._train = train
        self._archive_file = ("cifar-100-binary.tar.gz", None)
        self._train_data = [("train.bin", None)]
        self._test_data = [("test.bin", None)]
        self._fine_label = fine_label
        self._namespace = "cifar100"
        _DownloadedDataset.__init__(self, root, transform)

    def _label_column(self) -> int:
        return 1 if self._fine_label else 0


class ImageRecordDataset(RecordFileDataset):
    """Images and labels packed in a RecordIO file (``.rec`` with its ``.idx``), as
    written by ``im2rec`` or :func:`gluonlite.recordio.pack`.

    Each sample is ``(image, label)``: the decoded ``(H, W, C)`` uint8 NDArray and the
    record header's label (a float, or a float32 NumPy array for vector labels).

    Parameters
    ----------
    filename : str
        Path to the ``.rec`` file; the ``.idx`` file must sit beside it.
    flag : {0, 1}, default 1
        0: decode to greyscale (1 channel); 1: decode to colour (3 channels, RGB).
    transform : callable, default None
        Called as ``transform(data, label)`` on each sample.
    """

    def __init__(self, filename: str, flag: int = 1,
                 transform: Optional[Callable] = None) -> None:
        super().__init__(filename)
        self._flag = flag
        self._transform = transform

    def __getitem__(self, idx):
        record = super().__getitem__(idx)
        header, img = recordio.unpack(record)
        data = image.imdecode(img, self._flag)
        if self._transform is not None:
            return self._transform(data, header.label)
        return data, header.label


class ImageFolderDataset(Dataset):
    """Image files in one subfolder per class::

        root/car/0001.jpg
        root/car/xxxa.jpg
        root/bus/123.jpg

    Classes are the subfolders in sorted order; labels are their positions (Python
    ints).  Files other than ``.jpg``, ``.jpeg`` and ``.png`` (any case) are skipped with
    a warning, as are plain files directly in ``root``.

    Parameters
    ----------
    root : str
        Path to the root folder.
    flag : {0, 1}, default 1
        0: load images as greyscale (1 channel); 1: as colour (3 channels, RGB).
    transform : callable, default None
        Called as ``transform(data, label)`` on each sample.

    Attributes
    ----------
    synsets : list of str
        Class names; ``synsets[i]`` is the name of label ``i``.
    items : list of tuple
        ``(filename, label)`` of every image.
    """

    def __init__(self, root: str, flag: int = 1,
                 transform: Optional[Callable] = None) -> None:
        self._root = os.path.expanduser(root)
        self._flag = flag
        self._transform = transform
        self._exts = [".jpg", ".jpeg", ".png"]
        self._list_images(self._root)

    def _list_images(self, root: str) -> None:
        self.synsets = []
        self.items = []
        for folder in sorted(os.listdir(root)):
            path = os.path.join(root, folder)
            if not os.path.isdir(path):
                warnings.warn(f"Ignoring {path}, which is not a directory.", stacklevel=3)
                continue
            label = len(self.synsets)
            self.synsets.append(folder)
            for filename in sorted(os.listdir(path)):
                filename = os.path.join(path, filename)
                ext = os.path.splitext(filename)[1]
                if ext.lower() not in self._exts:
                    warnings.warn(f"Ignoring {filename} of type {ext}. Only support "
                                  f"{', '.join(self._exts)}")
                    continue
                self.items.append((filename, label))

    def __getitem__(self, idx):
        filename, label = self.items[idx]
        img = image.imread(filename, self._flag)
        if self._transform is not None:
            return self._transform(img, label)
        return img, label

    def __len__(self) -> int:
        return len(self.items)


class ImageListDataset(Dataset):
    """Images named by a list of entries (MXNet 2.0's ``ImageListDataset``; MXNet 1.9.1
    has no such class).

    ``imglist`` is either the name of a ``.lst`` file (relative to ``root``) with
    tab-separated lines ``index<TAB>label[<TAB>label...]<TAB>path``, or a list of
    entries ``[label, path]`` / ``[label_1, ..., label_k, path]`` where ``label`` is a
    number or a list of numbers.  Paths are relative to ``root``.

    Each sample is ``(image, label)``: the decoded ``(H, W, C)`` uint8 NDArray and the
    labels as a 1-d float32 NDArray.

    Parameters
    ----------
    root : str, default '.'
        Folder the list file and the image paths are relative to.
    imglist : str or list
        The ``.lst`` file or the list of entries.
    flag : {0, 1}, default 1
        0: load images as greyscale (1 channel); 1: as colour (3 channels, RGB).

    Attributes
    ----------
    items : list of tuple
        ``(filename, label)`` of every entry, in list order.
    """

    def __init__(self, root: str = ".", imglist: Union[str, list, None] = None,
                 flag: int = 1) -> None:
        self._root = os.path.expanduser(root)
        self._flag = flag
        self._imglist = {}
        self._imgkeys = []
        if isinstance(imglist, str):
            fname = os.path.join(self._root, imglist)
            for key, labels, rel in read_lst(fname, "ImageListDataset", min_fields=2):
                self._imglist[key] = (nd.array(labels), os.path.join(self._root, rel))
                self._imgkeys.append(key)
        elif isinstance(imglist, list):
            for index, img in enumerate(imglist, 1):
                key = str(index)
                if len(img) > 2:
                    label = nd.array(img[:-1])
                elif isinstance(img[0], numeric_types):
                    label = nd.array([img[0]])
                else:
                    label = nd.array(img[0])
                if not isinstance(img[-1], str):
                    raise AssertionError(f"imglist entry {index}: the last element must be "
                                         f"the image path (a str), got {type(img[-1])}")
                self._imglist[key] = (label, os.path.join(self._root, img[-1]))
                self._imgkeys.append(key)
        else:
            raise ValueError("imglist must be filename or list of valid entries, given "
                             f"{type(imglist)}")

    @property
    def items(self) -> list:
        """``(filename, label)`` of every entry, in list order."""
        return [(self._imglist[k][1], self._imglist[k][0]) for k in self._imgkeys]

    def __getitem__(self, idx):
        label, path = self._imglist[self._imgkeys[idx]]
        return image.imread(path, self._flag), label

    def __len__(self) -> int:
        return len(self._imgkeys)
