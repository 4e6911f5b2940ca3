"""``mx.nd.npx.image``: the image operators over ``mx.np`` arrays (HWC ``uint8`` or
float images, as ``mx.nd.image``)."""
from ...ops.registry import get_op
from ..register import make_function
from ..numpy._array import ndarray

# npx.image name: registry operator
_OPS = {
    "to_tensor": "_image_to_tensor", "normalize": "_image_normalize",
    "resize": "_image_resize", "crop": "_image_crop",
    "flip_left_right": "_image_flip_left_right", "flip_top_bottom": "_image_flip_top_bottom",
    "random_flip_left_right": "_image_random_flip_left_right",
    "random_flip_top_bottom": "_image_random_flip_top_bottom",
    "random_brightness": "_image_random_brightness",
    "random_contrast": "_image_random_contrast",
    "random_saturation": "_image_random_saturation", "random_hue": "_image_random_hue",
    "random_color_jitter": "_image_random_color_jitter",
    "adjust_lighting": "_image_adjust_lighting", "random_lighting": "_image_random_lighting",
}
__all__ = sorted(_OPS)
for _name, _op_name in _OPS.items():
    globals()[_name] = make_function(get_op(_op_name), _name, cls=ndarray)
