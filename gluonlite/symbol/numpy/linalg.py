"""``mx.sym.np.linalg``: the linear-algebra functions whose operators need no input
shape: ``inv``, ``det``, ``slogdet``, ``cholesky``, ``solve``, ``eigvalsh``, ``svd``,
``eigh``, ``qr``, ``pinv`` and ``norm`` (every order)."""
from __future__ import annotations

from ...ops.numpy_norm import norm_attrs
from ._op import _sym
from ..symbol import Symbol
from ._symbol import _Symbol, apply

__all__ = ["inv", "det", "slogdet", "cholesky", "solve", "eigvalsh", "svd", "eigh", "qr",
           "pinv", "norm", "eig", "eigvals", "tensorinv", "tensorsolve"]


def inv(a):
    return apply("_linalg_inverse", [_sym(a)])


def det(a):
    """Determinants of the matrices in the last two axes."""
    return apply("_npi_det", [_sym(a)])


def slogdet(a):
    """Sign and log of the absolute determinant of the matrices in the last two axes."""
    out = apply("_npi_slogdet", [_sym(a)])
    return [_Symbol([h]) for h in out._heads]


def cholesky(a):
    return apply("_linalg_potrf", [_sym(a)])


def solve(a, b):
    return apply("_npi_solve", [_sym(a), _sym(b)])


def eigvalsh(a, UPLO="L"):  # noqa: N803
    return apply("_npi_eigvalsh", [_sym(a)], UPLO=UPLO)


def _outputs(op_name, a, **attrs):
    out = apply(op_name, [_sym(a)], **attrs)
    return tuple(_Symbol([h]) for h in out._heads)


def svd(a):
    return _outputs("_npi_svd", a)


def eigh(a, UPLO="L"):  # noqa: N803
    return _outputs("_npi_eigh", a, UPLO=UPLO)


def qr(a, mode="reduced"):
    return _outputs("_npi_qr", a)


def pinv(a, rcond=1e-15, hermitian=False):
    """Moore-Penrose pseudo-inverse (``rcond`` a number or a symbol)."""
    if isinstance(rcond, Symbol):
        return apply("_npi_pinv", [_sym(a), _sym(rcond)], hermitian=hermitian)
    return apply("_npi_pinv_scalar_rcond", [_sym(a)], rcond=float(rcond), hermitian=hermitian)


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002 - NumPy's name
    """Vector or matrix norm (NumPy's ``linalg.norm``; ``ord`` may also be 'inf' or
    '-inf'): one ``_npi_norm`` node, resolved against the rank at shape inference."""
    return apply("_npi_norm", [_sym(x)], **norm_attrs(ord, axis, keepdims))


def eig(a):
    """Eigenvalues and right eigenvectors of general matrices (real results only)."""
    return _outputs("_npi_eig", a)


def eigvals(a):
    """Eigenvalues of general matrices (real results only)."""
    return apply("_npi_eigvals", [_sym(a)])


def tensorinv(a, ind=2):
    """The inverse of ``a`` seen as a matrix of its first ``ind`` axes by the rest."""
    return apply("_npi_tensorinv", [_sym(a)], ind=int(ind))


def tensorsolve(a, b, axes=None):
    """``x`` with ``tensordot(a, x, x.ndim) == b`` (the ``axes`` of ``a`` moved to the end
    first)."""
    return apply("_npi_tensorsolve", [_sym(a), _sym(b)],
                 a_axes=() if axes is None else tuple(int(i) for i in axes))
