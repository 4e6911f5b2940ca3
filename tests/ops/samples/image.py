"""Samples for the ``_image_*`` operators."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(41)


def _to_tensor_ref(x):
    return (np.moveaxis(x, -1, -3) / 255.0).astype(np.float32)


def _normalize_ref(x, mean=(0.0,), std=(1.0,)):
    m = np.asarray(mean).reshape(-1, 1, 1)
    s = np.asarray(std).reshape(-1, 1, 1)
    return ((x - m) / s).astype(x.dtype)


_EIGVAL = np.array([55.46, 4.794, 1.148])
_EIGVEC = np.array([[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140],
                    [-0.5836, -0.6948, 0.4203]])
_GREY = np.array([0.299, 0.587, 0.114])


def _crop_ref(x, x0, y0, width, height):
    return x[..., y0:y0 + height, x0:x0 + width, :]


def _lighting_ref(x, alpha):
    return x + _EIGVEC @ (np.asarray(alpha) * _EIGVAL)


def _grey(x):
    return x if x.shape[-1] == 1 else (x @ _GREY)[..., None]


def _either_flip(axis):
    def check(outs, inputs):
        x = inputs[0]
        assert np.array_equal(outs[0], x) or np.array_equal(outs[0], np.flip(x, axis))
    return check


def _uint8(*shape):
    return _rng.integers(0, 256, shape).astype(np.uint8)


def _bilinear(x, oh, ow):
    h, w = x.shape[-3], x.shape[-2]
    # OpenCV: scale 1 / (out / in) in double, source positions rounded to float
    fy = np.maximum(((np.arange(oh) + 0.5) * (1 / (oh / h)) - 0.5).astype(np.float32), 0)
    fx = np.maximum(((np.arange(ow) + 0.5) * (1 / (ow / w)) - 0.5).astype(np.float32), 0)
    fy, fx = fy.astype(np.float64), fx.astype(np.float64)
    y0 = np.minimum(np.floor(fy).astype(int), h - 1)
    x0 = np.minimum(np.floor(fx).astype(int), w - 1)
    y1, x1 = np.minimum(y0 + 1, h - 1), np.minimum(x0 + 1, w - 1)
    wy, wx = (fy - y0)[:, None, None], (fx - x0)[None, :, None]
    r0, r1 = x[..., y0, :, :], x[..., y1, :, :]
    return (r0[..., x0, :] * (1 - wy) * (1 - wx) + r0[..., x1, :] * (1 - wy) * wx
            + r1[..., x0, :] * wy * (1 - wx) + r1[..., x1, :] * wy * wx)


def _resize_ref(x, size, keep_ratio=False, interp=1):
    h, w = x.shape[-3], x.shape[-2]
    if len(size) == 2:
        ow, oh = size
    elif keep_ratio:
        oh, ow = (size[0], int(w * size[0] / h)) if h <= w else (int(h * size[0] / w), size[0])
    else:
        oh = ow = size[0]
    if interp == 1:
        return _bilinear(x, oh, ow)
    iy = np.minimum(np.arange(oh) * h // oh, h - 1)
    ix = np.minimum(np.arange(ow) * w // ow, w - 1)
    return x[..., iy, :, :][..., ix, :]


_INTERP = np.load(__import__("os").path.join(__import__("os").path.dirname(__file__), "..",
                                            "..", "fixtures", "image_resize_interp.npz"))


def _mxnet_resize(key):
    """MXNet 1.9.1's output for this fixture case (bicubic, area, Lanczos)."""
    return lambda x, **_: _INTERP[key]


def _interp_samples():
    samples = []
    for interp in (2, 3, 4):
        for w, h in ((5, 4), (20, 15), (6, 14)):
            key = f"f{interp}_{w}x{h}"
            samples.append(Sample([_INTERP["imgf"].astype(np.float64)],
                                  dict(size=(w, h), interp=interp),
                                  ref=_mxnet_resize(key), rtol=1e-5, atol=1e-5,
                                  name=f"mxnet_{key}"))
    return samples


def _hue_ref(x, min_factor, max_factor):
    import colorsys
    out = np.empty(x.shape)
    for idx in np.ndindex(x.shape[:-1]):
        h, l_, s_ = colorsys.rgb_to_hls(*(x[idx] / 255.0))
        out[idx] = np.array(colorsys.hls_to_rgb((h + min_factor) % 1.0, l_, s_)) * 255
    return out


def _same_ratio(outs, ins):
    np.testing.assert_allclose(np.ptp(outs[0] / ins[0]), 0, atol=1e-9)


SAMPLES = {
    "_image_random_hue": [
        Sample([_rng.uniform(0, 255, (3, 4, 3))], dict(min_factor=0.3, max_factor=0.3),
               ref=_hue_ref, grad=False),
        Sample([np.array([[[128.0, 128, 128], [255, 0, 0], [0, 0, 0], [255, 255, 255]]])],
               dict(min_factor=1 / 3, max_factor=1 / 3), ref=_hue_ref, grad=False,
               atol=1e-9),
        Sample([_rng.uniform(0, 255, (2, 2, 1))], dict(min_factor=0.2, max_factor=0.2),
               ref=lambda x, **_: x),
    ],
    "_image_random_color_jitter": [
        Sample([_rng.uniform(1, 255, (2, 3, 3))],
               dict(brightness=0.0, contrast=0.0, saturation=0.0, hue=0.0), ref=lambda x, **_: x),
        Sample([_rng.uniform(1, 255, (2, 3, 3))],
               dict(brightness=0.5, contrast=0.0, saturation=0.0, hue=0.0), check=_same_ratio),
        Sample([_rng.uniform(1, 255, (2, 3, 3))],
               dict(brightness=0.3, contrast=0.3, saturation=0.3, hue=0.1),
               check=lambda outs, ins: None),
    ],
    "_image_resize": [
        Sample([_rng.standard_normal((4, 6, 3))], dict(size=(3, 2)), ref=_resize_ref),
        Sample([_rng.standard_normal((3, 4, 1))], dict(size=(7, 5)), ref=_resize_ref),
        Sample([_rng.standard_normal((2, 4, 6, 3))], dict(size=(3,), keep_ratio=True),
               ref=_resize_ref),
        Sample([_rng.standard_normal((5, 3, 3))], dict(size=(4, 7), interp=0), ref=_resize_ref),
        Sample([_uint8(4, 5, 3)], dict(size=(2, 2), interp=0), ref=_resize_ref),
    ] + _interp_samples(),
    "_image_crop": [
        Sample([_rng.standard_normal((4, 5, 3))], dict(x=1, y=2, width=3, height=2),
               ref=lambda a, **k: _crop_ref(a, k["x"], k["y"], k["width"], k["height"])),
        Sample([_rng.standard_normal((2, 3, 3, 1))], dict(x=0, y=1, width=2, height=2),
               ref=lambda a, **k: _crop_ref(a, k["x"], k["y"], k["width"], k["height"])),
    ],
    "_image_adjust_lighting": [
        Sample([_rng.uniform(0, 1, (2, 3, 3))], dict(alpha=(0.1, -0.2, 0.3)), ref=_lighting_ref),
        Sample([_uint8(2, 2, 3)], dict(alpha=(0.1, 0.2, 0.3)),
               ref=lambda x, alpha: np.trunc(np.clip(_lighting_ref(x, alpha), 0, 255)),
               grad=False),
    ],
    "_image_random_lighting": [
        Sample([_rng.uniform(0, 1, (2, 3, 3))], dict(alpha_std=0.0), ref=lambda x, **_: x),
        Sample([_rng.uniform(0, 1, (2, 3, 3))], dict(alpha_std=0.1), grad=False,
               check=lambda outs, ins: np.testing.assert_allclose(
                   np.ptp(outs[0] - ins[0], axis=(0, 1)), 0, atol=1e-12)),
    ],
    "_image_random_flip_left_right": [
        Sample([_rng.standard_normal((3, 4, 3))], check=_either_flip(1)),
    ],
    "_image_random_flip_top_bottom": [
        Sample([_uint8(3, 4, 1)], check=_either_flip(0)),
    ],
    "_image_random_brightness": [
        Sample([_rng.uniform(0, 1, (2, 3, 3))], dict(min_factor=1.5, max_factor=1.5),
               ref=lambda x, **k: x * 1.5),
        Sample([_uint8(2, 3, 1)], dict(min_factor=1.5, max_factor=1.5),
               ref=lambda x, **k: np.trunc(np.clip(x * 1.5, 0, 255))),
        Sample([_rng.uniform(0, 1, (2, 3, 3))], dict(min_factor=0.5, max_factor=2.0),
               check=lambda outs, ins: np.testing.assert_allclose(
                   np.ptp(outs[0] / ins[0]), 0, atol=1e-12)),
    ],
    "_image_random_contrast": [
        Sample([_rng.uniform(0, 1, (2, 3, 3))], dict(min_factor=0.5, max_factor=0.5),
               ref=lambda x, **k: 0.5 * x + 0.5 * _grey(x).mean()),
        Sample([_rng.uniform(0, 1, (2, 3, 1))], dict(min_factor=2.0, max_factor=2.0),
               ref=lambda x, **k: 2 * x - x.mean()),
    ],
    "_image_random_saturation": [
        Sample([_rng.uniform(0, 1, (2, 3, 3))], dict(min_factor=0.5, max_factor=0.5),
               ref=lambda x, **k: 0.5 * x + 0.5 * _grey(x)),
        Sample([_rng.uniform(0, 1, (2, 3, 1))], dict(min_factor=0.0, max_factor=3.0),
               ref=lambda x, **k: x),
    ],
    "_image_to_tensor": [
        Sample([_rng.integers(0, 256, (4, 5, 3)).astype(np.uint8)], ref=_to_tensor_ref,
               rtol=1e-6, grad=False),
        Sample([_rng.integers(0, 256, (2, 3, 4, 1)).astype(np.uint8)], ref=_to_tensor_ref,
               rtol=1e-6, grad=False),
        # float32 output: a large step keeps finite differences exact (forward is linear)
        Sample([_rng.uniform(0, 255, (3, 2, 3))], ref=_to_tensor_ref, rtol=1e-6, eps=0.5,
               grad_rtol=1e-3, grad_atol=1e-5),
    ],
    "_image_normalize": [
        Sample([_rng.standard_normal((3, 4, 2))], dict(mean=(0.1, 0.2, 0.3), std=(2, 3, 4)),
               ref=_normalize_ref),
        Sample([_rng.standard_normal((2, 3, 2, 2))], dict(mean=(0.5,), std=(0.25,)),
               ref=_normalize_ref),
        Sample([_rng.standard_normal((1, 2, 3))], dict(mean=(0.5,), std=(2.0,)),
               ref=_normalize_ref),
    ],
    "_image_flip_left_right": [
        Sample([_rng.standard_normal((3, 4, 3))], ref=lambda x: x[:, ::-1]),
        Sample([_rng.standard_normal((2, 3, 1))], ref=lambda x: x[:, ::-1]),
    ],
    "_image_flip_top_bottom": [
        Sample([_rng.standard_normal((3, 4, 3))], ref=lambda x: x[::-1]),
    ],
}
