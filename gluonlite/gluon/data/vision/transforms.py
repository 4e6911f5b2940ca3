"""``gluon.data.vision.transforms``: image transforms as Blocks (MXNet 1.9 names).

The hybridizable ones are thin blocks over the ``image`` operators of the registry
(``to_tensor``, ``normalize``, ``resize``, ``crop``, the random colour and flip ops);
``Compose`` hybridizes runs of consecutive hybrid transforms, as MXNet's does.
``CenterCrop`` and ``RandomResizedCrop`` use ``mx.image``'s crops, ``Rotate`` and
``RandomRotation`` its ``imrotate`` (the ``BilinearSampler`` operator).
"""
from __future__ import annotations

import numbers
import random

import numpy as np

from .... import image
from ...block import Block, HybridBlock
from ...nn import HybridSequential, Sequential

__all__ = ["Compose", "HybridCompose", "Cast", "ToTensor", "Normalize", "CropResize",
           "CenterCrop", "RandomResizedCrop", "Resize", "RandomFlipLeftRight",
           "RandomFlipTopBottom", "RandomBrightness", "RandomContrast", "RandomSaturation", "RandomHue",
           "RandomColorJitter", "RandomLighting", "RandomApply", "Rotate", "RandomRotation"]


class Compose(Sequential):
    """Apply ``transforms`` in order; consecutive hybrid transforms run as one
    hybridized ``HybridSequential``."""

    def __init__(self, transforms):
        super().__init__()
        run = []
        for t in list(transforms) + [None]:
            if isinstance(t, HybridBlock):
                run.append(t)
                continue
            if len(run) == 1:
                self.add(run[0])
            elif run:
                block = HybridSequential()
                for member in run:
                    block.add(member)
                block.hybridize()
                self.add(block)
            run = []
            if t is not None:
                self.add(t)


class HybridCompose(HybridSequential):
    """``transforms`` (all hybridizable) in one ``HybridSequential``."""

    def __init__(self, transforms):
        super().__init__()
        for t in transforms:
            if not isinstance(t, HybridBlock):
                raise ValueError(f"{t} is not a HybridBlock, try using `Compose` instead")
            self.add(t)
        self.hybridize()


class _ImageOp(HybridBlock):
    """A transform that is one ``F.image.<op>(x, *args)`` call."""

    _op = ""

    def __init__(self, *args):
        super().__init__()
        self._args = args

    def hybrid_forward(self, F, x):
        return getattr(F.image, self._op)(x, *self._args)


class Cast(HybridBlock):
    """Cast the input to ``dtype``."""

    def __init__(self, dtype="float32"):
        super().__init__()
        self._dtype = dtype

    def hybrid_forward(self, F, x):
        return F.cast(x, self._dtype)


class ToTensor(_ImageOp):
    """``(H, W, C)`` uint8 in [0, 255] to ``(C, H, W)`` float32 in [0, 1] (batches too)."""

    _op = "to_tensor"

    def __init__(self):
        super().__init__()


class Normalize(_ImageOp):
    """``(x - mean) / std`` per channel of a ``(C, H, W)`` tensor."""

    _op = "normalize"

    def __init__(self, mean=0.0, std=1.0):
        super().__init__(mean, std)
        self._mean = mean
        self._std = std


class Resize(_ImageOp):
    """Resize to ``size`` (an int: the shorter side with ``keep_ratio``, else both)."""

    _op = "resize"

    def __init__(self, size, keep_ratio=False, interpolation=1):
        super().__init__(size, keep_ratio, interpolation)
        self._size = size
        self._keep = keep_ratio
        self._interpolation = interpolation


class CropResize(HybridBlock):
    """Crop ``(x, y, width, height)`` and optionally resize to ``size``."""

    def __init__(self, x, y, width, height, size=None, interpolation=None):
        super().__init__()
        self._x, self._y, self._width, self._height = x, y, width, height
        self._size = size
        self._interpolation = interpolation

    def hybrid_forward(self, F, x):
        out = F.image.crop(x, self._x, self._y, self._width, self._height)
        if self._size:
            out = F.image.resize(out, self._size, False, self._interpolation)
        return out


class CenterCrop(Block):
    """Crop the centre to the aspect ratio of ``size`` and resize to ``size``
    (``(w, h)`` or an int); an image smaller than ``size`` is upsampled."""

    def __init__(self, size, interpolation=1):
        super().__init__()
        if isinstance(size, numbers.Number):
            size = (size, size)
        self._args = (tuple(size), interpolation)

    def forward(self, x):
        return image.center_crop(x, *self._args)[0]


class RandomResizedCrop(Block):
    """A random window of ``scale`` (area fraction) and ``ratio`` (aspect) ranges,
    resized to ``size`` (Inception-style augmentation)."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), interpolation=1):
        super().__init__()
        if isinstance(size, numbers.Number):
            size = (size, size)
        self._args = (tuple(size), scale, ratio, interpolation)

    def forward(self, x):
        return image.random_size_crop(x, *self._args)[0]


class RandomFlipLeftRight(_ImageOp):
    """Flip horizontally with probability 0.5."""

    _op = "random_flip_left_right"

    def __init__(self):
        super().__init__()


class RandomFlipTopBottom(_ImageOp):
    """Flip vertically with probability 0.5."""

    _op = "random_flip_top_bottom"

    def __init__(self):
        super().__init__()


class _RandomFactor(_ImageOp):
    """Random colour change by a factor drawn from ``[max(0, 1 - v), 1 + v]``."""

    def __init__(self, value):
        super().__init__(max(0, 1 - value), 1 + value)


class RandomBrightness(_RandomFactor):
    """Scale brightness by a random factor."""

    _op = "random_brightness"


class RandomContrast(_RandomFactor):
    """Scale contrast by a random factor."""

    _op = "random_contrast"


class RandomSaturation(_RandomFactor):
    """Scale saturation by a random factor."""

    _op = "random_saturation"


class RandomHue(_RandomFactor):
    """Shift hue by a random factor."""

    _op = "random_hue"


class RandomColorJitter(_ImageOp):
    """Random brightness, contrast, saturation and hue."""

    _op = "random_color_jitter"

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        super().__init__(brightness, contrast, saturation, hue)


class RandomLighting(_ImageOp):
    """AlexNet-style PCA lighting noise of strength ``alpha``."""

    _op = "random_lighting"

    def __init__(self, alpha):
        super().__init__(alpha)
        self._alpha = alpha


class Rotate(Block):
    """Rotate a float32 image (C, H, W) or batch (N, C, H, W) by a fixed angle, keeping
    its shape (see :func:`~gluonlite.image.imrotate`).

    Parameters
    ----------
    rotation_degrees : float
        Counter-clockwise angle in degrees.
    zoom_in : bool, default False
        Scale so that no padding shows.
    zoom_out : bool, default False
        Scale so that the whole image is kept.
    """

    def __init__(self, rotation_degrees, zoom_in: bool = False, zoom_out: bool = False):
        super().__init__()
        self._args = (rotation_degrees, zoom_in, zoom_out)

    def forward(self, x):
        if x.dtype is not np.float32:
            raise TypeError("This transformation only supports float32. "
                            "Consider calling it after ToTensor")
        return image.imrotate(x, *self._args)


class RandomRotation(Block):
    """Rotate by a random angle from ``angle_limits`` (degrees), with probability
    ``rotate_with_proba`` (drawn with NumPy's global generator, as MXNet does).

    Parameters
    ----------
    angle_limits : tuple of 2 floats
        Lower and upper angle.
    zoom_in, zoom_out : bool
        As for :class:`Rotate`.
    rotate_with_proba : float, default 1.0
    """

    def __init__(self, angle_limits, zoom_in: bool = False, zoom_out: bool = False,
                 rotate_with_proba: float = 1.0):
        super().__init__()
        lower, upper = angle_limits
        if lower >= upper:
            raise ValueError("`angle_limits` must be an ordered tuple")
        if rotate_with_proba < 0 or rotate_with_proba > 1:
            raise ValueError("Probability of rotating the image should be between 0 and 1")
        self._args = (angle_limits, zoom_in, zoom_out)
        self._rotate_with_proba = rotate_with_proba

    def forward(self, x):
        if np.random.random() > self._rotate_with_proba:
            return x
        if x.dtype is not np.float32:
            raise TypeError("This transformation only supports float32. "
                            "Consider calling it after ToTensor")
        return image.random_rotate(x, *self._args)


class RandomApply(Sequential):
    """Apply ``transforms`` with probability ``p`` (Python's ``random``, as MXNet)."""

    def __init__(self, transforms, p=0.5):
        super().__init__()
        self.transforms = transforms
        self.p = p

    def forward(self, x):
        if self.p < random.random():
            return x
        return self.transforms(x)
