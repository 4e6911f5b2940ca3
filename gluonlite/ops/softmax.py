"""``softmax``, ``log_softmax``, ``softmin`` and ``SoftmaxActivation``.

``softmax(data, length, axis, temperature, dtype, use_length)``: with
``use_length`` the integer ``length`` input (data's shape without ``axis``)
limits each slice; positions past the length give 0.  ``dtype`` sets the output
dtype (the gradient keeps the input dtype).  ``log_softmax`` and ``softmin``
take no ``length`` input (MXNet 1.9 rejects ``use_length=True`` for them).
``SoftmaxActivation`` works over the last axis (``mode='instance'``) or axis 1
(``mode='channel'``); like MXNet 1.9 its backward reduces over axis 1 in both
modes (so instance mode on data of more than 2 dimensions gets MXNet's gradient,
not the derivative of its forward).
"""
from __future__ import annotations

import numpy as np

from .attrs import Attr
from .common import fail, merge_shapes, norm_axis, put
from .registry import OpDef, register


def _check_float(op, x):
    if x.dtype.kind != "f":
        fail(op, f"this operator supports floating point data only, not {x.dtype.name}",
             x.shape)


def _out_dtype(attrs, x_dtype):
    return np.dtype(attrs.dtype) if getattr(attrs, "dtype", None) is not None else x_dtype


def _length_mask(xp, length, shape, axis):
    """Boolean mask of the positions along ``axis`` below ``length``."""
    n = shape[axis]
    pos_shape = [1] * len(shape)
    pos_shape[axis] = n
    pos = xp.arange(n).reshape(pos_shape)
    return pos < xp.expand_dims(length.astype(np.int64), axis)


def softmax_along(xp, x, axis, temperature=None, mask=None, log=False, onednn=False):
    """Softmax (or log-softmax) of ``x / temperature`` along ``axis``, with MXNet's
    handling of NaN and infinities.

    A row whose exponentials sum to NaN (a NaN input, an infinite maximum, nothing but
    -inf) is NaN throughout in MXNet's own kernel; where MXNet's CPU build runs oneDNN's
    kernel instead (``onednn``: float32 over the last axis, temperature 1, no lengths),
    it is what :func:`_onednn_nan_rows` gives (``onednn`` matters on the CPU only).
    """
    if temperature is not None and temperature != 1.0:
        x = x / temperature
    if mask is not None:
        x = xp.where(mask, x, -xp.inf)
    if x.size == 0:  # nothing to normalize (max has no identity on an empty axis)
        return x.copy()
    m = x.max(axis=axis, keepdims=True)
    m = xp.where(xp.isfinite(m), m, 0)
    z = x - m
    e = xp.exp(z)
    s = e.sum(axis=axis, keepdims=True)
    # a row with a NaN, an infinite maximum or nothing but -inf: one cheap test on the sums
    special = ~xp.isfinite(s) | (s == 0)
    if log:
        y = z - xp.log(s)
    else:
        if mask is not None:
            s = xp.where(s == 0, 1, s)
        y = e / s
    if xp is np:  # a cheap test on the host; on a GPU it would wait for the device
        if bool(special.any()):
            y = xp.where(special, _onednn_nan_rows(xp, x, axis, log) if onednn else xp.nan, y)
    else:  # MXNet's GPU kernel (never oneDNN's): such rows are NaN throughout
        y = xp.where(special, xp.nan, y)
    return y


def onednn_softmax(x_dtype, out_dtype, axis: int, ndim: int, temperature) -> bool:
    """Whether MXNet 1.9.1's CPU build runs this softmax through oneDNN (its NaN and
    infinity handling differ from MXNet's own kernel's)."""
    return (x_dtype == np.float32 and out_dtype == np.float32 and axis == ndim - 1
            and temperature in (None, 1.0))


def _onednn_nan_rows(xp, x, axis, log):
    """MXNet's (oneDNN's) softmax of rows whose exponentials sum to NaN.

    Its maximum ignores NaN, so ``x - max`` is NaN only at NaN inputs and where both are
    infinite; the NaN sum becomes the largest float.  Softmax is then NaN at those
    positions and 0 elsewhere, log-softmax ``x - max - log(largest float)`` (finite at
    finite inputs): ``[nan, 1, 2]`` gives ``[nan, 0, 0]`` and ``[nan, -89.72, -88.72]``.
    """
    m = xp.where(xp.isnan(x), -xp.inf, x).max(axis=axis, keepdims=True)
    z = x - m
    if log:
        return z - np.log(np.finfo(x.dtype).max)
    return xp.where(xp.isnan(z), xp.nan, 0).astype(x.dtype, copy=False)


def _compute_dtype(x_dtype, out_dtype):
    return np.promote_types(np.promote_types(x_dtype, out_dtype), np.float32)


def _make_forward(op, kind):
    def forward(oc, attrs, inputs, out):
        xp = oc.xp
        x = inputs[0]
        _check_float(op, x)
        if x.ndim == 0 and not attrs.use_length:  # mx.np's 0-d arrays: one element
            y = forward(oc, attrs, [x.reshape(1)], None)[0]
            return [put(out, 0, y.reshape(()))]
        axis = norm_axis(op, attrs.axis, x.ndim)
        odt = _out_dtype(attrs, x.dtype)
        xc = x.astype(_compute_dtype(x.dtype, odt), copy=False)
        if kind == "softmin":
            xc = -xc
        mask = None
        if attrs.use_length:
            if len(inputs) < 2:
                fail(op, "use_length=True needs a length input", x.shape)
            length = inputs[1]
            if length.dtype.kind not in "iu":
                fail(op, f"length must have an integer dtype, not {length.dtype.name}",
                     x.shape, length.shape)
            mask = _length_mask(xp, length, x.shape, axis)
        onednn = mask is None and kind != "softmin" and onednn_softmax(
            x.dtype, odt, axis, x.ndim, attrs.temperature)
        y = softmax_along(xp, xc, axis, attrs.temperature, mask, log=kind == "log",
                          onednn=onednn)
        if mask is not None:
            y = xp.where(mask, y, 0)
        return [put(out, 0, y.astype(odt, copy=False))]
    return forward


def _make_backward(kind):
    def backward(oc, attrs, inputs, outputs, out_grads):
        xp = oc.xp
        x = inputs[0]
        y = outputs[0]
        if x.ndim == 0:  # mx.np's 0-d arrays: one element
            grads = backward(oc, attrs, [x.reshape(1)] + list(inputs[1:]), [y.reshape(1)],
                             [out_grads[0].reshape(1)])
            return [grads[0].reshape(())] + grads[1:]
        axis = norm_axis("softmax", attrs.axis, x.ndim)
        cdt = _compute_dtype(x.dtype, y.dtype)
        y = y.astype(cdt, copy=False)
        g = out_grads[0].astype(cdt, copy=False)
        if kind == "log":
            dx = g - xp.exp(y) * g.sum(axis=axis, keepdims=True)
        else:
            dx = y * (g - (g * y).sum(axis=axis, keepdims=True))
        if kind == "softmin":
            dx = -dx
        t = attrs.temperature
        if t is not None and t != 1.0:
            dx = dx / t
        grads = [dx.astype(x.dtype, copy=False)]
        if len(inputs) > 1:
            grads.append(None)
        return grads
    return backward


def _softmax_infer_shape(op):
    def infer(attrs, in_shapes):
        data = in_shapes[0]
        if len(in_shapes) == 1:
            return [data], [data]
        length = in_shapes[1]
        if data is not None:
            axis = norm_axis(op, attrs.axis, len(data))
            expect = tuple(d for i, d in enumerate(data) if i != axis)
            length = merge_shapes(op, "length", expect, length)
        return [data, length], [data]
    return infer


def _softmax_infer_type(op, attrs, in_dtypes):
    data = in_dtypes[0]
    ins = list(in_dtypes)
    if len(ins) > 1 and ins[1] is None:
        ins[1] = np.dtype(np.int32)
    if data is None:
        return ins, [np.dtype(attrs.dtype) if attrs.dtype is not None else None]
    return ins, [_out_dtype(attrs, np.dtype(data))]


def _common_attrs():
    return {
        "axis": Attr("int", -1),
        "temperature": Attr("float", None),
        "dtype": Attr("dtype", None),
        "use_length": Attr("bool", False, optional=True),
    }


def _register(name, kind, doc, with_length, listed_inputs=True):
    if with_length:
        inputs = lambda attrs: ("data", "length") if attrs.use_length else ("data",)  # noqa: E731
    else:
        def inputs(attrs, _name=name):
            if attrs.use_length:
                fail(_name, "use_length=True is not supported (no length input)")
            return ("data",)
    register(OpDef(name, _make_forward(name, kind), backward=_make_backward(kind),
                   attrs=_common_attrs(), inputs=inputs,
                   infer_shape=_softmax_infer_shape(name), infer_type=_softmax_infer_type,
                   # one shape in and out, except softmax's length input
                   elementwise=lambda attrs: not attrs.use_length,
                   backward_uses=("inputs", "outputs"), doc=doc, listed_inputs=listed_inputs))


_register("softmax", "softmax", "Softmax along ``axis`` (MXNet ``softmax``).", True)
_register("log_softmax", "log", "Log-softmax along ``axis`` (MXNet ``log_softmax``).", False)
_register("softmin", "softmin", "Softmax of ``-data`` along ``axis`` (MXNet ``softmin``).",
          False, listed_inputs=False)


# -- SoftmaxActivation ------------------------------------------------------------------
def _sa_axis(attrs, ndim):
    if attrs.mode == "channel":
        if ndim < 2:
            fail("SoftmaxActivation", "channel mode needs at least 2 dimensions")
        return 1
    return ndim - 1


def _sa_forward(oc, attrs, inputs, out):
    x = inputs[0]
    _check_float("SoftmaxActivation", x)
    xc = x.astype(_compute_dtype(x.dtype, x.dtype), copy=False)
    y = softmax_along(oc.xp, xc, _sa_axis(attrs, x.ndim), None)
    return [put(out, 0, y.astype(x.dtype, copy=False))]


def _sa_backward(oc, attrs, inputs, outputs, out_grads):
    y = outputs[0]
    # MXNet 1.9 quirk, reproduced: its backward always reduces over axis 1, which
    # for instance mode on data of more than 2 dimensions is not the softmax axis
    axis = 1 if y.ndim >= 2 else 0
    cdt = _compute_dtype(y.dtype, y.dtype)
    yc = y.astype(cdt, copy=False)
    g = out_grads[0].astype(cdt, copy=False)
    return [(yc * (g - (g * yc).sum(axis=axis, keepdims=True))).astype(y.dtype, copy=False)]


register(OpDef(
    "SoftmaxActivation", _sa_forward, backward=_sa_backward,
    attrs={"mode": Attr("str", "instance", choices=("channel", "instance"))},
    infer_shape=lambda attrs, s: ([s[0]], [s[0]]), elementwise=True,
    backward_uses=("outputs",),
    doc="Softmax over the last axis (instance) or axis 1 (channel) "
        "(MXNet ``SoftmaxActivation``).", listed_inputs=False))
