"""Layer, instance, group and L2 normalization (MXNet 1.9 semantics).

* ``LayerNorm``: statistics over ``axis``; outputs ``(output, mean, std)`` with
  ``std = sqrt(var + eps)`` and ``axis`` kept as size 1.
* ``GroupNorm``: data ``(N, C, ...)`` split into ``num_groups`` groups of channels;
  in MXNet 1.9 ``gamma``/``beta`` have one entry **per group**; outputs
  ``(output, mean, std)`` of shape ``(N, num_groups)`` for the statistics.
* ``InstanceNorm``: statistics over the spatial axes of each ``(n, c)``; outputs
  ``(output, mean, var)`` with statistics of shape ``(N, C)``.
* ``L2Normalization``: ``x / sqrt(sum(x ** 2) + eps)`` per instance, channel
  position or spatial map; outputs ``(output, norm)``.

Only ``output`` (and ``mean``/``std`` where ``output_mean_var``) is visible; the
backward ignores the head gradients of the statistics, as MXNet's does.  MXNet
parses these ``eps`` as float32, so they are rounded the same way here.
"""
from __future__ import annotations

import numpy as np

from .attrs import Attr
from .common import fail, merge_shapes, norm_axis, put
from .registry import OpDef, register
from ._window import scratch


def _f32(v: float) -> float:
    return float(np.float32(v))


def _cdt(dtype):
    return np.promote_types(dtype, np.float32)


# LayerNorm, GroupNorm and InstanceNorm all work on 3-D views ``(A, B, C)`` of
# the data: statistics reduce axis ``ax`` (1 or 2), gamma/beta run along axis 1.
# Reductions are ``einsum`` passes (no full-size temporaries; single-threaded and
# faster than ``sum``/``mean`` on these layouts), elementwise steps write in place.
_KEEP = {1: "ac", 2: "ab"}


def _rsum(xp, ax, a, b=None):
    """Sum over axis ``ax`` of ``a`` (or of ``a * b``), kept as size 1."""
    spec = "abc->" + _KEEP[ax] if b is None else "abc,abc->" + _KEEP[ax]
    r = xp.einsum(spec, a) if b is None else xp.einsum(spec, a, b)
    return xp.expand_dims(r, ax)


def _normalize(xp, x3, ax, eps):
    """Mean, variance, std (kept dims) and a fresh normalized copy of ``x3``."""
    n = x3.shape[ax]
    mean = _rsum(xp, ax, x3) / n
    xhat = xp.empty(x3.shape, x3.dtype)
    xp.subtract(x3, mean, out=xhat)
    var = _rsum(xp, ax, xhat, xhat) / n          # two-pass variance
    std = xp.sqrt(var + eps)
    xp.divide(xhat, std, out=xhat)
    return mean, var, std, xhat


def _affine(xp, xhat, gamma, beta):
    """``xhat * gamma + beta`` in place (gamma/beta along axis 1)."""
    xp.multiply(xhat, gamma.astype(xhat.dtype, copy=False).reshape(1, -1, 1), out=xhat)
    xp.add(xhat, beta.astype(xhat.dtype, copy=False).reshape(1, -1, 1), out=xhat)
    return xhat


def _norm_backward(xp, x3, dy3, mean, std, gamma, ax):
    """dx, dgamma, dbeta of ``xhat * gamma + beta`` with ``xhat = (x - mean) / std``.

    ``dx = (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)) / std`` over ``ax``.
    """
    n = x3.shape[ax]
    dx = xp.empty(x3.shape, x3.dtype)
    xp.subtract(x3, mean, out=dx)
    xp.divide(dx, std, out=dx)                   # dx holds xhat until the end
    # the parameter gradients sum over every row (the whole batch): NumPy's einsum adds
    # them one after another, so it accumulates in float64 there (a 4096-row float32
    # batch is otherwise off by ~1e-4; CuPy reduces in a tree)
    acc = {"dtype": np.float64} if xp is np and x3.dtype != np.float64 else {}
    dgamma = xp.einsum("abc,abc->b", dy3, dx, **acc)
    dbeta = xp.einsum("abc->b", dy3, **acc)
    dxhat = scratch(xp, x3.shape, x3.dtype, "norm_dxhat")
    xp.multiply(dy3, gamma.astype(x3.dtype, copy=False).reshape(1, -1, 1), out=dxhat)
    m1 = _rsum(xp, ax, dxhat) / n
    m2 = _rsum(xp, ax, dxhat, dx) / n
    xp.multiply(dx, m2, out=dx)
    xp.subtract(dxhat, dx, out=dx)
    xp.subtract(dx, m1, out=dx)
    xp.divide(dx, std, out=dx)
    return dx, dgamma, dbeta


def _param_shapes(op, in_shapes, size):
    """Merge the gamma/beta shapes with ``(size,)`` (``size`` 0 or None when unknown)."""
    param = (size,) if size else None
    for s in in_shapes[1:3]:
        param = merge_shapes(op, "gamma/beta", param, s)
    if param is not None and len(param) != 1:
        fail(op, f"gamma and beta must be 1-D, got {param}", *in_shapes)
    return param


# -- LayerNorm -----------------------------------------------------------------------
def _ln_3d(shape, axis):
    """``(before, axis, after)`` sizes around the normalized axis."""
    a = norm_axis("LayerNorm", axis, len(shape))
    pre = post = 1
    for d in shape[:a]:
        pre *= d
    for d in shape[a + 1:]:
        post *= d
    return a, (pre, shape[a], post)


def _ln_forward(oc, attrs, inputs, out):
    x, gamma, beta = inputs
    a, shape3 = _ln_3d(x.shape, attrs.axis)
    x3 = x.astype(_cdt(x.dtype), copy=False).reshape(shape3)
    mean, _, std, y = _normalize(oc.xp, x3, 1, _f32(attrs.eps))
    _affine(oc.xp, y, gamma, beta)
    stat = x.shape[:a] + (1,) + x.shape[a + 1:]
    return [put(out, 0, y.reshape(x.shape).astype(x.dtype, copy=False)),
            put(out, 1, mean.reshape(stat).astype(x.dtype, copy=False)),
            put(out, 2, std.reshape(stat).astype(x.dtype, copy=False))]


def _ln_backward(oc, attrs, inputs, outputs, out_grads):
    x, gamma, beta = inputs
    a, shape3 = _ln_3d(x.shape, attrs.axis)
    cdt = _cdt(x.dtype)
    stat3 = (shape3[0], 1, shape3[2])
    dx, dgamma, dbeta = _norm_backward(
        oc.xp, x.astype(cdt, copy=False).reshape(shape3),
        out_grads[0].astype(cdt, copy=False).reshape(shape3),
        outputs[1].astype(cdt, copy=False).reshape(stat3),
        outputs[2].astype(cdt, copy=False).reshape(stat3), gamma, 1)
    return [dx.reshape(x.shape).astype(x.dtype, copy=False),
            dgamma.astype(gamma.dtype, copy=False), dbeta.astype(beta.dtype, copy=False)]


def _ln_infer_shape(attrs, in_shapes):
    data = in_shapes[0]
    size = None
    if data is not None:
        a = norm_axis("LayerNorm", attrs.axis, len(data))
        size = data[a]
    param = _param_shapes("LayerNorm", in_shapes, size)
    stat = None
    if data is not None:
        if param is not None and param[0] and not data[a]:
            data = data[:a] + (param[0],) + data[a + 1:]
        elif param is not None and param[0] and data[a] != param[0]:
            fail("LayerNorm", f"gamma/beta have shape {param} but data has {data[a]} "
                 f"entries on axis {attrs.axis}", *in_shapes)
        stat = data[:a] + (1,) + data[a + 1:]
    return [data, param, param], [data, stat, stat]


register(OpDef(
    "LayerNorm", _ln_forward, backward=_ln_backward,
    attrs={"axis": Attr("int", -1), "eps": Attr("float", 1e-5),
           "output_mean_var": Attr("bool", False)},
    inputs=("data", "gamma", "beta"), num_outputs=3,
    num_visible_outputs=lambda attrs: 3 if attrs.output_mean_var else 1,
    output_names=("output", "mean", "std"), out_grads_read=(True, False, False),
    infer_shape=_ln_infer_shape,
    doc="Layer normalization over ``axis`` (MXNet ``LayerNorm``)."))


# -- GroupNorm -----------------------------------------------------------------------
def _gn_check(x_shape, groups):
    if len(x_shape) < 3:
        fail("GroupNorm", "data must have at least 3 dimensions (N, C, ...)", x_shape)
    if groups <= 0 or x_shape[1] % groups:
        fail("GroupNorm", f"the {x_shape[1]} channels must be divisible by num_groups="
             f"{groups}", x_shape)


def _gn_forward(oc, attrs, inputs, out):
    x, gamma, beta = inputs
    g = attrs.num_groups
    _gn_check(x.shape, g)
    xr = x.astype(_cdt(x.dtype), copy=False).reshape(x.shape[0], g, -1)
    mean, _, std, y = _normalize(oc.xp, xr, 2, _f32(attrs.eps))
    _affine(oc.xp, y, gamma, beta)
    return [put(out, 0, y.reshape(x.shape).astype(x.dtype, copy=False)),
            put(out, 1, mean.reshape(x.shape[0], g).astype(x.dtype, copy=False)),
            put(out, 2, std.reshape(x.shape[0], g).astype(x.dtype, copy=False))]


def _gn_backward(oc, attrs, inputs, outputs, out_grads):
    x, gamma, beta = inputs
    g = attrs.num_groups
    cdt = _cdt(x.dtype)
    n = x.shape[0]
    dx, dgamma, dbeta = _norm_backward(
        oc.xp, x.astype(cdt, copy=False).reshape(n, g, -1),
        out_grads[0].astype(cdt, copy=False).reshape(n, g, -1),
        outputs[1].astype(cdt, copy=False).reshape(n, g, 1),
        outputs[2].astype(cdt, copy=False).reshape(n, g, 1), gamma, 2)
    return [dx.reshape(x.shape).astype(x.dtype, copy=False),
            dgamma.astype(gamma.dtype, copy=False), dbeta.astype(beta.dtype, copy=False)]


def _gn_infer_shape(attrs, in_shapes):
    data = in_shapes[0]
    g = attrs.num_groups
    param = _param_shapes("GroupNorm", in_shapes, g)
    stat = None
    if data is not None:
        if len(data) < 3:
            fail("GroupNorm", "data must have at least 3 dimensions (N, C, ...)", *in_shapes)
        if data[1] and data[1] % g:
            fail("GroupNorm", f"the {data[1]} channels must be divisible by num_groups={g}",
                 *in_shapes)
        stat = (data[0], g)
    return [data, param, param], [data, stat, stat]


register(OpDef(
    "GroupNorm", _gn_forward, backward=_gn_backward,
    attrs={"num_groups": Attr("int", 1), "eps": Attr("float", 1e-5),
           "output_mean_var": Attr("bool", False)},
    inputs=("data", "gamma", "beta"), num_outputs=3,
    num_visible_outputs=lambda attrs: 3 if attrs.output_mean_var else 1,
    output_names=("output", "mean", "std"), out_grads_read=(True, False, False),
    infer_shape=_gn_infer_shape,
    doc="Group normalization with per-group gamma/beta (MXNet 1.9 ``GroupNorm``)."))


# -- InstanceNorm --------------------------------------------------------------------
def _in_check(shape):
    if len(shape) < 3:
        fail("InstanceNorm", "data must have at least 3 dimensions (N, C, ...)", shape)


def _in_forward(oc, attrs, inputs, out):
    x, gamma, beta = inputs
    _in_check(x.shape)
    n, c = x.shape[:2]
    xr = x.astype(_cdt(x.dtype), copy=False).reshape(n, c, -1)
    mean, var, _, y = _normalize(oc.xp, xr, 2, _f32(attrs.eps))
    _affine(oc.xp, y, gamma, beta)
    return [put(out, 0, y.reshape(x.shape).astype(x.dtype, copy=False)),
            put(out, 1, mean.reshape(n, c).astype(x.dtype, copy=False)),
            put(out, 2, var.reshape(n, c).astype(x.dtype, copy=False))]


def _in_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    x, gamma, beta = inputs
    n, c = x.shape[:2]
    cdt = _cdt(x.dtype)
    std = xp.sqrt(outputs[2].astype(cdt, copy=False).reshape(n, c, 1) + _f32(attrs.eps))
    dx, dgamma, dbeta = _norm_backward(
        xp, x.astype(cdt, copy=False).reshape(n, c, -1),
        out_grads[0].astype(cdt, copy=False).reshape(n, c, -1),
        outputs[1].astype(cdt, copy=False).reshape(n, c, 1), std, gamma, 2)
    return [dx.reshape(x.shape).astype(x.dtype, copy=False),
            dgamma.astype(gamma.dtype, copy=False), dbeta.astype(beta.dtype, copy=False)]


def _in_infer_shape(attrs, in_shapes):
    data = in_shapes[0]
    if data is not None:
        _in_check(data)
    param = _param_shapes("InstanceNorm", in_shapes, data[1] if data is not None else None)
    if data is not None and param is not None and param[0]:
        if data[1] and data[1] != param[0]:
            fail("InstanceNorm", f"gamma/beta have shape {param} but data has {data[1]} "
                 "channels", *in_shapes)
        data = (data[0], param[0]) + tuple(data[2:])
    stat = (data[0], data[1]) if data is not None else None
    return [data, param, param], [data, stat, stat]


register(OpDef(
    "InstanceNorm", _in_forward, backward=_in_backward,
    attrs={"eps": Attr("float", 1e-3)},
    inputs=("data", "gamma", "beta"), num_outputs=3, num_visible_outputs=1,
    output_names=("output", "mean", "var"),
    infer_shape=_in_infer_shape,
    doc="Instance normalization over the spatial axes (MXNet ``InstanceNorm``)."))


# -- L2Normalization -----------------------------------------------------------------
def _l2_axes(mode, ndim, shape=None):
    if mode == "instance":
        return tuple(range(1, ndim))
    if ndim < 3:
        fail("L2Normalization", f"at least 3 dimensions are required in {mode} mode",
             *([shape] if shape is not None else []))
    return (1,) if mode == "channel" else tuple(range(2, ndim))


def _l2_forward(oc, attrs, inputs, out):
    x = inputs[0]
    red = _l2_axes(attrs.mode, x.ndim, x.shape)
    xc = x.astype(_cdt(x.dtype), copy=False)
    norm = oc.xp.sqrt((xc * xc).sum(axis=red, keepdims=True) + _f32(attrs.eps))
    y = xc / norm
    nshape = tuple(d for i, d in enumerate(x.shape) if i not in red)
    return [put(out, 0, y.astype(x.dtype, copy=False)),
            put(out, 1, norm.reshape(nshape).astype(x.dtype, copy=False))]


def _l2_backward(oc, attrs, inputs, outputs, out_grads):
    y, norm = outputs
    red = _l2_axes(attrs.mode, y.ndim)
    kshape = tuple(1 if i in red else d for i, d in enumerate(y.shape))
    cdt = _cdt(y.dtype)
    yc = y.astype(cdt, copy=False)
    dy = out_grads[0].astype(cdt, copy=False)
    norm = norm.astype(cdt, copy=False).reshape(kshape)
    dx = (dy - yc * (dy * yc).sum(axis=red, keepdims=True)) / norm
    return [dx.astype(y.dtype, copy=False)]


def _l2_infer_shape(attrs, in_shapes):
    data = in_shapes[0]
    if data is None:
        return [None], [None, None]
    red = _l2_axes(attrs.mode, len(data), data)
    return [data], [data, tuple(d for i, d in enumerate(data) if i not in red)]


register(OpDef(
    "L2Normalization", _l2_forward, backward=_l2_backward,
    attrs={"eps": Attr("float", 1e-10),
           "mode": Attr("str", "instance", choices=("channel", "instance", "spatial"))},
    num_outputs=2, num_visible_outputs=1, output_names=("output", "norm"),
    infer_shape=_l2_infer_shape, backward_uses=("outputs",),
    doc="L2 normalization per instance, channel or spatial map (MXNet ``L2Normalization``)."))
