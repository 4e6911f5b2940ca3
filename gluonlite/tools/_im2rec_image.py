"""Image reading, cropping, resizing and encoding for ``im2rec``, on Pillow and the
registry's resize operator, following what MXNet's im2rec does with OpenCV.

Arrays here are in RGB(A) channel order (MXNet's tool holds OpenCV's BGR; the encoded
image is the same either way).  Reading follows ``cv2.imread``:

- ``color=1``: three channels, transparency dropped, the EXIF orientation applied;
- ``color=0``: one grey channel, OpenCV's conversions (shared with ``mx.image``),
  the EXIF orientation applied;
- ``color=-1``: as stored (grey, RGB or RGBA; palettes expanded, 16-bit samples
  reduced to 8 bits), no EXIF rotation.

Resizing uses OpenCV's bilinear weights (``cv2.resize``'s default) through
``mx.image.imresize``; a pixel may differ from OpenCV's by one level.  Encoding uses
Pillow's JPEG and PNG encoders: the pixels are the tool's, the encoded bytes are not
OpenCV's (another encoder, other Huffman tables and zlib settings).
"""
from __future__ import annotations

import io

import numpy as np

from ..base import MXNetError
from ..image.image import _grey, _open_image

__all__ = ["read_image", "crop_center_square", "resize_shorter", "encode_image"]

# EXIF orientation tag value -> the NumPy view that shows the image upright
_ORIENT = {
    2: lambda a: a[:, ::-1],
    3: lambda a: a[::-1, ::-1],
    4: lambda a: a[::-1],
    5: lambda a: a.swapaxes(0, 1),
    6: lambda a: a.swapaxes(0, 1)[:, ::-1],
    7: lambda a: a.swapaxes(0, 1)[::-1, ::-1],
    8: lambda a: a.swapaxes(0, 1)[::-1],
}
_EXIF_ORIENTATION = 0x0112


def _orientation(img) -> int:
    try:
        return int(img.getexif().get(_EXIF_ORIENTATION, 1))
    except Exception:  # a broken EXIF block: OpenCV ignores it too
        return 1


def _as_stored(img) -> np.ndarray:
    """``IMREAD_UNCHANGED``: grey, RGB or RGBA 8-bit samples."""
    if img.mode in ("I;16", "I;16B", "I;16L", "I"):
        return _grey(img)
    if img.mode == "L":
        return np.asarray(img)
    if img.mode in ("LA", "PA", "RGBA") or (img.mode == "P" and "transparency" in img.info):
        return np.asarray(img.convert("RGBA"))
    return np.asarray(img if img.mode == "RGB" else img.convert("RGB"))


def read_image(buf: bytes, color: int = 1) -> np.ndarray:
    """Decode an image file's bytes as ``cv2.imread(path, color)`` would.

    Parameters
    ----------
    buf : bytes
        The file's content.
    color : {1, 0, -1}
        1 colour (``(H, W, 3)`` RGB), 0 grey (``(H, W)``), -1 as stored.

    Returns
    -------
    numpy.ndarray
        uint8 pixels.

    Raises
    ------
    MXNetError
        When Pillow cannot decode ``buf``.
    """
    if color not in (-1, 0, 1):
        raise MXNetError(f"im2rec: color must be 1, 0 or -1, got {color}")
    img = _open_image(buf, 0 if color == 0 else 1)
    if color == -1:
        return _as_stored(img)
    if color == 0:
        arr = _grey(img)
    else:
        arr = np.asarray(img if img.mode == "RGB" else img.convert("RGB"))
    turn = _ORIENT.get(_orientation(img))
    return np.ascontiguousarray(turn(arr)) if turn else arr


def crop_center_square(img: np.ndarray) -> np.ndarray:
    """The centred square of side ``min(H, W)`` (the extra pixel of an odd margin goes
    to the end, as in MXNet's tool)."""
    h, w = img.shape[:2]
    if h > w:
        top = (h - w) // 2
        return img[top:top + w]
    left = (w - h) // 2
    return img[:, left:left + h]


def resize_shorter(img: np.ndarray, size: int) -> np.ndarray:
    """Resize so the shorter side is ``size`` (the longer one ``long * size // short``),
    bilinearly as ``cv2.resize``."""
    from .. import ndarray as nd
    from ..image.image import imresize

    h, w = img.shape[:2]
    if h > w:
        new_w, new_h = size, h * size // w
    else:
        new_w, new_h = w * size // h, size
    grey = img.ndim == 2
    src = nd.array(img[:, :, None] if grey else img, dtype=np.uint8)
    out = imresize(src, new_w, new_h, interp=1).asnumpy()
    return out[:, :, 0] if grey else out


def encode_image(img: np.ndarray, img_fmt: str = ".jpg", quality: int = 95) -> bytes:
    """Encode ``img`` as JPEG (``quality`` 0-100) or PNG (``quality`` the compression
    level, clamped to 0-9 as OpenCV does); JPEG drops an alpha channel, as OpenCV's
    encoder does.

    Raises
    ------
    MXNetError
        For a format other than ``.jpg``/``.jpeg``/``.png``.
    """
    from ..recordio import _pil

    fmt = img_fmt.upper()
    pil = _pil().fromarray(np.ascontiguousarray(img))
    buf = io.BytesIO()
    if fmt in (".JPG", ".JPEG"):
        if pil.mode == "RGBA":
            pil = pil.convert("RGB")
        pil.save(buf, format="JPEG", quality=min(max(int(quality), 0), 100))
    elif fmt == ".PNG":
        pil.save(buf, format="PNG", compress_level=min(max(int(quality), 0), 9))
    else:
        raise MXNetError(f"im2rec: unsupported encoding {img_fmt!r} (.jpg or .png) for an "
                         f"image of shape {img.shape}")
    return buf.getvalue()
