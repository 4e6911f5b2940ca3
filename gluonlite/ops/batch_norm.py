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

On a GPU with cuDNN, channel axis 1 runs on cuDNN's spatial batch
normalization (``_cudnn_bn``) with these semantics kept.
"""
from __future__ import annotations

import numpy as np

from .attrs import Attr
from .common import fail, merge_shapes, norm_axis, put
from .registry import OpDef, register
from . import _cudnn_bn, _gpu_update, _visual
from ._window import scratch

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


def _as3d(a, c: int):
    """``a`` viewed as ``(before, channels, after)`` around the channel axis ``c``."""
    pre = post = 1
    for d in a.shape[:c]:
        pre *= d
    for d in a.shape[c + 1:]:
        post *= d
    return a.reshape(pre, a.shape[c], post)


# Per-channel reductions of (P, C, L) data.  ``einsum`` reduces in one
# single-threaded pass: on (32, 64, 56, 56) float32 (2 shared cores) it took
# ~0.7 ms against ~1.4 ms for ``sum(axis=(0, 2))``, and for a product it needs
# no full-size temporary.  A ones-vector GEMV was as fast on an idle machine but
# ~10 ms whenever the other core was busy (BLAS threads waiting on each other).
def _csum(xp, a):
    return xp.einsum("pcl->c", a)


def _cdot(xp, a, b):
    """Per-channel ``sum(a * b)``."""
    return xp.einsum("pcl,pcl->c", a, b)


# Inference broadcasts scale and shift materialized as ``(C * after)`` rows unless
# the batch is small and the planes large: with ``(C, 1)`` operands NumPy's inner
# loop is only ``after`` long and even at 32x32 runs slower (one pass over
# (8, 16, 32, 32) float32: 28 us against 18 us; at 4x4: 6.7 against 3.9 us).
_EXPAND_MIN_ROWS = 4
_EXPAND_BELOW = 256


def _inference(xp, attrs, x, gamma, beta, moving_mean, moving_var, c: int, out):
    """Inference forward as ``y = x * scale + shift`` (two passes over the data).

    ``scale = gamma * (1 / sqrt(moving_var + eps))`` is rounded as in the general
    path; ``shift = beta - moving_mean * scale``.  Against ``(x - mean) * scale +
    beta`` this moves one rounding (``moving_mean * scale`` is rounded once per
    channel instead of ``x - mean`` once per element); the outputs stay within
    float32 rounding of MXNet's (tests/symbol/test_model_fixtures.py).
    """
    cdt = x.dtype
    pdt = moving_mean.dtype
    mean = moving_mean.astype(cdt)
    inv_std = 1.0 / xp.sqrt(moving_var.astype(cdt, copy=False) + attrs.eps)
    nc = inv_std.shape[0]
    coef = xp.empty((2, nc), cdt)                   # rows: scale, shift
    if attrs.fix_gamma:
        coef[0] = inv_std
    else:
        xp.multiply(gamma.astype(cdt, copy=False), inv_std, out=coef[0])
    xp.multiply(mean, coef[0], out=coef[1])
    xp.subtract(beta.astype(cdt, copy=False), coef[1], out=coef[1])
    x3 = _as3d(x, c)
    pre, post = x3.shape[0], x3.shape[2]
    y = out[0] if out is not None else None
    if y is None or y.dtype != cdt or not y.flags.c_contiguous:
        y = xp.empty(x.shape, cdt)
    if post < _EXPAND_BELOW or pre >= _EXPAND_MIN_ROWS:
        # one (2, C * post) copy of scale and shift: contiguous operands for both passes
        if post > 1:
            coef = xp.repeat(coef, post, axis=1)
        x2, scale, shift = x3.reshape(pre, nc * post), coef[0], coef[1]
    else:
        x2, scale, shift = x3, coef[0][:, None], coef[1][:, None]
    y2 = y.reshape(x2.shape)
    xp.multiply(x2, scale, out=y2)
    xp.add(y2, shift, out=y2)
    return [put(out, 0, y) if out is not None and out[0] is not y else y,
            put(out, 1, mean.astype(pdt, copy=False)),
            put(out, 2, inv_std.astype(pdt, copy=False))]


def _forward(oc, attrs, inputs, out):
    xp = oc.xp
    x, gamma, beta, moving_mean, moving_var = inputs
    c, _, _ = _layout(x.ndim, attrs.axis)
    if _cudnn_bn.eligible(xp, attrs, x, inputs[1:], c):
        return _cudnn_bn.forward(xp, attrs, oc.is_train, inputs, out)
    cdt = _compute_dtype(x.dtype)
    # NumPy only: the GPU keeps its (x - mean) * scale + beta numerics
    if (xp is np and x.dtype == cdt and (attrs.use_global_stats or not oc.is_train)
            and x.dtype.char in "fd"):
        return _inference(xp, attrs, x, gamma, beta, moving_mean, moving_var, c, out)
    pdt = moving_mean.dtype
    x3 = _as3d(x.astype(cdt, copy=False), c)
    y = xp.empty(x.shape, cdt)
    y3 = y.reshape(x3.shape)
    # passes over the data: sum, x - mean, sum of squares, * scale, + beta
    if oc.is_train and not attrs.use_global_stats:
        m = x3.shape[0] * x3.shape[2]
        mean = _csum(xp, x3) / m
        xp.subtract(x3, mean[:, None], out=y3)
        var = _cdot(xp, y3, y3) / m      # two-pass variance
    else:
        mean = moving_mean.astype(cdt)
        var = moving_var.astype(cdt, copy=False)
        xp.subtract(x3, mean[:, None], out=y3)
    inv_std = 1.0 / xp.sqrt(var + attrs.eps)
    scale = inv_std if attrs.fix_gamma else gamma.astype(cdt, copy=False) * inv_std
    xp.multiply(y3, scale.astype(cdt, copy=False)[:, None], out=y3)
    xp.add(y3, beta.astype(cdt, copy=False)[:, None], out=y3)
    return [put(out, 0, y.astype(x.dtype, copy=False)),
            put(out, 1, mean.astype(pdt, copy=False)),
            put(out, 2, inv_std.astype(pdt, copy=False))]


def _backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    x, gamma, beta, moving_mean, moving_var = inputs
    mean, inv_std = outputs[1], outputs[2]
    c, _, _ = _layout(x.ndim, attrs.axis)
    if not attrs.use_global_stats and _cudnn_bn.eligible(xp, attrs, x, inputs[1:], c):
        dx, dgamma, dbeta = _cudnn_bn.backward(xp, attrs, inputs, outputs, out_grads[0])
        if oc.is_train:
            _update_moving(xp, attrs, moving_mean, moving_var, outputs[1], outputs[2])
        return [dx, dgamma, dbeta, None, None]
    cdt = _compute_dtype(x.dtype)
    x3 = _as3d(x.astype(cdt, copy=False), c)
    dy3 = _as3d(out_grads[0].astype(cdt, copy=False), c)
    mean = mean.astype(cdt)
    inv_std = inv_std.astype(cdt)
    dx = xp.empty(x.shape, cdt)
    dx3 = dx.reshape(x3.shape)
    # passes: sum(dy), x - mean, sum(dy * (x - mean)), then dx in place
    dbeta = _csum(xp, dy3)
    xp.subtract(x3, mean[:, None], out=dx3)
    dgamma = _cdot(xp, dy3, dx3) * inv_std
    g = 1.0 if attrs.fix_gamma else gamma.astype(cdt)
    scale = g * inv_std
    if attrs.use_global_stats:
        xp.multiply(dy3, scale[:, None], out=dx3)
    else:
        # dx = scale * (dy - dbeta/m - xhat * dgamma/m), xhat = (x - mean) * inv_std
        m = x3.shape[0] * x3.shape[2]
        xp.multiply(dx3, (scale * inv_std * dgamma / -m)[:, None], out=dx3)
        xp.add(dx3, (scale * dbeta / -m)[:, None], out=dx3)
        tmp = scratch(xp, x3.shape, cdt, "bn_dy")
        xp.multiply(dy3, scale[:, None], out=tmp)
        xp.add(dx3, tmp, out=dx3)
        if oc.is_train:
            _update_moving(xp, attrs, moving_mean, moving_var, outputs[1], outputs[2])
    if attrs.fix_gamma:
        dgamma = xp.zeros_like(dgamma)
    return [dx.astype(x.dtype, copy=False), dgamma.astype(gamma.dtype, copy=False),
            dbeta.astype(beta.dtype, copy=False), None, None]


def _update_moving(xp, attrs, moving_mean, moving_var, mean, inv_std) -> None:
    """MXNet updates the running statistics in place during backward."""
    momentum = _f32(attrs.momentum)
    if _gpu_update.bn_moving_update(xp, momentum, attrs.eps, moving_mean, moving_var, mean,
                                    inv_std):
        return  # one launch on the GPU
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


def _sparse_forward(oc, attrs, inputs, out):
    """Sparse inputs: MXNet's storage fallback (``None``: forward on densified inputs),
    except that MXNet refuses ``fix_gamma=True`` with sparse arrays (its issue #11647)."""
    if attrs.fix_gamma:
        fail(_OP, "fix_gamma=True is not supported for sparse ndarrays (storage types "
             f"{[getattr(x, 'stype', 'default') for x in inputs]})",
             *[tuple(x.shape) for x in inputs])
    return None


register(OpDef(
    _OP, _forward, backward=_backward, sparse_forward=_sparse_forward,
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
    # as MXNet's FGradient, backward reads the output's gradient only
    out_grads_read=(True, False, False),
    infer_shape=_infer_shape, infer_type=_infer_type,
    backward_uses=("inputs", "outputs"),
    input_init={"moving_mean": '["zero", {}]', "moving_var": '["one", {}]'},
    # statistics and affine parameters stay float32 in a float16 network (as in MXNet)
    float32_inputs=("gamma", "beta", "moving_mean", "moving_var"),
    summary_params=_visual.batchnorm_params, plot_style=_visual.family("norm"),
    doc="Batch normalization over every axis but ``axis`` (MXNet ``BatchNorm``)."))
