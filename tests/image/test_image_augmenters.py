"""``mx.image`` augmenters, ``CreateAugmenter`` and ``ImageIter`` against MXNet 1.9.1
(fixture ``image_augmenters.npz``, cases in ``tests/fixtures/image_aug_cases.py``): the
same seeds give the same crops, flips, jitters and shuffles."""
import json
import os
import random
import sys

import numpy as np
import pytest

import gluonlite as mx

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")
sys.path.insert(0, FIXTURES)
import image_aug_cases as cases  # noqa: E402

DATA = np.load(os.path.join(FIXTURES, "image_augmenters.npz"))
# uint8 resizes may differ from OpenCV's fixed point by one level
RESIZE_ATOL = 1.0


def _seed():
    random.seed(cases.SEED)
    np.random.seed(cases.SEED)


def _assert_close(got, want, key, atol=1e-3):
    assert got.shape == want.shape, (key, got.shape, want.shape)
    assert got.dtype == want.dtype, (key, got.dtype, want.dtype)
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=1e-5,
                               atol=atol, err_msg=key)


@pytest.mark.parametrize("name", cases.AUG_CASES)
def test_augmenter_matches_mxnet(name):
    _seed()
    aug = cases.make_aug(mx, name)
    outs = []
    for _ in range(cases.CALLS):
        img = mx.nd.array(cases.aug_input(DATA["src"], name), dtype="uint8")
        if name not in cases.UINT8_AUGS:
            img = img.astype("float32")
        outs.append(aug(img).asnumpy())
    if len({o.shape for o in outs}) > 1:
        outs = [o[:8, :8] for o in outs]
    atol = RESIZE_ATOL if "resize" in name or "crop" in name else 1e-3
    _assert_close(np.stack(outs), DATA[f"aug/{name}"], name, atol)
    assert json.dumps(aug.dumps()) == str(DATA[f"dumps/{name}"])


@pytest.mark.parametrize("name", list(cases.CREATE_CASES))
def test_create_augmenter_matches_mxnet(name):
    _seed()
    augs = mx.image.CreateAugmenter(**cases.create_kwargs(mx, cases.CREATE_CASES[name]))
    assert json.dumps([a.dumps() for a in augs]) == str(DATA[f"create/{name}/dumps"])
    img = mx.nd.array(DATA["src"], dtype="uint8")
    for aug in augs:
        img = aug(img)
    # one level of resize difference, scaled by the normalisation
    _assert_close(img.asnumpy(), DATA[f"create/{name}/out"], name, atol=RESIZE_ATOL)


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    path = tmp_path_factory.mktemp("image_iter")
    for key in DATA.files:
        if key.startswith("files/"):
            (path / key[len("files/"):]).write_bytes(DATA[key].tobytes())
    return str(path)


@pytest.mark.pillow
@pytest.mark.parametrize("name", cases.ITER_CASES)
def test_image_iter_matches_mxnet(root, name):
    _seed()
    kwargs = cases.iter_kwargs(mx, name, root)
    it = mx.image.ImageIter(**kwargs)
    batch_size, shape = kwargs["batch_size"], kwargs["data_shape"]
    assert it.provide_data[0][1] == (batch_size,) + shape
    atol = RESIZE_ATOL if "resize" in kwargs else 0
    for epoch in range(2):
        count = 0
        for b, batch in enumerate(it):
            key = f"iter/{name}/{epoch}/{b}"
            assert key + "/data" in DATA.files, f"{key}: more batches than MXNet"
            _assert_close(batch.data[0].asnumpy(), DATA[key + "/data"], key, atol)
            _assert_close(batch.label[0].asnumpy(), DATA[key + "/label"], key, 0)
            assert batch.pad == int(DATA[key + "/pad"]), key
            count += 1
        assert f"iter/{name}/{epoch}/{count}/data" not in DATA.files, \
            f"{name} epoch {epoch}: fewer batches than MXNet"
        it.reset()


def test_image_iter_names_and_errors(root):
    it = mx.image.ImageIter(2, (3, 8, 8), path_imglist=os.path.join(root, "data.lst"),
                            path_root=root, data_name="img", label_name="lbl",
                            label_width=3)
    assert it.provide_data == [("img", (2, 3, 8, 8))]
    assert it.provide_label == [("lbl", (2, 3))]
    with pytest.raises(ValueError, match="3 channels"):
        mx.image.ImageIter(2, (1, 8, 8), path_imglist=os.path.join(root, "data.lst"))
    with pytest.raises(ValueError, match="length 3"):
        mx.image.ImageIter(2, (8, 8), path_imglist=os.path.join(root, "data.lst"))
    with pytest.raises(AssertionError):
        mx.image.ImageIter(2, (3, 8, 8))
    with pytest.raises(ValueError, match="last_batch_handle"):
        mx.image.ImageIter(2, (3, 8, 8), imglist=[[0, "img0.png"]], last_batch_handle="x")
    broken = os.path.join(root, "broken.png")
    with open(broken, "wb") as f:
        f.write(b"not an image")
    it = mx.image.ImageIter(1, (3, 8, 8), imglist=[[0, "broken.png"]], path_root=root)
    with pytest.raises(RuntimeError, match="broken.png"):
        it.next()


def test_augmenter_base_and_hierarchy():
    aug = mx.image.Augmenter(mean=mx.nd.array([1, 2]), p=np.array([0.5]))
    assert json.loads(aug.dumps()) == ["augmenter", {"mean": [1.0, 2.0], "p": [0.5]}]
    with pytest.raises(NotImplementedError):
        aug(mx.nd.zeros((2, 2, 3)))
    assert issubclass(mx.image.ColorJitterAug, mx.image.RandomOrderAug)
    assert not issubclass(mx.image.RandomOrderAug, mx.image.SequentialAug)
    with pytest.raises(AssertionError):
        mx.image.CreateAugmenter((3, 8, 8), mean=[1, 2, 3])
    with pytest.raises(AssertionError):
        mx.image.CreateAugmenter((3, 8, 8), rand_resize=True)


def test_lst_files_with_bad_lines_raise_naming_the_line(tmp_path):
    from gluonlite.image.lst import read_lst
    path = tmp_path / "bad.lst"
    path.write_text("0\t1.0\ta.png\n\n1\tb.png\n")
    assert read_lst(str(path), "ImageListDataset", min_fields=2) == [
        (0, ["1.0"], "a.png"), (1, [], "b.png")]
    with pytest.raises(mx.base.MXNetError, match="ImageIter: .*bad.lst line 3"):
        read_lst(str(path), "ImageIter")
    with pytest.raises(FileNotFoundError):
        read_lst(str(tmp_path / "none.lst"), "ImageIter")
