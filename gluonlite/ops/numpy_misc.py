"""Array functions of MXNet's NumPy interface (``mx.np``) that the legacy operators do
not cover: ``_npi_around`` (NumPy rounding, halves to even), ``_npi_tril``,
``_npi_pad`` (every NumPy mode, with gradients), and the data-dependent
``_npi_unique``, ``_npx_nonzero``, ``_npi_bincount`` (no gradient).
"""
from __future__ import annotations

import numpy as np

from .attrs import Attr
from .common import fail, put, same_shape_infer
from .registry import OpDef, register

_I64 = np.dtype(np.int64)


# -- around ---------------------------------------------------------------------------------
def _around_forward(oc, attrs, inputs, out):
    x = inputs[0]
    if x.dtype.kind != "f" and attrs.decimals >= 0:
        return [put(out, 0, x.copy())]
    return [put(out, 0, oc.xp.around(x, attrs.decimals))]


def _around_backward(oc, attrs, inputs, outputs, out_grads):
    return [oc.xp.zeros_like(out_grads[0])]


register(OpDef("_npi_around", _around_forward, backward=_around_backward,
               attrs={"decimals": Attr("int", 0)}, infer_shape=same_shape_infer("_npi_around"),
               backward_uses=(), doc="NumPy ``around``: halves round to even."))


# -- tril -----------------------------------------------------------------------------------
def _tril_forward(oc, attrs, inputs, out):
    x = inputs[0]
    if x.ndim < 1:
        fail("_npi_tril", "the input must have at least one axis", x.shape)
    return [put(out, 0, oc.xp.tril(x, attrs.k))]


def _tril_backward(oc, attrs, inputs, outputs, out_grads):
    g = oc.xp.tril(out_grads[0], attrs.k)
    if inputs[0].ndim == 1:  # a vector became the rows of a matrix
        g = g.sum(axis=0)
    return [g]


def _tril_infer(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [None], [None]
    s = tuple(s)
    return [s], [(s[0], s[0]) if len(s) == 1 else s]


register(OpDef("_npi_tril", _tril_forward, backward=_tril_backward,
               attrs={"k": Attr("int", 0)}, infer_shape=_tril_infer, backward_uses=("inputs",),
               doc="NumPy ``tril``: zeros above the ``k``-th diagonal."))


# -- pad --------------------------------------------------------------------------------------
_PAD_MODES = ("constant", "edge", "reflect", "symmetric", "maximum", "minimum", "mean",
              "wrap", "linear_ramp")


def _pad_width(attrs, ndim):
    w = attrs.pad_width
    if len(w) != 2 * ndim:
        fail("_npi_pad", f"pad_width has {len(w) // 2} pairs for {ndim} axes", (ndim,))
    return tuple((int(w[2 * i]), int(w[2 * i + 1])) for i in range(ndim))


def _pad_forward(oc, attrs, inputs, out):
    x = inputs[0]
    if attrs.mode not in _PAD_MODES:
        fail("_npi_pad", f"unknown mode '{attrs.mode}'", x.shape)
    kwargs = {"constant_values": attrs.constant_value} if attrs.mode == "constant" else {}
    if attrs.mode in ("reflect", "symmetric"):
        kwargs["reflect_type"] = attrs.reflect_type
    return [put(out, 0, oc.xp.pad(x, _pad_width(attrs, x.ndim), mode=attrs.mode, **kwargs))]


def _pad_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    x = inputs[0]
    g = out_grads[0]
    width = _pad_width(attrs, x.ndim)
    if attrs.mode == "constant":
        return [g[tuple(slice(lo, lo + n) for (lo, _), n in zip(width, x.shape))].copy()]
    if attrs.mode in ("edge", "reflect", "symmetric", "wrap"):
        # which input element each padded position copies: pad an index array the same way
        src = xp.arange(x.size).reshape(x.shape)
        kwargs = {"reflect_type": attrs.reflect_type} \
            if attrs.mode in ("reflect", "symmetric") else {}
        idx = xp.pad(src, width, mode=attrs.mode, **kwargs).reshape(-1)
        gx = xp.bincount(idx, weights=g.reshape(-1).astype(np.float64), minlength=x.size)
        return [gx.reshape(x.shape).astype(x.dtype)]
    fail("_npi_pad", f"no gradient for mode '{attrs.mode}'", x.shape)
    return [None]


def _pad_infer(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [None], [None]
    w = _pad_width(attrs, len(s))
    return [tuple(s)], [tuple(d + lo + hi for d, (lo, hi) in zip(s, w))]


register(OpDef("_npi_pad", _pad_forward, backward=_pad_backward,
               attrs={"pad_width": Attr("shape"), "mode": Attr("str", "constant"),
                      "constant_value": Attr("float", 0.0),
                      "reflect_type": Attr("str", "even")},
               infer_shape=_pad_infer, backward_uses=("inputs",),
               doc="NumPy ``pad`` (``pad_width`` flattened to (before, after) per axis)."))


# -- data-dependent: unique, nonzero, bincount ------------------------------------------------
def _unique_forward(oc, attrs, inputs, out):
    x = inputs[0]
    axis = attrs.axis
    if x.ndim == 0:  # a scalar counts as 1-d, whose only axes are 0 and -1 (MXNet's rule)
        if axis not in (None, 0, -1):
            fail("_npi_unique", f"axis can only be -1 or 0 for a 0-d input, got {axis}",
                 x.shape)
        x, axis = x.reshape(1), None
    res = oc.xp.unique(x, return_index=attrs.return_index, return_inverse=attrs.return_inverse,
                       return_counts=attrs.return_counts, axis=axis)
    if not isinstance(res, tuple):
        return [put(out, 0, res)]
    first, rest = res[0], [r.astype(_I64).reshape(-1) for r in res[1:]]
    return [put(out, i, r) for i, r in enumerate([first] + rest)]


def _unique_infer(attrs, in_shapes):
    # how many distinct values there are only the values decide (0)
    s = in_shapes[0]
    n_extra = _unique_outputs(attrs) - 1
    if s is None:
        return [None], [None] * (n_extra + 1)
    first = (0,) if attrs.axis is None or not s else tuple(
        0 if i == attrs.axis % len(s) else d for i, d in enumerate(s))
    return [tuple(s)], [first] + [(0,)] * n_extra


def _unique_types(op, attrs, in_dtypes):
    return list(in_dtypes), [in_dtypes[0]] + [_I64] * (_unique_outputs(attrs) - 1)


def _unique_outputs(attrs):
    return 1 + int(attrs.return_index) + int(attrs.return_inverse) + int(attrs.return_counts)


register(OpDef("_npi_unique", _unique_forward,
               attrs={"return_index": Attr("bool", False), "return_inverse": Attr("bool", False),
                      "return_counts": Attr("bool", False), "axis": Attr("int", None)},
               num_outputs=_unique_outputs, infer_shape=_unique_infer, infer_type=_unique_types,
               differentiable=False,
               doc="NumPy ``unique``: sorted distinct values (and indices/counts)."))


def _nonzero_forward(oc, attrs, inputs, out):
    x = inputs[0]
    if x.ndim == 0:  # a 0-d array counts as 1-d (MXNet's rule): rows of one index
        x = x.reshape(1)
    y = oc.xp.stack(oc.xp.nonzero(x), axis=1).astype(_I64)
    return [put(out, 0, y)]


register(OpDef("_npx_nonzero", _nonzero_forward,
               infer_shape=lambda attrs, s: ([s[0]], [None if s[0] is None else
                                                     (0, max(len(s[0]), 1))]),
               infer_type=lambda op, attrs, d: (list(d), [_I64]), differentiable=False,
               doc="Indices of the nonzero elements, one row per element (shape "
                   "``(N, max(ndim, 1))``: a 0-d input counts as 1-d)."))


def _bincount_forward(oc, attrs, inputs, out):
    xp = oc.xp
    x = inputs[0]
    if x.dtype.kind not in "iu":
        fail("_npi_bincount", f"needs an integer input, got {x.dtype}", x.shape)
    if x.size and int(x.min()) < 0:
        fail("_npi_bincount", "input must not be negative", x.shape)
    if attrs.has_weights:
        w = inputs[1]
        y = xp.bincount(x.reshape(-1), weights=w.reshape(-1), minlength=attrs.minlength)
        return [put(out, 0, y.astype(w.dtype))]
    return [put(out, 0, xp.bincount(x.reshape(-1), minlength=attrs.minlength).astype(_I64))]


def _bincount_types(op, attrs, in_dtypes):
    return list(in_dtypes), [in_dtypes[1] if attrs.has_weights else _I64]


register(OpDef("_npi_bincount", _bincount_forward,
               inputs=lambda attrs: ("data", "weights") if attrs.has_weights else ("data",),
               attrs={"minlength": Attr("int", 0), "has_weights": Attr("bool", False)},
               infer_shape=lambda attrs, s: (list(s), [(0,)]), infer_type=_bincount_types,
               differentiable=False,
               doc="NumPy ``bincount``: occurrences (or summed weights) of each value."))
