"""``mx.image`` augmenters (MXNet 1.9 names) and ``CreateAugmenter``.

An augmenter is a callable on one ``(H, W, C)`` NDArray image.  The random ones draw
from Python's ``random`` module (crops, flips, jitters, grey, the order of
``RandomOrderAug``) or NumPy's global generator (``LightingAug``) at the same points
as MXNet's, so the same seeds give the same augmentations.  Colour augmenters work in
place on float images, as MXNet's do: put ``CastAug`` before them.
"""
from __future__ import annotations

import json
import random
import warnings

import numpy as np

from .. import ndarray as nd
from .image import (_get_interp_method, center_crop, color_normalize, imresize,
                    random_crop, random_size_crop, resize_short)

__all__ = ["Augmenter", "SequentialAug", "ResizeAug", "ForceResizeAug", "RandomCropAug",
           "RandomSizedCropAug", "CenterCropAug", "RandomOrderAug", "BrightnessJitterAug",
           "ContrastJitterAug", "SaturationJitterAug", "HueJitterAug", "ColorJitterAug",
           "LightingAug", "ColorNormalizeAug", "RandomGrayAug", "HorizontalFlipAug",
           "CastAug", "CreateAugmenter"]

# ITU-R 601 luma weights and the YIQ transforms MXNet's jitters use
_LUMA = (0.299, 0.587, 0.114)
_RGB_TO_YIQ = np.array([[0.299, 0.587, 0.114],
                        [0.596, -0.274, -0.321],
                        [0.211, -0.523, 0.311]])
_YIQ_TO_RGB = np.array([[1.0, 0.956, 0.621],
                        [1.0, -0.272, -0.647],
                        [1.0, -1.107, 1.705]])
# ImageNet statistics used by CreateAugmenter's defaults
_PCA_EIGVAL = np.array([55.46, 4.794, 1.148])
_PCA_EIGVEC = np.array([[-0.5675, 0.7192, 0.4009],
                        [-0.5808, -0.0045, -0.8140],
                        [-0.5836, -0.6948, 0.4203]])
_IMAGENET_MEAN = (123.68, 116.28, 103.53)
_IMAGENET_STD = (58.395, 57.12, 57.375)


def _jsonable(value):
    if isinstance(value, nd.NDArray):
        value = value.asnumpy()
    if isinstance(value, np.ndarray):
        value = value.tolist()
    return value


class _Described:
    """Keeps an augmenter's constructor arguments for :meth:`dumps` (shared by the
    classification and the detection augmenters, separate classes as in MXNet).

    Parameters
    ----------
    **kwargs
        The arguments that describe the augmenter (arrays are stored as lists).
    """

    def __init__(self, **kwargs):
        self._kwargs = {key: _jsonable(value) for key, value in kwargs.items()}

    def dumps(self) -> str:
        """JSON ``[class name in lower case, arguments]``."""
        return json.dumps([type(self).__name__.lower(), self._kwargs])


class Augmenter(_Described):
    """Base class of the image augmenters (``__call__(src)``), with :meth:`dumps`."""

    def __call__(self, src):
        raise NotImplementedError("Must override implementation.")


class _AugmenterList(Augmenter):
    """An augmenter made of the augmenters ``ts``."""

    def __init__(self, ts: list):
        super().__init__()
        self.ts = ts

    def dumps(self) -> list:
        """``[class name, [member dumps]]`` (a list, as MXNet's)."""
        return [type(self).__name__.lower(), [t.dumps() for t in self.ts]]

    def __call__(self, src):
        for aug in self.ts:
            src = aug(src)
        return src


class SequentialAug(_AugmenterList):
    """Apply the augmenters ``ts`` one after another.

    Parameters
    ----------
    ts : list of Augmenter
    """


class RandomOrderAug(_AugmenterList):
    """Apply the augmenters ``ts`` in an order shuffled (in place, with
    ``random.shuffle``) on every call.

    Parameters
    ----------
    ts : list of Augmenter
    """

    def __call__(self, src):
        random.shuffle(self.ts)
        return super().__call__(src)


class ResizeAug(Augmenter):
    """Resize the shorter side to ``size`` (see :func:`resize_short`).

    Parameters
    ----------
    size : int
    interp : int, default 2
    """

    def __init__(self, size: int, interp: int = 2):
        super().__init__(size=size, interp=interp)
        self.size = size
        self.interp = interp

    def __call__(self, src):
        return resize_short(src, self.size, self.interp)


class ForceResizeAug(Augmenter):
    """Resize to ``size`` ``(w, h)``, ignoring the aspect ratio.

    Parameters
    ----------
    size : tuple of (int, int)
    interp : int, default 2
    """

    def __init__(self, size, interp: int = 2):
        super().__init__(size=size, interp=interp)
        self.size = size
        self.interp = interp

    def __call__(self, src):
        sizes = (src.shape[0], src.shape[1], self.size[1], self.size[0])
        return imresize(src, *self.size, interp=_get_interp_method(self.interp, sizes))


class RandomCropAug(Augmenter):
    """Random crop to ``size`` ``(w, h)`` (see :func:`random_crop`).

    Parameters
    ----------
    size : tuple of (int, int)
    interp : int, default 2
    """

    def __init__(self, size, interp: int = 2):
        super().__init__(size=size, interp=interp)
        self.size = size
        self.interp = interp

    def __call__(self, src):
        return random_crop(src, self.size, self.interp)[0]


class RandomSizedCropAug(Augmenter):
    """Random crop of random area and aspect ratio, resized to ``size``
    (see :func:`random_size_crop`).

    Parameters
    ----------
    size : tuple of (int, int)
        ``(w, h)`` of the output.
    area : float or tuple of (float, float)
        Area fraction range (a float ``a`` means ``(a, 1)``).
    ratio : tuple of (float, float)
        Aspect ratio range.
    interp : int, default 2
    """

    def __init__(self, size, area, ratio, interp: int = 2, **kwargs):
        super().__init__(size=size, area=area, ratio=ratio, interp=interp)
        self.size = size
        if "min_area" in kwargs:
            warnings.warn("`min_area` is deprecated. Please use `area` instead.",
                          DeprecationWarning)
            area = kwargs.pop("min_area")
        if kwargs:
            raise TypeError(f"RandomSizedCropAug: unexpected arguments {sorted(kwargs)}")
        self.area = area
        self.ratio = ratio
        self.interp = interp

    def __call__(self, src):
        return random_size_crop(src, self.size, self.area, self.ratio, self.interp)[0]


class CenterCropAug(Augmenter):
    """Centre crop to ``size`` ``(w, h)`` (see :func:`center_crop`).

    Parameters
    ----------
    size : tuple of (int, int)
    interp : int, default 2
    """

    def __init__(self, size, interp: int = 2):
        super().__init__(size=size, interp=interp)
        self.size = size
        self.interp = interp

    def __call__(self, src):
        return center_crop(src, self.size, self.interp)[0]


class BrightnessJitterAug(Augmenter):
    """Scale by ``1 + uniform(-brightness, brightness)``.

    Parameters
    ----------
    brightness : float
    """

    def __init__(self, brightness: float):
        super().__init__(brightness=brightness)
        self.brightness = brightness

    def __call__(self, src):
        alpha = 1.0 + random.uniform(-self.brightness, self.brightness)
        src *= alpha
        return src


class ContrastJitterAug(Augmenter):
    """Blend with the mean luma: ``alpha * src + (1 - alpha) * mean grey``, with
    ``alpha = 1 + uniform(-contrast, contrast)``.

    Parameters
    ----------
    contrast : float
    """

    def __init__(self, contrast: float):
        super().__init__(contrast=contrast)
        self.contrast = contrast
        self.coef = nd.array([[_LUMA]])

    def __call__(self, src):
        alpha = 1.0 + random.uniform(-self.contrast, self.contrast)
        weighted = src * self.coef
        grey = (3.0 * (1.0 - alpha) / weighted.size) * nd.sum(weighted)
        src *= alpha
        src += grey
        return src


class SaturationJitterAug(Augmenter):
    """Blend with the per-pixel luma: ``alpha * src + (1 - alpha) * grey``, with
    ``alpha = 1 + uniform(-saturation, saturation)``.

    Parameters
    ----------
    saturation : float
    """

    def __init__(self, saturation: float):
        super().__init__(saturation=saturation)
        self.saturation = saturation
        self.coef = nd.array([[_LUMA]])

    def __call__(self, src):
        alpha = 1.0 + random.uniform(-self.saturation, self.saturation)
        grey = nd.sum(src * self.coef, axis=2, keepdims=True)
        grey *= (1.0 - alpha)
        src *= alpha
        src += grey
        return src


class HueJitterAug(Augmenter):
    """Rotate the hue by ``uniform(-hue, hue) * 180`` degrees (a linear transform in YIQ
    space).

    Parameters
    ----------
    hue : float
    """

    def __init__(self, hue: float):
        super().__init__(hue=hue)
        self.hue = hue
        self.tyiq = _RGB_TO_YIQ
        self.ityiq = _YIQ_TO_RGB

    def __call__(self, src):
        alpha = random.uniform(-self.hue, self.hue)
        cos, sin = np.cos(alpha * np.pi), np.sin(alpha * np.pi)
        rotate_iq = np.array([[1.0, 0.0, 0.0], [0.0, cos, -sin], [0.0, sin, cos]])
        transform = (self.ityiq @ rotate_iq @ self.tyiq).T
        return nd.dot(src, nd.array(transform, ctx=src.context))


class ColorJitterAug(RandomOrderAug):
    """Brightness, contrast and saturation jitters (those that are > 0) in random order.

    Parameters
    ----------
    brightness, contrast, saturation : float
    """

    def __init__(self, brightness: float, contrast: float, saturation: float):
        ts = []
        if brightness > 0:
            ts.append(BrightnessJitterAug(brightness))
        if contrast > 0:
            ts.append(ContrastJitterAug(contrast))
        if saturation > 0:
            ts.append(SaturationJitterAug(saturation))
        super().__init__(ts)


class LightingAug(Augmenter):
    """AlexNet-style PCA noise: adds ``eigvec @ (alpha * eigval)`` with
    ``alpha ~ N(0, alphastd)`` (three draws from NumPy's global generator).

    Parameters
    ----------
    alphastd : float
    eigval : array of 3
    eigvec : 3x3 array
    """

    def __init__(self, alphastd: float, eigval, eigvec):
        super().__init__(alphastd=alphastd, eigval=eigval, eigvec=eigvec)
        self.alphastd = alphastd
        self.eigval = eigval
        self.eigvec = eigvec

    def __call__(self, src):
        alpha = np.random.normal(0, self.alphastd, size=(3,))
        rgb = np.dot(self.eigvec * alpha, self.eigval)
        src += nd.array(rgb, ctx=src.context)
        return src


class ColorNormalizeAug(Augmenter):
    """``(src - mean) / std`` per channel (see :func:`color_normalize`).

    Parameters
    ----------
    mean, std : NDArray, array-like or None
    """

    def __init__(self, mean, std):
        super().__init__(mean=mean, std=std)
        self.mean = mean if mean is None or isinstance(mean, nd.NDArray) else nd.array(mean)
        self.std = std if std is None or isinstance(std, nd.NDArray) else nd.array(std)

    def __call__(self, src):
        return color_normalize(src, self.mean, self.std)


class RandomGrayAug(Augmenter):
    """With probability ``p``, replace every channel by the grey level
    ``0.21 R + 0.72 G + 0.07 B`` (the image keeps 3 channels).

    Parameters
    ----------
    p : float
    """

    def __init__(self, p: float):
        super().__init__(p=p)
        self.p = p
        self.mat = nd.array([[0.21] * 3, [0.72] * 3, [0.07] * 3])

    def __call__(self, src):
        if random.random() < self.p:
            src = nd.dot(src, self.mat.as_in_context(src.context))
        return src


class HorizontalFlipAug(Augmenter):
    """Flip left-right with probability ``p``.

    Parameters
    ----------
    p : float
    """

    def __init__(self, p: float):
        super().__init__(p=p)
        self.p = p

    def __call__(self, src):
        if random.random() < self.p:
            src = nd.flip(src, axis=1)
        return src


class CastAug(Augmenter):
    """Cast to ``typ`` (float32 by default).

    Parameters
    ----------
    typ : str, default 'float32'
    """

    def __init__(self, typ: str = "float32"):
        super().__init__(type=typ)
        self.typ = typ

    def __call__(self, src):
        return src.astype(self.typ)


def _check_stat(name: str, value, default):
    if value is True:
        return nd.array(default)
    if value is not None:
        assert isinstance(value, (np.ndarray, nd.NDArray)) and value.shape[0] in (1, 3), \
            f"CreateAugmenter: {name} must be True, None or an array of 1 or 3 values"
    return value


def CreateAugmenter(data_shape, resize: int = 0, rand_crop: bool = False,
                    rand_resize: bool = False, rand_mirror: bool = False, mean=None, std=None,
                    brightness: float = 0, contrast: float = 0, saturation: float = 0,
                    hue: float = 0, pca_noise: float = 0, rand_gray: float = 0,
                    inter_method: int = 2) -> list:
    """MXNet's standard augmenter list.

    Parameters
    ----------
    data_shape : tuple of int
        ``(C, H, W)`` of the output.
    resize : int, default 0
        Resize the shorter side to this first (when > 0).
    rand_crop : bool, default False
        Random crop instead of the centre crop.
    rand_resize : bool, default False
        Random-sized (Inception) crop; needs ``rand_crop``.
    rand_mirror : bool, default False
        Flip left-right with probability 0.5.
    mean, std : True, array of 1 or 3 values, or None
        Normalisation (True: ImageNet's statistics).
    brightness, contrast, saturation, hue : float, default 0
        Jitter ranges.
    pca_noise : float, default 0
        PCA lighting noise level.
    rand_gray : float, default 0
        Probability of converting to grey.
    inter_method : int, default 2
        Interpolation for every resize (OpenCV codes, 9 and 10 as in :func:`imresize`).

    Returns
    -------
    list of Augmenter
    """
    augs: list = []
    if resize > 0:
        augs.append(ResizeAug(resize, inter_method))
    crop_size = (data_shape[2], data_shape[1])
    if rand_resize:
        assert rand_crop, "CreateAugmenter: rand_resize needs rand_crop"
        augs.append(RandomSizedCropAug(crop_size, 0.08, (3.0 / 4.0, 4.0 / 3.0), inter_method))
    elif rand_crop:
        augs.append(RandomCropAug(crop_size, inter_method))
    else:
        augs.append(CenterCropAug(crop_size, inter_method))
    if rand_mirror:
        augs.append(HorizontalFlipAug(0.5))
    augs.append(CastAug())
    if brightness or contrast or saturation:
        augs.append(ColorJitterAug(brightness, contrast, saturation))
    if hue:
        augs.append(HueJitterAug(hue))
    if pca_noise > 0:
        augs.append(LightingAug(pca_noise, _PCA_EIGVAL, _PCA_EIGVEC))
    if rand_gray > 0:
        augs.append(RandomGrayAug(rand_gray))
    mean = _check_stat("mean", mean, _IMAGENET_MEAN)
    std = _check_stat("std", std, _IMAGENET_STD)
    if mean is not None or std is not None:
        augs.append(ColorNormalizeAug(mean, std))
    return augs
