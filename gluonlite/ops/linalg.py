"""The ``_linalg_*`` operators (``nd.linalg.gemm``, ``potrf``, ``trsm``, ...).

Every operator works on the last two axes (matrices) and is batched over the
leading ones; ``gemm``/``gemm2`` take ``axis`` (the axis of the matrix rows; the
columns are the last axis).  Triangular operands use only their triangle
(``lower``).  Reductions to a scalar per matrix (``det``, ``sumlogdiag``,
``slogdet``) give shape ``(1,)`` for a single matrix.  Gradients are written by
formula: for the Cholesky factor ``L`` of ``A`` the gradient is
``sym(L^-T Phi(L^T dL) L^-1)`` with ``Phi`` the lower triangle with half the
diagonal; ``trsm``, ``inverse``, ``det`` use ``d(M^-1) = -M^-1 dM M^-1``.
Triangular solves use ``xp.linalg.solve`` (no SciPy).
"""
from __future__ import annotations

import numpy as np

from .attrs import Attr
from .common import fail, merge_shapes, put
from .registry import OpDef, register


def _t(x):
    return x.swapaxes(-1, -2)


def _tri_mask(xp, n, lower, k=0):
    """Boolean (n, n) mask of the lower (upper) triangle including diagonal ``k``."""
    if lower:
        return xp.tri(n, n, k, dtype=bool)
    return ~xp.tri(n, n, k - 1, dtype=bool)


def _tri(xp, a, lower):
    return xp.where(_tri_mask(xp, a.shape[-1], lower), a, 0)


def _check_mat(op, *arrays, square=()):
    for i, a in enumerate(arrays):
        if a.ndim < 2:
            fail(op, "inputs must have at least 2 dimensions", *[x.shape for x in arrays])
        if a.dtype not in (np.float32, np.float64):
            fail(op, f"only float32 and float64 inputs are supported, not {a.dtype.name}",
                 a.shape)
        if i in square and a.shape[-1] != a.shape[-2]:
            fail(op, "input must be a (batch of) square matrix", a.shape)


def _scalar_shape(batch):
    return tuple(batch) if batch else (1,)


def _op(transpose, x):
    return _t(x) if transpose else x


# -- gemm / gemm2 -----------------------------------------------------------------

def _move(xp, x, axis, back=False):
    ax = axis % x.ndim
    if ax == x.ndim - 2:
        return x
    return xp.moveaxis(x, -2, ax) if back else xp.moveaxis(x, ax, -2)


def _gemm_core(op, xp, attrs, a, b):
    a2, b2 = _move(xp, a, attrs.axis), _move(xp, b, attrs.axis)
    oa, ob = _op(attrs.transpose_a, a2), _op(attrs.transpose_b, b2)
    if oa.shape[-1] != ob.shape[-2] or oa.shape[:-2] != ob.shape[:-2]:
        fail(op, "matrix dimensions do not agree", a.shape, b.shape)
    return a2, b2, oa, ob


def _gemm_fwd(op, with_c):
    def forward(oc, attrs, inputs, out):
        xp = oc.xp
        _check_mat(op, *inputs)
        a2, b2, oa, ob = _gemm_core(op, xp, attrs, inputs[0], inputs[1])
        y = attrs.alpha * xp.matmul(oa, ob)
        if with_c:
            c2 = _move(xp, inputs[2], attrs.axis)
            if c2.shape != y.shape:
                fail(op, "C does not match the shape of op(A) op(B)", *[x.shape for x in inputs])
            y = y + attrs.beta * c2
        return [put(out, 0, _move(xp, y.astype(inputs[0].dtype, copy=False), attrs.axis,
                                  back=True))]
    return forward


def _gemm_bwd(op, with_c):
    def backward(oc, attrs, inputs, outputs, out_grads):
        xp = oc.xp
        a2, b2, oa, ob = _gemm_core(op, xp, attrs, inputs[0], inputs[1])
        g = _move(xp, out_grads[0], attrs.axis)
        d_oa = attrs.alpha * xp.matmul(g, _t(ob))
        d_ob = attrs.alpha * xp.matmul(_t(oa), g)
        da = _t(d_oa) if attrs.transpose_a else d_oa
        db = _t(d_ob) if attrs.transpose_b else d_ob
        grads = [_move(xp, da, attrs.axis, back=True), _move(xp, db, attrs.axis, back=True)]
        if with_c:
            grads.append(attrs.beta * out_grads[0])
        return grads
    return backward


def _gemm_infer(op, with_c):
    def infer(attrs, in_shapes):
        ins = list(in_shapes)
        a, b = ins[0], ins[1]
        if a is None or b is None:
            out = ins[2] if with_c else None
            return ins, [out]
        nd = len(a)
        ax = attrs.axis % nd

        def rc(s, tr):
            r, c = s[ax], s[-1]
            return (c, r) if tr else (r, c)
        ra, ca = rc(a, attrs.transpose_a)
        rb, cb = rc(b, attrs.transpose_b)
        if ca and rb and ca != rb:
            fail(op, "matrix dimensions do not agree", a, b)
        out = list(a)
        out[ax] = ra
        out[-1] = cb
        out = tuple(out)
        if with_c:
            out = merge_shapes(op, "C", ins[2], out)
            ins[2] = out
        return ins, [out]
    return infer


_GEMM_ATTRS = {"transpose_a": Attr("bool", False), "transpose_b": Attr("bool", False),
               "alpha": Attr("float", 1.0)}
register(OpDef("_linalg_gemm", _gemm_fwd("_linalg_gemm", True),
               backward=_gemm_bwd("_linalg_gemm", True),
               attrs=dict(_GEMM_ATTRS, beta=Attr("float", 1.0), axis=Attr("int", -2)),
               inputs=("A", "B", "C"), infer_shape=_gemm_infer("_linalg_gemm", True),
               aliases=("linalg_gemm",), backward_uses=("inputs",),
               doc="alpha * op(A) op(B) + beta * C over the last two axes."))
register(OpDef("_linalg_gemm2", _gemm_fwd("_linalg_gemm2", False),
               backward=_gemm_bwd("_linalg_gemm2", False),
               attrs=dict(_GEMM_ATTRS, axis=Attr("int", -2)),
               inputs=("A", "B"), infer_shape=_gemm_infer("_linalg_gemm2", False),
               aliases=("linalg_gemm2",), backward_uses=("inputs",),
               doc="alpha * op(A) op(B) over the last two axes."))


# -- helpers for the square-matrix operators ----------------------------------------

def _same_infer(op, square=True):
    def infer(attrs, in_shapes):
        s = in_shapes[0]
        if s is not None and square and len(s) >= 2 and s[-1] and s[-2] and s[-1] != s[-2]:
            fail(op, "input must be a (batch of) square matrix", s)
        return [s], [s]
    return infer


def _simple(name, forward, backward, inputs=("A",), infer=None, attrs=None, n_out=1,
            doc="", backward_uses=("inputs", "outputs"), output_names=None,
            json_num_outputs=None):
    register(OpDef(name, forward, backward=backward, attrs=attrs or {}, inputs=inputs,
                   num_outputs=n_out, infer_shape=infer or _same_infer(name),
                   aliases=(name[1:],), backward_uses=backward_uses, doc=doc,
                   output_names=output_names, json_num_outputs=json_num_outputs))


def _inv(xp, a):
    return xp.linalg.inv(a)


# -- potrf / potri ------------------------------------------------------------------

def _cholesky(op, xp, a):
    try:
        low = xp.linalg.cholesky(a)
    except np.linalg.LinAlgError:
        fail(op, "the matrix is not positive definite", a.shape)
    return low


def _potrf_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    a = inputs[0]
    _check_mat("_linalg_potrf", a, square=(0,))
    half = _tri(xp, a, attrs.lower)
    sym = half + _t(half) - a * xp.eye(a.shape[-1], dtype=a.dtype)
    low = _cholesky("_linalg_potrf", xp, sym)
    return [put(out, 0, low if attrs.lower else _t(low).copy())]


def _phi(xp, x):
    n = x.shape[-1]
    return xp.where(xp.tri(n, n, -1, dtype=bool), x, 0) + 0.5 * x * xp.eye(n, dtype=x.dtype)


def _potrf_bwd(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    low = outputs[0] if attrs.lower else _t(outputs[0])
    g = out_grads[0] if attrs.lower else _t(out_grads[0])
    g = _tri(xp, g, True)
    linv = _inv(xp, low)
    s = xp.matmul(_t(linv), xp.matmul(_phi(xp, xp.matmul(_t(low), g)), linv))
    return [0.5 * (s + _t(s))]


_simple("_linalg_potrf", _potrf_fwd, _potrf_bwd, attrs={"lower": Attr("bool", True)},
        doc="Cholesky factor (lower L with A = L L^T, or upper U with A = U^T U).")


def _potri_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    a = inputs[0]
    _check_mat("_linalg_potri", a, square=(0,))
    low = _tri(xp, a, attrs.lower)
    if not attrs.lower:
        low = _t(low)
    linv = _inv(xp, low)
    return [put(out, 0, xp.matmul(_t(linv), linv))]


def _potri_bwd(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    y = outputs[0]
    low = _tri(xp, inputs[0], attrs.lower)
    if not attrs.lower:
        low = _t(low)
    g = out_grads[0]
    dlow = -xp.matmul(xp.matmul(y, g + _t(g)), xp.matmul(y, low))
    return [_tri(xp, dlow if attrs.lower else _t(dlow), attrs.lower)]


_simple("_linalg_potri", _potri_fwd, _potri_bwd, attrs={"lower": Attr("bool", True)},
        doc="Inverse of A = L L^T (or U^T U) from its Cholesky factor.")


# -- trsm / trmm --------------------------------------------------------------------

_TRI_ATTRS = {"transpose": Attr("bool", False), "rightside": Attr("bool", False),
              "lower": Attr("bool", True), "alpha": Attr("float", 1.0)}


def _tri_op(xp, attrs, a):
    m = _tri(xp, a, attrs.lower)
    return _t(m) if attrs.transpose else m


def _tri_grad(xp, attrs, d_m):
    return _tri(xp, _t(d_m) if attrs.transpose else d_m, attrs.lower)


def _check_tri(op, a, b, rightside):
    _check_mat(op, a, b, square=(0,))
    k = b.shape[-1] if rightside else b.shape[-2]
    if a.shape[-1] != k or a.shape[:-2] != b.shape[:-2]:
        fail(op, "matrix dimensions do not agree", a.shape, b.shape)


def _trsm_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    a, b = inputs
    _check_tri("_linalg_trsm", a, b, attrs.rightside)
    m = _tri_op(xp, attrs, a)
    if attrs.rightside:
        x = _t(xp.linalg.solve(_t(m), _t(b)))
    else:
        x = xp.linalg.solve(m, b)
    return [put(out, 0, attrs.alpha * x)]


def _trsm_bwd(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    a = inputs[0]
    x = outputs[0]
    m = _tri_op(xp, attrs, a)
    g = out_grads[0]
    if attrs.rightside:
        gs = _t(xp.linalg.solve(m, _t(g)))       # g M^-T
        d_m = -xp.matmul(_t(x), gs)
    else:
        gs = xp.linalg.solve(_t(m), g)           # M^-T g
        d_m = -xp.matmul(gs, _t(x))
    return [_tri_grad(xp, attrs, d_m), attrs.alpha * gs]


def _trmm_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    a, b = inputs
    _check_tri("_linalg_trmm", a, b, attrs.rightside)
    m = _tri_op(xp, attrs, a)
    y = xp.matmul(b, m) if attrs.rightside else xp.matmul(m, b)
    return [put(out, 0, attrs.alpha * y)]


def _trmm_bwd(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    a, b = inputs
    m = _tri_op(xp, attrs, a)
    g = attrs.alpha * out_grads[0]
    if attrs.rightside:
        d_m, d_b = xp.matmul(_t(b), g), xp.matmul(g, _t(m))
    else:
        d_m, d_b = xp.matmul(g, _t(b)), xp.matmul(_t(m), g)
    return [_tri_grad(xp, attrs, d_m), d_b]


def _tri_infer(op):
    def infer(attrs, in_shapes):
        a, b = in_shapes
        if a is not None and b is not None:
            k = b[-1] if attrs.rightside else b[-2]
            if a[-1] and k and a[-1] != k:
                fail(op, "matrix dimensions do not agree", a, b)
        return [a, b], [b]
    return infer


_simple("_linalg_trsm", _trsm_fwd, _trsm_bwd, inputs=("A", "B"), attrs=_TRI_ATTRS,
        infer=_tri_infer("_linalg_trsm"),
        doc="Solve op(A) X = alpha B (or X op(A) = alpha B) for triangular A.")
_simple("_linalg_trmm", _trmm_fwd, _trmm_bwd, inputs=("A", "B"), attrs=_TRI_ATTRS,
        infer=_tri_infer("_linalg_trmm"), backward_uses=("inputs",),
        doc="alpha op(A) B (or alpha B op(A)) for triangular A.")


# -- syrk ---------------------------------------------------------------------------

def _syrk_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    a = inputs[0]
    _check_mat("_linalg_syrk", a)
    y = xp.matmul(_t(a), a) if attrs.transpose else xp.matmul(a, _t(a))
    return [put(out, 0, attrs.alpha * y)]


def _syrk_bwd(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    a = inputs[0]
    g = out_grads[0]
    gs = attrs.alpha * (g + _t(g))
    return [xp.matmul(a, gs) if attrs.transpose else xp.matmul(gs, a)]


def _syrk_infer(attrs, in_shapes):
    a = in_shapes[0]
    if a is None:
        return [a], [None]
    k = a[-1] if attrs.transpose else a[-2]
    return [a], [tuple(a[:-2]) + (k, k)]


_simple("_linalg_syrk", _syrk_fwd, _syrk_bwd, attrs={"transpose": Attr("bool", False),
                                                     "alpha": Attr("float", 1.0)},
        infer=_syrk_infer, backward_uses=("inputs",),
        doc="alpha A A^T (or alpha A^T A).")


# -- reductions per matrix: sumlogdiag, det, slogdet ---------------------------------

def _diag(xp, a):
    return xp.diagonal(a, 0, -2, -1)


def _scalar_infer(op, n_out=1):
    def infer(attrs, in_shapes):
        a = in_shapes[0]
        if a is None:
            return [a], [None] * n_out
        if len(a) < 2:
            fail(op, "inputs must have at least 2 dimensions", a)
        if a[-1] and a[-2] and a[-1] != a[-2]:
            fail(op, "input must be a (batch of) square matrix", a)
        return [a], [_scalar_shape(a[:-2])] * n_out
    return infer


def _as_scalar_out(x, batch):
    return x.reshape(_scalar_shape(batch))


def _sumlogdiag_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    a = inputs[0]
    _check_mat("_linalg_sumlogdiag", a, square=(0,))
    y = xp.log(_diag(xp, a)).sum(axis=-1)
    return [put(out, 0, _as_scalar_out(y, a.shape[:-2]))]


def _sumlogdiag_bwd(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    a = inputs[0]
    g = out_grads[0].reshape(a.shape[:-2] + (1,))
    eye = xp.eye(a.shape[-1], dtype=a.dtype)
    return [eye * (g / _diag(xp, a))[..., None, :]]


_simple("_linalg_sumlogdiag", _sumlogdiag_fwd, _sumlogdiag_bwd,
        infer=_scalar_infer("_linalg_sumlogdiag"), backward_uses=("inputs",),
        doc="Sum of the logarithms of the diagonal.")


def _det_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    a = inputs[0]
    _check_mat("_linalg_det", a, square=(0,))
    return [put(out, 0, _as_scalar_out(xp.linalg.det(a), a.shape[:-2]))]


def _det_bwd(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    a = inputs[0]
    g = (out_grads[0] * outputs[0]).reshape(a.shape[:-2] + (1, 1))
    return [g * _t(_inv(xp, a))]


# MXNet's det has two more (hidden) outputs, so its visible one is named ``output0``
_simple("_linalg_det", _det_fwd, _det_bwd, infer=_scalar_infer("_linalg_det"),
        doc="Determinant of (a batch of) square matrices.", output_names=("output0",),
        json_num_outputs=3)


def _slogdet_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    a = inputs[0]
    _check_mat("_linalg_slogdet", a, square=(0,))
    sign, logdet = xp.linalg.slogdet(a)
    batch = a.shape[:-2]
    return [put(out, 0, _as_scalar_out(sign.astype(a.dtype), batch)),
            put(out, 1, _as_scalar_out(logdet.astype(a.dtype), batch))]


def _slogdet_bwd(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    a = inputs[0]
    g = out_grads[1].reshape(a.shape[:-2] + (1, 1))
    return [g * _t(_inv(xp, a))]


register(OpDef("_linalg_slogdet", _slogdet_fwd, backward=_slogdet_bwd, inputs=("A",),
               num_outputs=2, infer_shape=_scalar_infer("_linalg_slogdet", 2),
               aliases=("linalg_slogdet",), backward_uses=("inputs",),
               json_num_outputs=4,  # MXNet's node has two hidden outputs
               doc="Sign and log of the absolute determinant."))


# -- inverse ------------------------------------------------------------------------

def _inverse_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    a = inputs[0]
    _check_mat("_linalg_inverse", a, square=(0,))
    try:
        y = _inv(xp, a)
    except np.linalg.LinAlgError:
        fail("_linalg_inverse", "the matrix is singular", a.shape)
    return [put(out, 0, y)]


def _inverse_bwd(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    yt = _t(outputs[0])
    return [-xp.matmul(yt, xp.matmul(out_grads[0], yt))]


_simple("_linalg_inverse", _inverse_fwd, _inverse_bwd, backward_uses=("outputs",),
        doc="Inverse of (a batch of) square matrices.")
