"""``mx.image``: image decoding, resizing and cropping (``image.py``), rotation
(``rotate.py``), the augmenters and ``CreateAugmenter`` (``augmenters.py``) and
``ImageIter`` (``image_iter.py``); ``mx.image.detection`` (alias ``det``): the
detection augmenters (``detection_aug.py``) and ``ImageDetIter`` (``detection.py``)."""
from .image import (imread, imdecode, imresize, scale_down, resize_short,  # noqa: F401
                    fixed_crop, center_crop, random_crop, random_size_crop, color_normalize)
from .rotate import imrotate, random_rotate  # noqa: F401
from .augmenters import (Augmenter, SequentialAug, RandomOrderAug, ResizeAug,  # noqa: F401
                         ForceResizeAug, RandomCropAug, RandomSizedCropAug, CenterCropAug,
                         BrightnessJitterAug, ContrastJitterAug, SaturationJitterAug,
                         HueJitterAug, ColorJitterAug, LightingAug, ColorNormalizeAug,
                         RandomGrayAug, HorizontalFlipAug, CastAug, CreateAugmenter)
from .image_iter import ImageIter  # noqa: F401
from . import detection  # noqa: F401
from . import detection as det  # noqa: F401
from .detection import (DetAugmenter, DetBorrowAug, DetRandomSelectAug,  # noqa: F401
                        DetHorizontalFlipAug, DetRandomCropAug, DetRandomPadAug,
                        CreateMultiRandCropAugmenter, CreateDetAugmenter, ImageDetIter)
from . import image as _image, rotate as _rotate, augmenters as _augmenters
from . import image_iter as _image_iter

__all__ = (_image.__all__ + _rotate.__all__ + _augmenters.__all__ + _image_iter.__all__
           + detection.__all__)
