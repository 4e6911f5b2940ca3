"""``mx.image``: image decoding, resizing and cropping (see ``image.py``)."""
from .image import (imread, imdecode, imresize, scale_down, resize_short,  # noqa: F401
                    fixed_crop, center_crop, random_crop, random_size_crop, color_normalize)
from .image import __all__  # noqa: F401
