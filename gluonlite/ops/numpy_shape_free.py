"""``mx.np`` operators whose attributes need no input shape, for symbols built before
shapes are known (``mx.sym.np``, hybridized blocks under ``npx.set_np()``):
``_npi_where`` (broadcasting ``where``), ``_np_reshape`` (NumPy's ``reshape``: one ``-1``
stands for the rest; 0 is a zero-size axis), ``_npx_reshape`` (MXNet's extended codes)
and ``_np_dot`` (NumPy's ``dot`` for any ranks).  The imperative ``mx.np`` functions reach the same results through shape-aware
compositions."""
from __future__ import annotations

import numpy as np

from ._binary_math import reduce_to
from .attrs import Attr
from .broadcast_binary import broadcast_shape
from .common import fail, put
from .numpy_binary import np_result_dtype
from .registry import OpDef, register


# -- where ---------------------------------------------------------------------------------
def _where_forward(oc, attrs, inputs, out):
    cond, x, y = inputs
    dt = np_result_dtype(x.dtype, y.dtype)
    return [put(out, 0, oc.xp.where(cond != 0, x.astype(dt, copy=False),
                                     y.astype(dt, copy=False)))]


def _where_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    cond, x, y = inputs
    g = out_grads[0]
    mask = xp.broadcast_to(cond != 0, g.shape)
    zero = xp.zeros((), g.dtype)
    gx = reduce_to(xp.where(mask, g, zero), x.shape).astype(x.dtype, copy=False)
    gy = reduce_to(xp.where(mask, zero, g), y.shape).astype(y.dtype, copy=False)
    return [xp.zeros(cond.shape, cond.dtype), gx, gy]


def _where_infer(attrs, in_shapes):
    if any(s is None for s in in_shapes):
        return list(in_shapes), [None]
    c, x, y = (tuple(s) for s in in_shapes)
    return [c, x, y], [broadcast_shape("_npi_where", broadcast_shape("_npi_where", c, x), y)]


def _where_types(op, attrs, in_dtypes):
    _, dx, dy = in_dtypes
    if dx is None or dy is None:
        return list(in_dtypes), [None]
    return list(in_dtypes), [np_result_dtype(np.dtype(dx), np.dtype(dy))]


register(OpDef("_npi_where", _where_forward, backward=_where_backward,
               inputs=("condition", "x", "y"), infer_shape=_where_infer,
               infer_type=_where_types, backward_uses=("inputs",),
               doc="NumPy ``where``: ``x`` where ``condition`` is nonzero, else ``y``, "
                   "all three broadcast together."))


# -- reshape ---------------------------------------------------------------------------------
def np_reshape_shape(src: tuple, newshape: tuple) -> tuple:
    """``newshape`` with its ``-1`` resolved for an array of shape ``src`` (NumPy's rule);
    raises ``MXNetError`` when the sizes differ."""
    newshape = tuple(int(d) for d in newshape)
    size = int(np.prod(src))
    if newshape.count(-1) > 1 or any(d < -1 for d in newshape):
        fail("_np_reshape", f"invalid newshape {newshape}", src)
    if -1 in newshape:
        known = int(np.prod([d for d in newshape if d != -1]))
        if known == 0 or size % known:
            fail("_np_reshape", f"cannot reshape an array of size {size} into {newshape}", src)
        newshape = tuple(size // known if d == -1 else d for d in newshape)
    if int(np.prod(newshape)) != size:
        fail("_np_reshape", f"cannot reshape an array of size {size} into {newshape}", src)
    return newshape


def _np_order(order: str) -> str:
    """NumPy's reshape order: ``'A'`` reads as ``'C'`` here, since an ``mx.np`` array is
    always laid out in C order."""
    if order not in ("C", "F", "A"):
        fail("_np_reshape", f"order must be one of 'C', 'F' or 'A', got {order!r}")
    return "F" if order == "F" else "C"


def _reshape_forward(oc, attrs, inputs, out):
    x = inputs[0]
    order = _np_order(attrs.order)
    y = x.reshape(np_reshape_shape(x.shape, attrs.newshape), order=order)
    if out is None:
        y = oc.xp.ascontiguousarray(y) if order == "F" else y.copy()
    return [put(out, 0, y)]


def _reshape_backward(oc, attrs, inputs, outputs, out_grads):
    order = _np_order(attrs.order)
    g = out_grads[0].reshape(inputs[0].shape, order=order)
    return [oc.xp.ascontiguousarray(g) if order == "F" else g]


def _reshape_infer(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [None], [None]
    return [tuple(s)], [np_reshape_shape(tuple(s), attrs.newshape)]


register(OpDef("_np_reshape", _reshape_forward, backward=_reshape_backward,
               attrs={"newshape": Attr("shape"), "order": Attr("str", "C")},
               infer_shape=_reshape_infer, backward_uses=("inputs",),
               doc="NumPy ``reshape`` (``-1`` infers one axis; 0 is a zero-size axis); "
                   "``order='F'`` reads and writes the elements in Fortran order, as NumPy "
                   "(MXNet 1.9.1 ignores ``order``)."))


# -- npx reshape: MXNet's codes ----------------------------------------------------------------
def npx_reshape_shape(src: tuple, spec: tuple, reverse: bool = False) -> tuple:
    """The target shape of ``npx.reshape``: ``-1`` infers, ``-2`` copies the dimension,
    ``-3`` drops a size-1 dimension, ``-4`` copies the remaining dimensions, ``-5`` merges
    two, ``-6`` splits one in two (the two sizes follow; one may be ``-1``); ``reverse``
    reads both from the right."""
    src, spec = tuple(int(d) for d in src), tuple(int(d) for d in spec)
    if reverse:
        return tuple(reversed(npx_reshape_shape(tuple(reversed(src)), _reverse_spec(spec))))
    out, i, j, infer = [], 0, 0, None
    try:
        while j < len(spec):
            code = spec[j]
            if code >= 0:
                out.append(code)
                i += 1
            elif code == -1:
                infer = len(out)
                out.append(-1)
                i += 1
            elif code == -2:
                out.append(src[i])
                i += 1
            elif code == -3:
                if src[i] != 1:
                    fail("_npx_reshape", f"-3 drops a dimension of size 1, got {src[i]} "
                         f"(newshape {spec})", src)
                i += 1
            elif code == -4:
                out.extend(src[i:])
                i = len(src)
            elif code == -5:
                out.append(src[i] * src[i + 1])
                i += 2
            elif code == -6:
                d1, d2 = spec[j + 1], spec[j + 2]
                d1 = src[i] // d2 if d1 == -1 else d1
                d2 = src[i] // d1 if d2 == -1 else d2
                out.extend([d1, d2])
                i += 1
                j += 2
            else:
                fail("_npx_reshape", f"invalid code {code} in newshape {spec}", src)
            j += 1
    except IndexError:
        fail("_npx_reshape", f"newshape {spec} reads more dimensions than the input has", src)
    if infer is not None:
        known = int(np.prod([d for k, d in enumerate(out) if k != infer]))
        out[infer] = int(np.prod(src)) // max(known, 1)
    if int(np.prod(out)) != int(np.prod(src)):
        fail("_npx_reshape", f"cannot reshape into {tuple(out)} (newshape {spec})", src)
    return tuple(out)


def _reverse_spec(spec):
    """``spec`` read right to left, as MXNet reads it with ``reverse=True``: the whole
    list reversed, so a ``-6`` takes its two sizes from before it (``(..., -1, 3, -6)``
    splits the last input dimension into ``(-1, 3)``)."""
    return tuple(reversed(spec))


def _npx_reshape_forward(oc, attrs, inputs, out):
    x = inputs[0]
    y = x.reshape(npx_reshape_shape(x.shape, attrs.newshape, attrs.reverse))
    return [put(out, 0, y.copy() if out is None else y)]


def _npx_reshape_infer(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [None], [None]
    return [tuple(s)], [npx_reshape_shape(tuple(s), attrs.newshape, attrs.reverse)]


register(OpDef("_npx_reshape", _npx_reshape_forward, backward=_reshape_backward,
               attrs={"newshape": Attr("shape"), "reverse": Attr("bool", False),
                      "order": Attr("str", "C")},
               infer_shape=_npx_reshape_infer, backward_uses=("inputs",),
               aliases=("_npi_reshape",),
               doc="MXNet's extended reshape (``npx.reshape``): codes -1..-6, ``reverse``."))


# -- dot -------------------------------------------------------------------------------------
def _dot_axes(a_ndim: int, b_ndim: int):
    """The contracted axes of NumPy's ``dot``: last of ``a``, second-to-last of ``b``."""
    return (a_ndim - 1,), (max(b_ndim - 2, 0),)


def _dot_forward(oc, attrs, inputs, out):
    a, b = inputs
    if a.dtype != b.dtype:
        dt = np.promote_types(a.dtype, b.dtype)
        a, b = a.astype(dt), b.astype(dt)
    if a.ndim == 0 or b.ndim == 0:
        return [put(out, 0, a * b)]
    ax_a, ax_b = _dot_axes(a.ndim, b.ndim)
    if a.shape[ax_a[0]] != b.shape[ax_b[0]]:
        fail("_np_dot", "shapes are not aligned", a.shape, b.shape)
    # xp.dot contracts exactly these axes, for every rank, through BLAS
    return [put(out, 0, oc.xp.asarray(oc.xp.dot(a, b)))]


def _dot_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    a, b = inputs
    if a.ndim == 0 or b.ndim == 0:
        g = out_grads[0]
        ga = xp.sum(g * b) if a.ndim == 0 else g * b
        gb = xp.sum(g * a) if b.ndim == 0 else g * a
        return [xp.asarray(ga).reshape(a.shape).astype(a.dtype),
                xp.asarray(gb).reshape(b.shape).astype(b.dtype)]
    ax_a, ax_b = _dot_axes(a.ndim, b.ndim)
    free_b = [j for j in range(b.ndim) if j != ax_b[0]]
    na = a.ndim - 1
    g = out_grads[0].reshape(a.shape[:-1] + tuple(b.shape[j] for j in free_b))
    # d/da: contract g's b-axes with b's free axes -> (a's free axes..., the summed axis)
    ga = xp.tensordot(g, b, axes=(list(range(na, g.ndim)), free_b))
    # d/db: contract a's free axes with g's a-axes -> (summed axis, b's free axes...)
    gb = xp.tensordot(a, g, axes=(list(range(na)), list(range(na))))
    perm = [0] * b.ndim
    order = [ax_b[0]] + free_b
    for pos, axis in enumerate(order):
        perm[axis] = pos
    gb = xp.transpose(gb, tuple(perm))
    return [ga.astype(a.dtype, copy=False), gb.astype(b.dtype, copy=False)]


def _dot_infer(attrs, in_shapes):
    a, b = in_shapes
    if a is None or b is None:
        return list(in_shapes), [None]
    a, b = tuple(a), tuple(b)
    if not a or not b:
        return [a, b], [a or b]
    ax_a, ax_b = _dot_axes(len(a), len(b))
    da, db = a[ax_a[0]], b[ax_b[0]]
    if da == 0 or db == 0:  # an unknown size (a deferred-init weight) takes the other's
        known = da or db
        a = a[:ax_a[0]] + (known,) + a[ax_a[0] + 1:]
        b = b[:ax_b[0]] + (known,) + b[ax_b[0] + 1:]
    elif da != db:
        fail("_np_dot", "shapes are not aligned", a, b)
    return [a, b], [a[:-1] + tuple(d for j, d in enumerate(b) if j != ax_b[0])]


register(OpDef("_np_dot", _dot_forward, backward=_dot_backward, inputs=("a", "b"),
               infer_shape=_dot_infer, backward_uses=("inputs",),
               doc="NumPy ``dot``: the last axis of ``a`` with the second-to-last of ``b``."))
