"""``mx.np.linalg`` operators beyond the legacy ``_linalg_*`` ones: ``_npi_solve`` and
``_npi_eigvalsh`` and ``_npi_svd`` (with gradients), and ``_npi_eigh``, ``_npi_qr``,
``_npi_pinv``/``_npi_pinv_scalar_rcond``, ``_npi_eig``, ``_npi_eigvals``, ``_npi_lstsq``, ``_npi_matrix_rank``
(forward only in gluonlite).  Batched over leading axes as NumPy's ``linalg`` is.
"""
from __future__ import annotations

import numpy as np

from .attrs import Attr
from .common import fail, put
from .registry import OpDef, register


def _float(x):
    return x if x.dtype.kind == "f" else x.astype(np.float32)


def _square(op, a):
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        fail(op, "needs square matrices in the last two axes", a.shape)


def _linalg_error(op, fn):
    def run(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except np.linalg.LinAlgError as err:
            fail(op, f"{err}", *[getattr(a, "shape", ()) for a in args])
    return run


# -- solve ------------------------------------------------------------------------------------
def _solve_forward(oc, attrs, inputs, out):
    a, b = inputs
    _square("_npi_solve", a)
    xp = oc.xp
    vec = b.ndim == a.ndim - 1
    bb = b[..., None] if vec else b
    x = _linalg_error("_npi_solve", xp.linalg.solve)(_float(a), _float(bb).astype(_float(a).dtype))
    return [put(out, 0, x[..., 0] if vec else x)]


def _solve_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    a, b = inputs
    x = outputs[0]
    g = out_grads[0]
    vec = b.ndim == a.ndim - 1
    gb = xp.linalg.solve(xp.swapaxes(_float(a), -1, -2), g[..., None] if vec else g)
    xx = x[..., None] if vec else x
    ga = -xp.matmul(gb, xp.swapaxes(xx, -1, -2))
    return [ga.astype(a.dtype), (gb[..., 0] if vec else gb).astype(b.dtype)]


def _solve_infer(attrs, in_shapes):
    a, b = in_shapes
    return list(in_shapes), [None if b is None else tuple(b)]


register(OpDef("_npi_solve", _solve_forward, backward=_solve_backward, inputs=("a", "b"),
               infer_shape=_solve_infer, backward_uses=("inputs", "outputs"),
               doc="Solve ``a @ x = b`` for ``x`` (NumPy ``linalg.solve``)."))


# -- eigvalsh ---------------------------------------------------------------------------------
def _eigvalsh_forward(oc, attrs, inputs, out):
    a = inputs[0]
    _square("_npi_eigvalsh", a)
    return [put(out, 0, oc.xp.linalg.eigvalsh(_float(a), UPLO=attrs.UPLO))]


def _eigvalsh_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    a = inputs[0]
    _, v = xp.linalg.eigh(_float(a), UPLO=attrs.UPLO)
    g = out_grads[0]
    ga = xp.matmul(v * g[..., None, :], xp.swapaxes(v, -1, -2))
    # only the triangle the decomposition reads receives the gradient; its off-diagonal
    # entries stand for both mirrored entries of the symmetric matrix
    if attrs.UPLO == "L":
        full = xp.tril(ga) + xp.tril(ga, -1)
    else:
        full = xp.triu(ga) + xp.triu(ga, 1)
    return [full.astype(a.dtype)]


register(OpDef("_npi_eigvalsh", _eigvalsh_forward, backward=_eigvalsh_backward,
               attrs={"UPLO": Attr("str", "L")},
               infer_shape=lambda attrs, s: (list(s), [None if s[0] is None else tuple(s[0])[:-1]]),
               backward_uses=("inputs",),
               doc="Eigenvalues of symmetric matrices, ascending (NumPy ``linalg.eigvalsh``)."))


# -- forward-only decompositions --------------------------------------------------------------
def _forward_only(name, fn, num_outputs, out_shapes, attrs=None, doc=""):
    """Register a decomposition without gradient; ``out_shapes(in_shapes)`` gives the
    output shapes (0 for a size only the values decide)."""
    def forward(oc, op_attrs, inputs, out):
        res = _linalg_error(name, fn)(oc.xp, op_attrs, *[_float(x) for x in inputs])
        res = list(res) if isinstance(res, tuple) else [res]
        return [put(out, i, r) for i, r in enumerate(res)]

    def infer_shape(op_attrs, in_shapes):
        if any(s is None for s in in_shapes):
            return list(in_shapes), [None] * num_outputs
        shapes = [tuple(s) for s in in_shapes]
        if len(shapes[0]) < 2:
            fail(name, "needs matrices in the last two axes", *shapes)
        return shapes, out_shapes(*shapes)

    register(OpDef(name, forward, attrs=attrs or {}, num_outputs=num_outputs,
                   inputs=("A", "B") if name == "_npi_lstsq" else (
                       ("A", "rcond") if name == "_npi_pinv" else ("A",)),
                   infer_shape=infer_shape, infer_type=_float_types,
                   differentiable=False, doc=doc))


def _float_types(op, attrs, in_dtypes):
    dt = in_dtypes[0]
    dt = None if dt is None else (np.dtype(dt) if np.dtype(dt).kind == "f" else
                                  np.dtype(np.float32))
    outs = [dt] * op.num_outputs(attrs)
    if op.name == "_npi_lstsq":
        outs[2] = np.dtype(np.int64)
    if op.name == "_npi_matrix_rank":
        outs = [np.dtype(np.int64)]
    return list(in_dtypes), outs


def _svd_shapes(a):
    m, n = a[-2:]
    k = min(m, n)
    return [a[:-2] + (m, k), a[:-2] + (k,), a[:-2] + (k, n)]


def _qr_shapes(a):
    m, n = a[-2:]
    k = min(m, n)
    return [a[:-2] + (m, k), a[:-2] + (k, n)]


def _eig_shapes(a):
    return [a[:-1], a]


def _lstsq_shapes(a, b):
    m, n = a
    return [(n,) + tuple(b[1:]), (0,), (), (min(m, n),)]


def _svd(xp, attrs, a):
    u, s, vt = xp.linalg.svd(a, full_matrices=False)
    return u, s, vt


def _lstsq(xp, attrs, a, b):
    rcond = None if attrs.rcond is None else attrs.rcond
    x, res, rank, sv = np.linalg.lstsq(_host(a), _host(b), rcond=rcond)
    return (xp.asarray(x), xp.asarray(res), xp.asarray(np.int64(rank)), xp.asarray(sv))


def _host(x):
    return x if isinstance(x, np.ndarray) else x.get()


def _matrix_rank(xp, attrs, a):
    tol = attrs.tol
    return xp.asarray(np.linalg.matrix_rank(_host(a), tol=tol, hermitian=attrs.hermitian)
                      ).astype(np.int64)


def _real(op, values):
    """``values`` (a NumPy result) when it is real; complex results raise."""
    if np.iscomplexobj(values):
        if np.any(np.imag(values) != 0):
            fail(op, "the result is complex, which mx.np arrays do not hold")
        values = np.real(values)
    return values


def _eig(xp, attrs, a):
    w, v = np.linalg.eig(_host(a))
    return xp.asarray(_real("_npi_eig", w)), xp.asarray(_real("_npi_eig", v))


def _eigvals(xp, attrs, a):
    return xp.asarray(_real("_npi_eigvals", np.linalg.eigvals(_host(a))))


def _svd_forward(oc, attrs, inputs, out):
    a = inputs[0]
    if a.ndim < 2:
        fail("_npi_svd", "needs matrices in the last two axes", a.shape)
    u, s, vt = _linalg_error("_npi_svd", _svd)(oc.xp, attrs, _float(a))
    return [put(out, 0, u), put(out, 1, s), put(out, 2, vt)]


def _svd_backward(oc, attrs, inputs, outputs, out_grads):
    """Gradient of the reduced SVD ``a = u @ diag(s) @ vt`` (``u``: m x k, ``vt``: k x n).

    With ``F[i, j] = 1 / (s_j^2 - s_i^2)`` off the diagonal (denominators kept away from
    zero as MXNet does, by ``1e-20``)::

        ga = u [(F o (u'gu - gu'u)) s + diag(gs) + s (F o (v'gv - gv'v))] vt
             + (I - u u') gu s^-1 vt + u s^-1 gvt (I - v v')

    which, for ``m <= n`` (the only shapes MXNet accepts), is MXNet's ``_npi_svd``
    backward.
    """
    xp = oc.xp
    a = inputs[0]
    u, s, vt = outputs
    gu, gs, gvt = out_grads
    t = lambda x: xp.swapaxes(x, -1, -2)  # noqa: E731
    si, sj = s[..., :, None], s[..., None, :]
    diff = xp.maximum(xp.abs(sj - si), 1e-20) * xp.where(sj >= si, 1, -1)
    summ = xp.maximum(si + sj, 1e-20)
    k = s.shape[-1]
    eye = xp.eye(k, dtype=s.dtype)
    f = (1 - eye) / xp.where(eye > 0, 1, diff * summ)
    ut_gu = xp.matmul(t(u), gu)
    vt_gv = xp.matmul(vt, t(gvt))            # v' gv with v = vt', gv = gvt'
    inner = (f * (ut_gu - t(ut_gu))) * sj + eye * gs[..., None, :] \
        + si * (f * (vt_gv - t(vt_gv)))
    ga = xp.matmul(xp.matmul(u, inner), vt)
    inv_s = 1 / xp.maximum(s, 1e-20)
    m, n = a.shape[-2], a.shape[-1]
    if m > k:  # (I - u u') gu s^-1 vt
        ga = ga + xp.matmul((gu - xp.matmul(u, ut_gu)) * inv_s[..., None, :], vt)
    if n > k:  # u s^-1 gvt (I - v v')
        ga = ga + xp.matmul(u, (gvt - xp.matmul(t(vt_gv), vt)) * inv_s[..., :, None])
    return [ga.astype(a.dtype, copy=False)]


def _svd_infer(attrs, in_shapes):
    a = in_shapes[0]
    if a is None:
        return [None], [None] * 3
    if len(a) < 2:
        fail("_npi_svd", "needs matrices in the last two axes", tuple(a))
    return [tuple(a)], _svd_shapes(tuple(a))


register(OpDef("_npi_svd", _svd_forward, backward=_svd_backward, num_outputs=3,
               inputs=("A",), infer_shape=_svd_infer, infer_type=_float_types,
               backward_uses=("inputs", "outputs"),
               doc="Reduced SVD ``(u, s, vt)`` (NumPy ``linalg.svd``), with gradient."))
_forward_only("_npi_eigh", lambda xp, at, a: xp.linalg.eigh(a, UPLO=at.UPLO), 2, _eig_shapes,
              {"UPLO": Attr("str", "L")}, "Eigen-decomposition of symmetric matrices.")
_forward_only("_npi_qr", lambda xp, at, a: xp.linalg.qr(a), 2, _qr_shapes,
              doc="Reduced QR factorization.")
_forward_only("_npi_pinv_scalar_rcond", lambda xp, at, a: xp.linalg.pinv(a, rcond=at.rcond,
                                                            hermitian=at.hermitian), 1,
              lambda a: [a[:-2] + (a[-1], a[-2])],
              {"rcond": Attr("float", 1e-15), "hermitian": Attr("bool", False)},
              "Moore-Penrose pseudo-inverse.")
def _pinv_array_rcond(xp, attrs, a, rcond):
    """Pseudo-inverse through the SVD, singular values below ``rcond`` times the largest
    (``rcond`` broadcast over the batch axes) taken as zero."""
    u, s, vt = xp.linalg.svd(a, full_matrices=False)
    cutoff = rcond.astype(s.dtype)[..., None] * s.max(axis=-1, keepdims=True)
    big = s > cutoff
    s_inv = xp.where(big, 1 / xp.where(big, s, 1), 0)
    return xp.matmul(xp.swapaxes(vt, -1, -2) * s_inv[..., None, :], xp.swapaxes(u, -1, -2))


_forward_only("_npi_pinv", _pinv_array_rcond, 1,
              lambda a, r: [a[:-2] + (a[-1], a[-2])], {"hermitian": Attr("bool", False)},
              "Moore-Penrose pseudo-inverse, with ``rcond`` an array broadcast over the batch "
              "axes.")
_forward_only("_npi_eig", _eig, 2, _eig_shapes,
              doc="Eigenvalues and right eigenvectors of general matrices (real results "
                  "only: complex ones raise).")
_forward_only("_npi_eigvals", _eigvals, 1, lambda a: [a[:-1]],
              doc="Eigenvalues of general matrices (real results only).")
_forward_only("_npi_lstsq", _lstsq, 4, _lstsq_shapes, {"rcond": Attr("float", None)},
              "Least-squares solution ``(x, residuals, rank, s)``.")
_forward_only("_npi_matrix_rank", _matrix_rank, 1, lambda a: [a[:-2]],
              {"tol": Attr("float", None), "hermitian": Attr("bool", False)},
              "Rank of matrices by SVD.")


# -- tensorinv, tensorsolve ---------------------------------------------------------------------
def _tinv_dims(a_shape, ind):
    if ind <= 0:
        fail("_npi_tensorinv", f"ind must be a positive integer, got {ind}", a_shape)
    inner, outer = tuple(a_shape[:ind]), tuple(a_shape[ind:])
    n = int(np.prod(inner))
    if n != int(np.prod(outer)):
        fail("_npi_tensorinv", f"the first {ind} axes and the rest must hold as many "
             "elements", a_shape)
    return inner, outer, n


def _tinv_forward(oc, attrs, inputs, out):
    a = _float(inputs[0])
    inner, outer, n = _tinv_dims(a.shape, attrs.ind)
    inv = _linalg_error("_npi_tensorinv", oc.xp.linalg.inv)(a.reshape(n, n))
    return [put(out, 0, inv.reshape(outer + inner))]


def _tinv_backward(oc, attrs, inputs, outputs, out_grads):
    # d(A^-1) = -A^-1 dA A^-1, so dA = -(A^-1)^T G (A^-1)^T, in the matrix view
    a = inputs[0]
    inner, outer, n = _tinv_dims(a.shape, attrs.ind)
    inv = outputs[0].reshape(n, n)
    g = out_grads[0].reshape(n, n)
    return [(-(inv.T @ g @ inv.T)).reshape(a.shape).astype(a.dtype, copy=False)]


def _tinv_infer(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return [None], [None]
    inner, outer, _ = _tinv_dims(tuple(s), attrs.ind)
    return [tuple(s)], [outer + inner]


register(OpDef("_npi_tensorinv", _tinv_forward, backward=_tinv_backward, inputs=("a",),
               attrs={"ind": Attr("int", 2)}, infer_shape=_tinv_infer,
               infer_type=_float_types, backward_uses=("inputs", "outputs"),
               doc="NumPy ``linalg.tensorinv``: the inverse of ``a`` seen as a matrix of "
                   "its first ``ind`` axes by the rest, shaped ``a.shape[ind:] + "
                   "a.shape[:ind]``."))


def _tsolve_parts(a_shape, b_shape, a_axes):
    """(permutation of a's axes, the result's shape, n) for ``tensorsolve``."""
    nd = len(a_shape)
    axes = tuple(int(i) % nd for i in a_axes) if a_axes else ()
    perm = tuple(i for i in range(nd) if i not in axes) + axes
    shape = tuple(a_shape[i] for i in perm)
    # NumPy's rule: the result has the last ``a.ndim - b.ndim`` axes of ``a`` (all of
    # them when the ranks are equal)
    k = nd - len(b_shape)
    out_shape = shape[-k:] if k else shape
    n = int(np.prod(out_shape))
    if n * n != int(np.prod(shape)) or int(np.prod(b_shape)) != n:
        fail("_npi_tensorsolve", "a is not square for b (the leading axes of a must be "
             "b's shape and hold as many elements as the rest)", a_shape, b_shape)
    return perm, out_shape, n


def _tsolve_forward(oc, attrs, inputs, out):
    a, b = _float(inputs[0]), _float(inputs[1])
    perm, out_shape, n = _tsolve_parts(a.shape, b.shape, attrs.a_axes)
    am = a.transpose(perm).reshape(n, n)
    x = _linalg_error("_npi_tensorsolve", oc.xp.linalg.solve)(am, b.reshape(n))
    return [put(out, 0, x.reshape(out_shape))]


def _tsolve_backward(oc, attrs, inputs, outputs, out_grads):
    xp = oc.xp
    a, b = inputs
    perm, out_shape, n = _tsolve_parts(a.shape, b.shape, attrs.a_axes)
    am = _float(a).transpose(perm).reshape(n, n)
    x = outputs[0].reshape(n)
    gb = xp.linalg.solve(am.T, out_grads[0].reshape(n))
    ga = -xp.outer(gb, x)
    shape_p = tuple(a.shape[i] for i in perm)
    ga = ga.reshape(shape_p).transpose(tuple(int(i) for i in np.argsort(perm)))
    return [ga.astype(a.dtype, copy=False), gb.reshape(b.shape).astype(b.dtype, copy=False)]


def _tsolve_infer(attrs, in_shapes):
    a, b = in_shapes
    if a is None or b is None:
        return list(in_shapes), [None]
    _, out_shape, _ = _tsolve_parts(tuple(a), tuple(b), attrs.a_axes)
    return [tuple(a), tuple(b)], [out_shape]


register(OpDef("_npi_tensorsolve", _tsolve_forward, backward=_tsolve_backward,
               inputs=("a", "b"), attrs={"a_axes": Attr("shape", ())},
               infer_shape=_tsolve_infer, infer_type=_float_types,
               backward_uses=("inputs", "outputs"),
               doc="NumPy ``linalg.tensorsolve``: ``x`` with ``tensordot(a, x, x.ndim) == "
                   "b``, the axes ``a_axes`` of ``a`` moved to the end first."))


# -- det, slogdet with NumPy's shapes ------------------------------------------------------------
def _det_infer(n_out):
    def infer(attrs, in_shapes):
        a = in_shapes[0]
        if a is None:
            return [None], [None] * n_out
        a = tuple(a)
        if len(a) < 2 or a[-1] != a[-2]:
            fail("_npi_det", "needs square matrices in the last two axes", a)
        return [a], [a[:-2]] * n_out
    return infer


def _inv_t(xp, a):
    return xp.swapaxes(xp.linalg.inv(a), -1, -2)


def _npdet_forward(oc, attrs, inputs, out):
    a = _float(inputs[0])
    _square("_npi_det", a)
    return [put(out, 0, oc.xp.asarray(oc.xp.linalg.det(a)).astype(a.dtype))]


def _npdet_backward(oc, attrs, inputs, outputs, out_grads):
    a = inputs[0]
    g = (out_grads[0] * outputs[0]).reshape(a.shape[:-2] + (1, 1))
    return [(g * _inv_t(oc.xp, a)).astype(a.dtype, copy=False)]


register(OpDef("_npi_det", _npdet_forward, backward=_npdet_backward, inputs=("A",),
               infer_shape=_det_infer(1), infer_type=_float_types,
               backward_uses=("inputs", "outputs"), json_num_outputs=3,
               doc="NumPy ``linalg.det``: determinants of the matrices in the last two axes "
                   "(0-d for one matrix)."))


def _npslogdet_forward(oc, attrs, inputs, out):
    xp = oc.xp
    a = _float(inputs[0])
    _square("_npi_slogdet", a)
    sign, logdet = xp.linalg.slogdet(a)
    return [put(out, 0, xp.asarray(sign).astype(a.dtype)),
            put(out, 1, xp.asarray(logdet).astype(a.dtype))]


def _npslogdet_backward(oc, attrs, inputs, outputs, out_grads):
    a = inputs[0]
    g = out_grads[1].reshape(a.shape[:-2] + (1, 1))
    return [(g * _inv_t(oc.xp, a)).astype(a.dtype, copy=False)]


register(OpDef("_npi_slogdet", _npslogdet_forward, backward=_npslogdet_backward,
               inputs=("A",), num_outputs=2, infer_shape=_det_infer(2),
               infer_type=_float_types, backward_uses=("inputs",), json_num_outputs=4,
               doc="NumPy ``linalg.slogdet``: sign and log of the absolute determinant of "
                   "the matrices in the last two axes (0-d for one matrix)."))
