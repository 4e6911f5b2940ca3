"""Samples for ``BilinearSampler`` and ``GridGenerator`` (NumPy references written
point by point; MXNet 1.9.1's values are checked in ``test_spatial_sampling.py``)."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(31)


def _sampler_ref(data, grid, cudnn_off=None):
    n, c, h, w = data.shape
    out = np.zeros((n, c) + grid.shape[2:])
    for b in range(n):
        for i in range(grid.shape[2]):
            for j in range(grid.shape[3]):
                x = (grid[b, 0, i, j] + 1) * (w - 1) / 2
                y = (grid[b, 1, i, j] + 1) * (h - 1) / 2
                x0, y0 = int(np.floor(x)), int(np.floor(y))
                for yy, wy in ((y0, 1 - (y - y0)), (y0 + 1, y - y0)):
                    for xx, wx in ((x0, 1 - (x - x0)), (x0 + 1, x - x0)):
                        if 0 <= yy < h and 0 <= xx < w:
                            out[b, :, i, j] += data[b, :, yy, xx] * wy * wx
    return out


def _affine_ref(data, transform_type="affine", target_shape=(0, 0)):
    h, w = target_shape
    ys, xs = np.meshgrid(np.linspace(-1, 1, h), np.linspace(-1, 1, w), indexing="ij")
    coords = np.stack([xs.ravel(), ys.ravel(), np.ones(h * w)])
    return (data.reshape(-1, 2, 3) @ coords).reshape(-1, 2, h, w)


def _warp_ref(data, transform_type="warp", target_shape=(0, 0)):
    _, _, h, w = data.shape
    ys, xs = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")
    x = (data[:, 0] + xs) / ((w - 1) / 2) - 1
    y = (data[:, 1] + ys) / ((h - 1) / 2) - 1
    return np.stack([x, y], axis=1)


def _grid(shape, reach=1.3):
    # keep points off the integer pixel positions where the sampler has kinks
    return _rng.uniform(-reach, reach, shape)


SAMPLES = {
    "BilinearSampler": [
        Sample([_rng.standard_normal((2, 3, 4, 5)), _grid((2, 2, 3, 6))], ref=_sampler_ref,
               eps=1e-7, name="zero_padding_outside"),
        Sample([_rng.standard_normal((1, 2, 6, 3)), _grid((1, 2, 4, 4), 0.9)],
               ref=_sampler_ref, grad=[0], name="inside_data_grad_only"),
        Sample([_rng.standard_normal((1, 1, 3, 3)), _grid((1, 2, 5, 5), 0.9)],
               ref=_sampler_ref, grad=[1], name="upsample_grid_grad_only"),
        Sample([_rng.standard_normal((2, 2, 5, 5)).astype(np.float32),
                _grid((2, 2, 3, 3)).astype(np.float32)], ref=_sampler_ref, grad=False,
               rtol=1e-5, atol=1e-6, name="float32"),
        Sample([_rng.standard_normal((1, 2, 5, 5)).astype(np.float16),
                _grid((1, 2, 3, 3)).astype(np.float16)], ref=_sampler_ref, grad=False,
               rtol=1e-2, atol=1e-2, name="float16"),
    ],
    "GridGenerator": [
        Sample([_rng.standard_normal((2, 6))],
               {"transform_type": "affine", "target_shape": (3, 4)}, ref=_affine_ref,
               name="affine"),
        Sample([_rng.standard_normal((1, 6))],
               {"transform_type": "affine", "target_shape": (5, 2)}, ref=_affine_ref,
               name="affine_tall"),
        Sample([_rng.standard_normal((2, 2, 3, 4))],
               {"transform_type": "warp"}, ref=_warp_ref, name="warp"),
    ],
}
