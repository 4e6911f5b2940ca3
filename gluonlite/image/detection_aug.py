"""``mx.image`` detection augmenters (MXNet 1.9 names) and ``CreateDetAugmenter``.

A detection augmenter is a callable ``aug(src, label) -> (src, label)``: ``src`` is an
``(H, W, C)`` NDArray image and ``label`` a NumPy ``(N, K)`` array with one object per
row, ``[class id, xmin, ymin, xmax, ymax, extra...]``, the corners normalized to
``[0, 1]`` by the image's width and height.

The random augmenters draw from Python's ``random`` module at the same points as
MXNet's (one ``uniform`` for the aspect ratio, ``randint`` for the height and the
offsets of every attempt; ``random``/``shuffle`` in :class:`DetRandomSelectAug`), and
compute the boxes in the label's dtype with the same operations, so the same seeds
give the same crops, pads and boxes.
"""
from __future__ import annotations

import logging
import math
import numbers
import random
import warnings

import numpy as np

from .. import ndarray as nd
from .augmenters import (Augmenter, _Described, CastAug, ColorJitterAug, ColorNormalizeAug,
                         ForceResizeAug, HueJitterAug, LightingAug, RandomGrayAug, ResizeAug,
                         _IMAGENET_MEAN, _IMAGENET_STD, _PCA_EIGVAL, _PCA_EIGVEC)
from .image import fixed_crop

__all__ = ["DetAugmenter", "DetBorrowAug", "DetRandomSelectAug", "DetHorizontalFlipAug",
           "DetRandomCropAug", "DetRandomPadAug", "CreateMultiRandCropAugmenter",
           "CreateDetAugmenter"]


# -- box helpers (rows of [xmin, ymin, xmax, ymax, ...]) ---------------------------------
def _box_areas(boxes: np.ndarray) -> np.ndarray:
    """Areas of the boxes (0 for empty ones)."""
    heights = np.maximum(0, boxes[:, 3] - boxes[:, 1])
    widths = np.maximum(0, boxes[:, 2] - boxes[:, 0])
    return heights * widths


def _intersect_areas(boxes: np.ndarray, window) -> np.ndarray:
    """Areas of the boxes' intersections with ``window`` ``(x1, y1, x2, y2)``."""
    x1, y1, x2, y2 = window
    cut = np.stack([np.maximum(boxes[:, 0], x1), np.maximum(boxes[:, 1], y1),
                    np.minimum(boxes[:, 2], x2), np.minimum(boxes[:, 3], y2)], axis=1)
    empty = (cut[:, 0] >= cut[:, 2]) | (cut[:, 1] >= cut[:, 3])
    cut[empty] = 0
    return _box_areas(cut)


def _as_range(value, name: str, who: str) -> tuple:
    """``(value, value)`` for a number, else the pair itself."""
    if isinstance(value, (tuple, list)):
        return value
    assert isinstance(value, numbers.Number), f"{who}: {name} must be a number or a pair"
    logging.info("Using fixed %s: %s in %s", name.replace("_", " "), value, who)
    return (value, value)


def _pad_constant(src, top: int, bottom: int, left: int, right: int, values):
    """``src`` ``(H, W, C)`` with borders filled by ``values`` per channel (OpenCV's
    ``copyMakeBorder`` with a constant border: a number fills the first channel only,
    missing channels get 0, integer images get the values rounded and saturated)."""
    height, width, channels = src.shape
    fill = np.zeros(channels)
    given = np.atleast_1d(np.asarray(values, dtype=np.float64)).ravel()[:min(channels, 4)]
    fill[:given.size] = given
    dtype = np.dtype(src.dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        fill = np.clip(np.rint(fill), info.min, info.max)
    shape = (height + top + bottom, width + left + right, channels)
    border = nd.array(fill.reshape(1, 1, channels), ctx=src.context, dtype=dtype)
    out = nd.broadcast_to(border, shape=shape).copy()
    out[top:top + height, left:left + width] = src
    return out


# -- augmenters -----------------------------------------------------------------------------
class DetAugmenter(_Described):
    """Base class of the detection augmenters (``__call__(src, label)``), with
    :meth:`dumps`."""

    def __call__(self, src, label):
        raise NotImplementedError("Must override implementation.")


class DetBorrowAug(DetAugmenter):
    """Apply a classification :class:`Augmenter` to the image; the label is unchanged
    (so only for augmenters that move no pixel: resizes, colour, casts).

    Parameters
    ----------
    augmenter : Augmenter
    """

    def __init__(self, augmenter: Augmenter):
        if not isinstance(augmenter, Augmenter):
            raise TypeError("Borrowing from invalid Augmenter")
        super().__init__(augmenter=augmenter.dumps())
        self.augmenter = augmenter

    def dumps(self) -> list:
        """``[class name, the borrowed augmenter's dumps]`` (a list, as MXNet's)."""
        return [type(self).__name__.lower(), self.augmenter.dumps()]

    def __call__(self, src, label):
        return self.augmenter(src), label


class DetRandomSelectAug(DetAugmenter):
    """Skip with probability ``skip_prob``, else apply one augmenter of ``aug_list``
    picked at random (the list is shuffled in place, as MXNet's).

    Parameters
    ----------
    aug_list : DetAugmenter or list of DetAugmenter
    skip_prob : float, default 0
        An empty list always skips.
    """

    def __init__(self, aug_list, skip_prob: float = 0):
        super().__init__(skip_prob=skip_prob)
        if not isinstance(aug_list, (list, tuple)):
            aug_list = [aug_list]
        if not all(isinstance(aug, DetAugmenter) for aug in aug_list):
            raise ValueError("Allow DetAugmenter in list only")
        self.aug_list = aug_list
        self.skip_prob = skip_prob if aug_list else 1

    def dumps(self) -> list:
        """``[class name, [member dumps]]``."""
        return [type(self).__name__.lower(), [aug.dumps() for aug in self.aug_list]]

    def __call__(self, src, label):
        if random.random() < self.skip_prob:
            return src, label
        random.shuffle(self.aug_list)
        return self.aug_list[0](src, label)


class DetHorizontalFlipAug(DetAugmenter):
    """Flip the image left-right with probability ``p``, mirroring the boxes (the label
    is changed in place, as MXNet's).

    Parameters
    ----------
    p : float
    """

    def __init__(self, p: float):
        super().__init__(p=p)
        self.p = p

    def __call__(self, src, label):
        if random.random() < self.p:
            src = nd.flip(src, axis=1)
            label[:, [1, 3]] = 1.0 - label[:, [3, 1]]
        return src, label


class DetRandomCropAug(DetAugmenter):
    """Random crop that keeps the objects: a window of random aspect ratio and area is
    accepted when every object it touches keeps more than ``min_object_covered`` of
    its area; objects left with ``min_eject_coverage`` of their area or less are dropped.

    Parameters
    ----------
    min_object_covered : float, default 0.1
    aspect_ratio_range : float or tuple of (float, float), default (0.75, 1.33)
        Width / height of the window.
    area_range : float or tuple of (float, float), default (0.05, 1.0)
        Area of the window as a fraction of the image.
    min_eject_coverage : float, default 0.3
    max_attempts : int, default 50
        Windows to try before giving up (the image and label are then unchanged).
    """

    def __init__(self, min_object_covered: float = 0.1, aspect_ratio_range=(0.75, 1.33),
                 area_range=(0.05, 1.0), min_eject_coverage: float = 0.3,
                 max_attempts: int = 50):
        aspect_ratio_range = _as_range(aspect_ratio_range, "aspect_ratio", "DetRandomCropAug")
        area_range = _as_range(area_range, "area_range", "DetRandomCropAug")
        super().__init__(min_object_covered=min_object_covered,
                         aspect_ratio_range=aspect_ratio_range, area_range=area_range,
                         min_eject_coverage=min_eject_coverage, max_attempts=max_attempts)
        self.min_object_covered = min_object_covered
        self.min_eject_coverage = min_eject_coverage
        self.max_attempts = max_attempts
        self.aspect_ratio_range = aspect_ratio_range
        self.area_range = area_range
        self.enabled = False
        if area_range[1] <= 0 or area_range[0] > area_range[1]:
            warnings.warn(f"Skip DetRandomCropAug due to invalid area_range: {area_range}")
        elif aspect_ratio_range[0] > aspect_ratio_range[1] or aspect_ratio_range[0] <= 0:
            warnings.warn("Skip DetRandomCropAug due to invalid aspect_ratio_range: "
                          f"{aspect_ratio_range}")
        else:
            self.enabled = True

    def __call__(self, src, label):
        crop = self._random_crop_proposal(label, src.shape[0], src.shape[1])
        if crop:
            x, y, w, h, label = crop
            src = fixed_crop(src, x, y, w, h, None)
        return src, label

    def _window_size(self, height: int, width: int, min_area: float, max_area: float):
        """One random ``(w, h)`` within the ranges, or ``None`` (MXNet's rounding)."""
        ratio = random.uniform(*self.aspect_ratio_range)
        if ratio <= 0:
            return None
        h = int(round(math.sqrt(min_area / ratio)))
        max_h = int(round(math.sqrt(max_area / ratio)))
        if round(max_h * ratio) > width:
            max_h = int((width + 0.4999999) / ratio)  # largest h with round(h * ratio) <= width
        max_h = min(max_h, height)
        h = min(h, max_h)
        if h < max_h:
            h = random.randint(h, max_h)
        w = int(round(h * ratio))
        if w * h < min_area:
            h += 1
            w = int(round(h * ratio))
        if w * h > max_area:
            h -= 1
            w = int(round(h * ratio))
        if min_area <= w * h <= max_area and 0 <= w <= width and 0 <= h <= height:
            return w, h
        return None

    def _covers_objects(self, label, x: int, y: int, w: int, h: int,
                        height: int, width: int) -> bool:
        """Whether the window keeps more than ``min_object_covered`` of every object
        it touches (and touches one)."""
        if w * h < 2:
            return False
        boxes = label[:, 1:]
        areas = _box_areas(boxes)
        visible = areas * width * height > 2
        if not visible.any():
            return False
        window = (float(x) / width, float(y) / height,
                  float(x + w) / width, float(y + h) / height)
        coverage = _intersect_areas(boxes[visible], window) / areas[visible]
        coverage = coverage[coverage > 0]
        return coverage.size > 0 and coverage.min() > self.min_object_covered

    def _crop_labels(self, label, x: int, y: int, w: int, h: int, height: int, width: int):
        """The boxes in the window's coordinates, clipped, without the objects that
        keep ``min_eject_coverage`` of their area or less; ``None`` if none is left."""
        x0, y0 = float(x) / width, float(y) / height
        sx, sy = float(w) / width, float(h) / height
        out = label.copy()
        out[:, [1, 3]] = (out[:, [1, 3]] - x0) / sx
        out[:, [2, 4]] = (out[:, [2, 4]] - y0) / sy
        out[:, 1:5] = np.minimum(1, np.maximum(0, out[:, 1:5]))
        with np.errstate(divide="ignore", invalid="ignore"):
            coverage = _box_areas(out[:, 1:]) * sx * sy / _box_areas(label[:, 1:])
        keep = (out[:, 3] > out[:, 1]) & (out[:, 4] > out[:, 2]) & \
            (coverage > self.min_eject_coverage)
        return out[keep] if keep.any() else None

    def _random_crop_proposal(self, label, height: int, width: int):
        """``(x, y, w, h, new label)`` of an accepted window, or ``()``."""
        if not self.enabled or height <= 0 or width <= 0:
            return ()
        min_area = self.area_range[0] * height * width
        max_area = self.area_range[1] * height * width
        for _ in range(self.max_attempts):
            size = self._window_size(height, width, min_area, max_area)
            if size is None:
                continue
            w, h = size
            y = random.randint(0, max(0, height - h))
            x = random.randint(0, max(0, width - w))
            if self._covers_objects(label, x, y, w, h, height, width):
                new_label = self._crop_labels(label, x, y, w, h, height, width)
                if new_label is not None:
                    return x, y, w, h, new_label
        return ()


class DetRandomPadAug(DetAugmenter):
    """Random expansion: the image is placed at a random offset in a larger canvas of
    random aspect ratio and area, filled with ``pad_val``; the boxes follow.

    Parameters
    ----------
    aspect_ratio_range : float or tuple of (float, float), default (0.75, 1.33)
        Width / height of the canvas.
    area_range : float or tuple of (float, float), default (1.0, 3.0)
        Area of the canvas as a multiple of the image's (the upper bound must be > 1).
    max_attempts : int, default 50
    pad_val : float or tuple of float, default (128, 128, 128)
        Fill value per channel (a number fills the first channel only, as OpenCV's).
    """

    def __init__(self, aspect_ratio_range=(0.75, 1.33), area_range=(1.0, 3.0),
                 max_attempts: int = 50, pad_val=(128, 128, 128)):
        if not isinstance(pad_val, (list, tuple)):
            assert isinstance(pad_val, numbers.Number), "pad_val must be a number or tuple"
        aspect_ratio_range = _as_range(aspect_ratio_range, "aspect_ratio", "DetRandomPadAug")
        area_range = _as_range(area_range, "area_range", "DetRandomPadAug")
        super().__init__(aspect_ratio_range=aspect_ratio_range, area_range=area_range,
                         max_attempts=max_attempts, pad_val=pad_val)
        self.pad_val = pad_val
        self.aspect_ratio_range = aspect_ratio_range
        self.area_range = area_range
        self.max_attempts = max_attempts
        self.enabled = False
        if area_range[1] <= 1.0 or area_range[0] > area_range[1]:
            warnings.warn(f"Skip DetRandomPadAug due to invalid parameters: {area_range}")
        elif aspect_ratio_range[0] <= 0 or aspect_ratio_range[0] > aspect_ratio_range[1]:
            warnings.warn("Skip DetRandomPadAug due to invalid aspect_ratio_range: "
                          f"{aspect_ratio_range}")
        else:
            self.enabled = True

    def __call__(self, src, label):
        height, width, _ = src.shape
        pad = self._random_pad_proposal(label, height, width)
        if pad:
            x, y, w, h, label = pad
            src = _pad_constant(src, y, h - y - height, x, w - x - width, self.pad_val)
        return src, label

    def _update_labels(self, label, pad_box, height: int, width: int):
        """The boxes in the canvas ``pad_box`` ``(x, y, w, h)``'s coordinates."""
        x, y, w, h = pad_box
        out = label.copy()
        out[:, [1, 3]] = (out[:, [1, 3]] * width + x) / w
        out[:, [2, 4]] = (out[:, [2, 4]] * height + y) / h
        return out

    def _random_pad_proposal(self, label, height: int, width: int):
        """``(x, y, w, h, new label)`` of a canvas, or ``()``."""
        if not self.enabled or height <= 0 or width <= 0:
            return ()
        min_area = self.area_range[0] * height * width
        max_area = self.area_range[1] * height * width
        for _ in range(self.max_attempts):
            ratio = random.uniform(*self.aspect_ratio_range)
            if ratio <= 0:
                continue
            h = int(round(math.sqrt(min_area / ratio)))
            max_h = int(round(math.sqrt(max_area / ratio)))
            if round(h * ratio) < width:
                h = int((width + 0.499999) / ratio)
            h = min(max(h, height), max_h)
            if h < max_h:
                h = random.randint(h, max_h)
            w = int(round(h * ratio))
            if h - height < 2 or w - width < 2:
                continue  # a marginal border does not help
            y = random.randint(0, max(0, h - height))
            x = random.randint(0, max(0, w - width))
            return x, y, w, h, self._update_labels(label, (x, y, w, h), height, width)
        return ()


# -- factories ------------------------------------------------------------------------------
def CreateMultiRandCropAugmenter(min_object_covered=0.1, aspect_ratio_range=(0.75, 1.33),
                                 area_range=(0.05, 1.0), min_eject_coverage=0.3,
                                 max_attempts=50, skip_prob: float = 0) -> DetRandomSelectAug:
    """Several :class:`DetRandomCropAug` under one :class:`DetRandomSelectAug`.

    Each argument is one value or a ``list`` of values, one per crop augmenter (tuples
    are single values); single values are shared by all.

    Parameters
    ----------
    min_object_covered : float or list of float, default 0.1
    aspect_ratio_range : tuple or list of tuple, default (0.75, 1.33)
    area_range : tuple or list of tuple, default (0.05, 1.0)
    min_eject_coverage : float or list of float, default 0.3
    max_attempts : int or list of int, default 50
    skip_prob : float, default 0
        Probability of applying none.

    Returns
    -------
    DetRandomSelectAug
    """
    params = [p if isinstance(p, list) else [p] for p in
              (min_object_covered, aspect_ratio_range, area_range, min_eject_coverage,
               max_attempts)]
    count = max(len(p) for p in params)
    for p in params:
        assert len(p) in (1, count), "CreateMultiRandCropAugmenter: list lengths differ"
    params = [p * count if len(p) == 1 else p for p in params]
    augs = [DetRandomCropAug(min_object_covered=moc, aspect_ratio_range=arr, area_range=ar,
                             min_eject_coverage=mec, max_attempts=ma)
            for moc, arr, ar, mec, ma in zip(*params)]
    return DetRandomSelectAug(augs, skip_prob=skip_prob)


def _check_stat(name: str, value, default):
    if value is True:
        return np.array(default)
    if value is not None:
        assert isinstance(value, np.ndarray) and value.shape[0] in (1, 3), \
            f"{name} must be True, None or a NumPy array of 1 or 3 values"
    return value


def CreateDetAugmenter(data_shape, resize: int = 0, rand_crop: float = 0,
                       rand_pad: float = 0, rand_gray: float = 0, rand_mirror: bool = False,
                       mean=None, std=None, brightness: float = 0, contrast: float = 0,
                       saturation: float = 0, pca_noise: float = 0, hue: float = 0,
                       inter_method: int = 2, min_object_covered=0.1,
                       aspect_ratio_range=(0.75, 1.33), area_range=(0.05, 3.0),
                       min_eject_coverage=0.3, max_attempts=50,
                       pad_val=(127, 127, 127)) -> list:
    """MXNet's default detection augmenter list.

    In order: shorter-side resize, random crops (:func:`CreateMultiRandCropAugmenter`,
    applied with probability ``rand_crop``), random mirror, random padding (probability
    ``rand_pad``, canvas area up to ``area_range[1]``), forced resize to ``data_shape``,
    cast to float32, colour jitters, hue, PCA lighting, random grey, normalization.

    Parameters
    ----------
    data_shape : tuple of int
        ``(C, H, W)`` of the output.
    resize : int, default 0
        Shorter side to resize to first (0: none).
    rand_crop, rand_pad, rand_gray : float, default 0
        Probabilities of cropping, padding and grey.
    rand_mirror : bool, default False
        Flip with probability 0.5.
    mean, std : True, numpy.ndarray or None
        ``True`` for ImageNet's statistics.
    brightness, contrast, saturation, hue, pca_noise : float, default 0
    inter_method : int, default 2
        OpenCV interpolation code of the resizes (10: random).
    min_object_covered, aspect_ratio_range, area_range, min_eject_coverage, max_attempts
        Crop constraints, see :func:`CreateMultiRandCropAugmenter`.
    pad_val : tuple of float, default (127, 127, 127)

    Returns
    -------
    list of DetAugmenter
    """
    auglist = []
    if resize > 0:
        auglist.append(DetBorrowAug(ResizeAug(resize, inter_method)))
    if rand_crop > 0:
        auglist.append(CreateMultiRandCropAugmenter(
            min_object_covered, aspect_ratio_range, area_range, min_eject_coverage,
            max_attempts, skip_prob=1 - rand_crop))
    if rand_mirror > 0:
        auglist.append(DetHorizontalFlipAug(0.5))
    if rand_pad > 0:  # as late as possible: padding makes the image larger
        pad = DetRandomPadAug(aspect_ratio_range, (1.0, area_range[1]), max_attempts, pad_val)
        auglist.append(DetRandomSelectAug([pad], 1 - rand_pad))
    auglist.append(DetBorrowAug(ForceResizeAug((data_shape[2], data_shape[1]), inter_method)))
    auglist.append(DetBorrowAug(CastAug()))
    if brightness or contrast or saturation:
        auglist.append(DetBorrowAug(ColorJitterAug(brightness, contrast, saturation)))
    if hue:
        auglist.append(DetBorrowAug(HueJitterAug(hue)))
    if pca_noise > 0:
        auglist.append(DetBorrowAug(LightingAug(pca_noise, _PCA_EIGVAL, _PCA_EIGVEC)))
    if rand_gray > 0:
        auglist.append(DetBorrowAug(RandomGrayAug(rand_gray)))
    mean = _check_stat("mean", mean, _IMAGENET_MEAN)
    std = _check_stat("std", std, _IMAGENET_STD)
    if mean is not None or std is not None:
        auglist.append(DetBorrowAug(ColorNormalizeAug(mean, std)))
    return auglist
