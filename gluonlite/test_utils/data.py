"""Dataset and iterator helpers of ``mxnet.test_utils`` (``get_mnist``, ``get_cifar10``,
``download``, ``DummyIter``, the sparse array factories).

gluonlite never downloads: ``download`` returns a file that is already in place and
otherwise raises ``MXNetError`` naming the URL and where to put the file; the
``get_*`` helpers then unpack local archives the way MXNet's do after downloading.
"""
from __future__ import annotations

import bz2
import gzip
import os
import shutil
import struct
import zipfile

import numpy as np

from ..base import MXNetError
from ..io import DataIter, MNISTIter
from .random_data import rand_sparse_ndarray

__all__ = ["download", "download_model", "get_mnist", "get_mnist_pkl", "get_mnist_ubyte",
           "get_cifar10", "get_mnist_iterator", "get_zip_data", "get_bz2_data",
           "get_im2rec_path", "DummyIter", "create_sparse_array", "create_sparse_array_zd",
           "shuffle_csr_column_indices"]

_MNIST_URL = "http://data.mxnet.io/data/mnist/"
_MNIST_FILES = ("train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")
_CIFAR_FILES = ("train.rec", "test.rec", "train.lst", "test.lst")


def download(url: str, fname: str | None = None, dirname: str | None = None,
             overwrite: bool = False, retries: int = 5) -> str:
    """The local path of ``url``'s file (``dirname/fname``, ``fname`` defaulting to the
    URL's last part), which must already exist: gluonlite does not download."""
    if fname is None:
        fname = url.split("/")[-1]
    if dirname is not None:
        fname = os.path.join(dirname, fname)
    if os.path.exists(fname) and not overwrite:
        return fname
    raise MXNetError(f"download: gluonlite does not download files; fetch {url} and put it "
                     f"at {os.path.abspath(fname)}")


def download_model(model_name: str, dst_dir: str = "./", meta_info=None) -> tuple:
    """``(symbol file, params file)`` of a model zoo checkpoint already in ``dst_dir``
    (``{model_name}-symbol.json`` and ``{model_name}-0000.params``)."""
    files = [os.path.join(dst_dir, f"{model_name}-symbol.json"),
             os.path.join(dst_dir, f"{model_name}-0000.params")]
    missing = [f for f in files if not os.path.exists(f)]
    if missing:
        raise MXNetError(f"download_model: gluonlite does not download models; put "
                         f"{', '.join(os.path.abspath(m) for m in missing)} in place")
    return tuple(files)


def _read_mnist(label_file: str, image_file: str) -> tuple:
    with gzip.open(label_file) as flbl:
        struct.unpack(">II", flbl.read(8))
        label = np.frombuffer(flbl.read(), dtype=np.int8)
    with gzip.open(image_file, "rb") as fimg:
        _, _, rows, cols = struct.unpack(">IIII", fimg.read(16))
        image = np.frombuffer(fimg.read(), dtype=np.uint8).reshape(len(label), rows, cols)
    return label, image.reshape(len(label), 1, rows, cols).astype(np.float32) / 255


def get_mnist(dirname: str = "data") -> dict:
    """MNIST from the four ``*-ubyte.gz`` files in ``dirname``: a dict of ``train_data``
    (N, 1, 28, 28) float32 in [0, 1], ``train_label``, ``test_data``, ``test_label``."""
    def path(name):
        return download(_MNIST_URL + name + ".gz", dirname=dirname)
    train_lbl, train_img = _read_mnist(path(_MNIST_FILES[1]), path(_MNIST_FILES[0]))
    test_lbl, test_img = _read_mnist(path(_MNIST_FILES[3]), path(_MNIST_FILES[2]))
    return {"train_data": train_img, "train_label": train_lbl,
            "test_data": test_img, "test_label": test_lbl}


def get_mnist_pkl() -> None:
    """Check that ``data/mnist.pkl.gz`` is in place."""
    os.makedirs("data", exist_ok=True)
    download("http://deeplearning.net/data/mnist/mnist.pkl.gz", dirname="data")


def _unzip_if_missing(files, subdir: str, url: str) -> None:
    os.makedirs("data", exist_ok=True)
    if all(os.path.exists(os.path.join(subdir, f)) for f in files):
        return
    with zipfile.ZipFile(download(url, dirname="data")) as zf:
        zf.extractall("data")


def get_mnist_ubyte() -> None:
    """The MNIST ``*-ubyte`` files in ``./data``, unpacked from ``data/mnist.zip`` when
    only the archive is there."""
    _unzip_if_missing(_MNIST_FILES, "data", "http://data.mxnet.io/mxnet/data/mnist.zip")


def get_cifar10() -> None:
    """CIFAR-10's RecordIO files in ``./data/cifar``, unpacked from ``data/cifar10.zip``
    when only the archive is there."""
    _unzip_if_missing(_CIFAR_FILES, os.path.join("data", "cifar"),
                      "http://data.mxnet.io/mxnet/data/cifar10.zip")


def get_mnist_iterator(batch_size: int, input_shape, num_parts: int = 1,
                       part_index: int = 0) -> tuple:
    """``(train, val)`` ``MNISTIter``s over ``./data`` (flat unless ``input_shape`` is 3-D)."""
    get_mnist_ubyte()
    flat = len(input_shape) != 3
    common = dict(input_shape=input_shape, batch_size=batch_size, flat=flat,
                  num_parts=num_parts, part_index=part_index)
    train = MNISTIter(image="data/train-images-idx3-ubyte",
                      label="data/train-labels-idx1-ubyte", shuffle=True, **common)
    val = MNISTIter(image="data/t10k-images-idx3-ubyte", label="data/t10k-labels-idx1-ubyte",
                    **common)
    return train, val


def get_zip_data(data_dir: str, url: str, data_origin_name: str) -> None:
    """Unpack the local zip ``data_dir/data_origin_name`` (it must be in place)."""
    archive = download(url, fname=data_origin_name, dirname=data_dir)
    with zipfile.ZipFile(archive) as zf:
        zf.extractall(path=data_dir)


def get_bz2_data(data_dir: str, data_name: str, url: str, data_origin_name: str) -> None:
    """``data_dir/data_name``, decompressed from the local ``data_origin_name`` bz2 file
    when only that is there."""
    target = os.path.join(data_dir, data_name)
    if os.path.exists(target):
        return
    archive = download(url, fname=data_origin_name, dirname=data_dir)
    tmp = target + ".part"
    with bz2.BZ2File(archive) as src, open(tmp, "wb") as dst:
        shutil.copyfileobj(src, dst)
    os.replace(tmp, target)


def get_im2rec_path(home_env: str = "MXNET_HOME") -> str:
    """Path of MXNet's ``tools/im2rec.py`` under ``$MXNET_HOME`` (gluonlite does not ship
    the tool; :mod:`gluonlite.recordio` and ``mx.image`` write the same files)."""
    if home_env in os.environ:
        path = os.path.join(os.environ[home_env], "tools", "im2rec.py")
        if os.path.isfile(path):
            return path
    raise OSError(f"im2rec.py not found: set ${home_env} to an MXNet source tree "
                  "(gluonlite has no copy of the tool)")


class DummyIter(DataIter):
    """Returns the first batch of ``real_iter`` forever (for speed measurements)."""

    def __init__(self, real_iter: DataIter):
        super().__init__()
        self.real_iter = real_iter
        self.provide_data = real_iter.provide_data
        self.provide_label = real_iter.provide_label
        self.batch_size = real_iter.batch_size
        self.the_batch = next(real_iter)

    def __iter__(self):
        return self

    def next(self):
        return self.the_batch


def create_sparse_array(shape, stype: str, data_init=None, rsp_indices=None, dtype=None,
                        modifier_func=None, density: float = .5,
                        shuffle_csr_indices: bool = False):
    """A random sparse array (row indices of a row_sparse one sorted), as MXNet's."""
    if stype == "row_sparse":
        indices = None if rsp_indices is None else np.sort(np.asarray(rsp_indices))
        arr, _ = rand_sparse_ndarray(shape, stype, density=density, data_init=data_init,
                                     rsp_indices=indices, dtype=dtype,
                                     modifier_func=modifier_func)
        return arr
    if stype == "csr":
        arr, _ = rand_sparse_ndarray(shape, stype, density=density, data_init=data_init,
                                     dtype=dtype, modifier_func=modifier_func,
                                     shuffle_csr_indices=shuffle_csr_indices)
        return arr
    raise AssertionError("Unknown storage type: " + stype)


def create_sparse_array_zd(shape, stype: str, density: float, data_init=None,
                           rsp_indices=None, dtype=None, modifier_func=None,
                           shuffle_csr_indices: bool = False):
    """:func:`create_sparse_array` where ``rsp_indices`` alone decides a row_sparse
    array's rows."""
    if stype == "row_sparse":
        density = 0.0
        if rsp_indices is not None:
            assert len(rsp_indices) <= shape[0]
    return create_sparse_array(shape, stype, data_init=data_init, rsp_indices=rsp_indices,
                               dtype=dtype, modifier_func=modifier_func, density=density,
                               shuffle_csr_indices=shuffle_csr_indices)


def shuffle_csr_column_indices(csr) -> None:
    """Shuffle the column indices within each row of a csr array in place (its values stay:
    the matrix changes, as with MXNet's helper, whose point is unordered indices)."""
    st = csr.handle
    xp = csr.context.xp
    n = st.indices.shape[0]
    rows = xp.repeat(xp.arange(st.shape[0]), xp.diff(st.indptr))
    order = xp.lexsort(xp.stack([xp.asarray(np.random.rand(n)), rows.astype(np.float64)]))
    st.indices[...] = st.indices[order]
    csr._bump()
