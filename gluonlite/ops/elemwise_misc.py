"""Small elementwise utilities: ``_copy``/``identity``, ``BlockGrad``,
``_identity_with_attr_like_rhs``,
``zeros_like``, ``ones_like``, ``Cast``, ``amp_cast``, ``amp_multicast``,
``clip`` and ``smooth_l1`` (MXNet 1.9 semantics).

Dtype rules checked against MXNet:

* ``Cast`` from float to integer truncates toward zero; narrow integer targets
  (int8, uint8, int16) wrap around as the C cast through int32 does; the
  gradient is cast back to the input dtype.
* ``amp_cast`` only casts float16/float32 inputs; float64 and integer inputs pass
  through unchanged.
* ``amp_multicast`` casts float16 inputs to float32 when some input is float32
  (or, with ``cast_narrow``, float32 inputs to float16 when some input is
  float16); other dtypes pass through.
* ``clip`` is ``x > a_max ? a_max : (x < a_min ? a_min : x)`` with the bounds
  truncated to integer dtypes; its gradient passes where ``a_min <= x <= a_max``.
* ``smooth_l1`` is ``0.5 (s x)^2`` where ``|x| < 1/s^2``, else ``|x| - 0.5/s^2``.
"""
from __future__ import annotations

import numpy as np

from .attrs import Attr
from .common import merge_shapes, put, same_shape_infer
from .expr import ElemMath, const, fn, var, where
from .registry import OpDef, register

_X = var("x")

_F16 = np.dtype(np.float16)
_F32 = np.dtype(np.float32)


def _const_nd(F, raw, like):
    """Wrap a raw array as an unrecorded array of ``F`` on ``like``'s context."""
    return F.NDArray(raw, like.context)


def _cast(x, dtype):
    """``x.astype(dtype)`` with MXNet's (C) float-to-integer conversion."""
    dtype = np.dtype(dtype)
    if x.dtype == dtype:
        return x.copy()
    with np.errstate(invalid="ignore", over="ignore"):
        if x.dtype.kind == "f" and dtype.kind in "iu" and dtype.itemsize < 4:
            return x.astype(np.int32).astype(dtype)
        if x.dtype.kind == "f" and dtype.kind == "u":
            return x.astype(np.int64).astype(dtype)
        return x.astype(dtype)


# -- _copy / identity, BlockGrad ----------------------------------------------------------
def _copy_forward(oc, attrs, inputs, out):
    x = inputs[0]
    if out is not None:
        out[0][...] = x
        return [out[0]]
    return [x.copy()]


def _pass_backward(oc, attrs, inputs, outputs, out_grads):
    return [out_grads[0]]


def _zero_backward(oc, attrs, inputs, outputs, out_grads):
    return [oc.xp.zeros_like(out_grads[0])]


register(OpDef("_copy", _copy_forward, backward=_pass_backward,
               infer_shape=same_shape_infer("_copy"), aliases=("identity",),
               math=ElemMath(_X, (const(1),), ("x",)), fuse_int=True, backward_uses=(),
               doc="Copy of the input (MXNet ``identity``).", listed_inputs=False))
register(OpDef("BlockGrad", _copy_forward, backward=_zero_backward,
               infer_shape=same_shape_infer("BlockGrad"), aliases=("stop_gradient",),
               math=ElemMath(_X, (const(0),), ("x",)), fuse_int=True, backward_uses=(),
               zero_gradient=True,
               doc="Copy of the input that stops the gradient (zero gradient).",
               listed_inputs=False))


def _like_rhs_backward(oc, attrs, inputs, outputs, out_grads):
    return [out_grads[0], oc.xp.zeros_like(inputs[1])]


def _like_rhs_graph(F, attrs, inputs, outputs, out_grads):
    return [out_grads[0], F.zeros_like(inputs[1])]


register(OpDef("_identity_with_attr_like_rhs", _copy_forward, backward=_like_rhs_backward,
               inputs=("lhs", "rhs"), infer_shape=same_shape_infer("_identity_with_attr_like_rhs"),
               backward_uses=("inputs",), backward_graph=_like_rhs_graph,
               doc="``lhs`` unchanged, its shape tied to ``rhs``'s both ways (MXNet's "
                   "shape constraint for backward shape inference); ``rhs`` gets a zero "
                   "gradient."))


# -- zeros_like / ones_like ---------------------------------------------------------------
def _fill_forward(value):
    def forward(oc, attrs, inputs, out):
        x = inputs[0]
        if out is not None:
            out[0][...] = value
            return [out[0]]
        return [oc.xp.full(x.shape, value, dtype=x.dtype)]
    return forward


register(OpDef("zeros_like", _fill_forward(0), backward=_zero_backward,
               infer_shape=same_shape_infer("zeros_like"),
               math=ElemMath(const(0), (const(0),), ("x",)), fuse_int=True, backward_uses=(),
               doc="Zeros with the shape and dtype of the input.", listed_inputs=False))
register(OpDef("ones_like", _fill_forward(1), backward=_zero_backward,
               infer_shape=same_shape_infer("ones_like"),
               math=ElemMath(const(1), (const(0),), ("x",)), fuse_int=True, backward_uses=(),
               doc="Ones with the shape and dtype of the input.", listed_inputs=False))


# -- Cast, amp_cast --------------------------------------------------------------------------
def _amp_target(src, dtype):
    """amp_cast output dtype: only float16/float32 inputs are cast."""
    src = np.dtype(src)
    return np.dtype(dtype) if src in (_F16, _F32) else src


def _cast_into(xp, x, o) -> bool:
    """Write ``x`` cast to ``o.dtype`` straight into ``o`` where :func:`_cast` is a plain
    conversion (same dtype, or a source that is not floating); False where it is not
    (floats to integers keep :func:`_cast`'s MXNet rules)."""
    if x.dtype == o.dtype:
        xp.copyto(o, x)
        return True
    if x.dtype.kind != "f" or o.dtype.kind in "fc":
        o[...] = x  # the same C conversion as astype
        return True
    return False


def _cast_forward(oc, attrs, inputs, out):
    if out is not None and _cast_into(oc.xp, inputs[0], out[0]):
        return [out[0]]
    return [put(out, 0, _cast(inputs[0], attrs.dtype))]


def _amp_cast_forward(oc, attrs, inputs, out):
    x = inputs[0]
    if out is not None and _cast_into(oc.xp, x, out[0]):
        return [out[0]]
    return [put(out, 0, _cast(x, _amp_target(x.dtype, attrs.dtype)))]


def _cast_back_backward(oc, attrs, inputs, outputs, out_grads):
    return [out_grads[0].astype(inputs[0].dtype, copy=False)]


def _cast_back_graph(F, attrs, inputs, outputs, out_grads):
    return [F.Cast(out_grads[0], dtype=inputs[0].dtype)]


def _cast_infer_type(op, attrs, in_dtypes):
    return list(in_dtypes), [np.dtype(attrs.dtype)]


def _amp_cast_infer_type(op, attrs, in_dtypes):
    src = in_dtypes[0]
    return list(in_dtypes), [None if src is None else _amp_target(src, attrs.dtype)]


register(OpDef("Cast", _cast_forward, backward=_cast_back_backward,
               attrs={"dtype": Attr("dtype")}, infer_shape=same_shape_infer("Cast"),
               infer_type=_cast_infer_type, aliases=("cast",), backward_uses=("inputs",),
               backward_graph=_cast_back_graph,
               doc="Cast to ``dtype`` (float to integer truncates toward zero).",
               listed_inputs=False))
register(OpDef("amp_cast", _amp_cast_forward, backward=_cast_back_backward,
               attrs={"dtype": Attr("dtype")}, infer_shape=same_shape_infer("amp_cast"),
               infer_type=_amp_cast_infer_type, backward_uses=("inputs",),
               backward_graph=_cast_back_graph,
               doc="AMP cast: casts float16/float32 inputs to ``dtype``, passes others."))


# -- amp_multicast ---------------------------------------------------------------------------
def _multicast_types(attrs, dtypes):
    known = [np.dtype(d) for d in dtypes if d is not None]
    if attrs.cast_narrow:
        src, dst = _F32, (_F16 if _F16 in known else None)
    else:
        src, dst = _F16, (_F32 if _F32 in known else None)
    return [None if d is None else (dst if dst is not None and np.dtype(d) == src
                                    else np.dtype(d)) for d in dtypes]


def _multicast_inputs(attrs):
    return tuple(f"data_{i}" for i in range(attrs.num_outputs))


def _multicast_forward(oc, attrs, inputs, out):
    targets = _multicast_types(attrs, [x.dtype for x in inputs])
    return [put(out, i, _cast(x, t)) for i, (x, t) in enumerate(zip(inputs, targets))]


def _multicast_backward(oc, attrs, inputs, outputs, out_grads):
    return [g.astype(x.dtype, copy=False) for g, x in zip(out_grads, inputs)]


def _multicast_graph(F, attrs, inputs, outputs, out_grads):
    return [F.Cast(g, dtype=x.dtype) for g, x in zip(out_grads, inputs)]


def _multicast_infer_shape(attrs, in_shapes):
    shapes = [merge_shapes("amp_multicast", "input", None, s) for s in in_shapes]
    return shapes, list(shapes)


def _multicast_infer_type(op, attrs, in_dtypes):
    return list(in_dtypes), _multicast_types(attrs, in_dtypes)


register(OpDef("amp_multicast", _multicast_forward, backward=_multicast_backward,
               attrs={"num_outputs": Attr("int"), "cast_narrow": Attr("bool", False)},
               inputs=_multicast_inputs, num_outputs=lambda attrs: attrs.num_outputs,
               key_var_num_args="num_outputs", infer_shape=_multicast_infer_shape,
               infer_type=_multicast_infer_type, backward_uses=("inputs",),
               backward_graph=_multicast_graph,
               doc="AMP cast of several inputs to their widest (or, with "
                   "``cast_narrow``, narrowest) float16/float32 type."))


# -- clip ---------------------------------------------------------------------------------------
def _bound(value, dtype):
    """A clip bound in ``dtype``: truncated and saturated for integer dtypes."""
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        v = float(value)
        if v != v:
            return dtype.type(0)
        return dtype.type(int(min(max(np.trunc(v), info.min), info.max)))
    return dtype.type(value)


def _clip_forward(oc, attrs, inputs, out):
    xp = oc.xp
    x = inputs[0]
    lo, hi = _bound(attrs.a_min, x.dtype), _bound(attrs.a_max, x.dtype)
    if out is not None and lo <= hi and out[0].dtype == x.dtype:
        # with lo <= hi the nested where below is max then min; the bound goes first so
        # that ties (-0.0 against 0.0) keep x's value, as where does, and NaN stays NaN
        o = out[0]
        xp.maximum(lo, x, out=o)
        return [xp.minimum(hi, o, out=o)]
    y = xp.where(x > hi, hi, xp.where(x < lo, lo, x)).astype(x.dtype, copy=False)
    return [put(out, 0, y)]


def _clip_mask(xp, attrs, x):
    lo, hi = _bound(attrs.a_min, x.dtype), _bound(attrs.a_max, x.dtype)
    return ((x >= lo) & (x <= hi)).astype(x.dtype)


def _clip_backward(oc, attrs, inputs, outputs, out_grads):
    return [out_grads[0] * _clip_mask(oc.xp, attrs, inputs[0])]


def _clip_graph(F, attrs, inputs, outputs, out_grads):
    x = inputs[0]
    mask = _clip_mask(x.context.xp, attrs, x._data)
    return [out_grads[0] * _const_nd(F, mask, x)]


def _clip_cuda(attrs, dtype):
    lo, hi = _bound(attrs.a_min, dtype), _bound(attrs.a_max, dtype)
    return ("y = x > hi ? hi : (x < lo ? lo : x)", ("(x >= lo && x <= hi) ? 1 : 0",),
            {"lo": float(lo), "hi": float(hi)})


register(OpDef("clip", _clip_forward, backward=_clip_backward, cuda_fn=_clip_cuda,
               attrs={"a_min": Attr("float"), "a_max": Attr("float")},
               infer_shape=same_shape_infer("clip"), backward_uses=("inputs",),
               backward_graph=_clip_graph,
               doc="Clip to ``[a_min, a_max]``; the gradient passes where "
                   "``a_min <= x <= a_max``.", listed_inputs=False))


# -- smooth_l1 ------------------------------------------------------------------------------------
def _sl1_parts(xp, attrs, x):
    s2 = float(attrs.scalar) ** 2
    quad = xp.abs(x) < 1.0 / s2
    return s2, quad


def _sl1_forward(oc, attrs, inputs, out):
    xp = oc.xp
    x = inputs[0]
    xf = x if x.dtype.kind == "f" else x.astype(np.float64)
    s2, quad = _sl1_parts(xp, attrs, xf)
    y = xp.where(quad, (0.5 * s2) * xf * xf, xp.abs(xf) - 0.5 / s2)
    return [put(out, 0, _cast(y, x.dtype) if y.dtype != x.dtype else y)]


def _sl1_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    x = inputs[0]
    s2, quad = _sl1_parts(xp, attrs, x)
    d = xp.where(quad, s2 * x, xp.sign(x)).astype(x.dtype, copy=False)
    return [out_grads[0] * d]


def _sl1_graph(F, attrs, inputs, outputs, out_grads):
    x = inputs[0]
    s2, quad = _sl1_parts(x.context.xp, attrs, x._data)
    q = _const_nd(F, quad.astype(x.dtype), x)
    lin = _const_nd(F, (~quad).astype(x.dtype), x)
    return [out_grads[0] * (x * s2 * q + F.sign(x) * lin)]


def _sl1_math(attrs):
    s2 = float(attrs.scalar) ** 2
    if s2 == 0:
        return None
    quad = fn.fabs(_X) < 1.0 / s2
    return ElemMath(where(quad, 0.5 * s2 * _X * _X, fn.fabs(_X) - 0.5 / s2),
                    (where(quad, s2 * _X, fn.sign(_X)),), ("x",))


register(OpDef("smooth_l1", _sl1_forward, backward=_sl1_backward, math=_sl1_math,
               attrs={"scalar": Attr("float", 1.0)}, infer_shape=same_shape_infer("smooth_l1"),
               backward_uses=("inputs",), backward_graph=_sl1_graph,
               doc="Smooth L1: ``0.5 (s x)^2`` for ``|x| < 1/s^2``, else ``|x| - 0.5/s^2``.",
               listed_inputs=False))
