"""Batch normalization (``BatchNorm``) with MXNet 1.9's running statistics.

MXNet (CPU) semantics reproduced here:

* outputs are ``(output, mean, inv_std)``: in training the batch mean and
  ``1 / sqrt(batch_var + eps)`` (biased variance), otherwise the moving mean and
  ``1 / sqrt(moving_var + eps)``; only ``output`` is visible unless
  ``output_mean_var``;
* the moving statistics are updated **in the backward pass** of a training-mode
  call (``moving = moving * momentum + batch * (1 - momentum)``, biased variance),
  so a training forward without backward leaves them unchanged, as MXNet does;
* ``fix_gamma`` makes gamma act as 1 and its gradient 0;
* the backward ignores the head gradients of ``mean`` and ``var``; with
  ``use_global_stats`` it is the plain affine gradient, otherwise the batch
  formula is applied with the saved statistics (in predict mode those are the
  moving ones, as MXNet's CPU backward does).
"""
from __future__ import annotations

import numpy as np

from .attrs import Attr
from .common import fail, merge_shapes, norm_axis, put
from .registry import OpDef, register

_OP = "BatchNorm"
# MXNet parses ``momentum`` as a float32; ``eps`` is a double whose default is float32(1e-3)
_EPS_DEFAULT = float(np.float32(1e-3))


def _f32(v: float) -> float:
    return float(np.float32(v))


def _layout(ndim: int, axis: int):
    """Channel axis, reduction axes and the broadcast shape of a per-channel vector."""
    c = norm_axis(_OP, axis, ndim)
    red = tuple(i for i in range(ndim) if i != c)
    bshape = [1] * ndim
    bshape[c] = -1
    return c, red, tuple(bshape)


def _compute_dtype(dtype):
    return np.promote_types(dtype, np.float32)


def _forward(oc, attrs, inputs, out):
    xp = oc.xp
    x, gamma, beta, moving_mean, moving_var = inputs
    c, red, bshape = _layout(x.ndim, attrs.axis)
    cdt = _compute_dtype(x.dtype)
    pdt = moving_mean.dtype
    xc = x.astype(cdt, copy=False)
    if oc.is_train and not attrs.use_global_stats:
        mean = xc.mean(axis=red)
        diff = xc - mean.reshape(bshape)
        var = (diff * diff).mean(axis=red)
    else:
        mean = moving_mean.astype(cdt)
        var = moving_var.astype(cdt, copy=False)
        diff = xc - mean.reshape(bshape)
    inv_std = 1.0 / xp.sqrt(var + attrs.eps)
    scale = inv_std if attrs.fix_gamma else gamma.astype(cdt, copy=False) * inv_std
    y = diff * scale.reshape(bshape) + beta.astype(cdt, copy=False).reshape(bshape)
    return [put(out, 0, y.astype(x.dtype, copy=False)),
            put(out, 1, mean.astype(pdt, copy=False)),
            put(out, 2, inv_std.astype(pdt, copy=False))]


def _backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    x, gamma, beta, moving_mean, moving_var = inputs
    mean, inv_std = outputs[1], outputs[2]
    c, red, bshape = _layout(x.ndim, attrs.axis)
    cdt = _compute_dtype(x.dtype)
    dy = out_grads[0].astype(cdt, copy=False)
    xhat = (x.astype(cdt, copy=False) - mean.astype(cdt).reshape(bshape)) \
        * inv_std.astype(cdt).reshape(bshape)
    dbeta = dy.sum(axis=red)
    dgamma = (dy * xhat).sum(axis=red)
    g = 1.0 if attrs.fix_gamma else gamma.astype(cdt)
    scale = (g * inv_std.astype(cdt)).reshape(bshape)
    if attrs.use_global_stats:
        dx = dy * scale
    else:
        m = x.size // max(x.shape[c], 1)
        dx = scale * (dy - (dbeta / m).reshape(bshape) - xhat * (dgamma / m).reshape(bshape))
        if oc.is_train:
            _update_moving(attrs, moving_mean, moving_var, mean, inv_std)
    if attrs.fix_gamma:
        dgamma = xp.zeros_like(dgamma)
    return [dx.astype(x.dtype, copy=False), dgamma.astype(gamma.dtype, copy=False),
            dbeta.astype(beta.dtype, copy=False), None, None]


def _update_moving(attrs, moving_mean, moving_var, mean, inv_std) -> None:
    """MXNet updates the running statistics in place during backward."""
    momentum = _f32(attrs.momentum)
    var = 1.0 / (inv_std.astype(np.float64) ** 2) - attrs.eps
    moving_mean[...] = moving_mean * momentum + mean * (1.0 - momentum)
    moving_var[...] = moving_var * momentum + var.astype(moving_var.dtype) * (1.0 - momentum)


def _infer_shape(attrs, in_shapes):
    data = in_shapes[0]
    channels = None
    if data is not None:
        c = norm_axis(_OP, attrs.axis, len(data))
        channels = data[c]
    param = (channels,) if channels else None
    for i in range(1, 5):
        param = merge_shapes(_OP, "gamma/beta/moving_mean/moving_var", param, in_shapes[i])
    if param is not None and len(param) != 1:
        fail(_OP, f"parameters must be 1-D, got {param}", *in_shapes)
    if data is not None and param is not None:
        if channels and param[0] and channels != param[0]:
            fail(_OP, f"data has {channels} channels on axis {attrs.axis} but the "
                 f"parameters have shape {param}", *in_shapes)
        if not channels:
            data = tuple(param[0] if i == c else d for i, d in enumerate(data))
    return [data] + [param] * 4, [data, param, param]


def _infer_type(op, attrs, in_dtypes):
    data = in_dtypes[0]
    if data is None:
        known = next((d for d in in_dtypes[1:] if d is not None), None)
        return in_dtypes, [None, known, known]
    param = np.dtype(np.float32) if np.dtype(data) == np.float16 else np.dtype(data)
    for name, d in zip(("gamma", "beta", "moving_mean", "moving_var"), in_dtypes[1:]):
        if d is not None and np.dtype(d) != param:
            fail(_OP, f"'{name}' has dtype {np.dtype(d).name}, expected {param.name} for "
                 f"{np.dtype(data).name} data")
    return [data] + [param] * 4, [data, param, param]


register(OpDef(
    _OP, _forward, backward=_backward,
    # BatchNorm_v1 (legacy graphs) has a subset of these attributes and the same semantics
    aliases=("BatchNorm_v1",),
    attrs={
        "eps": Attr("float", _EPS_DEFAULT),
        "momentum": Attr("float", 0.9),
        "fix_gamma": Attr("bool", True),
        "use_global_stats": Attr("bool", False),
        "output_mean_var": Attr("bool", False),
        "axis": Attr("int", 1),
        "cudnn_off": Attr("bool", False),
        "min_calib_range": Attr("float", None),
        "max_calib_range": Attr("float", None),
    },
    inputs=("data", "gamma", "beta", "moving_mean", "moving_var"),
    aux=("moving_mean", "moving_var"),
    num_outputs=3,
    num_visible_outputs=lambda attrs: 3 if attrs.output_mean_var else 1,
    output_names=("output", "mean", "var"),
    infer_shape=_infer_shape, infer_type=_infer_type,
    backward_uses=("inputs", "outputs"),
    doc="Batch normalization over every axis but ``axis`` (MXNet ``BatchNorm``)."))
