"""Samples for ``UpSampling``, ``_contrib_BilinearResize2D`` and
``_contrib_AdaptiveAvgPooling2D``."""
import math

import numpy as np

from ..harness import Sample
from .deconvolution import deconv_ref

_rng = np.random.default_rng(53)


def _x(*shape):
    return _rng.standard_normal(shape)


def _src(i, n_in, n_out, align):
    if align:
        return i * (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    return max((i + 0.5) * n_in / n_out - 0.5, 0.0)


def bilinear_ref(x, like=None, height=1, width=1, scale_height=None, scale_width=None,
                 mode="size", align_corners=True):
    """Pixel-by-pixel bilinear interpolation (loops: test sizes only)."""
    h, w = x.shape[2:]
    if mode == "like":
        oh, ow = like.shape[2:]
    else:
        oh = int(h * scale_height) if scale_height else height
        ow = int(w * scale_width) if scale_width else width
    y = np.zeros(x.shape[:2] + (oh, ow))
    for i in range(oh):
        sy = _src(i, h, oh, align_corners)
        y0 = min(int(math.floor(sy)), h - 1)
        y1, fy = min(y0 + 1, h - 1), sy - y0
        for j in range(ow):
            sx = _src(j, w, ow, align_corners)
            x0 = min(int(math.floor(sx)), w - 1)
            x1, fx = min(x0 + 1, w - 1), sx - x0
            y[:, :, i, j] = ((1 - fy) * ((1 - fx) * x[:, :, y0, x0] + fx * x[:, :, y0, x1])
                             + fy * ((1 - fx) * x[:, :, y1, x0] + fx * x[:, :, y1, x1]))
    return y


def adaptive_ref(x, output_size=()):
    if isinstance(output_size, int):
        output_size = (output_size,)
    s = tuple(output_size) if output_size else (1,)
    oh, ow = (s[0], s[0]) if len(s) == 1 else s
    h, w = x.shape[2:]
    y = np.zeros(x.shape[:2] + (oh, ow))
    for i in range(oh):
        a, b = (i * h) // oh, -(-((i + 1) * h) // oh)
        for j in range(ow):
            c, d = (j * w) // ow, -(-((j + 1) * w) // ow)
            y[:, :, i, j] = x[:, :, a:b, c:d].mean(axis=(2, 3))
    return y


def upsampling_ref(*inputs, scale=1, sample_type="nearest", num_filter=0,
                   multi_input_mode="concat", num_args=1, workspace=512):
    if sample_type == "bilinear":
        x, w = inputs
        k = 2 * scale - scale % 2
        p = int(math.ceil((scale - 1) / 2))
        c = num_filter or x.shape[1]
        return deconv_ref(x, w, kernel=(k, k), stride=(scale, scale), pad=(p, p),
                          num_filter=c, num_group=c)
    oh, ow = inputs[0].shape[2] * scale, inputs[0].shape[3] * scale
    ups = [np.repeat(np.repeat(a, oh // a.shape[2], axis=2), ow // a.shape[3], axis=3)
           for a in inputs]
    if multi_input_mode == "sum":
        return sum(ups)
    return np.concatenate(ups, axis=1)


SAMPLES = {
    "_contrib_BilinearResize2D": [
        Sample([_x(1, 2, 3, 4)], dict(height=5, width=3), ref=bilinear_ref),
        Sample([_x(1, 2, 4, 3)], dict(height=3, width=5, align_corners=False),
               ref=bilinear_ref, name="no_align"),
        Sample([_x(2, 1, 3, 3)], dict(scale_height=2.0, scale_width=1.5), ref=bilinear_ref,
               name="scale"),
        Sample([_x(1, 1, 2, 3), _x(1, 1, 4, 2)], dict(mode="like"), ref=bilinear_ref,
               grad=[0], name="like"),
    ],
    "_contrib_AdaptiveAvgPooling2D": [
        Sample([_x(1, 2, 5, 7)], dict(output_size=(2, 3)), ref=adaptive_ref),
        Sample([_x(2, 1, 3, 2)], dict(output_size=4), ref=adaptive_ref, name="upscale"),
        Sample([_x(2, 2, 3, 3)], ref=adaptive_ref, name="default"),
    ],
    "UpSampling": [
        Sample([_x(1, 2, 2, 3)], dict(scale=2, sample_type="nearest"), ref=upsampling_ref),
        Sample([_x(1, 1, 2, 2), _x(1, 2, 4, 4)],
               dict(scale=2, sample_type="nearest", num_args=2), ref=upsampling_ref,
               name="concat"),
        Sample([_x(1, 2, 4, 2), _x(1, 2, 2, 1)],
               dict(scale=1, sample_type="nearest", num_args=2, multi_input_mode="sum"),
               ref=upsampling_ref, name="sum"),
        Sample([_x(1, 2, 2, 2), _x(2, 1, 4, 4)],
               dict(scale=2, sample_type="bilinear", num_filter=2), ref=upsampling_ref,
               infer_from=[0], name="bilinear"),
    ],
}
