"""Sorting: ``topk``, ``sort`` and ``argsort``.

Sorting is stable (ties keep their order, in both directions), as MXNet 1.9.1's.
``axis=None`` works on the flattened input.  Like MXNet, ``topk`` with
``ret_typ='value'`` and ``sort`` have a hidden second output (the indices), so
their outputs are named ``output0``; indices come in ``dtype`` (float32 by
default).  The value gradient scatters the head gradient back to the selected
positions; indices and masks get a zero gradient.  None of these operators has a
``backward_graph``: higher-order gradients through them are unsupported.
"""
from __future__ import annotations

import numpy as np

from .attrs import Attr
from .common import fail, norm_axis, put
from .registry import OpDef, register

_INDEX_DTYPES = ("uint8", "int32", "int64", "float16", "float32", "float64")


def _prepare(op, x, axis):
    """(array to sort, normalized axis) with ``axis=None`` meaning the flattened input."""
    if axis is None:
        return x.reshape(-1), 0
    return x, norm_axis(op, axis, x.ndim)


def _order(xp, x, axis, ascend):
    """Stable sorting permutation along ``axis``."""
    kw = {"kind": "stable"} if xp is np else {}  # CuPy's sort is always stable
    if ascend:
        return xp.argsort(x, axis=axis, **kw)
    key = x.astype(np.float64) if x.dtype.kind in "ub" else x
    return xp.argsort(-key, axis=axis, **kw)


def _k(op, attrs, n, shape):
    k = attrs.k
    if k <= 0:
        return n
    if k > n:
        fail(op, f"k must not exceed the {n} elements along the axis, got k={k}", shape)
    return k


def _take(xp, a, idx, axis):
    return xp.take_along_axis(a, idx, axis=axis)


def _first(xp, a, k, axis):
    return a[(slice(None),) * axis + (slice(0, k),)]


def _scatter_back(xp, g, order, k, axis):
    """Gradient of ``take_along_axis(x, order[..:k])``: g placed at the selected positions."""
    n = order.shape[axis]
    if k < n:
        pad_shape = list(g.shape)
        pad_shape[axis] = n - k
        g = xp.concatenate([g, xp.zeros(pad_shape, dtype=g.dtype)], axis=axis)
    rank = xp.argsort(order, axis=axis)
    return _take(xp, g, rank, axis)


# -- topk -----------------------------------------------------------------------------------
def _topk_n_out(attrs):
    return 2 if attrs.ret_typ in ("value", "both") else 1


def _topk_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    x = inputs[0]
    xs, axis = _prepare("topk", x, attrs.axis)
    n = xs.shape[axis]
    k = _k("topk", attrs, n, x.shape)
    order = _order(xp, xs, axis, attrs.is_ascend)
    idx = _first(xp, order, k, axis)
    idt = np.dtype(attrs.dtype)
    if attrs.ret_typ == "mask":
        rank = xp.argsort(order, axis=axis)
        mask = (rank < k).astype(x.dtype).reshape(x.shape)
        return [put(out, 0, mask)]
    if attrs.ret_typ == "indices":
        return [put(out, 0, idx.astype(idt))]
    vals = _take(xp, xs, idx, axis)
    return [put(out, 0, vals), put(out, 1, idx.astype(idt))]


def _topk_bwd(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    x = inputs[0]
    if attrs.ret_typ in ("indices", "mask"):
        return [xp.zeros(x.shape, dtype=x.dtype)]
    xs, axis = _prepare("topk", x, attrs.axis)
    k = _k("topk", attrs, xs.shape[axis], x.shape)
    order = _order(xp, xs, axis, attrs.is_ascend)
    dx = _scatter_back(xp, out_grads[0].astype(x.dtype, copy=False), order, k, axis)
    return [dx.reshape(x.shape)]


def _topk_infer(attrs, in_shapes):
    s = in_shapes[0]
    n_out = _topk_n_out(attrs)
    if s is None:
        return [None], [None] * n_out
    s = tuple(s)
    if attrs.ret_typ == "mask":
        return [s], [s]
    if attrs.axis is None:
        n = 1
        for d in s:
            n *= d
        o = (_k("topk", attrs, n, s),)
    else:
        axis = norm_axis("topk", attrs.axis, len(s))
        o = s[:axis] + (_k("topk", attrs, s[axis], s) if s[axis] else
                        (attrs.k if attrs.k > 0 else 0),) + s[axis + 1:]
    return [s], [o] * n_out


def _topk_type(op, attrs, in_dtypes):
    d = in_dtypes[0]
    idt = np.dtype(attrs.dtype)
    if attrs.ret_typ == "indices":
        return [d], [idt]
    if attrs.ret_typ == "mask":
        return [d], [d]
    return [d], [d, idt]


def _topk_grads_read(attrs):
    # backward reads the values' gradient only; indices and masks pass none back
    return (attrs.ret_typ in ("value", "both"), False)[:_topk_n_out(attrs)]


register(OpDef("topk", _topk_fwd, backward=_topk_bwd,
               attrs={"axis": Attr("int", -1, optional=True), "k": Attr("int", 1),
                      "ret_typ": Attr("str", "indices",
                                      choices=("value", "indices", "mask", "both")),
                      "is_ascend": Attr("bool", False),
                      "dtype": Attr("str", "float32", choices=_INDEX_DTYPES)},
               num_outputs=_topk_n_out,
               num_visible_outputs=lambda attrs: 1 if attrs.ret_typ != "both" else 2,
               infer_shape=_topk_infer, infer_type=_topk_type, backward_uses=("inputs",),
               out_grads_read=_topk_grads_read,
               doc="The k largest (or smallest) elements along ``axis``: values, indices, "
                   "a mask, or values and indices.", listed_inputs=False))


# -- sort / argsort -----------------------------------------------------------------------------
def _sort_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    x = inputs[0]
    xs, axis = _prepare("sort", x, attrs.axis)
    order = _order(xp, xs, axis, attrs.is_ascend)
    return [put(out, 0, _take(xp, xs, order, axis)), put(out, 1, order.astype(np.int64))]


def _sort_bwd(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    x = inputs[0]
    xs, axis = _prepare("sort", x, attrs.axis)
    order = _order(xp, xs, axis, attrs.is_ascend)
    g = out_grads[0].astype(x.dtype, copy=False)
    return [_scatter_back(xp, g, order, order.shape[axis], axis).reshape(x.shape)]


def _sort_shape(attrs, s):
    if attrs.axis is None:
        n = 1
        for d in s:
            n *= d
        return (n,)
    norm_axis("sort", attrs.axis, len(s))
    return tuple(s)


def _sort_infer(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [None], [None, None]
    o = _sort_shape(attrs, tuple(s))
    return [tuple(s)], [o, o]


register(OpDef("sort", _sort_fwd, backward=_sort_bwd,
               attrs={"axis": Attr("int", -1, optional=True), "is_ascend": Attr("bool", True)},
               num_outputs=2, num_visible_outputs=1, infer_shape=_sort_infer,
               infer_type=lambda op, attrs, d: (d, [d[0], np.dtype(np.int64)]),
               backward_uses=("inputs",), out_grads_read=(True, False),
               doc="Sort along ``axis`` (stable)."))


def _argsort_fwd(oc, attrs, inputs, out):
    x = inputs[0]
    xs, axis = _prepare("argsort", x, attrs.axis)
    order = _order(oc.xp, xs, axis, attrs.is_ascend)
    return [put(out, 0, order.astype(np.dtype(attrs.dtype)))]


def _argsort_infer(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [None], [None]
    return [tuple(s)], [_sort_shape(attrs, tuple(s))]


register(OpDef("argsort", _argsort_fwd,
               attrs={"axis": Attr("int", -1, optional=True), "is_ascend": Attr("bool", True),
                      "dtype": Attr("str", "float32", choices=_INDEX_DTYPES)},
               infer_shape=_argsort_infer, differentiable=False,
               infer_type=lambda op, attrs, d: (d, [np.dtype(attrs.dtype)]),
               doc="Indices that sort along ``axis`` (stable), in ``dtype``.",
               listed_inputs=False))
