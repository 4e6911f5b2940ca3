"""``mx.np.linalg`` operators beyond the legacy ``_linalg_*`` ones: ``_npi_solve`` and
``_npi_eigvalsh`` (with gradients), and ``_npi_svd``, ``_npi_eigh``, ``_npi_qr``,
``_npi_pinv``, ``_npi_eig``, ``_npi_eigvals``, ``_npi_lstsq``, ``_npi_matrix_rank``
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
                   inputs=("A", "B") if name == "_npi_lstsq" else ("A",),
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


_forward_only("_npi_svd", _svd, 3, _svd_shapes,
              doc="Reduced SVD ``(u, s, vt)`` (NumPy ``linalg.svd``).")
_forward_only("_npi_eigh", lambda xp, at, a: xp.linalg.eigh(a, UPLO=at.UPLO), 2, _eig_shapes,
              {"UPLO": Attr("str", "L")}, "Eigen-decomposition of symmetric matrices.")
_forward_only("_npi_qr", lambda xp, at, a: xp.linalg.qr(a), 2, _qr_shapes,
              doc="Reduced QR factorization.")
_forward_only("_npi_pinv", lambda xp, at, a: xp.linalg.pinv(a, rcond=at.rcond,
                                                            hermitian=at.hermitian), 1,
              lambda a: [a[:-2] + (a[-1], a[-2])],
              {"rcond": Attr("float", 1e-15), "hermitian": Attr("bool", False)},
              "Moore-Penrose pseudo-inverse.")
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
