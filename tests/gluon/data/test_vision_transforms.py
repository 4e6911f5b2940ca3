"""``gluon.data.vision.transforms`` against MXNet 1.9.1 (fixture
``training/vision_transforms.npz``) and the random transforms' properties."""
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.gluon.data.vision import transforms as T

DATA = np.load(os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "training",
                            "vision_transforms.npz"))
CASES = {
    "to_tensor": lambda: T.ToTensor(),
    "normalize": lambda: T.Compose([T.ToTensor(),
                                    T.Normalize((0.4, 0.5, 0.6), (0.2, 0.25, 0.3))]),
    "resize": lambda: T.Resize((7, 5)),
    "resize_keep": lambda: T.Resize(6, keep_ratio=True),
    "crop_resize": lambda: T.CropResize(1, 2, 5, 4, size=(3, 3), interpolation=1),
    "crop": lambda: T.CropResize(1, 2, 5, 4),
    "center_crop": lambda: T.CenterCrop(5),
    "center_crop_up": lambda: T.CenterCrop((12, 20)),
    "cast": lambda: T.Cast("float16"),
    "compose": lambda: T.Compose([T.CenterCrop(6), T.ToTensor(), T.Normalize(0.5, 0.25)]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_transform_matches_mxnet(case):
    img = mx.nd.array(DATA["img"], dtype="uint8")
    out = CASES[case]()(img)
    want = DATA[case]
    assert out.shape == want.shape and out.dtype == want.dtype
    # resizing rounds to uint8: one step of difference is allowed there
    atol = 1 if want.dtype == np.uint8 else 1e-5
    np.testing.assert_allclose(out.asnumpy().astype(np.float64), want.astype(np.float64),
                               rtol=0, atol=atol)


def test_compose_hybridizes_runs_of_hybrid_transforms():
    comp = T.Compose([T.CenterCrop(6), T.ToTensor(), T.Normalize(0.5, 0.25)])
    children = list(comp._children.values())
    assert isinstance(children[0], T.CenterCrop)
    assert isinstance(children[1], mx.gluon.nn.HybridSequential)
    with pytest.raises(ValueError, match="not a HybridBlock"):
        T.HybridCompose([T.CenterCrop(3)])


def test_random_transforms_keep_shape_and_vary():
    mx.random.seed(0)
    img = mx.nd.array(DATA["img"], dtype="uint8")
    flips = {tuple(T.RandomFlipLeftRight()(img).asnumpy()[0, :, 0]) for _ in range(20)}
    assert len(flips) == 2  # flipped and not
    x = img.astype("float32")  # the colour operators work on (H, W, C) images, as in MXNet
    for block in (T.RandomBrightness(0.3), T.RandomContrast(0.3), T.RandomSaturation(0.3),
                  T.RandomHue(0.1), T.RandomColorJitter(0.2, 0.2, 0.2, 0.1),
                  T.RandomLighting(0.1), T.RandomFlipTopBottom()):
        out = block(x)
        assert out.shape == x.shape and out.dtype == x.dtype
    import random
    random.seed(3)
    crops = [T.RandomResizedCrop(4)(img) for _ in range(5)]
    assert all(c.shape == (4, 4, 3) and c.dtype == np.uint8 for c in crops)
    assert len({c.asnumpy().tobytes() for c in crops}) > 1
    applied = [T.RandomApply(T.Cast("float16"), p=0.5)(x).dtype for _ in range(40)]
    assert 5 < sum(d == np.float16 for d in applied) < 35
