"""Statistics of MXNet's NumPy interface as single operators, so that ``mx.np`` and
``mx.sym.np`` build the same node: ``_npi_polyval``, ``_npi_average`` (with weights,
``returned``) and ``_npi_percentile`` (``mx.np.percentile``/``quantile``, every
``interpolation``; float32 results except for float64 data, as MXNet gives).
"""
from __future__ import annotations

import numpy as np

from .attrs import Attr
from .common import fail, norm_axis, put
from .registry import OpDef, register

_F32 = np.dtype(np.float32)


# -- polyval --------------------------------------------------------------------------------------
def _powers(xp, p, x):
    """``x[..., None] ** (n-1, ..., 1, 0)`` for the ``n`` coefficients ``p``."""
    n = p.shape[0]
    return x[..., None] ** xp.arange(n - 1, -1, -1).astype(x.dtype)


def _polyval_check(p, x):
    if p.ndim != 1:
        fail("_npi_polyval", "p must be 1-d", p.shape, x.shape)


def _polyval_forward(oc, attrs, inputs, out):
    p, x = inputs
    _polyval_check(p, x)
    dt = np.result_type(p.dtype, x.dtype)
    p, x = p.astype(dt, copy=False), x.astype(dt, copy=False)
    if p.shape[0] == 0:
        return [put(out, 0, oc.xp.zeros(x.shape, dt))]
    return [put(out, 0, _powers(oc.xp, p, x) @ p)]


def _polyval_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    p, x = inputs
    g = out_grads[0]
    n = p.shape[0]
    dt = np.result_type(p.dtype, x.dtype)
    pd, xd = p.astype(dt, copy=False), x.astype(dt, copy=False)
    if n == 0:
        return [xp.zeros_like(p), xp.zeros_like(x)]
    pw = _powers(xp, pd, xd)
    gp = (pw * g[..., None]).reshape(-1, n).sum(axis=0)
    deriv = pd[:-1] * xp.arange(n - 1, 0, -1).astype(dt)
    gx = g * (pw[..., 1:] @ deriv) if n > 1 else xp.zeros_like(xd)
    return [gp.astype(p.dtype, copy=False), gx.astype(x.dtype, copy=False)]


def _polyval_infer(attrs, in_shapes):
    p, x = in_shapes
    return list(in_shapes), [None if x is None else tuple(x)]


def _polyval_types(op, attrs, in_dtypes):
    if any(d is None for d in in_dtypes):
        return list(in_dtypes), [None]
    return list(in_dtypes), [np.result_type(*[np.dtype(d) for d in in_dtypes])]


register(OpDef("_npi_polyval", _polyval_forward, backward=_polyval_backward,
               inputs=("p", "x"), infer_shape=_polyval_infer, infer_type=_polyval_types,
               backward_uses=("inputs",),
               doc="NumPy ``polyval``: the polynomial with coefficients ``p`` (highest power "
                   "first) at ``x``."))


# -- average --------------------------------------------------------------------------------------
def _avg_axes(attrs, ndim):
    if attrs.axis is None:
        return tuple(range(ndim))
    return tuple(sorted(norm_axis("_npi_average", int(a), ndim) for a in attrs.axis))


def _avg_weights(xp, attrs, a, w, axes):
    """The weights broadcast against ``a`` (a 1-d weight lies along the one axis)."""
    if w.shape == a.shape:
        return w
    if w.ndim != 1 or len(axes) != 1 or w.shape[0] != a.shape[axes[0]]:
        fail("_npi_average", "weights must have the shape of a, or be 1-d along the one "
             "averaged axis", a.shape, w.shape)
    shape = [1] * a.ndim
    shape[axes[0]] = w.shape[0]
    return w.reshape(shape)


def _avg_parts(xp, attrs, inputs):
    a = inputs[0]
    axes = _avg_axes(attrs, a.ndim)
    dt = a.dtype if a.dtype.kind == "f" else _F32
    af = a.astype(dt, copy=False)
    if attrs.weighted:
        w = _avg_weights(xp, attrs, a, inputs[1].astype(dt, copy=False), axes)
        scl = xp.broadcast_to(w, a.shape).sum(axis=axes)
        avg = (af * w).sum(axis=axes) / scl
    else:
        w = None
        cnt = int(np.prod([a.shape[i] for i in axes])) if axes else 1
        avg = af.mean(axis=axes) if a.size else af.sum(axis=axes) / cnt
        scl = xp.full(avg.shape, cnt, dt)
    return axes, w, xp.asarray(avg, dtype=dt), xp.asarray(scl, dtype=dt)


def _one_d_weights(attrs, a_shape, w_shape) -> bool:
    return bool(attrs.weighted) and tuple(w_shape) != tuple(a_shape)


def _avg_forward(oc, attrs, inputs, out):
    _, _, avg, scl = _avg_parts(oc.xp, attrs, inputs)
    if attrs.weighted and bool((scl == 0).any()):
        fail("_npi_average", "weights sum to zero, can't be normalized", inputs[0].shape)
    if _one_d_weights(attrs, inputs[0].shape, inputs[-1].shape):
        scl = inputs[1].sum(dtype=scl.dtype)  # MXNet: the weights' sum, one number
    return [put(out, 0, avg), put(out, 1, scl)]


def _avg_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    a = inputs[0]
    axes, w, avg, scl = _avg_parts(xp, attrs, inputs)
    g = xp.expand_dims(out_grads[0].reshape(avg.shape), axes)
    s = xp.expand_dims(scl, axes)
    if not attrs.weighted:
        return [xp.broadcast_to(g / s, a.shape).astype(a.dtype, copy=False)]
    ga = xp.broadcast_to(g * w / s, a.shape)
    gw_full = g * (a - xp.expand_dims(avg, axes)) / s
    if not _one_d_weights(attrs, a.shape, inputs[1].shape):
        gw = gw_full + xp.expand_dims(out_grads[1].reshape(avg.shape), axes)
    else:  # a 1-d weight along the averaged axis; the second output is its sum
        gw = xp.broadcast_to(gw_full, a.shape).sum(
            axis=tuple(i for i in range(a.ndim) if i != axes[0])) + out_grads[1].reshape(())
    return [ga.astype(a.dtype, copy=False), gw.reshape(inputs[1].shape).astype(
        inputs[1].dtype, copy=False)]


def _avg_infer(attrs, in_shapes):
    a = in_shapes[0]
    if a is None:
        return list(in_shapes), [None, None]
    axes = _avg_axes(attrs, len(a))
    out = tuple(d for i, d in enumerate(a) if i not in axes)
    one_d = attrs.weighted and in_shapes[-1] is not None and \
        _one_d_weights(attrs, a, in_shapes[-1])
    return list(in_shapes), [out, () if one_d else out]


def _avg_types(op, attrs, in_dtypes):
    d = in_dtypes[0]
    if d is None:
        return list(in_dtypes), [None, None]
    dt = np.dtype(d) if np.dtype(d).kind == "f" else _F32
    return list(in_dtypes), [dt, dt]


register(OpDef("_npi_average", _avg_forward, backward=_avg_backward,
               inputs=lambda attrs: ("a", "weights") if attrs.weighted else ("a",),
               attrs={"axis": Attr("shape", None, optional=True),
                      "returned": Attr("bool", False), "weighted": Attr("bool", True)},
               num_outputs=2, num_visible_outputs=lambda attrs: 2 if attrs.returned else 1,
               infer_shape=_avg_infer, infer_type=_avg_types, backward_uses=("inputs",),
               doc="NumPy ``average``: the (``weighted``) mean over ``axis`` and the sum of "
                   "the weights (visible when ``returned``; one number for 1-d weights, as "
                   "MXNet gives it)."))


# -- percentile -----------------------------------------------------------------------------------
def _pct_q(xp, attrs, inputs):
    if attrs.q_scalar is not None:
        return attrs.q_scalar
    return inputs[1]


def _pct_forward(oc, attrs, inputs, out):
    xp = oc.xp
    a = inputs[0]
    q = _pct_q(xp, attrs, inputs)
    qa = xp.asarray(q, dtype=np.float64)
    if qa.size and (bool((qa < 0).any()) or bool((qa > 100).any())):
        fail("_npi_percentile", "percentiles must be in the range [0, 100]", a.shape)
    if a.size == 0:
        fail("_npi_percentile", "cannot take a percentile of an empty array", a.shape)
    axes = tuple(range(a.ndim)) if attrs.axis is None else \
        tuple(sorted(norm_axis("_npi_percentile", int(i), a.ndim) for i in attrs.axis))
    rest = [i for i in range(a.ndim) if i not in axes]
    dt = _pct_dtype(a.dtype)
    # the reduced axes flattened last, sorted; then NumPy's interpolation between ranks
    flat = xp.transpose(a.astype(dt, copy=False), rest + list(axes))
    flat = flat.reshape(tuple(a.shape[i] for i in rest) + (-1,))
    srt = xp.sort(flat, axis=-1)
    n = srt.shape[-1]
    pos = qa.reshape(-1) / 100.0 * (n - 1)
    lo = xp.floor(pos).astype(np.int64)
    hi = xp.minimum(lo + 1, n - 1)
    frac = pos - lo
    method = attrs.interpolation
    if method == "lower":
        res = srt[..., lo]
    elif method == "higher":
        res = srt[..., xp.ceil(pos).astype(np.int64)]
    elif method == "nearest":
        res = srt[..., xp.around(pos).astype(np.int64)]
    elif method == "midpoint":
        res = (srt[..., lo] + srt[..., xp.ceil(pos).astype(np.int64)]) / 2
    else:  # linear
        a_lo, a_hi = srt[..., lo].astype(np.float64), srt[..., hi].astype(np.float64)
        res = a_lo + (a_hi - a_lo) * frac
    res = xp.moveaxis(xp.asarray(res), -1, 0).reshape(qa.shape + res.shape[:-1])
    if attrs.keepdims:
        kshape = tuple(1 if i in axes else d for i, d in enumerate(a.shape))
        res = res.reshape(qa.shape + kshape)
    return [put(out, 0, res.astype(dt))]


def _pct_infer(attrs, in_shapes):
    a = in_shapes[0]
    if a is None or (attrs.q_scalar is None and in_shapes[1] is None):
        return list(in_shapes), [None]
    q = () if attrs.q_scalar is not None else tuple(in_shapes[1])
    axes = range(len(a)) if attrs.axis is None else \
        [norm_axis("_npi_percentile", int(i), len(a)) for i in attrs.axis]
    if attrs.keepdims:
        rest = tuple(1 if i in axes else d for i, d in enumerate(a))
    else:
        rest = tuple(d for i, d in enumerate(a) if i not in axes)
    return list(in_shapes), [q + rest]


def _pct_dtype(dtype) -> np.dtype:
    """MXNet's result dtype (and the one it computes in): ``float64`` for ``float64``
    data, ``float32`` for any other (``float16`` and integers included)."""
    return np.dtype(np.float64) if np.dtype(dtype) == np.float64 else np.dtype(np.float32)


def _pct_types(op, attrs, in_dtypes):
    d = in_dtypes[0]
    if d is None:
        return list(in_dtypes), [None]
    return list(in_dtypes), [_pct_dtype(d)]


register(OpDef("_npi_percentile", _pct_forward,
               inputs=lambda attrs: ("a",) if attrs.q_scalar is not None else ("a", "q"),
               attrs={"axis": Attr("shape", None, optional=True),
                      "interpolation": Attr("str", "linear", choices=(
                          "higher", "linear", "lower", "midpoint", "nearest")),
                      "keepdims": Attr("bool", False),
                      "q_scalar": Attr("float", None, optional=True)},
               infer_shape=_pct_infer, infer_type=_pct_types, differentiable=False,
               doc="NumPy ``percentile`` of ``a`` at ``q`` (an input, or ``q_scalar``)."))
