"""More functions of MXNet's NumPy interface as single operators, so that ``mx.np`` and
``mx.sym.np`` build the same node: ``_npi_flip`` (``axis=None`` flips every axis),
``_np_diag``, ``_np_resize``, ``_npi_hsplit``/``_npi_dsplit``, the elementwise
``_npi_bitwise_not``, ``_npi_isnan``/``isinf``/``isposinf``/``isneginf``/``isfinite`` and
``_npi_nan_to_num``, ``_npi_polyval``, ``_npi_average``, ``_npi_percentile``, the
creation operators ``_npi_logspace``, ``_npi_indices``, ``_npi_hanning``/``hamming``/
``blackman``, ``_npi_diag_indices_from`` and ``_npx_constraint_check``.
"""
from __future__ import annotations

import numpy as np

from ..base import MXNetError
from ._binary_math import reduce_to
from .attrs import Attr
from .common import fail, norm_axis, put, same_shape_infer
from .creation import _ctx_attr, _no_inputs_type
from .join_split import _split_v2_bwd, _split_v2_fwd, _split_v2_infer
from .numpy_manip import _register_copy_op
from .registry import OpDef, register

_F32 = np.dtype(np.float32)
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
        fail("_np_resize", f"new_shape {shape} has a negative dimension", x.shape)
    total = int(np.prod(shape)) if shape else 1
    if x.size == 0 or total == 0:
        return xp.zeros(shape, x.dtype)
    flat = x.reshape(-1)
    reps = -(-total // flat.size)
    return xp.tile(flat, reps)[:total].reshape(shape)


_register_copy_op("_np_resize", _resize, {"new_shape": Attr("shape")},
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


# -- creation: logspace, indices, windows, diag_indices_from ----------------------------------
def _logspace_forward(oc, attrs, inputs, out):
    if attrs.num < 0:
        fail("_npi_logspace", f"num must be non-negative, got {attrs.num}")
    y = oc.xp.logspace(attrs.start, attrs.stop, attrs.num, endpoint=attrs.endpoint,
                       base=attrs.base, dtype=np.float64)
    return [put(out, 0, y.astype(attrs.dtype))]


register(OpDef("_npi_logspace", _logspace_forward, inputs=(),
               infer_shape=lambda attrs, s: ([], [(max(attrs.num, 0),)]),
               infer_type=_no_inputs_type, differentiable=False,
               attrs={"start": Attr("float"), "stop": Attr("float"), "num": Attr("int"),
                      "endpoint": Attr("bool", True), "base": Attr("float", 10.0),
                      "ctx": _ctx_attr(), "dtype": Attr("dtype", _F32)},
               doc="NumPy ``logspace``: ``base ** linspace(start, stop, num)``."))


def _indices_forward(oc, attrs, inputs, out):
    dims = tuple(attrs.dimensions)
    if any(d < 0 for d in dims):
        fail("_npi_indices", f"dimensions {dims} must be non-negative")
    return [put(out, 0, oc.xp.indices(dims, dtype=attrs.dtype))]


register(OpDef("_npi_indices", _indices_forward, inputs=(),
               infer_shape=lambda attrs, s: ([], [(len(attrs.dimensions),)
                                                  + tuple(attrs.dimensions)]),
               infer_type=_no_inputs_type, differentiable=False,
               attrs={"dimensions": Attr("shape"), "dtype": Attr("dtype", np.dtype(np.int32)),
                      "ctx": _ctx_attr()},
               doc="NumPy ``indices``: a grid of the indices of an array of ``dimensions``."))


# NumPy's windows as cosine sums: ``sum_k c_k cos(2 pi k n / (M - 1))``
_WINDOWS = {"hanning": (0.5, -0.5), "hamming": (0.54, -0.46), "blackman": (0.42, -0.5, 0.08)}


def _register_window(name: str, np_fn: str):
    coeffs = _WINDOWS[np_fn]

    def forward(oc, attrs, inputs, out):
        xp = oc.xp
        m = int(attrs.M)
        if m <= 1:
            y = xp.ones(max(m, 0), np.float64)
        else:
            t = 2 * np.pi * xp.arange(m, dtype=np.float64) / (m - 1)
            y = sum(c * xp.cos(k * t) for k, c in enumerate(coeffs))
        return [put(out, 0, y.astype(attrs.dtype))]
    register(OpDef(name, forward, inputs=(),
                   infer_shape=lambda attrs, s: ([], [(max(int(attrs.M), 0),)]),
                   infer_type=_no_inputs_type, differentiable=False,
                   attrs={"M": Attr("int"), "ctx": _ctx_attr(), "dtype": Attr("dtype", _F32)},
                   doc=f"NumPy ``{np_fn}``: the window of ``M`` points."))


_register_window("_npi_hanning", "hanning")
_register_window("_npi_hamming", "hamming")
_register_window("_npi_blackman", "blackman")


def _dif_forward(oc, attrs, inputs, out):
    x = inputs[0]
    if x.ndim < 2 or len(set(x.shape)) != 1:
        fail("_npi_diag_indices_from", "needs an input of at least 2 dimensions, all of "
             "equal length", x.shape)
    idx = oc.xp.arange(x.shape[0], dtype=np.int64)
    return [put(out, 0, oc.xp.broadcast_to(idx, (x.ndim, x.shape[0])).copy())]


register(OpDef("_npi_diag_indices_from", _dif_forward,
               infer_shape=lambda attrs, s: (list(s), [None if s[0] is None else
                                                       (len(s[0]), s[0][0])]),
               infer_type=lambda op, attrs, d: (list(d), [np.dtype(np.int64)]),
               differentiable=False,
               doc="NumPy ``diag_indices_from``: the indices of the main diagonal, one row "
                   "per axis."))


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


# -- arange -------------------------------------------------------------------------------------
def _np_arange_len(attrs) -> int:
    start, stop, step = attrs.start, attrs.stop, attrs.step
    if stop is None:
        start, stop = 0.0, start
    if step == 0:
        fail("_npi_arange", "step must not be 0")
    return max(int(np.ceil((stop - start) / step)), 0), start


def _np_arange_forward(oc, attrs, inputs, out):
    n, start = _np_arange_len(attrs)
    y = oc.xp.arange(n, dtype=np.float64) * attrs.step + start
    return [put(out, 0, y.astype(attrs.dtype))]


register(OpDef("_npi_arange", _np_arange_forward, inputs=(),
               infer_shape=lambda attrs, s: ([], [(_np_arange_len(attrs)[0],)]),
               infer_type=_no_inputs_type, differentiable=False,
               attrs={"start": Attr("float"), "stop": Attr("float", None, optional=True),
                      "step": Attr("float", 1.0), "repeat": Attr("int", 1),
                      "infer_range": Attr("bool", False), "ctx": _ctx_attr(),
                      "dtype": Attr("dtype", _F32)},
               doc="NumPy ``arange``: ``start + i * step`` for the ``ceil((stop - start) / "
                   "step)`` values of ``[start, stop)`` (empty when the range is)."))


# -- eye, full_like -------------------------------------------------------------------------
def _eye_dims(attrs):
    n = int(attrs.N)
    m = n if attrs.M is None else int(attrs.M)
    if n < 0 or m < 0:
        fail("_npi_eye", f"negative dimensions are not allowed (N={n}, M={m})")
    return n, m


def _eye_forward(oc, attrs, inputs, out):
    n, m = _eye_dims(attrs)
    return [put(out, 0, oc.xp.eye(n, m, int(attrs.k), dtype=attrs.dtype))]


register(OpDef("_npi_eye", _eye_forward, inputs=(),
               infer_shape=lambda attrs, s: ([], [_eye_dims(attrs)]),
               infer_type=_no_inputs_type, differentiable=False,
               attrs={"N": Attr("int"), "M": Attr("int", None, optional=True),
                      "k": Attr("int", 0), "ctx": _ctx_attr(), "dtype": Attr("dtype", _F32)},
               doc="NumPy ``eye``: an ``N`` x ``M`` array (``M`` = ``N`` when None) with ones "
                   "on the ``k``-th diagonal; ``N = 0`` gives an empty array."))


def _fill_value(value, dtype):
    """``value`` in ``dtype`` as NumPy's ``full`` stores it (``bool`` of a number is its
    truth, integers truncate), as a Python scalar."""
    return np.array(value).astype(dtype).item()


def _full_like_forward(oc, attrs, inputs, out):
    a = inputs[0]
    dt = a.dtype if attrs.dtype is None else np.dtype(attrs.dtype)
    return [put(out, 0, oc.xp.full(a.shape, _fill_value(attrs.fill_value, dt), dtype=dt))]


def _full_like_backward(oc, attrs, inputs, outputs, out_grads):
    return [None]  # the values of ``a`` do not matter: no gradient


register(OpDef("_npi_full_like", _full_like_forward, backward=_full_like_backward,
               inputs=("a",), infer_shape=same_shape_infer("_npi_full_like"),
               infer_type=lambda op, attrs, d: (list(d), [d[0] if attrs.dtype is None
                                                          else np.dtype(attrs.dtype)]),
               attrs={"fill_value": Attr("float"), "ctx": _ctx_attr(),
                      "dtype": Attr("dtype", None, optional=True)},
               backward_uses=(),
               doc="NumPy ``full_like``: an array of ``a``'s shape (and dtype, unless "
                   "``dtype`` is given) filled with ``fill_value``."))


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
