"""Reductions of MXNet's NumPy interface (``mx.np``): ``_np_sum``, ``_npi_mean``,
``_np_max``, ``_np_min``, ``_np_prod``, ``_npi_std``, ``_npi_var``, ``_np_all``,
``_np_any``, ``_npi_argmax``, ``_npi_argmin``.

NumPy's shapes, MXNet 1.9's dtypes: reducing every axis gives a 0-d array (the
legacy operators give shape ``(1,)``); ``axis`` is an int, a tuple or None (every
axis); ``sum``/``prod``/``max``/``min`` keep an integer input's dtype (``bool`` sums to
``int64``), ``mean``/``std``/``var`` of integers give ``float32``; ``all``/``any`` give
``bool``; ``argmax``/``argmin`` give ``int64``.  Gradients as in :mod:`.reduce`:
``max``/``min`` send the head gradient to every position equal to the result.
"""
from __future__ import annotations

import numpy as np

from .attrs import Attr
from .common import fail, put
from .reduce import reduce_axes
from .registry import OpDef, register

_F32 = np.dtype(np.float32)
_I64 = np.dtype(np.int64)
_BOOL = np.dtype(np.bool_)


def _axes(op, attrs, shape) -> tuple:
    axis = attrs.axis
    if axis is None:
        return tuple(range(len(shape)))
    if len(axis) == 0:  # NumPy's rule: ``axis=()`` reduces over no axis
        return ()
    return reduce_axes(op, axis, False, len(shape), shape)


def _out_shape(shape, axes, keepdims) -> tuple:
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _keep(shape, axes):
    return tuple(1 if i in axes else d for i, d in enumerate(shape))


def _out_dtype(kind, attrs, dt):
    if attrs.dtype is not None:
        return np.dtype(attrs.dtype)
    if kind in ("mean", "std", "var"):
        return dt if dt.kind == "f" else _F32
    if dt == _BOOL and kind in ("sum", "prod"):
        return _I64
    return dt


def _float_acc(*dts):
    """MXNet's accumulation type for float reductions: float64 if any side is, else
    float32 (float16 data and results accumulate in float32)."""
    return np.dtype(np.float64) if any(d == np.float64 for d in dts) else _F32


def _reduce_fwd(kind, xp, x, axes, attrs, odt):
    if kind in ("std", "var"):
        xc = x.astype(_float_acc(x.dtype, odt) if odt.kind == "f" else odt, copy=False)
        with np.errstate(divide="ignore", invalid="ignore"):
            return getattr(xp, kind)(xc, axis=axes, ddof=attrs.ddof)
    if kind in ("max", "min"):
        if x.size == 0:
            fail(f"_np_{kind}", "cannot reduce an empty array", x.shape)
        return getattr(xp, kind)(x, axis=axes)
    if kind == "mean":
        if x.dtype.kind != "f" and odt.kind != "f":
            # an integer mean sums in the result dtype (wrapping as NumPy's does), then
            # divides and truncates
            n = int(np.prod([x.shape[a] for a in axes])) if axes else 1
            total = xp.sum(x.astype(odt, copy=False), axis=axes, dtype=odt)
            return (total / max(n, 1)).astype(odt)
        acc = _float_acc(x.dtype, odt) if x.dtype.kind == "f" or odt.kind == "f" else odt
        return xp.mean(x.astype(acc, copy=False), axis=axes)
    acc = odt if odt.kind != "f" or x.dtype.kind != "f" else _float_acc(x.dtype, odt)
    return getattr(xp, kind)(x, axis=axes, dtype=acc)


def _grad(kind, xp, x, y, g, axes, attrs, odt):
    """d(sum over heads)/dx for head gradient ``g`` and result ``y`` (both kept dims)."""
    n = 1
    for a in axes:
        n *= x.shape[a]
    if kind == "sum":
        return xp.broadcast_to(g, x.shape)
    if kind == "mean":
        return xp.broadcast_to(g / max(n, 1), x.shape)
    if kind in ("max", "min"):
        return g * (x == y)
    if kind == "prod":
        with np.errstate(divide="ignore", invalid="ignore"):
            return g * y / x
    xc = x.astype(odt, copy=False)
    dev = xc - xp.mean(xc, axis=axes, keepdims=True)
    denom = max(n - attrs.ddof, 1)
    if kind == "var":
        return g * 2 * dev / denom
    with np.errstate(divide="ignore", invalid="ignore"):
        return g * dev / (denom * y)


def _make(kind, name):
    def forward(oc, attrs, inputs, out):
        x = inputs[0]
        axes = _axes(name, attrs, x.shape)
        odt = _out_dtype(kind, attrs, x.dtype)
        y = _reduce_fwd(kind, oc.xp, x, axes, attrs, odt)
        y = oc.xp.asarray(y).astype(odt, copy=False).reshape(
            _out_shape(x.shape, axes, attrs.keepdims))
        return [put(out, 0, y)]

    def backward(oc, attrs, inputs, outputs, out_grads):
        xp = oc.xp
        x = inputs[0]
        axes = _axes(name, attrs, x.shape)
        odt = _out_dtype(kind, attrs, x.dtype)
        keep = _keep(x.shape, axes)
        g = out_grads[0].reshape(keep)
        if kind in ("sum", "mean") and x.dtype.kind == "f":
            g = g.astype(x.dtype, copy=False)  # the gradient is computed in x's dtype
        y = outputs[0].reshape(keep)
        dx = _grad(kind, xp, x, y, g, axes, attrs, odt)
        return [xp.array(xp.broadcast_to(dx, x.shape), dtype=x.dtype)]

    def infer_shape(attrs, in_shapes):
        s = in_shapes[0]
        if s is None:
            return [None], [None]
        return [tuple(s)], [_out_shape(tuple(s), _axes(name, attrs, tuple(s)), attrs.keepdims)]

    def infer_type(op, attrs, in_dtypes):
        d = in_dtypes[0]
        return [d], [None if d is None else _out_dtype(kind, attrs, np.dtype(d))]

    attrs = {"axis": Attr("shape", None), "keepdims": Attr("bool", False),
             "dtype": Attr("dtype", None)}
    if kind in ("std", "var"):
        attrs["ddof"] = Attr("int", 0)
    register(OpDef(name, forward, backward=backward, attrs=attrs, infer_shape=infer_shape,
                   infer_type=infer_type, backward_uses=("inputs", "outputs"),
                   doc=f"NumPy ``{kind}`` over ``axis`` (every axis when None; ``mx.np``)."))


for _kind, _name in (("sum", "_np_sum"), ("mean", "_npi_mean"), ("max", "_np_max"),
                     ("min", "_np_min"), ("prod", "_np_prod"), ("std", "_npi_std"),
                     ("var", "_npi_var")):
    _make(_kind, _name)


# -- all / any: bool results, no gradient --------------------------------------------------
def _make_logical(kind):
    name = f"_np_{kind}"

    def forward(oc, attrs, inputs, out):
        x = inputs[0]
        axes = _axes(name, attrs, x.shape)
        y = getattr(oc.xp, kind)(x, axis=axes, keepdims=attrs.keepdims)
        return [put(out, 0, oc.xp.asarray(y))]

    def infer_shape(attrs, in_shapes):
        s = in_shapes[0]
        if s is None:
            return [None], [None]
        return [tuple(s)], [_out_shape(tuple(s), _axes(name, attrs, tuple(s)), attrs.keepdims)]

    register(OpDef(name, forward, attrs={"axis": Attr("shape", None),
                                         "keepdims": Attr("bool", False)},
                   infer_shape=infer_shape, infer_type=lambda op, attrs, d: (list(d), [_BOOL]),
                   differentiable=False,
                   doc=f"NumPy ``{kind}``: whether {kind} elements are true (``mx.np``)."))


for _kind in ("all", "any"):
    _make_logical(_kind)


# -- argmax / argmin: int64 indices ---------------------------------------------------------
def _make_arg(kind):
    name = f"_npi_{kind}"

    def out_shape(attrs, shape):
        if attrs.axis is None:
            return (1,) * len(shape) if attrs.keepdims else ()
        ax = attrs.axis % len(shape) if shape else 0
        return _out_shape(shape, (ax,), attrs.keepdims)

    def forward(oc, attrs, inputs, out):
        xp = oc.xp
        x = inputs[0]
        if attrs.axis is not None and not -max(x.ndim, 1) <= attrs.axis < max(x.ndim, 1):
            fail(name, f"axis {attrs.axis} is out of bounds", x.shape)
        if x.size == 0 and (attrs.axis is None or x.ndim == 0 or x.shape[attrs.axis] == 0):
            fail(name, "attempt to get the index of an extreme of an empty sequence", x.shape)
        fn = getattr(xp, kind)
        # a 0-d input has one position, which axis 0 (or -1) names as NumPy allows
        y = fn(x.reshape(-1)) if attrs.axis is None or x.ndim == 0 else \
            fn(x, axis=attrs.axis)
        return [put(out, 0, xp.asarray(y).astype(_I64).reshape(out_shape(attrs, x.shape)))]

    def infer_shape(attrs, in_shapes):
        s = in_shapes[0]
        if s is None:
            return [None], [None]
        return [tuple(s)], [out_shape(attrs, tuple(s))]

    register(OpDef(name, forward, attrs={"axis": Attr("int", None),
                                         "keepdims": Attr("bool", False)},
                   infer_shape=infer_shape, infer_type=lambda op, attrs, d: (list(d), [_I64]),
                   differentiable=False,
                   doc=f"NumPy ``{kind}``: int64 indices (flattened when ``axis`` is None)."))


for _kind in ("argmax", "argmin"):
    _make_arg(_kind)
