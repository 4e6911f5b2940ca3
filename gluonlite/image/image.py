"""``mx.image`` functions: decoding (through Pillow), resizing (the registry's image
resize operator, OpenCV's interpolation codes 0-4, and MXNet's 9 and 10) and MXNet's
crop helpers.

Images are ``(H, W, C)`` NDArrays (``uint8`` after decoding, RGB unless
``to_rgb=False``).  Random crops draw from Python's ``random`` module, as MXNet's do.  Greyscale
decoding follows OpenCV's conversions exactly (see :func:`imdecode`).
"""
from __future__ import annotations

import io
import numbers
import random

import numpy as np

from ..base import MXNetError
from .. import ndarray as nd

__all__ = ["imread", "imdecode", "imresize", "scale_down", "resize_short", "fixed_crop",
           "center_crop", "random_crop", "random_size_crop", "color_normalize"]


def _pil():
    try:
        from PIL import Image
    except ImportError as err:
        raise MXNetError("mx.image needs Pillow to decode images: pip install Pillow "
                         "(or gluonlite[image])") from err
    return Image


# OpenCV's greyscale conversions: libpng's (truncating, 15-bit weights) for PNG, and
# OpenCV's own (rounding, 14-bit weights) for the other decoders; JPEG reads luma.
_PNG_GREY = (9797, 19234, 3737, 15, 0)
_CV_GREY = (4899, 9617, 1868, 14, 1 << 13)


def _open_image(buf: bytes, flag: int):
    """The decoded Pillow image of ``buf``; greyscale JPEGs decode only the luma plane."""
    image = _pil()
    try:
        img = image.open(io.BytesIO(buf))
        if flag == 0 and img.format == "JPEG":
            img.draft("L", img.size)
        img.load()
    except Exception as err:  # Pillow raises several types for corrupt data
        raise MXNetError(f"imdecode: cannot decode the image ({len(buf)} bytes): {err}") \
            from err
    return img


def _grey(img) -> np.ndarray:
    """``(H, W)`` uint8 grey levels as OpenCV's ``IMREAD_GRAYSCALE`` gives them."""
    if img.mode in ("I;16", "I;16B", "I;16L", "I"):
        return (np.asarray(img).astype(np.uint32) >> 8).astype(np.uint8)
    if img.mode in ("L", "LA"):
        return np.asarray(img.convert("L") if img.mode == "LA" else img)
    rgb = np.asarray(img if img.mode == "RGB" else img.convert("RGB")).astype(np.uint32)
    wr, wg, wb, shift, half = _PNG_GREY if img.format == "PNG" else _CV_GREY
    grey = rgb[:, :, 0] * wr + rgb[:, :, 1] * wg + rgb[:, :, 2] * wb + half
    return (grey >> shift).astype(np.uint8)


def _decode_array(buf: bytes, flag: int = 1, to_rgb: bool = True) -> np.ndarray:
    """``(H, W, 3)`` (``flag=1``) or ``(H, W, 1)`` (``flag=0``) uint8 NumPy image."""
    img = _open_image(buf, flag)
    if flag == 0:
        return _grey(img)[:, :, None]
    if img.mode in ("I;16", "I;16B", "I;16L", "I"):
        grey = _grey(img)
        arr = np.repeat(grey[:, :, None], 3, axis=2)
    else:
        arr = np.asarray(img if img.mode == "RGB" else img.convert("RGB"))
    if not to_rgb:
        arr = arr[:, :, ::-1]
    return arr


def imdecode(buf, flag: int = 1, to_rgb: bool = True, out=None):
    """Decode an encoded image as OpenCV (MXNet's decoder) does.

    Parameters
    ----------
    buf : bytes, bytearray, NDArray or numpy.ndarray
        The encoded image (JPEG, PNG, BMP, ... anything Pillow reads).
    flag : int, default 1
        1 for colour ``(H, W, 3)``, 0 for greyscale ``(H, W, 1)`` (OpenCV's
        conversions: the JPEG luma plane; libpng's weights for PNG; OpenCV's
        rounding weights for the other formats).
    to_rgb : bool, default True
        False gives OpenCV's BGR channel order.
    out : NDArray, optional
        Written in place and returned when given.

    Returns
    -------
    NDArray
        The uint8 image.
    """
    if isinstance(buf, nd.NDArray):
        buf = buf.asnumpy().tobytes()
    elif isinstance(buf, np.ndarray):
        buf = buf.tobytes()
    arr = _decode_array(bytes(buf), flag, to_rgb)
    result = nd.array(np.ascontiguousarray(arr), dtype="uint8")
    if out is not None:
        out[:] = result
        return out
    return result


def imread(filename: str, flag: int = 1, to_rgb: bool = True, out=None):
    """Read and decode an image file (see :func:`imdecode`)."""
    try:
        with open(filename, "rb") as f:
            buf = f.read()
    except OSError as err:
        raise MXNetError(f"imread: cannot read {filename}: {err}") from err
    try:
        return imdecode(buf, flag, to_rgb, out)
    except MXNetError as err:
        raise MXNetError(f"imread: {filename}: {err}") from err


def _get_interp_method(interp: int, sizes=()) -> int:
    """MXNet's interpolation choice: 9 picks by direction of the resize, 10 at random."""
    if interp == 9:
        if sizes:
            oh, ow, nh, nw = sizes
            if nh > oh and nw > ow:
                return 2
            if nh < oh and nw < ow:
                return 3
            return 1
        return 2
    if interp == 10:
        return random.randint(0, 4)
    if interp not in (0, 1, 2, 3, 4):
        raise ValueError(f"Unknown interp method {interp}")
    return interp


def imresize(src, w: int, h: int, interp: int = 1, out=None):
    """Resize an ``(H, W, C)`` image to ``(h, w)`` (OpenCV interpolation codes; the
    ``image.resize`` operator's weights).  An unknown ``interp`` raises ``MXNetError``,
    as MXNet's OpenCV operator does (``resize_short`` and the augmenters raise
    ``ValueError``, as MXNet's Python helper does)."""
    if interp not in (0, 1, 2, 3, 4, 9, 10):
        raise MXNetError(f"imresize: Unknown interpolation method {interp} (OpenCV codes "
                         f"0-4, 9, 10) resizing an image of shape {tuple(src.shape)} to "
                         f"({h}, {w})")
    code = _get_interp_method(interp)
    result = nd.image.resize(src, size=(w, h), interp=code)
    if out is not None:
        out[:] = result
        return out
    return result


def scale_down(src_size, size):
    """``size`` (w, h) shrunk, keeping its aspect ratio, to fit in ``src_size``."""
    w, h = size
    sw, sh = src_size
    if sh < h:
        w, h = float(w * sh) / h, sh
    if sw < w:
        w, h = sw, float(h * sw) / w
    return int(w), int(h)


def resize_short(src, size: int, interp: int = 2):
    """Resize so that the shorter side is ``size``."""
    h, w = src.shape[:2]
    if h > w:
        new_h, new_w = size * h // w, size
    else:
        new_h, new_w = size, size * w // h
    return imresize(src, new_w, new_h, interp=_get_interp_method(interp, (h, w, new_h, new_w)))


def fixed_crop(src, x0: int, y0: int, w: int, h: int, size=None, interp: int = 2):
    """The ``(w, h)`` window at ``(x0, y0)``, resized to ``size`` (w, h) when given."""
    out = src[y0:y0 + h, x0:x0 + w]
    if size is not None and (w, h) != tuple(size):
        sizes = (h, w, size[1], size[0])
        out = imresize(out, *size, interp=_get_interp_method(interp, sizes))
    return out


def center_crop(src, size, interp: int = 2):
    """The centre window with the aspect ratio of ``size`` (w, h), resized to it;
    returns ``(image, (x0, y0, w, h))``."""
    h, w = src.shape[:2]
    new_w, new_h = scale_down((w, h), size)
    x0, y0 = int((w - new_w) / 2), int((h - new_h) / 2)
    return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)


def random_crop(src, size, interp: int = 2):
    """A random window with the aspect ratio of ``size``, resized to it; returns
    ``(image, (x0, y0, w, h))``."""
    h, w = src.shape[:2]
    new_w, new_h = scale_down((w, h), size)
    x0, y0 = random.randint(0, w - new_w), random.randint(0, h - new_h)
    return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)


def random_size_crop(src, size, area, ratio, interp: int = 2, **kwargs):
    """Inception-style crop: a random window of ``area`` (fraction range of the image)
    and aspect ``ratio`` range, resized to ``size``; after 10 misses the centre crop."""
    h, w = src.shape[:2]
    src_area = h * w
    if "min_area" in kwargs:
        area = kwargs.pop("min_area")
    if kwargs:
        raise TypeError(f"random_size_crop: unexpected arguments {sorted(kwargs)}")
    if isinstance(area, numbers.Number):
        area = (area, 1.0)
    log_ratio = (np.log(ratio[0]), np.log(ratio[1]))
    for _ in range(10):
        target_area = random.uniform(area[0], area[1]) * src_area
        new_ratio = np.exp(random.uniform(*log_ratio))
        new_w = int(round(np.sqrt(target_area * new_ratio)))
        new_h = int(round(np.sqrt(target_area / new_ratio)))
        if new_w <= w and new_h <= h:
            x0, y0 = random.randint(0, w - new_w), random.randint(0, h - new_h)
            return fixed_crop(src, x0, y0, new_w, new_h, size, interp), \
                (x0, y0, new_w, new_h)
    return center_crop(src, size, interp)


def color_normalize(src, mean, std=None):
    """``(src - mean) / std`` (in place on ``src``, as MXNet's)."""
    if mean is not None:
        src -= mean
    if std is not None:
        src /= std
    return src
