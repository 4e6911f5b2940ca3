"""``Dropout`` with MXNet 1.9 semantics.

Outputs ``(output, mask)``; only ``output`` is visible.  In training mode (or
always with ``mode='always'``) each element is kept with probability ``1 - p``
and scaled by ``1 / (1 - p)``; ``mask`` holds that factor (0 or ``1 / (1 - p)``)
at full data shape.  ``axes`` shares one draw along the listed axes (variational
dropout).  Otherwise the operator is the identity and ``mask`` is all ones.  The
gradient is ``out_grad * mask``; for higher orders the mask is a constant (its
gradient through the ``mask`` output is dropped by ``backward``), so the second-order
gradient with respect to the data is zero, as in MXNet.

On the CPU the mask comes from MXNet's own stream and test, so a seeded run drops
MXNet's elements: keep where a float draw ``u <= 1 - p`` (``u < 1 - p`` with ``axes``),
the factor ``1 / (1 - p)`` computed in float32.
"""
from __future__ import annotations

import numpy as np

from .._rng import MXNetCPUStream
from .attrs import Attr
from .common import norm_axis, put, same_shape_infer
from .registry import OpDef, register


def _active(oc, attrs) -> bool:
    return attrs.mode == "always" or oc.is_train


def _forward(oc, attrs, inputs, out):
    xp = oc.xp
    x = inputs[0]
    # MXNet parses p as a float32
    p = float(np.float32(attrs.p))
    if not _active(oc, attrs) or p == 0.0:
        return [put(out, 0, x.copy()), put(out, 1, xp.ones(x.shape, dtype=x.dtype))]
    draw_shape = list(x.shape)
    for a in attrs.axes:
        draw_shape[norm_axis("Dropout", a, x.ndim)] = 1
    rng = oc.rng
    if isinstance(rng, MXNetCPUStream):
        keep_p = np.float32(1) - np.float32(p)
        # the draw is float for float32 data, double otherwise, compared as a float
        keep = rng.uniform01_below(tuple(draw_shape), keep_p, inclusive=not attrs.axes,
                                   double=x.dtype != np.float32)
        with np.errstate(divide="ignore"):
            scale = np.float32(1) / keep_p
    else:
        keep = rng.uniform(0.0, 1.0, size=tuple(draw_shape)) >= p
        scale = 1.0 / (1.0 - p) if p < 1.0 else float("inf")
    # 0 * inf gives NaN for p == 1, as in MXNet
    mask = xp.broadcast_to(keep.astype(x.dtype) * x.dtype.type(scale), x.shape)
    return [put(out, 0, x * mask), put(out, 1, mask.copy())]


def _backward(oc, attrs, inputs, outputs, out_grads):
    return [out_grads[0] * outputs[1]]


def _backward_graph(F, attrs, inputs, outputs, out_grads):
    # outputs[1] is the recorded mask output: the product stays in the graph, and the
    # next order reaches this node again through it, where backward ignores its gradient
    return [out_grads[0] * outputs[1]]


_same = same_shape_infer("Dropout")


def _infer_shape(attrs, in_shapes):
    ins, outs = _same(attrs, in_shapes)
    return ins, [outs[0], outs[0]]


register(OpDef(
    "Dropout", _forward, backward=_backward,
    attrs={
        "p": Attr("float", 0.5),
        "mode": Attr("str", "training", choices=("always", "training")),
        "axes": Attr("shape", ()),
        "cudnn_off": Attr("bool", False, optional=True),
    },
    num_outputs=2, num_visible_outputs=1, output_names=("output", "mask"),
    infer_shape=_infer_shape, random=True, backward_uses=("outputs",),
    backward_graph=_backward_graph,
    elementwise=True,  # output and mask have the data's shape, with or without axes
    doc="Dropout: zero elements with probability ``p`` in training (MXNet ``Dropout``)."))
