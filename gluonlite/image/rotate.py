"""Image rotation about the centre (``mx.image.imrotate``, ``random_rotate``).

The sampling grid is built on the host (2 x H x W values per image) and the pixels
are read with the ``BilinearSampler`` operator on the image's device; points outside
the source image are zero.
"""
from __future__ import annotations

from numbers import Number

import numpy as np

from .. import ndarray as nd

__all__ = ["imrotate", "random_rotate"]


def _zoom(angles: np.ndarray, h: int, w: int, zoom_in: bool, zoom_out: bool) -> np.ndarray:
    """Per-image grid scale that keeps the whole rotated image (``zoom_out``) or fills
    the frame without padding (``zoom_in``); 1 otherwise."""
    if not (zoom_in or zoom_out):
        return np.ones_like(angles)
    rho = np.float32(np.sqrt(h * h + w * w))
    corner = np.float32(np.arctan(np.float32(h) / np.float32(w)))
    a = np.abs(angles)
    max_x = np.maximum(np.abs(rho * np.cos(corner + a)), np.abs(rho * np.cos(corner - a)))
    max_y = np.maximum(np.abs(rho * np.sin(corner + a)), np.abs(rho * np.sin(corner - a)))
    if zoom_out:
        return np.maximum(max_x / w, max_y / h)
    return np.minimum(w / max_x, h / max_y)


def _rotation_grid(angles: np.ndarray, h: int, w: int, zoom_in: bool,
                   zoom_out: bool) -> np.ndarray:
    """(N, 2, H, W) sampling grid rotating each image by ``angles`` (radians)."""
    hs, ws = (h - 1) / 2, (w - 1) / 2
    ys = (np.arange(h, dtype=np.float32) - hs)[:, None]
    xs = (np.arange(w, dtype=np.float32) - ws)[None, :]
    cos = np.cos(angles)[:, None, None]
    sin = np.sin(angles)[:, None, None]
    # rotate pixel offsets, then normalise each axis (so the aspect ratio is kept)
    gx = (xs * cos - ys * sin) / np.float32(ws)
    gy = (xs * sin + ys * cos) / np.float32(hs)
    scale = _zoom(angles, h, w, zoom_in, zoom_out)[:, None, None, None]
    return (np.stack([gx, gy], axis=1) * scale).astype(np.float32)


def imrotate(src, rotation_degrees, zoom_in: bool = False, zoom_out: bool = False):
    """Rotate images counter-clockwise about their centres, keeping their shape.

    Parameters
    ----------
    src : NDArray
        A float32 image (C, H, W) or batch (N, C, H, W).
    rotation_degrees : float or NDArray
        One angle in degrees, or one per image of a batch.
    zoom_in : bool, default False
        Scale so that no padding shows.
    zoom_out : bool, default False
        Scale so that the whole source image is kept.

    Returns
    -------
    NDArray
        The rotated image(s); pixels from outside the source are 0.
    """
    if zoom_in and zoom_out:
        raise ValueError("`zoom_in` and `zoom_out` cannot be both True")
    if src.dtype is not np.float32:
        raise TypeError("Only `float32` images are supported by this function")
    single = src.ndim == 3
    if single:
        if not isinstance(rotation_degrees, Number):
            raise TypeError("When a single image is passed the rotation angle is "
                            "required to be a scalar.")
        src = src.expand_dims(axis=0)
    elif src.ndim != 4:
        raise ValueError("Only 3D and 4D are supported by this function")
    if isinstance(rotation_degrees, Number):
        degrees = np.full(len(src), rotation_degrees, dtype=np.float32)
    else:
        degrees = np.asarray(rotation_degrees.asnumpy() if isinstance(rotation_degrees,
                                                                      nd.NDArray)
                             else rotation_degrees, dtype=np.float32).reshape(-1)
    if len(src) != len(degrees):
        raise ValueError("The number of images must be equal to the number of rotation angles")
    _, _, h, w = src.shape
    grid = _rotation_grid(np.float32(np.pi) * degrees / 180, h, w, zoom_in, zoom_out)
    out = nd.BilinearSampler(src, nd.array(grid, ctx=src.context))
    return out[0] if single else out


def random_rotate(src, angle_limits, zoom_in: bool = False, zoom_out: bool = False):
    """Rotate by angles drawn uniformly from ``angle_limits`` (degrees) with NumPy's
    global generator: one angle for an image, one per image for a batch; otherwise as
    :func:`imrotate`."""
    if src.ndim == 3:
        degrees = np.random.uniform(*angle_limits)
    else:
        degrees = nd.array(np.random.uniform(*angle_limits, size=src.shape[0]))
    return imrotate(src, degrees, zoom_in=zoom_in, zoom_out=zoom_out)
