"""Samples for ``_contrib_ROIAlign`` and ``ROIPooling`` with point-by-point NumPy
references (MXNet 1.9.1's values are checked in ``tests/test_contrib_detection.py``)."""
import math

import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(43)


def _bilinear(img, y, x):
    h, w = img.shape[-2:]
    if y < -1.0 or y > h or x < -1.0 or x > w:
        return 0.0 * img[..., 0, 0]
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = int(y), int(x)
    if y0 >= h - 1:
        y0 = y1 = h - 1
        y = float(y0)
    else:
        y1 = y0 + 1
    if x0 >= w - 1:
        x0 = x1 = w - 1
        x = float(x0)
    else:
        x1 = x0 + 1
    ly, lx = y - y0, x - x0
    return ((1 - ly) * (1 - lx) * img[..., y0, x0] + (1 - ly) * lx * img[..., y0, x1]
            + ly * (1 - lx) * img[..., y1, x0] + ly * lx * img[..., y1, x1])


def _align_ref(data, rois, pooled_size, spatial_scale, sample_ratio=-1,
               position_sensitive=False, aligned=False):
    ph, pw = pooled_size
    c = data.shape[1] // (ph * pw) if position_sensitive else data.shape[1]
    out = np.zeros((len(rois), c, ph, pw))
    off = 0.5 if aligned else 0.0
    for r, roi in enumerate(rois):
        b = int(roi[0])
        x1, y1, x2, y2 = (v * spatial_scale - off for v in roi[1:])
        rw, rh = x2 - x1, y2 - y1
        if not aligned:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        gh = sample_ratio if sample_ratio > 0 else math.ceil(rh / ph)
        gw = sample_ratio if sample_ratio > 0 else math.ceil(rw / pw)
        for i in range(ph):
            for j in range(pw):
                chans = [k * ph * pw + i * pw + j for k in range(c)] if position_sensitive \
                    else list(range(c))
                img = data[b, chans]
                acc = 0.0
                for iy in range(gh):
                    for ix in range(gw):
                        y = y1 + i * rh / ph + (iy + 0.5) * rh / ph / gh
                        x = x1 + j * rw / pw + (ix + 0.5) * rw / pw / gw
                        acc = acc + _bilinear(img, y, x)
                out[r, :, i, j] = acc / (gh * gw)
    return out


def _pool_ref(data, rois, pooled_size, spatial_scale):
    ph, pw = pooled_size
    n, c, h, w = data.shape
    out = np.zeros((len(rois), c, ph, pw))
    rnd = lambda v: int(math.floor(abs(v) + 0.5)) * (1 if v >= 0 else -1)
    for r, roi in enumerate(rois):
        b = int(roi[0])
        x1, y1, x2, y2 = (rnd(v * spatial_scale) for v in roi[1:])
        bh, bw = max(y2 - y1 + 1, 1) / ph, max(x2 - x1 + 1, 1) / pw
        for i in range(ph):
            for j in range(pw):
                hs = min(max(int(math.floor(i * bh)) + y1, 0), h)
                he = min(max(int(math.ceil((i + 1) * bh)) + y1, 0), h)
                ws = min(max(int(math.floor(j * bw)) + x1, 0), w)
                we = min(max(int(math.ceil((j + 1) * bw)) + x1, 0), w)
                if he > hs and we > ws:
                    out[r, :, i, j] = data[b, :, hs:he, ws:we].max(axis=(1, 2))
    return out


def _rois(k, n_img, size):
    xy = _rng.uniform(-0.1 * size, 0.7 * size, (k, 2))
    wh = _rng.uniform(0.2 * size, 0.7 * size, (k, 2))
    return np.concatenate([_rng.integers(0, n_img, (k, 1)), xy, xy + wh], axis=1)


def _distinct(shape):
    return _rng.permutation(np.arange(int(np.prod(shape)), dtype=np.float64)).reshape(shape) / 7


SAMPLES = {
    "_contrib_ROIAlign": [
        Sample([_rng.standard_normal((2, 2, 5, 6)), _rois(3, 2, 10)],
               {"pooled_size": (2, 2), "spatial_scale": 0.5}, ref=_align_ref, grad=[0],
               name="adaptive"),
        Sample([_rng.standard_normal((1, 3, 6, 6)), _rois(3, 1, 6)],
               {"pooled_size": (2, 3), "spatial_scale": 1.0, "sample_ratio": 2,
                "aligned": True}, ref=_align_ref, grad=[0], name="aligned_sample2"),
        Sample([_rng.standard_normal((2, 8, 5, 5)), _rois(3, 2, 5)],
               {"pooled_size": (2, 2), "spatial_scale": 1.0, "position_sensitive": True},
               ref=_align_ref, grad=[0], name="position_sensitive"),
        Sample([_rng.standard_normal((1, 2, 5, 5)).astype(np.float32),
                _rois(2, 1, 5).astype(np.float32)],
               {"pooled_size": (3, 3), "spatial_scale": 1.0}, ref=_align_ref, grad=False,
               rtol=1e-5, atol=1e-6, name="float32"),
    ],
    "ROIPooling": [
        Sample([_distinct((2, 2, 6, 7)), _rois(4, 2, 7)],
               {"pooled_size": (2, 2), "spatial_scale": 1.0}, ref=_pool_ref, grad=[0],
               name="scale1"),
        Sample([_distinct((1, 3, 8, 8)), _rois(3, 1, 14)],
               {"pooled_size": (3, 2), "spatial_scale": 0.5}, ref=_pool_ref, grad=[0],
               name="scale05"),
        Sample([_distinct((1, 2, 5, 5)).astype(np.float32),
                _rois(2, 1, 5).astype(np.float32)],
               {"pooled_size": (2, 2), "spatial_scale": 1.0}, ref=_pool_ref, grad=False,
               name="float32"),
    ],
}
