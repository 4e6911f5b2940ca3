"""``mx.image``: image decoding, resizing and cropping (``image.py``) and rotation
(``rotate.py``)."""
from .image import (imread, imdecode, imresize, scale_down, resize_short,  # noqa: F401
                    fixed_crop, center_crop, random_crop, random_size_crop, color_normalize)
from .rotate import imrotate, random_rotate  # noqa: F401
from . import image as _image, rotate as _rotate

__all__ = _image.__all__ + _rotate.__all__
