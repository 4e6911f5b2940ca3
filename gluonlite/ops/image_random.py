"""Image augmentation operators on ``(H, W, C)`` images (``nd.image.*``):
``_image_crop`` (also ``(N, H, W, C)``), ``_image_adjust_lighting``,
``_image_random_lighting``, ``_image_random_flip_left_right``,
``_image_random_flip_top_bottom``, ``_image_random_brightness``,
``_image_random_contrast``, ``_image_random_saturation``, ``_image_random_hue``
and ``_image_random_color_jitter``.

Integer images keep their dtype: results are clipped to the dtype's range and
truncated, as MXNet 1.9 does.  Lighting follows AlexNet's PCA noise
(``x + eigvec @ (alpha * eigval)``).  Contrast blends with the mean grey level of
the image and saturation with each pixel's grey level (grey = 0.299 R + 0.587 G +
0.114 B; MXNet 1.9's CPU saturation kernel uses only the blue term, a bug not
reproduced here).  Hue rotates the HLS hue of 0..255 RGB pixels by a factor
(a full turn is 1); one-channel images are left as they are (MXNet 1.9 returns
zeros).  Colour jitter draws brightness, contrast and saturation factors from
``[max(0, 1 - a), 1 + a]`` and a hue shift from ``[-hue, hue]``, applying each
whose amount is positive, in that order (MXNet 1.9 returns zeros when all
amounts are 0).  The random operators draw from the context's stream
(``mx.random.seed``) and have no gradient, since backward cannot know the draw;
crop and the lighting operators have exact gradients.
"""
from __future__ import annotations

import numpy as np

from .attrs import Attr
from .common import fail, put
from .registry import OpDef, register

_EIGVAL = (55.46, 4.794, 1.148)
_EIGVEC = ((-0.5675, 0.7192, 0.4009),
           (-0.5808, -0.0045, -0.8140),
           (-0.5836, -0.6948, 0.4203))
_GREY = (0.299, 0.587, 0.114)


def _check_hwc(op, shape, batched=False, channels=(1, 3)):
    ndims = (3, 4) if batched else (3,)
    if len(shape) not in ndims:
        form = "(H, W, C) or (N, H, W, C)" if batched else "(H, W, C)"
        fail(op, f"input image must have shape {form}", shape)
    if shape[-1] not in channels:
        fail(op, "the last dimension must be the channel dimension with "
                 f"{' or '.join(map(str, channels))} elements", shape)


def _cast_like(xp, y, x):
    """``y`` (float) in the dtype of ``x``: clipped and truncated for integer images."""
    if x.dtype.kind in "iu":
        info = np.iinfo(x.dtype)
        y = xp.trunc(xp.clip(y, info.min, info.max))
    return y.astype(x.dtype, copy=y is x)


def _float(x):
    return x.astype(np.promote_types(x.dtype, np.float32), copy=False)


def _grey(xp, x):
    """Grey level of each pixel, shape (H, W, 1)."""
    if x.shape[-1] == 1:
        return _float(x)
    w = xp.asarray(_GREY, dtype=_float(x).dtype)
    return (_float(x) * w).sum(axis=-1, keepdims=True)


def _same_infer(op, batched=False, channels=(1, 3)):
    def infer(attrs, in_shapes):
        s = in_shapes[0]
        if s is not None:
            _check_hwc(op, s, batched, channels)
        return [s], [s]
    return infer


# -- crop ---------------------------------------------------------------------------

def _crop_box(attrs, shape):
    h, w = shape[-3], shape[-2]
    if attrs.x < 0 or attrs.y < 0 or attrs.width <= 0 or attrs.height <= 0:
        fail("_image_crop", "x, y must be >= 0 and width, height > 0", shape)
    if attrs.x + attrs.width > w:
        fail("_image_crop", "x + width should not be greater than the input width", shape)
    if attrs.y + attrs.height > h:
        fail("_image_crop", "y + height should not be greater than the input height", shape)
    return (slice(attrs.y, attrs.y + attrs.height), slice(attrs.x, attrs.x + attrs.width))


def _crop_fwd(oc, attrs, inputs, out):
    x = inputs[0]
    _check_hwc("_image_crop", x.shape, batched=True)
    rows, cols = _crop_box(attrs, x.shape)
    return [put(out, 0, x[..., rows, cols, :].copy())]


def _crop_bwd(oc, attrs, inputs, outputs, out_grads):
    x = inputs[0]
    rows, cols = _crop_box(attrs, x.shape)
    g = oc.xp.zeros(x.shape, dtype=out_grads[0].dtype)
    g[..., rows, cols, :] = out_grads[0]
    return [g]


def _crop_infer(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [s], [None]
    _check_hwc("_image_crop", s, batched=True)
    _crop_box(attrs, [d or (1 << 30) for d in s])
    return [s], [tuple(s[:-3]) + (attrs.height, attrs.width, s[-1])]


register(OpDef("_image_crop", _crop_fwd, backward=_crop_bwd,
               attrs={"x": Attr("int"), "y": Attr("int"), "width": Attr("int"),
                      "height": Attr("int")},
               infer_shape=_crop_infer, backward_uses=("inputs",),
               doc="Crop (H, W, C) or (N, H, W, C) images to [y, y+height) x [x, x+width)."))


# -- lighting -----------------------------------------------------------------------

def _lighting(xp, x, alpha):
    dt = _float(x).dtype
    vec = xp.asarray(_EIGVEC, dtype=dt)
    rgb = xp.matmul(vec, alpha.astype(dt) * xp.asarray(_EIGVAL, dtype=dt))
    return _cast_like(xp, _float(x) + rgb, x)


def _identity_bwd(oc, attrs, inputs, outputs, out_grads):
    return [out_grads[0].copy()]


def _adjust_lighting_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    x = inputs[0]
    _check_hwc("_image_adjust_lighting", x.shape, channels=(3,))
    if len(attrs.alpha) != 3:
        fail("_image_adjust_lighting", f"alpha must have 3 elements, got {list(attrs.alpha)}",
             x.shape)
    return [put(out, 0, _lighting(xp, x, xp.asarray(attrs.alpha)))]


def _random_lighting_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    x = inputs[0]
    _check_hwc("_image_random_lighting", x.shape, channels=(3,))
    alpha = xp.asarray(oc.rng.normal(0.0, attrs.alpha_std, size=3)) if attrs.alpha_std > 0 \
        else xp.zeros(3)
    return [put(out, 0, _lighting(xp, x, alpha))]


register(OpDef("_image_adjust_lighting", _adjust_lighting_fwd, backward=_identity_bwd,
               attrs={"alpha": Attr("floats")},
               infer_shape=_same_infer("_image_adjust_lighting", channels=(3,)),
               backward_uses=(), doc="AlexNet-style lighting shift with given alphas."))
register(OpDef("_image_random_lighting", _random_lighting_fwd, backward=_identity_bwd,
               attrs={"alpha_std": Attr("float", 0.05)}, random=True,
               infer_shape=_same_infer("_image_random_lighting", channels=(3,)),
               backward_uses=(), doc="AlexNet-style PCA lighting noise."))


# -- random flips and colour factors --------------------------------------------------

def _random_flip(name, axis):
    def forward(oc, attrs, inputs, out):
        x = inputs[0]
        _check_hwc(name, x.shape)
        flip = float(oc.rng.uniform(0.0, 1.0)) < 0.5
        y = oc.xp.flip(x, axis) if flip else x
        return [put(out, 0, y.copy())]

    register(OpDef(name, forward, infer_shape=_same_infer(name), random=True,
                   doc=f"Flip an (H, W, C) image along axis {axis} with probability 0.5."))


_random_flip("_image_random_flip_left_right", 1)
_random_flip("_image_random_flip_top_bottom", 0)


def _brightness(xp, x, alpha):
    return _float(x) * alpha


def _contrast(xp, x, alpha):
    mean = _grey(xp, x).mean()
    return _float(x) * alpha + mean * (1 - alpha)


def _saturation(xp, x, alpha):
    return _float(x) * alpha + _grey(xp, x) * (1 - alpha)


def _color(name, fn):
    def forward(oc, attrs, inputs, out):
        x = inputs[0]
        _check_hwc(name, x.shape)
        if attrs.min_factor > attrs.max_factor:
            fail(name, "min_factor must not exceed max_factor", x.shape)
        alpha = float(oc.rng.uniform(attrs.min_factor, attrs.max_factor))
        return [put(out, 0, _cast_like(oc.xp, fn(oc.xp, x, alpha), x))]

    register(OpDef(name, forward, attrs={"min_factor": Attr("float"),
                                         "max_factor": Attr("float")},
                   infer_shape=_same_infer(name), random=True,
                   doc=f"{name[14:].capitalize()} scaled by a factor drawn from "
                       "[min_factor, max_factor]."))


def _hue(xp, x, alpha):
    """Rotate the hue (HLS, a full turn is 1) of 0..255 RGB pixels by ``alpha``."""
    y = _float(x)
    if x.shape[-1] != 3:
        return y
    rgb = y / 255.0
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    maxc = rgb.max(axis=-1)
    minc = rgb.min(axis=-1)
    light = (maxc + minc) / 2
    span = maxc - minc
    grey = span == 0
    safe = xp.where(grey, 1.0, span)
    denom = xp.where(light <= 0.5, maxc + minc, 2.0 - maxc - minc)
    sat = xp.where(grey, 0.0, span / xp.where(denom == 0, 1.0, denom))
    rc, gc, bc = (maxc - r) / safe, (maxc - g) / safe, (maxc - b) / safe
    hue = xp.where(r == maxc, bc - gc, xp.where(g == maxc, 2.0 + rc - bc, 4.0 + gc - rc))
    hue = xp.where(grey, 0.0, (hue / 6.0) % 1.0)
    hue = (hue + alpha) % 1.0
    m2 = xp.where(light <= 0.5, light * (1 + sat), light + sat - light * sat)
    m1 = 2 * light - m2

    def channel(h):
        h = h % 1.0
        return xp.where(h < 1 / 6, m1 + (m2 - m1) * h * 6,
                        xp.where(h < 0.5, m2,
                                 xp.where(h < 2 / 3, m1 + (m2 - m1) * (2 / 3 - h) * 6, m1)))
    out = xp.stack([channel(hue + 1 / 3), channel(hue), channel(hue - 1 / 3)], axis=-1)
    out = xp.where(grey[..., None], light[..., None], out)
    return (out * 255.0).astype(y.dtype, copy=False)


_color("_image_random_brightness", _brightness)
_color("_image_random_contrast", _contrast)
_color("_image_random_saturation", _saturation)
_color("_image_random_hue", _hue)


def _jitter_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    x = inputs[0]
    name = "_image_random_color_jitter"
    _check_hwc(name, x.shape)
    params = (attrs.brightness, attrs.contrast, attrs.saturation, attrs.hue)
    if any(p < 0 for p in params):
        fail(name, f"jitter amounts must be >= 0, got {list(params)}", x.shape)
    y = _float(x)
    for fn, amount in ((_brightness, attrs.brightness), (_contrast, attrs.contrast),
                       (_saturation, attrs.saturation)):
        if amount > 0:
            y = fn(xp, y, float(oc.rng.uniform(max(0.0, 1 - amount), 1 + amount)))
    if attrs.hue > 0:
        y = _hue(xp, y, float(oc.rng.uniform(-attrs.hue, attrs.hue)))
    return [put(out, 0, _cast_like(xp, y, x))]


register(OpDef("_image_random_color_jitter", _jitter_fwd,
               attrs={"brightness": Attr("float"), "contrast": Attr("float"),
                      "saturation": Attr("float"), "hue": Attr("float")},
               infer_shape=_same_infer("_image_random_color_jitter"), random=True,
               doc="Random brightness, contrast, saturation and hue changes, in that order."))
