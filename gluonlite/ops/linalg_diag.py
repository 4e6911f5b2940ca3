"""``_linalg_extractdiag``, ``_linalg_makediag``, ``_linalg_extracttrian`` and
``_linalg_maketrian``: moving diagonals and triangles between matrices and vectors.

``offset`` selects the diagonal (> 0 above, < 0 below the main one).  For the
triangle operators the triangle is the lower one for ``offset < 0``, the upper
one for ``offset > 0`` and chosen by ``lower`` for ``offset == 0``; lower
triangles are read row by row, upper triangles column by column (MXNet's order:
the upper triangle of ``A`` is read like the lower triangle of ``A^T``).
"""
from __future__ import annotations

import math

import numpy as np

from .attrs import Attr
from .common import fail, put
from .registry import OpDef, register


def _check(op, a, min_ndim):
    if a.ndim < min_ndim:
        fail(op, f"input must have at least {min_ndim} dimension(s)", a.shape)


def _diag_index(xp, n, offset):
    k = n - abs(offset)
    i = xp.arange(k)
    rows = i + max(-offset, 0)
    cols = i + max(offset, 0)
    return rows, cols


def _trian_index(xp, n, offset, lower):
    """Row and column indices of the triangle's elements in MXNet's order."""
    upper = offset > 0 or (offset == 0 and not lower)
    k = abs(offset)
    # lower triangle below diagonal -k, row by row
    r, c = np.tril_indices(n, -k)
    if upper:
        r, c = c, r
    return xp.asarray(r), xp.asarray(c)


def _trian_len_to_n(op, m, offset):
    d = int(round((math.sqrt(8 * m + 1) - 1) / 2))
    if d * (d + 1) // 2 != m:
        fail(op, f"the input length {m} is not a triangular number", (m,))
    return d + abs(offset)


def _extractdiag_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    a = inputs[0]
    _check("_linalg_extractdiag", a, 2)
    n = a.shape[-1]
    if a.shape[-2] != n:
        fail("_linalg_extractdiag", "input must be a (batch of) square matrix", a.shape)
    if abs(attrs.offset) >= n:
        fail("_linalg_extractdiag", f"offset {attrs.offset} is out of range", a.shape)
    r, c = _diag_index(xp, n, attrs.offset)
    return [put(out, 0, a[..., r, c])]


def _extractdiag_bwd(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    a = inputs[0]
    r, c = _diag_index(xp, a.shape[-1], attrs.offset)
    g = xp.zeros(a.shape, dtype=out_grads[0].dtype)
    g[..., r, c] = out_grads[0]
    return [g]


def _extractdiag_infer(attrs, in_shapes):
    a = in_shapes[0]
    if a is None or not a[-1]:
        return [a], [None]
    return [a], [tuple(a[:-2]) + (a[-1] - abs(attrs.offset),)]


def _makediag_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    a = inputs[0]
    _check("_linalg_makediag", a, 1)
    n = a.shape[-1] + abs(attrs.offset)
    r, c = _diag_index(xp, n, attrs.offset)
    y = xp.zeros(a.shape[:-1] + (n, n), dtype=a.dtype)
    y[..., r, c] = a
    return [put(out, 0, y)]


def _makediag_bwd(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    g = out_grads[0]
    r, c = _diag_index(xp, g.shape[-1], attrs.offset)
    return [g[..., r, c]]


def _makediag_infer(attrs, in_shapes):
    a = in_shapes[0]
    if a is None or not a[-1]:
        return [a], [None]
    n = a[-1] + abs(attrs.offset)
    return [a], [tuple(a[:-1]) + (n, n)]


def _extracttrian_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    a = inputs[0]
    _check("_linalg_extracttrian", a, 2)
    n = a.shape[-1]
    if a.shape[-2] != n:
        fail("_linalg_extracttrian", "input must be a (batch of) square matrix", a.shape)
    if abs(attrs.offset) >= n:
        fail("_linalg_extracttrian", f"offset {attrs.offset} is out of range", a.shape)
    r, c = _trian_index(xp, n, attrs.offset, attrs.lower)
    return [put(out, 0, a[..., r, c])]


def _extracttrian_bwd(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    a = inputs[0]
    r, c = _trian_index(xp, a.shape[-1], attrs.offset, attrs.lower)
    g = xp.zeros(a.shape, dtype=out_grads[0].dtype)
    g[..., r, c] = out_grads[0]
    return [g]


def _extracttrian_infer(attrs, in_shapes):
    a = in_shapes[0]
    if a is None or not a[-1]:
        return [a], [None]
    d = a[-1] - abs(attrs.offset)
    return [a], [tuple(a[:-2]) + (d * (d + 1) // 2,)]


def _maketrian_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    a = inputs[0]
    _check("_linalg_maketrian", a, 1)
    n = _trian_len_to_n("_linalg_maketrian", a.shape[-1], attrs.offset)
    r, c = _trian_index(xp, n, attrs.offset, attrs.lower)
    y = xp.zeros(a.shape[:-1] + (n, n), dtype=a.dtype)
    y[..., r, c] = a
    return [put(out, 0, y)]


def _maketrian_bwd(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    g = out_grads[0]
    r, c = _trian_index(xp, g.shape[-1], attrs.offset, attrs.lower)
    return [g[..., r, c]]


def _maketrian_infer(attrs, in_shapes):
    a = in_shapes[0]
    if a is None or not a[-1]:
        return [a], [None]
    n = _trian_len_to_n("_linalg_maketrian", a[-1], attrs.offset)
    return [a], [tuple(a[:-1]) + (n, n)]


def _reg(name, fwd, bwd, infer, attrs, doc):
    register(OpDef(name, fwd, backward=bwd, attrs=attrs, inputs=("A",), infer_shape=infer,
                   aliases=(name[1:],), backward_uses=("inputs",), doc=doc))


_OFFSET = {"offset": Attr("int", 0)}
_TRIAN = {"offset": Attr("int", 0), "lower": Attr("bool", True)}
_reg("_linalg_extractdiag", _extractdiag_fwd, _extractdiag_bwd, _extractdiag_infer, _OFFSET,
     "Diagonal ``offset`` of (a batch of) square matrices.")
_reg("_linalg_makediag", _makediag_fwd, _makediag_bwd, _makediag_infer, _OFFSET,
     "Square matrices with the input vectors on diagonal ``offset``.")
_reg("_linalg_extracttrian", _extracttrian_fwd, _extracttrian_bwd, _extracttrian_infer,
     _TRIAN, "Triangle of (a batch of) square matrices as vectors.")
_reg("_linalg_maketrian", _maketrian_fwd, _maketrian_bwd, _maketrian_infer, _TRIAN,
     "Square matrices with the input vectors as a triangle.")
