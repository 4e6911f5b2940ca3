"""Image operators: ``_image_to_tensor``, ``_image_normalize``,
``_image_flip_left_right`` and ``_image_flip_top_bottom`` (``nd.image.*``).

``to_tensor`` turns ``(H, W, C)`` or ``(N, H, W, C)`` images of any dtype into
float32 ``(C, H, W)`` / ``(N, C, H, W)`` tensors divided by 255.
``normalize`` computes ``(x - mean) / std`` per channel of ``(C, H, W)`` or
``(N, C, H, W)`` tensors, keeping the input dtype; ``mean``/``std`` have 1 or C
elements (MXNet's defaults are 4 zeros and 4 ones, which fit no image, so they
must be given).  Images have 1 or 3 channels.  The flips work on one ``(H, W, C)``
image (width is axis 1, height axis 0).  Unlike MXNet 1.9, whose flip backward
passes the head gradient through unflipped and whose ``to_tensor`` has no
backward, every gradient here is the derivative of the forward (and the middle
row of an odd-sized flip is kept, where MXNet 1.9's CPU kernel leaves it unset).
"""
from __future__ import annotations

import numpy as np

from .attrs import Attr
from .common import fail, put
from .registry import OpDef, register


def _check_channels(op, n, shape, where):
    if n not in (1, 3):
        fail(op, f"the {where} dimension must be the channel dimension with 1 or 3 "
                 "elements", shape)


# -- to_tensor ----------------------------------------------------------------------

def _check_hwc(op, shape, batched_ok=True):
    ok = (3, 4) if batched_ok else (3,)
    if len(shape) not in ok:
        form = "(H, W, C) or (N, H, W, C)" if batched_ok else "(H, W, C)"
        fail(op, f"input image must have shape {form}", shape)
    _check_channels(op, shape[-1], shape, "last")


def _to_tensor_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    x = inputs[0]
    _check_hwc("_image_to_tensor", x.shape)
    y = xp.moveaxis(x, -1, -3).astype(np.float32) / np.float32(255.0)
    return [put(out, 0, y)]


def _to_tensor_bwd(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    x = inputs[0]
    if x.dtype.kind != "f":
        return [None]
    return [(xp.moveaxis(out_grads[0], -3, -1) / 255.0).astype(x.dtype)]


def _to_tensor_infer(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [s], [None]
    _check_hwc("_image_to_tensor", s)
    return [s], [tuple(s[:-3]) + (s[-1], s[-3], s[-2])]


def _to_tensor_type(op, attrs, in_dtypes):
    return list(in_dtypes), [np.dtype(np.float32)]


register(OpDef("_image_to_tensor", _to_tensor_fwd, backward=_to_tensor_bwd,
               infer_shape=_to_tensor_infer, infer_type=_to_tensor_type,
               backward_uses=("inputs",),
               doc="HWC image(s) to CHW float32 tensor(s) in [0, 1]."))


# -- normalize ----------------------------------------------------------------------

def _norm_params(op, attrs, shape):
    if len(shape) not in (3, 4):
        fail(op, "input tensor must have shape (C, H, W) or (N, C, H, W)", shape)
    c = shape[-3]
    _check_channels(op, c, shape, "channel (first of C, H, W)")
    mean, std = tuple(attrs.mean), tuple(attrs.std)
    for name, v in (("mean", mean), ("std", std)):
        if len(v) not in (1, c):
            fail(op, f"{name} must have 1 or {c} elements, got {list(v)}", shape)
    return mean, std


def _normalize_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    x = inputs[0]
    mean, std = _norm_params("_image_normalize", attrs, x.shape)
    cdt = np.promote_types(x.dtype, np.float32)
    m = xp.asarray(mean, dtype=cdt).reshape(-1, 1, 1)
    s = xp.asarray(std, dtype=cdt).reshape(-1, 1, 1)
    y = (x.astype(cdt) - m) / s
    return [put(out, 0, y.astype(x.dtype, copy=False))]


def _normalize_bwd(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    x = inputs[0]
    _, std = _norm_params("_image_normalize", attrs, x.shape)
    s = xp.asarray(std, dtype=out_grads[0].dtype).reshape(-1, 1, 1)
    return [(out_grads[0] / s).astype(x.dtype, copy=False)]


def _normalize_infer(attrs, in_shapes):
    s = in_shapes[0]
    if s is not None:
        _norm_params("_image_normalize", attrs, s)
    return [s], [s]


register(OpDef("_image_normalize", _normalize_fwd, backward=_normalize_bwd,
               attrs={"mean": Attr("floats", (0.0, 0.0, 0.0, 0.0)),
                      "std": Attr("floats", (1.0, 1.0, 1.0, 1.0))},
               infer_shape=_normalize_infer,
               backward_uses=("inputs",),
               doc="(x - mean) / std per channel of CHW / NCHW tensors."))


# -- flips --------------------------------------------------------------------------

def _flip(name, axis):
    def forward(oc, attrs, inputs, out):
        x = inputs[0]
        _check_hwc(name, x.shape, batched_ok=False)
        return [put(out, 0, oc.xp.flip(x, axis).copy())]

    def backward(oc, attrs, inputs, outputs, out_grads):
        return [oc.xp.flip(out_grads[0], axis).copy()]

    def infer(attrs, in_shapes):
        s = in_shapes[0]
        if s is not None:
            _check_hwc(name, s, batched_ok=False)
        return [s], [s]

    register(OpDef(name, forward, backward=backward, infer_shape=infer, backward_uses=(),
                   doc=f"Flip an (H, W, C) image along axis {axis}."))


_flip("_image_flip_left_right", 1)
_flip("_image_flip_top_bottom", 0)
