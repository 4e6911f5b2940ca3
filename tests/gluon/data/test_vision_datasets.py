"""``gluon.data.vision`` datasets on small synthetic files, against what MXNet 1.9.1 gave
on the same files (``tests/fixtures/vision_datasets.json``, written by
``tests/fixtures/gen_vision_datasets.py``, which also builds the files)."""
import base64
import gzip
import io
import json
import os
import shutil
import sys
import tarfile
import warnings

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures")
sys.path.insert(0, FIXTURES)
import gen_vision_datasets as gen  # noqa: E402  (the file builders, no mxnet import)

with open(os.path.join(FIXTURES, "vision_datasets.json")) as _f:
    REF = json.load(_f)

vision = mx.gluon.data.vision


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    """The synthetic dataset files (the JPEGs are the bytes MXNet decoded)."""
    path = str(tmp_path_factory.mktemp("vision_datasets"))
    gen.build(path, mx.recordio, {k: base64.b64decode(v) for k, v in REF["jpeg"].items()})
    return path


def _check_element(key, got, exp, atol=0):
    assert got["kind"] == exp["kind"], (key, got, exp)
    for field in ("dtype", "shape"):
        if field in exp:
            assert got[field] == exp[field], (key, field, got.get(field), exp[field])
    if "value" in exp:
        assert got["value"] == exp["value"], (key, got["value"], exp["value"])
    if "values" in exp:
        np.testing.assert_allclose(np.array(got["values"], dtype=np.float64),
                                   np.array(exp["values"], dtype=np.float64),
                                   rtol=0, atol=atol, err_msg=key)
    elif "sha1" in exp:
        assert got["sha1"] == exp["sha1"], key


def _check_dataset(key, ds, jpeg_items=()):
    exp = REF[key]
    assert len(ds) == exp["len"]
    got = gen.describe_dataset(ds)
    for i, (g_item, e_item) in enumerate(zip(got["items"], exp["items"])):
        assert len(g_item) == len(e_item)
        for g_el, e_el in zip(g_item, e_item):
            # greyscale decoding (flag=0) follows OpenCV's conversions exactly
            atol = 0
            _check_element(f"{key}[{i}]", g_el, e_el, atol)


def test_exports():
    assert vision.MNIST is vision.datasets.MNIST
    for name in ("MNIST", "FashionMNIST", "CIFAR10", "CIFAR100", "ImageRecordDataset",
                 "ImageFolderDataset", "ImageListDataset"):
        assert getattr(vision, name) is getattr(vision.datasets, name)
        assert name in vision.datasets.__all__
        assert issubclass(getattr(vision, name), mx.gluon.data.Dataset)
    assert issubclass(vision.ImageRecordDataset, mx.gluon.data.RecordFileDataset)
    assert issubclass(vision.FashionMNIST, vision.MNIST)
    assert issubclass(vision.CIFAR100, vision.CIFAR10)


@pytest.mark.parametrize("key,cls,sub,kwargs", [
    ("MNIST/train", "MNIST", "mnist", {}),
    ("MNIST/test", "MNIST", "mnist", {"train": False}),
    ("FashionMNIST/train", "FashionMNIST", "fashion", {}),
    ("FashionMNIST/test", "FashionMNIST", "fashion", {"train": False}),
    ("CIFAR10/train", "CIFAR10", "cifar10", {}),
    ("CIFAR10/test", "CIFAR10", "cifar10", {"train": False}),
    ("CIFAR100/train", "CIFAR100", "cifar100", {}),
    ("CIFAR100/train_fine", "CIFAR100", "cifar100", {"fine_label": True}),
    ("CIFAR100/test_fine", "CIFAR100", "cifar100", {"fine_label": True, "train": False}),
])
@pytest.mark.pillow
def test_downloaded_datasets_match_mxnet(root, key, cls, sub, kwargs):
    ds = getattr(vision, cls)(os.path.join(root, sub), **kwargs)
    _check_dataset(key, ds)
    data, label = ds[0]
    assert isinstance(data, mx.nd.NDArray) and data.dtype == np.uint8
    assert type(label) is np.int32


@pytest.mark.pillow
def test_mnist_values_and_transform(root):
    ds = vision.MNIST(os.path.join(root, "mnist"), train=False)
    with gzip.open(os.path.join(root, "mnist", "t10k-images-idx3-ubyte.gz")) as f:
        images = np.frombuffer(f.read()[16:], np.uint8).reshape(-1, 28, 28, 1)
    with gzip.open(os.path.join(root, "mnist", "t10k-labels-idx1-ubyte.gz")) as f:
        labels = np.frombuffer(f.read()[8:], np.uint8)
    assert len(ds) == 3
    for i in range(3):
        data, label = ds[i]
        assert data.shape == (28, 28, 1)
        np.testing.assert_array_equal(data.asnumpy(), images[i])
        assert label == labels[i]
    # negative indices as with any NDArray / NumPy array
    np.testing.assert_array_equal(ds[-1][0].asnumpy(), images[-1])

    seen = []

    def fn(data, label):
        seen.append((type(data), type(label)))
        return data.astype("float32") / 255, label

    t = vision.MNIST(os.path.join(root, "mnist"), train=False, transform=fn)
    _check_dataset("MNIST/test_transform", t)
    assert seen[0] == (mx.nd.NDArray, np.int32)
    # the Dataset helpers work on top of it
    first = ds.transform_first(lambda x: x.astype("float32"))[1]
    assert first[0].dtype == np.float32 and first[1] == labels[1]


@pytest.mark.pillow
def test_mnist_uncompressed_files(root, tmp_path):
    for name in ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"):
        with gzip.open(os.path.join(root, "mnist", name + ".gz")) as f:
            (tmp_path / name).write_bytes(f.read())
    ds = vision.MNIST(str(tmp_path))
    _check_dataset("MNIST/train", ds)


@pytest.mark.parametrize("cls,names", [
    ("MNIST", ["train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"]),
    ("FashionMNIST", ["train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"]),
    ("CIFAR10", [f"data_batch_{i}.bin" for i in range(1, 6)]),
    ("CIFAR100", ["train.bin"]),
])
def test_missing_files_error(tmp_path, cls, names):
    where = tmp_path / "nested" / "data"
    with pytest.raises(MXNetError) as info:
        getattr(vision, cls)(str(where))
    assert isinstance(info.value, FileNotFoundError)
    msg = str(info.value)
    for name in names:
        assert name in msg
    assert str(where) in msg
    assert "does not download" in msg
    # as MXNet, the folder is created for the files to be put in
    assert where.is_dir()


@pytest.mark.pillow
def test_missing_test_files_named(tmp_path, root):
    shutil.copy(os.path.join(root, "mnist", "t10k-labels-idx1-ubyte.gz"), tmp_path)
    with pytest.raises(FileNotFoundError, match="t10k-images-idx3-ubyte.gz") as info:
        vision.MNIST(str(tmp_path), train=False)
    assert "t10k-labels" not in str(info.value).split(" in ")[0]
    with pytest.raises(MXNetError, match="test_batch.bin"):
        vision.CIFAR10(str(tmp_path), train=False)
    with pytest.raises(MXNetError, match=r"test\.bin"):
        vision.CIFAR100(str(tmp_path), train=False)


def test_default_root(monkeypatch, tmp_path):
    import inspect
    default = inspect.signature(vision.MNIST).parameters["root"].default
    assert default == os.path.join(mx.base.data_dir(), "datasets", "mnist")
    default = inspect.signature(vision.FashionMNIST).parameters["root"].default
    assert default.endswith(os.path.join("datasets", "fashion-mnist"))
    for cls, sub in (("CIFAR10", "cifar10"), ("CIFAR100", "cifar100")):
        default = inspect.signature(getattr(vision, cls)).parameters["root"].default
        assert default.endswith(os.path.join("datasets", sub))
    # '~' is expanded
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(FileNotFoundError, match=str(tmp_path / "mnist_home")):
        vision.MNIST("~/mnist_home")


@pytest.mark.pillow
def test_corrupt_files(tmp_path, root):
    shutil.copy(os.path.join(root, "mnist", "train-labels-idx1-ubyte.gz"), tmp_path)
    with gzip.open(tmp_path / "train-images-idx3-ubyte.gz", "wb") as f:
        f.write(b"\x12\x34\x56\x78" + bytes(100))
    with pytest.raises(MXNetError, match="not an IDX file"):
        vision.MNIST(str(tmp_path))
    # images and labels that disagree in number
    shutil.copy(os.path.join(root, "mnist", "t10k-images-idx3-ubyte.gz"),
                tmp_path / "train-images-idx3-ubyte.gz")
    with pytest.raises(MXNetError, match="3 images"):
        vision.MNIST(str(tmp_path))
    # a truncated IDX file
    with gzip.open(os.path.join(root, "mnist", "t10k-images-idx3-ubyte.gz")) as f:
        blob = f.read()
    with gzip.open(tmp_path / "train-images-idx3-ubyte.gz", "wb") as f:
        f.write(blob[:-10])
    with pytest.raises(MXNetError, match="bytes follow"):
        vision.MNIST(str(tmp_path))
    (tmp_path / "test_batch.bin").write_bytes(bytes(3073 * 2 + 5))
    with pytest.raises(MXNetError, match="3073-byte"):
        vision.CIFAR10(str(tmp_path), train=False)


@pytest.mark.pillow
def test_cifar_archive_as_mxnet(root, tmp_path):
    # MXNet's archive: the batch files at the top level, extracted into root
    shutil.copy(os.path.join(root, "cifar10_tar", "cifar-10-binary.tar.gz"), tmp_path)
    ds = vision.CIFAR10(str(tmp_path), train=False)
    _check_dataset("CIFAR10/tar", ds)
    assert (tmp_path / "test_batch.bin").is_file()
    _check_dataset("CIFAR10/train", vision.CIFAR10(str(tmp_path)))


def _tar_dir(archive, folder, arcname):
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(folder, arcname=arcname)


@pytest.mark.pillow
def test_cifar_official_layout(root, tmp_path):
    # the official archives hold a folder: cifar-10-batches-bin/, cifar-100-binary/
    sub = tmp_path / "c10" / "cifar-10-batches-bin"
    shutil.copytree(os.path.join(root, "cifar10"), sub)
    _check_dataset("CIFAR10/train", vision.CIFAR10(str(tmp_path / "c10")))
    _check_dataset("CIFAR10/test", vision.CIFAR10(str(tmp_path / "c10"), train=False))

    arch = tmp_path / "c100"
    arch.mkdir()
    _tar_dir(str(arch / "cifar-100-binary.tar.gz"), os.path.join(root, "cifar100"),
             "cifar-100-binary")
    _check_dataset("CIFAR100/test_fine",
                   vision.CIFAR100(str(arch), fine_label=True, train=False))
    assert (arch / "cifar-100-binary" / "train.bin").is_file()
    _check_dataset("CIFAR100/train", vision.CIFAR100(str(arch)))


def test_cifar_archive_without_the_files(tmp_path):
    buf = io.BytesIO(b"hello")
    with tarfile.open(tmp_path / "cifar-10-binary.tar.gz", "w:gz") as tar:
        info = tarfile.TarInfo("other.txt")
        info.size = 5
        tar.addfile(info, buf)
    with pytest.raises(FileNotFoundError, match="was extracted"):
        vision.CIFAR10(str(tmp_path))


@pytest.mark.pillow
def test_cifar_values(root):
    ds = vision.CIFAR100(os.path.join(root, "cifar100"), fine_label=True, train=False)
    raw = np.fromfile(os.path.join(root, "cifar100", "test.bin"), np.uint8).reshape(-1, 3074)
    for i in range(len(ds)):
        data, label = ds[i]
        # CHW planes in the file, HWC samples
        np.testing.assert_array_equal(data.asnumpy()[:, :, 1],
                                      raw[i, 2 + 1024:2 + 2048].reshape(32, 32))
        assert label == raw[i, 1]
    coarse = vision.CIFAR100(os.path.join(root, "cifar100"), train=False)
    assert [int(coarse[i][1]) for i in range(2)] == raw[:, 0].tolist()


def _image_folder(root, flag, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ds = vision.ImageFolderDataset(os.path.join(root, "images"), flag=flag, **kwargs)
    return ds, [str(w.message).replace(root, "<root>") for w in caught]


# the samples decoded from JPEG files (for the greyscale tolerance)
_FOLDER_JPEG = (1, 2)


@pytest.mark.pillow
@pytest.mark.parametrize("flag", [1, 0])
def test_image_folder_dataset(root, flag):
    key = f"ImageFolderDataset/flag{flag}"
    ds, caught = _image_folder(root, flag)
    exp = REF[key]
    assert ds.synsets == exp["synsets"] == ["cat", "dog"]
    assert [[os.path.relpath(p, root), lab] for p, lab in ds.items] == exp["paths"]
    assert sorted(caught) == sorted(exp["warnings"])
    _check_dataset(key, ds, jpeg_items=_FOLDER_JPEG)
    data, label = ds[3]
    assert type(label) is int and data.shape == (5, 6, 3 if flag else 1)


@pytest.mark.pillow
def test_image_folder_transform_and_loader(root):
    ds, _ = _image_folder(root, 1, transform=lambda d, l: (d.astype("float32"), l * 10))
    data, label = ds[4]
    assert data.dtype == np.float32 and label == 10
    plain, _ = _image_folder(root, 1)
    np.testing.assert_array_equal(data.asnumpy(), plain[4][0].asnumpy())
    loader = mx.gluon.data.DataLoader(plain.transform_first(
        mx.gluon.data.vision.transforms.ToTensor()), batch_size=5)
    x, y = next(iter(loader))
    assert x.shape == (5, 3, 5, 6) and y.asnumpy().tolist() == [0, 0, 0, 1, 1]


def test_image_folder_missing_root(tmp_path):
    with pytest.raises(FileNotFoundError):
        vision.ImageFolderDataset(str(tmp_path / "nothing"))


@pytest.mark.pillow
@pytest.mark.parametrize("flag", [1, 0])
def test_image_record_dataset(root, flag):
    key = f"ImageRecordDataset/flag{flag}"
    ds = vision.ImageRecordDataset(os.path.join(root, "data.rec"), flag=flag)
    _check_dataset(key, ds, jpeg_items=(1,))
    t = vision.ImageRecordDataset(os.path.join(root, "data.rec"), flag=flag,
                                  transform=lambda d, l: (d.shape, l))
    assert t[1] == ((5, 6, 3 if flag else 1), 3.0)


@pytest.mark.pillow
def test_image_record_missing_index(tmp_path, root):
    shutil.copy(os.path.join(root, "data.rec"), tmp_path)
    with pytest.raises(MXNetError, match="data.idx"):
        vision.ImageRecordDataset(str(tmp_path / "data.rec"))


@pytest.mark.pillow
@pytest.mark.parametrize("flag", [1, 0])
def test_image_list_dataset_lst(root, flag):
    ds = vision.ImageListDataset(os.path.join(root, "images"), "list.lst", flag=flag)
    _check_dataset(f"ImageListDataset/lst/flag{flag}", ds, jpeg_items=(2,))
    assert [os.path.relpath(p, root) for p, _ in ds.items] == \
        [os.path.join("images", rel) for _, _, rel in gen.LST]
    for (_, labels, _), (_, label) in zip(gen.LST, ds.items):
        np.testing.assert_array_equal(label.asnumpy(), np.array(labels, np.float32))


@pytest.mark.pillow
@pytest.mark.parametrize("flag", [1, 0])
def test_image_list_dataset_list(root, flag):
    ds = vision.ImageListDataset(os.path.join(root, "images"), gen.PYLIST, flag=flag)
    _check_dataset(f"ImageListDataset/list/flag{flag}", ds, jpeg_items=(1,))


@pytest.mark.pillow
def test_image_list_dataset_errors(root):
    with pytest.raises(ValueError, match="imglist"):
        vision.ImageListDataset(root, None)
    with pytest.raises(FileNotFoundError):
        vision.ImageListDataset(root, "no_such.lst")


@pytest.mark.parametrize("key,make", [
    ("MNIST/test", lambda r: vision.MNIST(os.path.join(r, "mnist"), train=False)),
    ("CIFAR100/train_fine",
     lambda r: vision.CIFAR100(os.path.join(r, "cifar100"), fine_label=True)),
    ("ImageRecordDataset/flag1",
     lambda r: vision.ImageRecordDataset(os.path.join(r, "data.rec")).take(2)),
])
@pytest.mark.pillow
def test_dataloader_batches_match_mxnet(root, key, make):
    batches = list(mx.gluon.data.DataLoader(make(root), batch_size=2))
    exp = REF["batches/" + key]
    assert len(batches) == len(exp)
    for b, e in zip(batches, exp):
        for g_el, e_el in zip(b, e):
            _check_element(key, gen.describe(g_el), e_el)
