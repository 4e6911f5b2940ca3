"""``mx.image`` detection augmenters, ``CreateDetAugmenter`` and ``ImageDetIter``
against MXNet 1.9.1 (fixture ``image_detection.npz``, cases in
``tests/fixtures/image_det_cases.py``): the same seeds give the same crops, pads,
flips, boxes and batches; plus properties and error paths."""
import json
import os
import random
import sys
import warnings

import numpy as np
import pytest

import gluonlite as mx

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures")
sys.path.insert(0, FIXTURES)
import image_det_cases as cases  # noqa: E402

DATA = np.load(os.path.join(FIXTURES, "image_detection.npz"))
# uint8 resizes may differ from OpenCV's fixed point by one level
RESIZE_ATOL = 1.0


def _seed():
    random.seed(cases.SEED)
    np.random.seed(cases.SEED)


def _assert_close(got, want, key, atol=0.0, rtol=1e-6):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (key, got.shape, want.shape)
    assert got.dtype == want.dtype, (key, got.dtype, want.dtype)
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol,
                               atol=atol, err_msg=key)


# -- augmenters against MXNet ---------------------------------------------------------------
@pytest.mark.parametrize("name", cases.AUG_CASES)
def test_det_augmenter_matches_mxnet(name):
    _seed()
    aug = cases.make_aug(mx, name)
    for k in range(cases.CALLS):
        img, label = aug(cases.aug_input(mx, DATA["src"], name), DATA["label"].copy())
        key = f"aug/{name}/{k}"
        atol = RESIZE_ATOL if "resize" in name else 0
        _assert_close(img.asnumpy(), DATA[key + "/img"], key, atol=atol)
        # boxes computed in float32 with MXNet's operations: bit-identical
        _assert_close(label, DATA[key + "/label"], key, rtol=0)
    assert json.dumps(aug.dumps()) == str(DATA[f"dumps/{name}"])


@pytest.mark.parametrize("name", list(cases.CREATE_CASES))
def test_create_det_augmenter_matches_mxnet(name):
    _seed()
    augs = mx.image.CreateDetAugmenter(**cases.create_kwargs(cases.CREATE_CASES[name]))
    assert json.dumps([a.dumps() for a in augs]) == str(DATA[f"create/{name}/dumps"])
    img, label = mx.nd.array(DATA["src"], dtype="uint8"), DATA["label"].copy()
    for aug in augs:
        img, label = aug(img, label)
    # one resize level, then scaled and mixed by the jitters and the normalization
    _assert_close(img.asnumpy(), DATA[f"create/{name}/img"], name, atol=2 * RESIZE_ATOL,
                  rtol=1e-4)
    _assert_close(label, DATA[f"create/{name}/label"], name, rtol=0)


# -- the iterator against MXNet ----------------------------------------------------------------
@pytest.fixture(scope="module")
def root(tmp_path_factory):
    path = tmp_path_factory.mktemp("image_det_iter")
    for key in DATA.files:
        if key.startswith("files/"):
            (path / key[len("files/"):]).write_bytes(DATA[key].tobytes())
    return str(path)


def _check_batches(it, key, atol=RESIZE_ATOL):
    count = 0
    for epoch in range(cases.EPOCHS):
        b = -1
        for b, batch in enumerate(it):
            prefix = f"{key}/{epoch}/{b}"
            assert f"{prefix}/data" in DATA.files, f"{prefix}: MXNet had fewer batches"
            got, want = batch.data[0].asnumpy(), DATA[prefix + "/data"]
            _assert_close(got, want, prefix, atol=atol, rtol=1e-4)
            _assert_close(batch.label[0].asnumpy(), DATA[prefix + "/label"], prefix, rtol=0)
            assert batch.pad == int(DATA[prefix + "/pad"]), prefix
            count += 1
        assert f"{key}/{epoch}/{b + 1}/data" not in DATA.files, f"{key}: fewer batches"
        it.reset()
    assert count


@pytest.mark.pillow
@pytest.mark.parametrize("name", cases.ITER_CASES)
def test_image_det_iter_matches_mxnet(root, name):
    _seed()
    it = mx.image.ImageDetIter(**cases.iter_kwargs(name, root))
    assert it.provide_data[0][1] == tuple(DATA[f"iter/{name}/provide_data"])
    assert it.provide_label[0][1] == tuple(DATA[f"iter/{name}/provide_label"])
    assert it.label_shape == tuple(DATA[f"iter/{name}/provide_label"])[1:]
    assert [it.provide_data[0][0], it.provide_label[0][0]] == \
        list(DATA[f"iter/{name}/names"])
    # colour jitters and normalization after a resize scale its one-level differences
    _check_batches(it, f"iter/{name}", atol=2 * RESIZE_ATOL if "aug" in name else RESIZE_ATOL)


@pytest.mark.pillow
def test_sync_label_shape_and_reshape_match_mxnet(root):
    _seed()
    big = mx.image.ImageDetIter(**cases.iter_kwargs("lst_pad", root))
    small = mx.image.ImageDetIter(**cases.iter_kwargs("small", root))
    assert np.array_equal([big.label_shape, small.label_shape], DATA["sync/before"])
    assert big.sync_label_shape(small) is small
    assert np.array_equal([big.label_shape, small.label_shape], DATA["sync/after"])
    assert small.provide_label[0][1] == tuple(DATA["sync/provide_label"])
    _assert_close(small.next().label[0].asnumpy(), DATA["sync/label"], "sync", rtol=0)
    small.reset()
    small.reshape(label_shape=(8, 5))
    assert small.provide_label[0][1] == tuple(DATA["sync/reshaped"])
    _assert_close(small.next().label[0].asnumpy(), DATA["sync/reshaped_label"], "reshape",
                  rtol=0)


def test_label_shape_checks(root):
    it = mx.image.ImageDetIter(**cases.iter_kwargs("lst_pad", root))
    count, width = it.label_shape
    with pytest.raises(ValueError, match="length 2"):
        it.reshape(label_shape=(count,))
    with pytest.raises(ValueError, match="reduce label count"):
        it.reshape(label_shape=(count - 1, width))
    with pytest.raises(ValueError, match="object width"):
        it.reshape(label_shape=(count, width + 1))
    it.reshape(data_shape=(3, 20, 24))
    assert it.provide_data[0][1] == (4, 3, 20, 24) and it.data_shape == (3, 20, 24)
    with pytest.raises(ValueError):
        it.reshape(data_shape=(1, 20, 24))


# -- properties of the random augmenters ---------------------------------------------------------
def _boxes_inside(label):
    boxes = label[:, 1:5]
    return np.all(boxes >= 0) and np.all(boxes <= 1) and \
        np.all(boxes[:, 2] > boxes[:, 0]) and np.all(boxes[:, 3] > boxes[:, 1])


def test_random_crop_properties():
    random.seed(0)
    aug = mx.image.DetRandomCropAug(min_object_covered=0.3, aspect_ratio_range=(0.5, 2),
                                    area_range=(0.1, 0.8), min_eject_coverage=0.5)
    src, label = mx.nd.array(DATA["src"], dtype="uint8"), DATA["label"]
    cropped = 0
    for _ in range(40):
        img, out = aug(src, label.copy())
        assert out.dtype == np.float32 and out.shape[1] == label.shape[1]
        assert _boxes_inside(out)
        # objects keep their id and extra column; ejected ones are gone
        assert set(out[:, 0]) <= set(label[:, 0])
        kept = label[np.isin(label[:, 0], out[:, 0])]
        np.testing.assert_array_equal(out[:, 5], kept[:, 5])
        if img.shape != src.shape:
            cropped += 1
            area = img.shape[0] * img.shape[1] / (src.shape[0] * src.shape[1])
            assert 0.1 * 0.99 <= area <= 0.8 * 1.01
    assert cropped > 20


def test_random_crop_ejects_small_objects():
    # a window that fits the big object only: the tiny far one is dropped
    label = np.array([[0, 0.0, 0.0, 0.6, 0.6], [1, 0.95, 0.95, 1.0, 1.0]], np.float32)
    aug = mx.image.DetRandomCropAug(min_object_covered=0.0, aspect_ratio_range=1.0,
                                    area_range=(0.25, 0.35), min_eject_coverage=0.5)
    random.seed(1)
    src = mx.nd.zeros((100, 100, 3), dtype="uint8")
    seen_eject = False
    for _ in range(30):
        img, out = aug(src, label.copy())
        assert _boxes_inside(out)
        if img.shape[0] < 100 and out.shape[0] == 1:
            seen_eject = True
    assert seen_eject


def test_random_pad_properties():
    random.seed(3)
    aug = mx.image.DetRandomPadAug(area_range=(1.5, 3.0), pad_val=(1, 2, 3))
    src, label = mx.nd.array(DATA["src"], dtype="uint8"), DATA["label"]
    h, w = src.shape[:2]
    for _ in range(10):
        img, out = aug(src, label.copy())
        H, W = img.shape[:2]
        assert H >= h + 2 and W >= w + 2 and img.dtype == np.uint8
        assert _boxes_inside(out)
        # the boxes still cover the same pixels: scale back and compare
        np.testing.assert_allclose((out[:, 3] - out[:, 1]) * W, (label[:, 3] - label[:, 1]) * w,
                                   rtol=1e-4)
        arr = img.asnumpy()
        assert (arr[0, 0] == [1, 2, 3]).all() or (arr[-1, -1] == [1, 2, 3]).all()


def test_disabled_augmenters_warn_and_pass_through():
    with pytest.warns(UserWarning, match="area_range"):
        crop = mx.image.DetRandomCropAug(area_range=(0.5, 0.2))
    with pytest.warns(UserWarning, match="aspect_ratio_range"):
        pad = mx.image.DetRandomPadAug(aspect_ratio_range=(0, 1))
    src, label = mx.nd.array(DATA["src"], dtype="uint8"), DATA["label"].copy()
    for aug in (crop, pad):
        img, out = aug(src, label)
        assert img is src and out is label


def test_borrow_and_select_validation():
    with pytest.raises(TypeError):
        mx.image.DetBorrowAug(mx.image.DetHorizontalFlipAug(0.5))
    with pytest.raises(ValueError):
        mx.image.DetRandomSelectAug([mx.image.CastAug()])
    empty = mx.image.DetRandomSelectAug([])
    label = DATA["label"].copy()
    img, out = empty(mx.nd.zeros((4, 4, 3)), label)
    assert out is label


def test_exports():
    for name in ["ImageDetIter", "CreateDetAugmenter", "DetAugmenter", "DetBorrowAug",
                 "DetRandomSelectAug", "DetHorizontalFlipAug", "DetRandomCropAug",
                 "DetRandomPadAug", "CreateMultiRandCropAugmenter"]:
        assert getattr(mx.image, name) is getattr(mx.image.detection, name)
        assert getattr(mx.image.det, name) is getattr(mx.image, name)
        assert name in mx.image.__all__


# -- labels --------------------------------------------------------------------------------------
def _iter_over(root, labels, **kwargs):
    imglist = [label + ["img0.png"] for label in labels]
    return mx.image.ImageDetIter(len(labels), (3, 16, 16), imglist=imglist, path_root=root,
                                 **kwargs)


def test_parse_label_errors(root):
    it = _iter_over(root, [[2, 5, 0, 0.1, 0.1, 0.5, 0.5]])
    assert it.label_shape == (1, 5)
    with pytest.raises(RuntimeError, match="invalid"):
        it._parse_label(np.array([2, 5, 0, 0.1, 0.1, 0.5]))
    with pytest.raises(RuntimeError, match="inconsistent"):
        it._parse_label(np.array([2, 5, 0, 0.1, 0.1, 0.5, 0.5, 1]))
    with pytest.raises(RuntimeError, match="no valid label"):
        it._parse_label(np.array([2, 5, 0, 0.5, 0.1, 0.1, 0.5]))
    with pytest.raises(RuntimeError, match="object width"):
        it._parse_label(np.array([2, 3, 0, 0.1, 0.1, 0.5, 0.5]))
    out = it._parse_label(mx.nd.array([3, 6, 9, 1, 0.1, 0.2, 0.3, 0.4, 7]))
    np.testing.assert_allclose(out, [[1, 0.1, 0.2, 0.3, 0.4, 7]], rtol=1e-6)


@pytest.mark.pillow
def test_invalid_samples_skipped_and_padded(root):
    labels = [[2, 5, 3, 0.1, 0.1, 0.5, 0.5, 4, 0.2, 0.2, 0.9, 0.9],
              [2, 5, -1, 0.1, 0.1, 0.5, 0.5],  # only ignored ids: skipped
              [2, 5, 1, 0.3, 0.3, 0.6, 0.6]]
    it = _iter_over(root, labels)
    assert it.provide_label[0][1] == (3, 2, 5)
    batch = it.next()
    label = batch.label[0].asnumpy()
    # the skipped image's slot is filled from the next epoch (pad)
    np.testing.assert_allclose(label[0], np.array(labels[0][2:], np.float32).reshape(2, 5))
    np.testing.assert_allclose(label[1, 0], labels[2][2:], rtol=1e-6)
    assert (label[1, 1] == -1).all()
    assert batch.pad == 1


# -- draw_next -------------------------------------------------------------------------------------
@pytest.mark.pillow
def test_draw_next_without_opencv(root):
    labels = [[2, 5, 1, 0.25, 0.25, 0.75, 0.75]]
    it = _iter_over(root, labels)
    images = list(it.draw_next(color=(255, 0, 0), thickness=1))
    assert len(images) == 1
    img = images[0]
    assert img.shape == (16, 16, 3) and img.dtype == np.uint8
    # colour given in RGB, image in BGR: red box is [0, 0, 255]
    assert (img[4, 4:13] == [0, 0, 255]).all() and (img[12, 4:13] == [0, 0, 255]).all()
    assert (img[4:13, 4] == [0, 0, 255]).all() and (img[4:13, 12] == [0, 0, 255]).all()
    try:
        import cv2  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="OpenCV"):
            it.draw_next(waitKey=1)
        with pytest.raises(ImportError, match="OpenCV"):
            it.draw_next(id2labels={1: "cat"})


@pytest.mark.pillow
def test_draw_next_undoes_normalization(root):
    labels = [[2, 5, 1, 0.25, 0.25, 0.75, 0.75]]
    _seed()
    plain = list(_iter_over(root, labels).draw_next(color=(0, 255, 0)))[0]
    _seed()
    normed = _iter_over(root, labels, mean=True, std=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = list(normed.draw_next(color=(0, 255, 0), mean=True, std=True))[0]
    assert np.abs(plain.astype(int) - again.astype(int)).max() <= 1
