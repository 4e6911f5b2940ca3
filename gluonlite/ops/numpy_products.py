"""Products of MXNet's NumPy interface (``mx.np``): ``_npi_tensordot``, ``_npi_matmul``
and ``_npi_einsum``, with NumPy's semantics and gradients.

``np.dot``, ``np.inner``, ``np.vdot`` and ``np.outer`` are written with
``_npi_tensordot`` (NumPy's ``dot`` contracts the last axis of ``a`` with the
second-to-last of ``b``, which the legacy ``dot`` does not).
"""
from __future__ import annotations

import numpy as np

from ._binary_math import reduce_to
from .attrs import Attr
from .common import fail, put
from .registry import OpDef, register


# -- tensordot -------------------------------------------------------------------------------
def _td_axes(op, attrs, a_shape, b_shape):
    ax_a = tuple(int(x) % max(len(a_shape), 1) for x in attrs.a_axes_summed)
    ax_b = tuple(int(x) % max(len(b_shape), 1) for x in attrs.b_axes_summed)
    if len(ax_a) != len(ax_b):
        fail(op, "a_axes_summed and b_axes_summed differ in length", a_shape, b_shape)
    for i, j in zip(ax_a, ax_b):
        if a_shape[i] != b_shape[j]:
            fail(op, f"shape mismatch for sum over axis {i} of a and {j} of b",
                 a_shape, b_shape)
    return ax_a, ax_b


def _td_shape(attrs, a_shape, b_shape):
    ax_a, ax_b = _td_axes("_npi_tensordot", attrs, a_shape, b_shape)
    return (tuple(d for i, d in enumerate(a_shape) if i not in ax_a)
            + tuple(d for i, d in enumerate(b_shape) if i not in ax_b))


def _td_forward(oc, attrs, inputs, out):
    a, b = inputs
    ax_a, ax_b = _td_axes("_npi_tensordot", attrs, a.shape, b.shape)
    dt = np.promote_types(a.dtype, b.dtype)
    y = oc.xp.tensordot(a.astype(dt, copy=False), b.astype(dt, copy=False), axes=(ax_a, ax_b))
    return [put(out, 0, oc.xp.asarray(y, dtype=dt))]


def _td_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    a, b = inputs
    g = out_grads[0]
    ax_a, ax_b = _td_axes("_npi_tensordot", attrs, a.shape, b.shape)
    free_a = [i for i in range(a.ndim) if i not in ax_a]
    free_b = [i for i in range(b.ndim) if i not in ax_b]
    na = len(free_a)
    g = g.reshape(tuple(a.shape[i] for i in free_a) + tuple(b.shape[j] for j in free_b))
    # tensordot keeps the uncontracted axes of each operand in their own order, so the
    # contracted axes of b come back sorted: pair each with its axis of a
    ga = xp.tensordot(g, b, axes=(list(range(na, g.ndim)), free_b))
    ga_axes = free_a + [ax_a[ax_b.index(j)] for j in sorted(ax_b)]
    ga = xp.transpose(ga, tuple(int(i) for i in np.argsort(ga_axes)))
    gb = xp.tensordot(a, g, axes=(free_a, list(range(na))))
    gb_axes = [ax_b[ax_a.index(i)] for i in sorted(ax_a)] + free_b
    gb = xp.transpose(gb, tuple(int(i) for i in np.argsort(gb_axes)))
    return [ga.astype(a.dtype, copy=False), gb.astype(b.dtype, copy=False)]


def _td_infer(attrs, in_shapes):
    a, b = in_shapes
    if a is None or b is None:
        return list(in_shapes), [None]
    return [tuple(a), tuple(b)], [_td_shape(attrs, tuple(a), tuple(b))]


register(OpDef("_npi_tensordot", _td_forward, backward=_td_backward, inputs=("a", "b"),
               attrs={"a_axes_summed": Attr("shape"), "b_axes_summed": Attr("shape")},
               infer_shape=_td_infer, backward_uses=("inputs",),
               doc="NumPy ``tensordot``: sum products over the given axes of ``a`` and ``b``."))


# -- matmul ----------------------------------------------------------------------------------
def _mm_shape(a_shape, b_shape):
    if not a_shape or not b_shape:
        fail("_npi_matmul", "inputs must not be scalars", a_shape, b_shape)
    a2 = (1,) + tuple(a_shape) if len(a_shape) == 1 else tuple(a_shape)
    b2 = tuple(b_shape) + (1,) if len(b_shape) == 1 else tuple(b_shape)
    if a2[-1] != b2[-2]:
        fail("_npi_matmul", "the last axis of a and the second-to-last of b differ",
             a_shape, b_shape)
    n = max(len(a2), len(b2)) - 2
    batch_a = (1,) * (n - len(a2) + 2) + a2[:-2]
    batch_b = (1,) * (n - len(b2) + 2) + b2[:-2]
    batch = []
    for x, y in zip(batch_a, batch_b):
        if x != y and 1 not in (x, y):
            fail("_npi_matmul", "batch axes do not broadcast", a_shape, b_shape)
        batch.append(y if x == 1 else x)  # a zero-size axis against 1 stays 0
    out = tuple(batch) + (a2[-2], b2[-1])
    if len(a_shape) == 1:
        out = out[:-2] + out[-1:]
    if len(b_shape) == 1:
        out = out[:-1]
    return out


def _mm_forward(oc, attrs, inputs, out):
    a, b = inputs
    _mm_shape(a.shape, b.shape)
    dt = np.promote_types(a.dtype, b.dtype)
    return [put(out, 0, oc.xp.matmul(a.astype(dt, copy=False), b.astype(dt, copy=False)))]


def _mm_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    a, b = inputs
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    # the head gradient with the axes a vector operand dropped put back
    g = out_grads[0].reshape(_mm_shape(a2.shape, b2.shape))
    ga = xp.matmul(g, xp.swapaxes(b2, -1, -2))
    gb = xp.matmul(xp.swapaxes(a2, -1, -2), g)
    ga = reduce_to(ga, a2.shape).reshape(a.shape)
    gb = reduce_to(gb, b2.shape).reshape(b.shape)
    return [ga.astype(a.dtype, copy=False), gb.astype(b.dtype, copy=False)]


def _mm_infer(attrs, in_shapes):
    a, b = in_shapes
    if a is None or b is None:
        return list(in_shapes), [None]
    return [tuple(a), tuple(b)], [_mm_shape(tuple(a), tuple(b))]


register(OpDef("_npi_matmul", _mm_forward, backward=_mm_backward, inputs=("a", "b"),
               infer_shape=_mm_infer, backward_uses=("inputs",),
               doc="NumPy ``matmul``: matrix products broadcast over leading axes."))


# -- einsum ----------------------------------------------------------------------------------
_FREE_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _parse_subscripts(subscripts: str, shapes):
    """(input subscripts, output subscript) of an einsum expression, with each ``...``
    spelled out as letters the expression does not use (NumPy's rule: the ellipsis axes
    of all operands align on the right and broadcast)."""
    s = subscripts.replace(" ", "")
    n = len(shapes)
    ins, outs = s.split("->") if "->" in s else (s, None)
    parts = ins.split(",")
    if len(parts) != n:
        fail("_npi_einsum", f"'{subscripts}' names {len(parts)} operands, {n} given")
    if "." in s:
        free = [c for c in _FREE_LETTERS if c not in s]
        widths = []
        for p, shape in zip(parts, shapes):
            named = len(p.replace("...", ""))
            widths.append(len(shape) - named if "..." in p and shape is not None else 0)
        width = max(widths) if widths else 0
        if width > len(free) or min(widths, default=0) < 0:
            fail("_npi_einsum", f"subscripts '{subscripts}' do not match the operands",
                 *shapes)
        ell = "".join(free[:width])
        parts = [p.replace("...", ell[width - w:]) for p, w in zip(parts, widths)]
        if outs is not None:
            outs = outs.replace("...", ell)
    else:
        ell = ""
    if outs is None:
        letters = "".join(parts)
        outs = ell + "".join(sorted(c for c in set(letters)
                                    if letters.count(c) == 1 and c not in ell))
    return parts, outs


def _einsum_forward(oc, attrs, inputs, out):
    parts, outs = _parse_subscripts(attrs.subscripts, [x.shape for x in inputs])
    dt = np.result_type(*[x.dtype for x in inputs])
    expr = ",".join(parts) + "->" + outs
    y = oc.xp.einsum(expr, *[x.astype(dt, copy=False) for x in inputs])
    return [put(out, 0, oc.xp.asarray(y))]


def _einsum_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    parts, outs = _parse_subscripts(attrs.subscripts, [x.shape for x in inputs])
    sizes = {}
    for p, x in zip(parts, inputs):
        for c, d in zip(p, x.shape):  # a size 1 broadcasts against any other, 0 included
            prev = sizes.get(c)
            sizes[c] = d if prev is None or prev == 1 else prev
    g = out_grads[0].reshape(tuple(sizes[c] for c in outs))
    grads = []
    for i, x in enumerate(inputs):
        target = parts[i]
        # a repeated index ('ii') reads a diagonal: the gradient is computed over the
        # distinct indices, then written onto that diagonal
        uniq = "".join(dict.fromkeys(target))
        others = [p for j, p in enumerate(parts) if j != i]
        ops = [inputs[j] for j in range(len(inputs)) if j != i]
        avail = set(outs).union(*others) if others else set(outs)
        missing = [c for c in uniq if c not in avail]  # summed away in x alone
        expr = ",".join([outs] + others) + "->" + "".join(c for c in uniq if c not in missing)
        gx = xp.einsum(expr, g, *ops)
        if missing:
            gx = xp.expand_dims(gx, tuple(uniq.index(c) for c in missing))
        gx = xp.broadcast_to(gx, tuple(sizes[c] for c in uniq))
        full = tuple(sizes[c] for c in target)
        if uniq != target:
            grid = xp.indices(gx.shape)
            diag = xp.zeros(full, gx.dtype)
            diag[tuple(grid[uniq.index(c)] for c in target)] = gx
            gx = diag
        bcast = tuple(k for k, (d, f) in enumerate(zip(x.shape, full)) if d != f)
        if bcast:  # axes of size 1 that broadcast against the other operands
            gx = gx.sum(axis=bcast, keepdims=True)
        grads.append(xp.ascontiguousarray(gx).astype(x.dtype, copy=False))
    return grads


def _einsum_infer(attrs, in_shapes):
    if any(s is None for s in in_shapes):
        return list(in_shapes), [None]
    parts, outs = _parse_subscripts(attrs.subscripts, in_shapes)
    sizes = {}
    for p, s in zip(parts, in_shapes):
        if len(p) != len(s):
            fail("_npi_einsum", f"operand subscripts '{p}' do not match its shape", *in_shapes)
        for c, d in zip(p, s):
            if sizes.setdefault(c, d) != d and 1 not in (d, sizes[c]):
                fail("_npi_einsum", f"index '{c}' has sizes {sizes[c]} and {d}", *in_shapes)
            if sizes[c] == 1:  # a size 1 broadcasts against any other, 0 included
                sizes[c] = d
    return [tuple(s) for s in in_shapes], [tuple(sizes[c] for c in outs)]


register(OpDef("_npi_einsum", _einsum_forward, backward=_einsum_backward,
               inputs=lambda attrs: tuple(f"data{i}" for i in range(attrs.num_args)),
               attrs={"subscripts": Attr("str"), "num_args": Attr("int"),
                      "optimize": Attr("int", 0)},
               key_var_num_args="num_args", infer_shape=_einsum_infer,
               backward_uses=("inputs",),
               doc="NumPy ``einsum`` (explicit or implicit output, ``...`` broadcasting)."))


# -- tensordot with an integer number of axes -------------------------------------------------
class _IntAxes:
    """``_npi_tensordot``'s attributes for ``axes=n``: the last ``n`` axes of ``a`` with
    the first ``n`` of ``b``."""

    def __init__(self, n: int, a_shape, b_shape):
        if n < 0 or n > len(a_shape) or n > len(b_shape):
            fail("_npi_tensordot_int_axes", f"axes={n} exceeds the rank of an input",
                 a_shape, b_shape)
        self.a_axes_summed = tuple(range(len(a_shape) - n, len(a_shape)))
        self.b_axes_summed = tuple(range(n))


def _tdi_forward(oc, attrs, inputs, out):
    return _td_forward(oc, _IntAxes(attrs.axes, inputs[0].shape, inputs[1].shape), inputs,
                       out)


def _tdi_backward(oc, attrs, inputs, outputs, out_grads):
    return _td_backward(oc, _IntAxes(attrs.axes, inputs[0].shape, inputs[1].shape), inputs,
                        outputs, out_grads)


def _tdi_infer(attrs, in_shapes):
    a, b = in_shapes
    if a is None or b is None:
        return list(in_shapes), [None]
    return _td_infer(_IntAxes(attrs.axes, a, b), in_shapes)


register(OpDef("_npi_tensordot_int_axes", _tdi_forward, backward=_tdi_backward,
               inputs=("a", "b"), attrs={"axes": Attr("int")}, infer_shape=_tdi_infer,
               backward_uses=("inputs",),
               doc="NumPy ``tensordot`` with ``axes=n``: sum products over the last ``n`` "
                   "axes of ``a`` and the first ``n`` of ``b``."))
