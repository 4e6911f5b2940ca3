"""Assorted math operators of MXNet 1.9: ``hard_sigmoid``, ``cumsum`` (``_np_cumsum``),
``diag``, ``khatri_rao`` and ``moments``; the counting and index operators are in
:mod:`gluonlite.ops.math_extra_count`.

Behaviour learned by running MXNet 1.9.1:

* ``hard_sigmoid`` is ``clip(alpha * x + beta, 0, 1)`` with ``alpha`` and ``beta`` taken
  as float32 values, computed in the input's dtype (float16 in float32, rounded to
  float16 after each operation); its gradient is ``alpha`` where ``0 < y < 1``, else 0;
  integer inputs are refused.
* ``cumsum`` (canonical ``_np_cumsum``, input ``a``) flattens when ``axis`` is None; the
  output dtype is ``dtype`` or else the input's (integers keep their width and wrap);
  with ``dtype`` the elements are cast first, then summed in that dtype.  The gradient
  is the reversed cumulative sum of the head gradient, in the input's dtype.
  MXNet 1.9.1's legacy ``nd.cumsum`` fails on negative axes in its shape inference
  although its kernel accepts them; here they count from the end, as in NumPy.
* ``diag`` of a 1-D input builds the square matrix with the input on diagonal ``k``;
  of an N-D input extracts ``numpy.diagonal(x, k, axis1, axis2)`` (the diagonal as the
  last axis); ``k`` must lie in ``[-shape[axis1], shape[axis2]]`` ("Diagonal does not
  exist").
* ``khatri_rao`` is the column-wise Kronecker product of 2-D float matrices with one
  column count; MXNet registers no gradient for it.
* ``moments`` gives the mean and the (population) variance over ``axes``, which must be
  given; integer inputs are summed in their own dtype (wrapping) and divided with
  truncation, the variance from the truncated mean.  Float16 sums here accumulate in
  float32 (MXNet's kernel accumulates in float16, which can overflow).
"""
from __future__ import annotations

import numpy as np

from .attrs import Attr
from .common import fail, norm_axis, put, same_shape_infer
from .expr import ElemMath, logical_and, var, where
from .registry import OpDef, register


def _need_float(op: str, x) -> None:
    if x.dtype.kind != "f":
        fail(op, f"this operation only supports floating point types, not {x.dtype}",
             x.shape)


def _prod(dims) -> int:
    n = 1
    for d in dims:
        n *= int(d)
    return n


# -- hard_sigmoid -------------------------------------------------------------------------
def _hs_params(attrs, dtype):
    """The compute dtype and ``alpha``, ``beta`` in it: MXNet keeps both as float32
    values (``0.2`` is ``0.200000003``) and computes float16 in float32, rounding to
    float16 after the product and after the sum."""
    compute = np.dtype(np.float32) if dtype == np.float16 else np.dtype(dtype)
    t = compute.type
    return compute, t(np.float32(attrs.alpha)), t(np.float32(attrs.beta))


def _hs_forward(oc, attrs, inputs, out):
    x = inputs[0]
    _need_float("hard_sigmoid", x)
    compute, alpha, beta = _hs_params(attrs, x.dtype)
    prod = (x.astype(compute, copy=False) * alpha).astype(x.dtype, copy=False)
    y = (prod.astype(compute, copy=False) + beta).astype(x.dtype, copy=False)
    return [put(out, 0, oc.xp.clip(y, 0, 1))]


def _hs_backward(oc, attrs, inputs, outputs, out_grads):
    y, g = outputs[0], out_grads[0]
    alpha = y.dtype.type(np.float32(attrs.alpha))  # the gradient multiplies in y's dtype
    inside = (y > 0) & (y < 1)
    return [oc.xp.where(inside, g * alpha, y.dtype.type(0)).astype(y.dtype, copy=False)]


def _hs_math(attrs):
    alpha, beta = float(np.float32(attrs.alpha)), float(np.float32(attrs.beta))
    x, y = var("data"), var("y")
    z = alpha * x + beta
    return ElemMath(where(z <= 0, 0, where(z >= 1, 1, z)),
                    (where(logical_and(y > 0, y < 1), alpha, 0),), ("data",))


register(OpDef("hard_sigmoid", _hs_forward, backward=_hs_backward,
               attrs={"alpha": Attr("float", 0.2), "beta": Attr("float", 0.5)},
               infer_shape=same_shape_infer("hard_sigmoid"), backward_uses=("outputs",),
               math=_hs_math,
               doc="``max(0, min(1, alpha * x + beta))`` elementwise.", listed_inputs=False))


# -- cumsum ------------------------------------------------------------------------------
_CUMSUM_DTYPES = ("float16", "float32", "float64", "int32", "int64", "int8")


def _cumsum_axis(attrs, shape):
    return None if attrs.axis is None else norm_axis("cumsum", attrs.axis, len(shape))


def _cumsum_forward(oc, attrs, inputs, out):
    xp = oc.xp
    x = inputs[0]
    axis = _cumsum_axis(attrs, x.shape)
    dtype = np.dtype(attrs.dtype) if attrs.dtype is not None else x.dtype
    src = x.reshape(-1) if axis is None else x
    with np.errstate(over="ignore", invalid="ignore"):
        y = xp.cumsum(src.astype(dtype, copy=False), axis=0 if axis is None else axis,
                      dtype=dtype)
    return [put(out, 0, y)]


def _cumsum_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    x, g = inputs[0], out_grads[0]
    axis = _cumsum_axis(attrs, x.shape)
    if axis is None:
        g, axis = g.reshape(-1), 0
    rev = xp.flip(xp.cumsum(xp.flip(g, axis), axis=axis), axis)
    return [xp.ascontiguousarray(rev.reshape(x.shape).astype(x.dtype, copy=False))]


def _cumsum_infer(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [None], [None]
    s = tuple(s)
    axis = _cumsum_axis(attrs, s)
    if axis is None:
        return [s], [(0 if 0 in s else _prod(s),)]
    return [s], [s]


def _cumsum_type(op, attrs, in_dtypes):
    d = in_dtypes[0]
    if attrs.dtype is not None:
        return [d], [np.dtype(attrs.dtype)]
    return [d], [d]


register(OpDef("_np_cumsum", _cumsum_forward, backward=_cumsum_backward,
               inputs=("a",), aliases=("cumsum",),
               attrs={"axis": Attr("int", None),
                      "dtype": Attr("dtype", None, choices=_CUMSUM_DTYPES)},
               infer_shape=_cumsum_infer, infer_type=_cumsum_type, backward_uses=("inputs",),
               doc="Cumulative sum along ``axis`` (over the flattened input when None)."))


# -- diag --------------------------------------------------------------------------------
def _diag_axes(attrs, shape):
    nd = len(shape)
    if nd == 0:
        fail("diag", "the input must have at least one dimension", shape)
    if nd == 1:
        return None
    a1, a2 = (norm_axis("diag", a, nd) for a in (attrs.axis1, attrs.axis2))
    if a1 == a2:
        fail("diag", f"axis1 and axis2 cannot refer to the same axis {a1}", shape)
    s1, s2 = shape[a1], shape[a2]
    if (s1 and attrs.k < -s1) or (s2 and attrs.k > s2):
        fail("diag", f"diagonal k={attrs.k} does not exist for axes ({a1}, {a2})", shape)
    return a1, a2


def _diag_index(xp, length: int, k: int):
    base = xp.arange(length)
    return base + max(0, -k), base + max(0, k)


def _diag_length(s1: int, s2: int, k: int) -> int:
    return max(0, min(s1 - max(0, -k), s2 - max(0, k)))


def _diag_forward(oc, attrs, inputs, out):
    xp = oc.xp
    x = inputs[0]
    axes = _diag_axes(attrs, x.shape)
    k = attrs.k
    if axes is None:
        n = x.shape[0] + abs(k)
        y = xp.zeros((n, n), dtype=x.dtype)
        rows, cols = _diag_index(xp, x.shape[0], k)
        y[rows, cols] = x
        return [put(out, 0, y)]
    y = xp.diagonal(x, offset=k, axis1=axes[0], axis2=axes[1]).copy()
    return [put(out, 0, y)]


def _diag_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    x, g = inputs[0], out_grads[0]
    axes = _diag_axes(attrs, x.shape)
    k = attrs.k
    if axes is None:
        rows, cols = _diag_index(xp, x.shape[0], k)
        return [g[rows, cols].astype(x.dtype, copy=False)]
    a1, a2 = axes
    dx = xp.zeros(x.shape, dtype=x.dtype)
    length = _diag_length(x.shape[a1], x.shape[a2], k)
    rows, cols = _diag_index(xp, length, k)
    xp.moveaxis(dx, (a1, a2), (-2, -1))[..., rows, cols] = g
    return [dx]


def _diag_infer(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [None], [None]
    s = tuple(s)
    axes = _diag_axes(attrs, s)
    k = attrs.k
    if axes is None:
        n = s[0] + abs(k) if s[0] else 0
        return [s], [(n, n)]
    a1, a2 = axes
    rest = tuple(d for i, d in enumerate(s) if i not in axes)
    length = _diag_length(s[a1], s[a2], k) if s[a1] and s[a2] else 0
    return [s], [rest + (length,)]


register(OpDef("diag", _diag_forward, backward=_diag_backward,
               attrs={"k": Attr("int", 0), "axis1": Attr("int", 0), "axis2": Attr("int", 1)},
               infer_shape=_diag_infer, backward_uses=("inputs",),
               doc="A 1-D input becomes the matrix with it on diagonal ``k``; an N-D input "
                   "gives its diagonal ``k`` over ``axis1``/``axis2`` (as the last axis)."))


# -- khatri_rao --------------------------------------------------------------------------
def _kr_check(shapes):
    cols = None
    for s in shapes:
        if s is None:
            continue
        if len(s) != 2:
            fail("khatri_rao", "every input must be a 2-D matrix", *shapes)
        if s[1]:
            if cols is not None and s[1] != cols:
                fail("khatri_rao", "the inputs must have the same number of columns",
                     *shapes)
            cols = s[1]
    return cols


def _kr_forward(oc, attrs, inputs, out):
    if len(inputs) != attrs.num_args:
        fail("khatri_rao", f"num_args={attrs.num_args} but {len(inputs)} inputs")
    _kr_check([x.shape for x in inputs])
    for x in inputs:
        _need_float("khatri_rao", x)
        if x.dtype != inputs[0].dtype:
            fail("khatri_rao", f"inputs have dtypes {inputs[0].dtype} and {x.dtype}; they "
                               "must match", *[a.shape for a in inputs])
    y = inputs[0]
    for x in inputs[1:]:
        y = (y[:, None, :] * x[None, :, :]).reshape(-1, x.shape[1])
    return [put(out, 0, oc.xp.array(y, dtype=inputs[0].dtype))]


def _kr_infer(attrs, in_shapes):
    cols = _kr_check(in_shapes) or 0
    ins = [None if s is None else (s[0], cols) for s in in_shapes]
    rows = 0 if any(s is None or not s[0] for s in in_shapes) else _prod(s[0] for s in in_shapes)
    return ins, [(rows, cols)]


register(OpDef("khatri_rao", _kr_forward, attrs={"num_args": Attr("int")},
               inputs=lambda attrs: tuple(f"arg{i}" for i in range(attrs.num_args)),
               key_var_num_args="num_args", infer_shape=_kr_infer, differentiable=False,
               doc="Column-wise Kronecker product of 2-D matrices (no gradient, as in "
                   "MXNet)."))


# -- moments -----------------------------------------------------------------------------
def _moment_axes(attrs, shape):
    if not attrs.axes:
        fail("moments", "empty axes is not supported; to compute global moments, pass "
                        "every axis in axes", shape)
    nd = len(shape)
    axes = []
    for a in attrs.axes:
        if not -nd <= a < nd:
            fail("moments", f"reduction axis {a} exceeds the input dimensions", shape)
        axes.append(a % nd)
    if len(set(axes)) != len(axes):
        fail("moments", f"reduction axes {tuple(attrs.axes)} have duplicates", shape)
    return tuple(sorted(axes))


def _moment_shapes(attrs, shape):
    axes = _moment_axes(attrs, shape)
    keep = tuple(1 if i in axes else d for i, d in enumerate(shape))
    if attrs.keepdims:
        return axes, keep, keep
    outs = tuple(d for i, d in enumerate(shape) if i not in axes)
    return axes, keep, outs or (1,)


def _trunc_div(xp, s, n: int, dtype):
    """``s / n`` truncated toward zero, as C integer division, in ``dtype``."""
    s = s.astype(np.int64)
    q = xp.abs(s) // n
    return xp.where(s < 0, -q, q).astype(dtype)


def _moments_forward(oc, attrs, inputs, out):
    xp = oc.xp
    x = inputs[0]
    axes, keep, oshape = _moment_shapes(attrs, x.shape)
    n = max(_prod(x.shape[a] for a in axes), 1)
    if x.dtype.kind == "f":
        mean = xp.mean(x, axis=axes, keepdims=True)
        var = xp.mean(xp.square(x - mean), axis=axes, keepdims=True)
    else:  # integer arithmetic in the input's dtype, as MXNet's kernel
        with np.errstate(over="ignore"):
            mean = _trunc_div(xp, xp.sum(x, axis=axes, dtype=x.dtype, keepdims=True), n,
                              x.dtype)
            dev = x - mean
            var = _trunc_div(xp, xp.sum(dev * dev, axis=axes, dtype=x.dtype, keepdims=True),
                             n, x.dtype)
    return [put(out, 0, mean.reshape(oshape).astype(x.dtype, copy=False)),
            put(out, 1, var.reshape(oshape).astype(x.dtype, copy=False))]


def _moments_backward(oc, attrs, inputs, outputs, out_grads):
    x = inputs[0]
    axes, keep, _ = _moment_shapes(attrs, x.shape)
    n = max(_prod(x.shape[a] for a in axes), 1)
    mean = outputs[0].reshape(keep)
    g_mean = out_grads[0].reshape(keep)
    g_var = out_grads[1].reshape(keep)
    t = x.dtype.type
    dx = g_mean / t(n) + g_var * (t(2) / t(n)) * (x - mean)
    return [oc.xp.ascontiguousarray(oc.xp.broadcast_to(dx, x.shape).astype(x.dtype,
                                                                             copy=False))]


def _moments_infer(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [None], [None, None]
    _, _, oshape = _moment_shapes(attrs, tuple(s))
    return [tuple(s)], [oshape, oshape]


register(OpDef("moments", _moments_forward, backward=_moments_backward,
               attrs={"axes": Attr("shape", None), "keepdims": Attr("bool", False)},
               num_outputs=2, infer_shape=_moments_infer,
               doc="Mean and variance of ``data`` over ``axes``."))
