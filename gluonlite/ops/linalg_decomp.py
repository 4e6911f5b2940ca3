"""``_linalg_gelqf`` (LQ factorization) and ``_linalg_syevd`` (symmetric
eigendecomposition), batched over leading axes.

``gelqf(A)`` for ``A`` of shape ``(m, n)`` with ``m <= n`` gives ``Q (m, n)``
with orthonormal rows and lower triangular ``L (m, m)`` such that ``A = L Q``
(computed as the QR factorization of ``A^T``; signs as LAPACK gives them).
``syevd(A)`` gives ``U`` (eigenvectors as rows) and the eigenvalues ``L`` in
ascending order with ``A = U^T diag(L) U``; each row of ``U`` is signed so that
its entry of largest magnitude is positive (MXNet's convention).

Gradients: for ``gelqf``, ``dA = L^-T (dQ + copyltu(M) Q)`` with
``M = L^T dL - dQ Q^T`` and ``copyltu`` mirroring the lower triangle upward;
for ``syevd``, ``dA = U^T (diag(dL) + F * (U dU^T)) U`` symmetrized, with
``F_ij = 1 / (L_j - L_i)`` off the diagonal.
"""
from __future__ import annotations

import numpy as np

from .common import fail, put
from .registry import OpDef, register


def _t(x):
    return x.swapaxes(-1, -2)


def _check(op, a, square):
    if a.ndim < 2:
        fail(op, "input must have at least 2 dimensions", a.shape)
    if a.dtype not in (np.float32, np.float64):
        fail(op, f"only float32 and float64 inputs are supported, not {a.dtype.name}",
             a.shape)
    if square and a.shape[-1] != a.shape[-2]:
        fail(op, "input must be a (batch of) square matrix", a.shape)
    if not square and a.shape[-2] > a.shape[-1]:
        fail(op, "input must have at least as many columns as rows", a.shape)


def _copyltu(xp, m):
    n = m.shape[-1]
    low = xp.tri(n, n, 0, dtype=bool)
    strict = xp.tri(n, n, -1, dtype=bool)
    return xp.where(low, m, 0) + _t(xp.where(strict, m, 0))


def _gelqf_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    a = inputs[0]
    _check("_linalg_gelqf", a, square=False)
    q, r = xp.linalg.qr(_t(a))
    return [put(out, 0, _t(q).astype(a.dtype, copy=False)),
            put(out, 1, _t(r).astype(a.dtype, copy=False))]


def _gelqf_bwd(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    q, low = outputs
    dq, dl = out_grads
    m = xp.matmul(_t(low), dl) - xp.matmul(dq, _t(q))
    rhs = dq + xp.matmul(_copyltu(xp, m), q)
    return [xp.linalg.solve(_t(low), rhs)]


def _gelqf_infer(attrs, in_shapes):
    a = in_shapes[0]
    if a is None:
        return [a], [None, None]
    if len(a) < 2:
        fail("_linalg_gelqf", "input must have at least 2 dimensions", a)
    m = a[-2]
    return [a], [tuple(a), tuple(a[:-2]) + (m, m)]


register(OpDef("_linalg_gelqf", _gelqf_fwd, backward=_gelqf_bwd, inputs=("A",),
               num_outputs=2, infer_shape=_gelqf_infer, aliases=("linalg_gelqf",),
               backward_uses=("outputs",), doc="LQ factorization A = L Q."))


def _syevd_fwd(oc, attrs, inputs, out):
    xp = oc.xp
    a = inputs[0]
    _check("_linalg_syevd", a, square=True)
    w, v = xp.linalg.eigh(a)
    u = _t(v)
    idx = xp.abs(u).argmax(axis=-1)[..., None]
    sign = xp.where(xp.take_along_axis(u, idx, axis=-1) < 0, -1.0, 1.0).astype(u.dtype)
    return [put(out, 0, (u * sign).astype(a.dtype, copy=False)),
            put(out, 1, w.astype(a.dtype, copy=False))]


def _syevd_bwd(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    u, lam = outputs
    du, dlam = out_grads
    n = lam.shape[-1]
    diff = lam[..., None, :] - lam[..., :, None]
    off = ~xp.eye(n, dtype=bool)
    f = xp.where(off, 1.0 / xp.where(off, diff, 1.0), 0.0).astype(u.dtype)
    inner = f * xp.matmul(u, _t(du)) + dlam[..., None] * xp.eye(n, dtype=u.dtype)
    g = xp.matmul(_t(u), xp.matmul(inner, u))
    return [0.5 * (g + _t(g))]


def _syevd_infer(attrs, in_shapes):
    a = in_shapes[0]
    if a is None:
        return [a], [None, None]
    if len(a) < 2:
        fail("_linalg_syevd", "input must have at least 2 dimensions", a)
    return [a], [tuple(a), tuple(a[:-1])]


register(OpDef("_linalg_syevd", _syevd_fwd, backward=_syevd_bwd, inputs=("A",),
               num_outputs=2, infer_shape=_syevd_infer,
               backward_uses=("outputs",), doc="Symmetric eigendecomposition A = U^T diag(L) U."))
