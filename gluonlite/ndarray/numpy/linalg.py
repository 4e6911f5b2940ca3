"""``mx.np.linalg`` (MXNet's ``mx.nd.np.linalg``): NumPy's linear algebra over
``mx.np`` arrays, batched over leading axes.  ``inv``, ``det``, ``slogdet``,
``cholesky``, ``solve``, ``eigvalsh``, ``norm``, ``tensorinv``/``tensorsolve`` and
``multi_dot``/``matrix_power`` record gradients; ``svd``, ``eigh``, ``qr``, ``pinv``,
``eig``, ``eigvals``, ``lstsq`` and ``matrix_rank`` do not (yet) in gluonlite.
"""
from __future__ import annotations



import numpy as onp

from ...base import MXNetError
from ...ops.numpy_norm import norm_attrs
from . import _op
from ..ndarray import NDArray
from ._array import NpValueError, apply, ndarray
from ._common import _host_array

__all__ = ["norm", "inv", "det", "slogdet", "cholesky", "solve", "eigvalsh", "eigh", "svd",
           "qr", "pinv", "eig", "eigvals", "lstsq", "matrix_rank", "matrix_power",
           "multi_dot", "tensorinv", "tensorsolve", "cond"]


def _square(name, a):
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise MXNetError(f"linalg.{name}: needs square matrices in the last two axes, got "
                         f"shape {a.shape}")


def _float(a):
    a = _op._arr(a)
    return a if a.dtype.kind == "f" else a.astype(onp.float32)


def norm(x, ord=None, axis=None, keepdims=False) -> ndarray:  # noqa: A002 - NumPy's name
    """Vector and matrix norms (NumPy's ``linalg.norm``).

    Parameters
    ----------
    x : ndarray
        The input.
    ord : None, number or str
        Vector orders: any number, inf, -inf ('inf'/'-inf' strings too); matrix orders:
        'fro', 'nuc', 1, -1, 2, -2, inf, -inf.  None: the 2-norm/Frobenius norm.
    axis : None, int or 2-tuple of int
        A vector norm over one axis, a matrix norm over two; None: the flattened input
        (or the matrix norm of a 2-d input when ``ord`` is given).
    keepdims : bool
        Keep the reduced axes as size one.

    Returns
    -------
    ndarray
    """
    return apply("_npi_norm", [_op._arr(x)], **norm_attrs(ord, axis, keepdims))


def inv(a) -> ndarray:
    a = _float(a)
    _square("inv", a)
    return apply("_linalg_inverse", [a])


def det(a) -> ndarray:
    """Determinants of the matrices in the last two axes."""
    return apply("_npi_det", [_float(a)])


def slogdet(a):
    """Sign and log of the absolute determinant of the matrices in the last two axes."""
    sign, logdet = apply("_npi_slogdet", [_float(a)])
    return [sign, logdet]


def cholesky(a) -> ndarray:
    a = _float(a)
    _square("cholesky", a)
    return apply("_linalg_potrf", [a])


def solve(a, b) -> ndarray:
    a, b = _float(a), _float(b)
    _square("solve", a)
    return apply("_npi_solve", [a, b.astype(a.dtype, copy=False)])


def eigvalsh(a, UPLO="L") -> ndarray:  # noqa: N803
    a = _float(a)
    _square("eigvalsh", a)
    return apply("_npi_eigvalsh", [a], UPLO=UPLO)


def eigh(a, UPLO="L"):  # noqa: N803
    a = _float(a)
    _square("eigh", a)
    return tuple(apply("_npi_eigh", [a], UPLO=UPLO))


def svd(a):
    """Reduced SVD ``(u, s, vt)`` (MXNet's ``svd`` returns the same three)."""
    return tuple(apply("_npi_svd", [_float(a)]))


def qr(a, mode="reduced"):
    """QR factorization: ``(q, r)`` (``mode='reduced'``, differentiable), ``r`` alone
    (``mode='r'``), or NumPy's ``'complete'`` and ``'raw'`` results, computed on the host
    without a gradient as MXNet 1.9.1's NumPy fallback does."""
    if mode in ("complete", "raw"):
        a = _float(a)
        res = onp.linalg.qr(a.asnumpy(), mode=mode)
        return tuple(_host_array(onp.ascontiguousarray(v), v.dtype, a.context)
                     for v in res)
    if mode not in ("reduced", "r"):
        raise NpValueError(f"linalg.qr: unrecognized mode {mode!r}")
    q, r = apply("_npi_qr", [_float(a)])
    return r if mode == "r" else (q, r)


def pinv(a, rcond=1e-15, hermitian=False) -> ndarray:
    """Moore-Penrose pseudo-inverse; ``rcond`` may be an array broadcast over the batch
    axes of ``a``."""
    a = _float(a)
    if not isinstance(rcond, NDArray):
        return apply("_npi_pinv_scalar_rcond", [a], rcond=float(rcond), hermitian=hermitian)
    return apply("_npi_pinv", [a, _op._arr(rcond)], hermitian=hermitian)


def _real(vals, name):
    host = onp.asarray(vals.asnumpy())
    if onp.iscomplexobj(host):
        raise MXNetError(f"linalg.{name}: the result is complex, which mx.np does not hold")
    return vals


def eig(a):
    a = _float(a)
    _square("eig", a)
    w, v = apply("_npi_eig", [a])
    return _real(w, "eig"), _real(v, "eig")


def eigvals(a) -> ndarray:
    a = _float(a)
    _square("eigvals", a)
    return _real(apply("_npi_eigvals", [a]), "eigvals")


def lstsq(a, b, rcond="warn"):
    rc = None if rcond in ("warn", None) else float(rcond)
    return tuple(apply("_npi_lstsq", [_float(a), _float(b)], rcond=rc))


def matrix_rank(M, tol=None, hermitian=False):  # noqa: N803
    return apply("_npi_matrix_rank", [_float(M)], tol=tol, hermitian=hermitian)


def matrix_power(a, n: int) -> ndarray:
    a = _float(a)
    _square("matrix_power", a)
    if n < 0:
        a, n = inv(a), -n
    result = None
    base = a
    while n:
        if n & 1:
            result = base if result is None else _op.matmul(result, base)
        n >>= 1
        if n:
            base = _op.matmul(base, base)
    if result is None:
        eye = _op.eye(a.shape[-1], dtype=a.dtype, ctx=a.context)
        return _op.broadcast_to(eye, a.shape)
    return result


def multi_dot(arrays) -> ndarray:
    arrays = list(arrays)
    res = arrays[0]
    for m in arrays[1:]:
        res = _op.dot(res, m)
    return res


def tensorinv(a, ind: int = 2) -> ndarray:
    """The inverse of ``a`` seen as a matrix of its first ``ind`` axes by the rest."""
    return apply("_npi_tensorinv", [_float(a)], ind=int(ind))


def tensorsolve(a, b, axes=None) -> ndarray:
    """``x`` with ``tensordot(a, x, x.ndim) == b`` (the ``axes`` of ``a`` moved to the end
    first)."""
    return apply("_npi_tensorsolve", [_float(a), _float(b)],
                 a_axes=() if axes is None else tuple(int(i) for i in axes))


def cond(x, p=None):
    """Condition number (2-norm by SVD unless ``p`` is given)."""
    x = _float(x)
    if p is None or p in (2, -2):
        s = svd(x)[1]
        hi, lo = _op.max(s, axis=-1), _op.min(s, axis=-1)
        return hi / lo if p != -2 else lo / hi
    return norm(x, p, axis=(-2, -1)) * norm(inv(x), p, axis=(-2, -1))



