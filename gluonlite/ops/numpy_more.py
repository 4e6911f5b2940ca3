"""More functions of MXNet's NumPy interface as single operators, so that ``mx.np`` and
``mx.sym.np`` build the same node: ``_npi_flip`` (``axis=None`` flips every axis),
``_np_diag``, ``_npi_resize_fallback``, ``_npi_array_split``/``_npi_hsplit``/``_npi_dsplit``, the
elementwise ``_npi_bitwise_not``, ``_npi_isnan``/``isinf``/``isposinf``/``isneginf``/
``isfinite`` and ``_npi_nan_to_num``, ``_npx_constraint_check``, ``_npi_broadcast_to`` and
the boolean-mask assignments.  Statistics are in :mod:`.numpy_stats`, creation
operators in :mod:`.numpy_create`.
"""
from __future__ import annotations

import numpy as np

from ..base import MXNetError
from ._binary_math import reduce_to
from .attrs import Attr
from .common import fail, norm_axis, put, same_shape_infer
from .join_split import _split_v2_bwd, _split_v2_fwd, _split_v2_infer
from .numpy_manip import _register_copy_op
from .registry import OpDef, register

_BOOL = np.dtype(np.bool_)


# -- flip, diag, resize (copies) -----------------------------------------------------------------
def _flip(xp, attrs, ins):
    x = ins[0]
    if attrs.axis is None:
        return xp.flip(x)
    return xp.flip(x, tuple(norm_axis("_npi_flip", int(a), x.ndim) for a in attrs.axis))


_register_copy_op("_npi_flip", _flip, {"axis": Attr("shape", None, optional=True)},
                  "NumPy ``flip``: the order of elements reversed along ``axis`` (every "
                  "axis when None).")


def _diag(xp, attrs, ins):
    x = ins[0]
    if x.ndim not in (1, 2):
        fail("_np_diag", "the input must be 1-d or 2-d", x.shape)
    return xp.diag(x, attrs.k)


_register_copy_op("_np_diag", _diag, {"k": Attr("int", 0)},
                  "NumPy ``diag``: the ``k``-th diagonal of a matrix, or a matrix with a "
                  "vector on its ``k``-th diagonal.")


def _resize(xp, attrs, ins):
    x = ins[0]
    shape = tuple(attrs.new_shape)
    if any(d < 0 for d in shape):
        fail("_npi_resize_fallback", f"new_shape {shape} has a negative dimension", x.shape)
    total = int(np.prod(shape)) if shape else 1
    if x.size == 0 or total == 0:
        return xp.zeros(shape, x.dtype)
    flat = x.reshape(-1)
    reps = -(-total // flat.size)
    return xp.tile(flat, reps)[:total].reshape(shape)


_register_copy_op("_npi_resize_fallback", _resize, {"new_shape": Attr("shape")},
                  "NumPy ``resize``: the elements in order, repeated to fill ``new_shape`` "
                  "(zeros when the input is empty).")


# -- split, array_split, hsplit, dsplit ----------------------------------------------------------
class _SplitAttrs:
    """``_split_v2``'s attributes for an input of ``shape``: the axis resolved and the split
    points clipped to the axis (NumPy gives empty parts beyond its end)."""

    def __init__(self, name, attrs, axis, shape):
        axis = norm_axis(name, axis, len(shape))
        n = shape[axis]
        self.sections, self.squeeze_axis, self.axis = attrs.sections, attrs.squeeze_axis, axis
        if attrs.sections <= 0:
            pts = [min(max(int(i), 0), n) for i in attrs.indices]
            if any(q < p for p, q in zip(pts, pts[1:])):
                fail(name, f"split points {tuple(attrs.indices)} must not decrease", shape)
            self.indices = tuple(pts)
        else:
            self.indices = ()


def _register_split(name: str, min_ndim: int, axis_of, exact: bool, doc: str):
    def resolved(attrs, shape):
        if len(shape) < max(min_ndim, 1):
            fail(name, f"needs an input of at least {max(min_ndim, 1)} dimension(s)", shape)
        res = _SplitAttrs(name, attrs, axis_of(attrs, len(shape)), shape)
        if exact and attrs.sections > 0 and shape[res.axis] % attrs.sections:
            fail(name, f"an axis of size {shape[res.axis]} does not split into "
                 f"{attrs.sections} equal parts", shape)
        return res

    def forward(oc, attrs, inputs, out):
        return _split_v2_fwd(oc, resolved(attrs, inputs[0].shape), inputs, out)

    def backward(oc, attrs, inputs, outputs, out_grads):
        return _split_v2_bwd(oc, resolved(attrs, inputs[0].shape), inputs, outputs,
                             out_grads)

    def n_out(attrs):
        return attrs.sections if attrs.sections > 0 else len(attrs.indices)

    def infer(attrs, in_shapes):
        s = in_shapes[0]
        if s is None:
            return [None], [None] * n_out(attrs)
        return _split_v2_infer(resolved(attrs, tuple(s)), in_shapes)

    register(OpDef(name, forward, backward=backward, infer_shape=infer, num_outputs=n_out,
                   attrs={"indices": Attr("shape"), "axis": Attr("int", 1),
                          "squeeze_axis": Attr("bool", False), "sections": Attr("int", 0)},
                   backward_uses=("inputs",), doc=doc))


_register_split("_npi_array_split", 1, lambda attrs, ndim: attrs.axis, False,
                "NumPy ``array_split`` along ``axis``: ``sections`` nearly equal parts (the "
                "first ``n % sections`` one longer), or at ``indices`` (starting with 0).")
_register_split("_npi_hsplit", 1, lambda attrs, ndim: 0 if ndim == 1 else 1, True,
                "NumPy ``hsplit``: ``split`` along axis 1 (axis 0 of a 1-d input).")
_register_split("_npi_dsplit", 3, lambda attrs, ndim: 2, True,
                "NumPy ``dsplit``: ``split`` along axis 2.")


# -- elementwise predicates, bitwise_not, nan_to_num ------------------------------------------
def _bool_types(op, attrs, in_dtypes):
    return list(in_dtypes), [_BOOL]


def _register_predicate(name: str, fn, doc: str):
    def forward(oc, attrs, inputs, out):
        x = inputs[0]
        if x.dtype.kind not in "fc":  # integers are finite
            fill = oc.xp.ones if name == "_npi_isfinite" else oc.xp.zeros
            return [put(out, 0, fill(x.shape, _BOOL))]
        return [put(out, 0, fn(oc.xp, x))]
    register(OpDef(name, forward, inputs=("x",), infer_shape=same_shape_infer(name),
                   infer_type=_bool_types, differentiable=False, doc=doc))


_register_predicate("_npi_isnan", lambda xp, x: xp.isnan(x), "Elementwise ``isnan``.")
_register_predicate("_npi_isinf", lambda xp, x: xp.isinf(x), "Elementwise ``isinf``.")
_register_predicate("_npi_isposinf", lambda xp, x: xp.isinf(x) & (x > 0),
                    "Elementwise ``isposinf``.")
_register_predicate("_npi_isneginf", lambda xp, x: xp.isinf(x) & (x < 0),
                    "Elementwise ``isneginf``.")
_register_predicate("_npi_isfinite", lambda xp, x: xp.isfinite(x),
                    "Elementwise ``isfinite``.")


def _bitwise_not_forward(oc, attrs, inputs, out):
    x = inputs[0]
    if x.dtype.kind not in "biu":
        fail("_npi_bitwise_not", f"needs an integer or bool input, got {x.dtype}", x.shape)
    return [put(out, 0, oc.xp.invert(x))]


register(OpDef("_npi_bitwise_not", _bitwise_not_forward, inputs=("x",),
               infer_shape=same_shape_infer("_npi_bitwise_not"), differentiable=False,
               doc="Elementwise bitwise NOT of integers (logical NOT of ``bool``)."))


def _nan_to_num_values(attrs, dtype):
    info = np.finfo(dtype)
    hi = info.max if attrs.posinf is None else attrs.posinf
    lo = info.min if attrs.neginf is None else attrs.neginf
    return attrs.nan, hi, lo


def _nan_to_num_forward(oc, attrs, inputs, out):
    x = inputs[0]
    if x.dtype.kind != "f":
        return [put(out, 0, x.copy())]
    nan, hi, lo = _nan_to_num_values(attrs, x.dtype)
    return [put(out, 0, oc.xp.nan_to_num(x, nan=nan, posinf=hi, neginf=lo))]


def _nan_to_num_backward(oc, attrs, inputs, outputs, out_grads):
    x = inputs[0]
    g = out_grads[0]
    if x.dtype.kind != "f":
        return [oc.xp.zeros_like(x)]
    return [oc.xp.where(oc.xp.isfinite(x), g, 0).astype(x.dtype, copy=False)]


register(OpDef("_npi_nan_to_num", _nan_to_num_forward, backward=_nan_to_num_backward,
               attrs={"copy": Attr("bool", True), "nan": Attr("float", 0.0),
                      "posinf": Attr("float", None, optional=True),
                      "neginf": Attr("float", None, optional=True)},
               infer_shape=same_shape_infer("_npi_nan_to_num"), backward_uses=("inputs",),
               doc="NumPy ``nan_to_num``: NaN, +inf and -inf replaced by ``nan``, "
                   "``posinf`` and ``neginf`` (the dtype's extremes when None)."))


# -- constraint_check -------------------------------------------------------------------------
class ConstraintViolated(MXNetError, ValueError):
    """``_npx_constraint_check`` found a false element (MXNet reports a ``ValueError``)."""


def _constraint_forward(oc, attrs, inputs, out):
    x = inputs[0]
    if not bool(x.all()):
        raise ConstraintViolated(f"Operator _npx_constraint_check: {attrs.msg} (input "
                                 f"shape: {tuple(x.shape)})")
    return [put(out, 0, oc.xp.ones((), _BOOL))]


register(OpDef("_npx_constraint_check", _constraint_forward, inputs=("input",),
               attrs={"msg": Attr("str", "Constraint violated.")},
               infer_shape=lambda attrs, s: (list(s), [()]),
               infer_type=lambda op, attrs, d: (list(d), [_BOOL]), differentiable=False,
               doc="Raise ``MXNetError`` with ``msg`` unless every element of the input is "
                   "true; a ``True`` scalar otherwise."))


# -- broadcast_to -----------------------------------------------------------------------------
def _bcast_shape(x_shape, shape):
    """``shape`` for an input of ``x_shape``: MXNet's ``-2`` keeps the input's axis
    (aligned on the right); NumPy's broadcasting rule must hold."""
    shape = tuple(int(d) for d in shape)
    lead = len(shape) - len(x_shape)
    shape = tuple(x_shape[i - lead] if d == -2 and i >= lead else d
                  for i, d in enumerate(shape))
    try:
        if any(d < 0 for d in shape):
            raise ValueError
        if np.broadcast_shapes(tuple(x_shape), shape) != shape:
            raise ValueError
    except ValueError:
        fail("_npi_broadcast_to", f"cannot broadcast to {shape}", x_shape)
    return shape


def _bcast_forward(oc, attrs, inputs, out):
    x = inputs[0]
    shape = _bcast_shape(x.shape, attrs.shape)
    return [put(out, 0, oc.xp.broadcast_to(x, shape).copy())]


def _bcast_backward(oc, attrs, inputs, outputs, out_grads):
    return [reduce_to(out_grads[0], inputs[0].shape).astype(inputs[0].dtype, copy=False)]


def _bcast_infer(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [None], [None if -2 in attrs.shape else tuple(attrs.shape)]
    return [tuple(s)], [_bcast_shape(s, attrs.shape)]


register(OpDef("_npi_broadcast_to", _bcast_forward, backward=_bcast_backward,
               inputs=("array",), attrs={"shape": Attr("shape", ())},
               infer_shape=_bcast_infer, backward_uses=("inputs",),
               doc="NumPy ``broadcast_to``: the input repeated along new and size-1 axes to "
                   "``shape`` (NumPy's rule: axes align on the right; ``-2`` keeps the input's "
                   "axis)."))


# -- boolean_mask_assign_scalar / _tensor -------------------------------------------------------
def _mask_key(op, data, mask, start_axis):
    """The index ``data[(:,) * start_axis + (mask,)]`` after checking that ``mask``
    covers axes ``start_axis ...`` of ``data``."""
    end = start_axis + mask.ndim
    if start_axis < 0 or end > data.ndim or tuple(data.shape[start_axis:end]) != \
            tuple(mask.shape):
        fail(op, f"mask does not match the data's axes from {start_axis}", data.shape,
             mask.shape)
    return (slice(None),) * start_axis + (mask != 0,)


def _bma_forward(scalar: bool):
    op = "_npi_boolean_mask_assign_" + ("scalar" if scalar else "tensor")

    def forward(oc, attrs, inputs, out):
        data, mask = inputs[0], inputs[1]
        y = data.copy()
        if data.ndim == 0:  # a 0-d mask selects the one element or nothing
            if bool(mask != 0):
                y[...] = attrs.value if scalar else inputs[2].reshape(())
            return [put(out, 0, y)]
        key = _mask_key(op, data, mask, attrs.start_axis)
        y[key] = attrs.value if scalar else inputs[2]
        return [put(out, 0, y)]
    return forward


def _bma_backward(scalar: bool):
    def backward(oc, attrs, inputs, outputs, out_grads):
        xp = oc.xp
        data, mask = inputs[0], inputs[1]
        g = out_grads[0]
        gd = g.copy()
        if data.ndim == 0:
            sel = bool(mask != 0)
            if sel:
                gd[...] = 0
            grads = [gd, None]
            if not scalar:
                v = inputs[2]
                grads.append((g if sel else xp.zeros_like(g)).reshape(v.shape).astype(v.dtype))
            return grads
        key = _mask_key("_npi_boolean_mask_assign", data, mask, attrs.start_axis)
        gd[key] = 0
        grads = [gd, None]
        if not scalar:
            v = inputs[2]
            picked = g[key]  # the masked axes as one, at start_axis
            grads.append(reduce_to(picked, v.shape).astype(v.dtype, copy=False)
                         if picked.size else xp.zeros(v.shape, v.dtype))
        return grads
    return backward


for _scalar in (True, False):
    _name = "_npi_boolean_mask_assign_" + ("scalar" if _scalar else "tensor")
    _attrs = {"value": Attr("float")} if _scalar else {}  # MXNet's order: value, start_axis
    _attrs["start_axis"] = Attr("int", 0)
    register(OpDef(_name, _bma_forward(_scalar), backward=_bma_backward(_scalar),
                   inputs=("data", "mask") if _scalar else ("data", "mask", "value"),
                   attrs=_attrs, infer_shape=lambda attrs, s: (list(s), [s[0]]),
                   infer_type=lambda op, attrs, d: (list(d), [d[0]]),
                   backward_uses=("inputs",),
                   doc="``data`` with the elements where ``mask`` (over the axes from "
                       "``start_axis``) is true set to " + ("``value``." if _scalar else
                                                            "``value`` (broadcast).")))
