"""Reductions: ``sum``, ``mean``, ``max``, ``min``, ``prod``, ``nansum``, ``nanprod``,
``norm``, ``argmax``, ``argmin`` and ``argmax_channel``.

MXNet rules (checked against MXNet 1.9.1): ``axis=None`` or ``()`` reduces every
axis; ``exclude=True`` reduces every axis *not* listed; a full reduction gives
shape ``(1,)``; outputs keep the input dtype (an integer ``mean`` truncates);
``max``/``min`` send the gradient to every position equal to the result (ties
included); ``prod``'s gradient is ``y / x`` (NaN where x is 0, as in MXNet);
``norm``'s 2-norm gradient is ``x / y`` (NaN at 0, as in MXNet).
``max``/``min`` of a zero-size input raise (MXNet's "Reduction input's size should
> 0", in both shape modes).
``argmax``/``argmin`` return indices in the input dtype and have no gradient.
"""
from __future__ import annotations

import numpy as np

from .attrs import Attr
from .common import fail, norm_axis, put
from .registry import OpDef, register


def reduce_axes(op: str, axis, exclude: bool, ndim: int, shape=None) -> tuple:
    """The sorted axes an MXNet reduction reduces over."""
    if axis is None or len(axis) == 0:
        return tuple(range(ndim))
    axes = []
    for a in axis:
        if not -ndim <= a < ndim:
            fail(op, f"reduction axis {a} exceeds the input dimensions", shape or (ndim,))
        axes.append(a % ndim)
    if len(set(axes)) != len(axes):
        fail(op, f"reduction axes {tuple(axis)} have duplicates", shape or (ndim,))
    if exclude:
        axes = [i for i in range(ndim) if i not in axes]
    return tuple(sorted(axes))


def reduced_shape(shape: tuple, axes: tuple, keepdims: bool) -> tuple:
    """Output shape of reducing ``shape`` over ``axes``; never empty (``(1,)``)."""
    if keepdims:
        out = tuple(1 if i in axes else d for i, d in enumerate(shape))
    else:
        out = tuple(d for i, d in enumerate(shape) if i not in axes)
    return out if out else (1,)


def _keep_shape(shape, axes):
    return tuple(1 if i in axes else d for i, d in enumerate(shape))


def _as_out(y, shape, dtype):
    y = y.reshape(shape)
    return y.astype(dtype, copy=False)


def _sum_fwd(xp, x, axes):
    return xp.sum(x, axis=axes, dtype=x.dtype if x.dtype.kind == "f" else None)


def _mean_fwd(xp, x, axes):
    if x.dtype.kind == "f":
        return xp.mean(x, axis=axes)
    n = 1
    for a in axes:
        n *= x.shape[a]
    s = xp.sum(x.astype(np.float64), axis=axes) / max(n, 1)
    return xp.trunc(s)


def _nanprod(xp, x, axes):
    return xp.prod(xp.where(xp.isnan(x), 1, x), axis=axes) if x.dtype.kind == "f" \
        else xp.prod(x, axis=axes)


def _nansum(xp, x, axes):
    if x.dtype.kind != "f":
        return xp.sum(x, axis=axes)
    y = xp.sum(xp.where(xp.isnan(x), 0, x), axis=axes)
    if not bool(xp.isinf(x).any()):
        return y
    # MXNet sums with a compensation term (Kahan), which an infinity turns to NaN: every
    # non-NaN element after the first infinity (in the reduction's order) makes the sum NaN
    rows = _reduced_last(xp, x, axes)
    k = rows.shape[-1]
    first_inf = xp.where(xp.isinf(rows).any(-1), xp.isinf(rows).argmax(-1), k)
    last_number = k - 1 - (~xp.isnan(rows))[..., ::-1].argmax(-1)
    return xp.where((last_number > first_inf).reshape(y.shape), xp.nan, y)


def _reduced_last(xp, x, axes):
    """``x`` with the reduced ``axes`` moved last and flattened (in C order, the order an
    MXNet reduction visits them)."""
    kept = [a for a in range(x.ndim) if a not in axes]
    moved = xp.transpose(x, kept + list(axes))
    return moved.reshape(tuple(x.shape[a] for a in kept) + (-1,))


_FWD = {
    "sum": _sum_fwd,
    "mean": _mean_fwd,
    "max": lambda xp, x, axes: xp.max(x, axis=axes),
    "min": lambda xp, x, axes: xp.min(x, axis=axes),
    "prod": lambda xp, x, axes: xp.prod(x, axis=axes),
    "nansum": _nansum,
    "nanprod": _nanprod,
}


def _grad_factor(kind, xp, x, y_keep, axes):
    """d y / d x broadcast to x's shape (times the head gradient later)."""
    if kind == "sum":
        return None
    if kind == "mean":
        n = 1
        for a in axes:
            n *= x.shape[a]
        return 1.0 / max(n, 1)
    if kind in ("max", "min"):
        return (x == y_keep).astype(x.dtype)
    if kind == "nansum":
        return (~xp.isnan(x)).astype(x.dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        f = y_keep / x
    if kind == "nanprod":
        f = xp.where(xp.isnan(x), 0, f)
    return f


def _make_reduce(kind):
    def forward(oc, attrs, inputs, out):
        x = inputs[0]
        if x.size == 0 and kind in ("max", "min"):  # MXNet checks it in every mode
            fail(kind, "Reduction input's size should > 0", x.shape)
        axes = reduce_axes(kind, attrs.axis, attrs.exclude, x.ndim, x.shape)
        y = _FWD[kind](oc.xp, x, axes)
        return [put(out, 0, _as_out(y, reduced_shape(x.shape, axes, attrs.keepdims), x.dtype))]

    def backward(oc, attrs, inputs, outputs, out_grads):
        xp = oc.xp
        x = inputs[0]
        axes = reduce_axes(kind, attrs.axis, attrs.exclude, x.ndim, x.shape)
        keep = _keep_shape(x.shape, axes)
        g = out_grads[0].reshape(keep)
        y = outputs[0].reshape(keep) if outputs is not None else None
        f = _grad_factor(kind, xp, x, y, axes)
        dx = xp.broadcast_to(g, x.shape) if f is None else g * f
        return [xp.array(xp.broadcast_to(dx, x.shape), dtype=x.dtype)]

    return forward, backward


def _reduce_infer(op):
    def infer(attrs, in_shapes):
        s = in_shapes[0]
        if s is None:
            return [None], [None]
        axes = reduce_axes(op, attrs.axis, attrs.exclude, len(s), s)
        return [tuple(s)], [reduced_shape(tuple(s), axes, attrs.keepdims)]
    return infer


def _reduce_attrs():
    return {"axis": Attr("shape", None), "keepdims": Attr("bool", False),
            "exclude": Attr("bool", False)}


def _make_linear_graph(kind):
    """Recorded gradient of ``sum``/``mean`` (for ``create_graph=True``)."""
    def graph(F, attrs, inputs, outputs, out_grads):
        x = inputs[0]
        axes = reduce_axes(kind, attrs.axis, attrs.exclude, x.ndim, x.shape)
        g = F.broadcast_to(out_grads[0].reshape(_keep_shape(x.shape, axes)), shape=x.shape)
        if kind == "mean":
            n = 1
            for a in axes:
                n *= x.shape[a]
            g = g / max(n, 1)
        return [g]
    return graph


_GRAPHS = {"sum": _make_linear_graph("sum"), "mean": _make_linear_graph("mean")}
_ALIASES = {"sum": ("sum_axis",), "max": ("max_axis",), "min": ("min_axis",)}
_USES = {"sum": ("inputs",), "mean": ("inputs",), "nansum": ("inputs",)}

for _kind in ("sum", "mean", "max", "min", "prod", "nansum", "nanprod"):
    _f, _b = _make_reduce(_kind)
    register(OpDef(_kind, _f, backward=_b, attrs=_reduce_attrs(),
                   infer_shape=_reduce_infer(_kind), aliases=_ALIASES.get(_kind, ()),
                   backward_uses=_USES.get(_kind, ("inputs", "outputs")),
                   backward_graph=_GRAPHS.get(_kind),
                   doc=f"Reduce with {_kind} over ``axis`` (all axes when None).",
                   listed_inputs=False))


# -- norm -------------------------------------------------------------------------------
def _norm_axes(attrs, x_shape):
    # ord 1 and 2 are vector norms over every axis given (MXNet takes 3 axes too)
    return reduce_axes("norm", attrs.axis, False, len(x_shape), x_shape)


def _norm_check(attrs):
    if attrs.ord not in (1, 2):
        fail("norm", f"norm only supports ord=1 and ord=2, got ord={attrs.ord}")


def _norm_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    x = inputs[0]
    _norm_check(attrs)
    axes = _norm_axes(attrs, x.shape)
    xc = x if x.dtype.kind == "f" else x.astype(np.float64)
    if attrs.ord == 1:
        y = xp.sum(xp.abs(xc), axis=axes)
    else:
        y = xp.sqrt(xp.sum(xc * xc, axis=axes))
        if xc.dtype.kind == "f" and bool(xp.isinf(xc).any()):
            # MXNet scales by the largest magnitude so far: a second infinity divides
            # infinity by infinity, and the norm is NaN
            y = xp.where(xp.isinf(xc).sum(axis=axes) >= 2, xp.nan, y)
    odt = attrs.out_dtype or x.dtype
    return [put(out, 0, _as_out(y, reduced_shape(x.shape, axes, attrs.keepdims), odt))]


def _norm_bwd(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    x = inputs[0]
    axes = _norm_axes(attrs, x.shape)
    keep = _keep_shape(x.shape, axes)
    g = out_grads[0].reshape(keep).astype(x.dtype, copy=False)
    if attrs.ord == 1:
        dx = g * xp.sign(x)
    else:
        y = outputs[0].reshape(keep).astype(x.dtype, copy=False)
        with np.errstate(divide="ignore", invalid="ignore"):
            dx = g * (x / y)
    return [xp.array(xp.broadcast_to(dx, x.shape), dtype=x.dtype)]


def _norm_infer(attrs, in_shapes):
    _norm_check(attrs)
    s = in_shapes[0]
    if s is None:
        return [None], [None]
    axes = _norm_axes(attrs, tuple(s))
    return [tuple(s)], [reduced_shape(tuple(s), axes, attrs.keepdims)]


def _norm_type(op, attrs, in_dtypes):
    d = in_dtypes[0]
    if attrs.out_dtype is not None:
        return [d], [np.dtype(attrs.out_dtype)]
    return [d], [d]


register(OpDef("norm", _norm_fwd, backward=_norm_bwd,
               attrs={"ord": Attr("int", 2), "axis": Attr("shape", None),
                      "out_dtype": Attr("dtype", None), "keepdims": Attr("bool", False)},
               infer_shape=_norm_infer, infer_type=_norm_type,
               doc="The 1- or 2-norm over ``axis`` (all axes when None).", listed_inputs=False))


# -- argmax / argmin / argmax_channel ------------------------------------------------------
def _arg_axis(op, attrs, shape):
    return None if attrs.axis is None else norm_axis(op, attrs.axis, len(shape))


def _arg_shape(op, attrs, shape):
    axis = _arg_axis(op, attrs, shape)
    if axis is None:
        return (1,) * len(shape) if attrs.keepdims and shape else (1,)
    return reduced_shape(tuple(shape), (axis,), attrs.keepdims)


def _make_arg(kind):
    def forward(oc, attrs, inputs, out):
        xp = oc.xp
        x = inputs[0]
        axis = _arg_axis(kind, attrs, x.shape)
        if x.size == 0 and (axis is None or x.shape[axis] == 0):
            fail(kind, "cannot reduce an empty array", x.shape)
        fn = xp.argmax if kind == "argmax" else xp.argmin
        y = fn(x.reshape(-1)) if axis is None else fn(x, axis=axis)
        return [put(out, 0, _as_out(y, _arg_shape(kind, attrs, x.shape), x.dtype))]

    def infer(attrs, in_shapes):
        s = in_shapes[0]
        if s is None:
            return [None], [None]
        return [tuple(s)], [_arg_shape(kind, attrs, tuple(s))]
    return forward, infer


for _kind in ("argmax", "argmin"):
    _f, _i = _make_arg(_kind)
    register(OpDef(_kind, _f, attrs={"axis": Attr("int", None), "keepdims": Attr("bool", False)},
                   infer_shape=_i, differentiable=False,
                   doc=f"Indices of the {_kind[3:]}imum along ``axis`` (flattened when None), "
                       "in the input dtype.", listed_inputs=False))


def _argmax_channel_fwd(oc, attrs, inputs, out):
    x = inputs[0]
    y = oc.xp.argmax(x, axis=-1) if x.ndim else oc.xp.zeros((1,))
    shape = x.shape[:-1] or (1,)
    return [put(out, 0, _as_out(y, shape, x.dtype))]


def _argmax_channel_infer(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [None], [None]
    return [tuple(s)], [tuple(s)[:-1] or (1,)]


register(OpDef("argmax_channel", _argmax_channel_fwd, infer_shape=_argmax_channel_infer,
               differentiable=False, doc="Indices of the maximum along the last axis."))
