"""Samples for ``numpy_linalg.py``: ``_npi_solve``, ``_npi_eigvalsh`` and ``_npi_svd`` (with gradients;
vector and matrix right-hand sides, batches, both triangles) and the forward-only
decompositions, compared through quantities free of sign and order choices
(reconstructions, singular values)."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(13)


def _well_conditioned(*batch, n=3):
    m = _rng.uniform(-1, 1, batch + (n, n))
    return m + n * np.eye(n)


def _sym(*batch, n=3):
    m = _rng.uniform(-1, 1, batch + (n, n))
    return m + np.swapaxes(m, -1, -2) + np.diag(np.arange(n) * 2.0)


def _solve_ref(a, b):
    if b.ndim == a.ndim - 1:
        return np.linalg.solve(a, b[..., None])[..., 0]
    return np.linalg.solve(a, b)


def _eigvalsh_ref(a, UPLO="L"):  # noqa: N803
    return np.linalg.eigvalsh(a, UPLO=UPLO)


def _svd_check(outs, inputs):
    u, s, vt = outs
    a = inputs[0]
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=1e-10)
    np.testing.assert_allclose((u * s[..., None, :]) @ vt, a, rtol=1e-10, atol=1e-12)


def _eigh_check(outs, inputs):
    w, v = outs
    a = inputs[0]
    np.testing.assert_allclose(w, np.linalg.eigvalsh(a), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose((v * w[..., None, :]) @ np.swapaxes(v, -1, -2), a, atol=1e-10)


def _qr_check(outs, inputs):
    q, r = outs
    np.testing.assert_allclose(q @ r, inputs[0], atol=1e-10)
    np.testing.assert_allclose(np.tril(r, -1), 0, atol=1e-12)


def _eig_check(outs, inputs):
    w, v = outs
    np.testing.assert_allclose(inputs[0] @ v, v * w[..., None, :], atol=1e-10)


def _eigvals_check(outs, inputs):
    np.testing.assert_allclose(np.sort(outs[0]), np.sort(np.linalg.eigvals(inputs[0]).real),
                               atol=1e-10)


def _lstsq_check(outs, inputs):
    x = outs[0]
    ref = np.linalg.lstsq(inputs[0], inputs[1], rcond=None)[0]
    np.testing.assert_allclose(x, ref, atol=1e-10)


SAMPLES = {
    "_npi_solve": [
        Sample([_well_conditioned(), _rng.uniform(-1, 1, (3,))], ref=_solve_ref),
        Sample([_well_conditioned(), _rng.uniform(-1, 1, (3, 2))], ref=_solve_ref),
        Sample([_well_conditioned(2), _rng.uniform(-1, 1, (2, 3, 4))], ref=_solve_ref),
        Sample([_well_conditioned(2, 2, n=2), _rng.uniform(-1, 1, (2, 2, 2))], ref=_solve_ref),
        Sample([_well_conditioned().astype(np.float32),
                _rng.uniform(-1, 1, (3, 2)).astype(np.float32)], ref=_solve_ref, rtol=1e-5,
               atol=1e-6, grad=False),
    ],
    "_npi_eigvalsh": [
        Sample([_sym()], ref=_eigvalsh_ref, grad_rtol=1e-4, grad_atol=1e-5),
        Sample([_sym(2, n=4)], ref=_eigvalsh_ref, grad_rtol=1e-4, grad_atol=1e-5),
        Sample([np.tril(_sym())], dict(UPLO="L"), ref=_eigvalsh_ref, grad_rtol=1e-4,
               grad_atol=1e-5),
        Sample([np.triu(_sym())], dict(UPLO="U"), ref=_eigvalsh_ref, grad_rtol=1e-4,
               grad_atol=1e-5),
    ],
    # gradients through all three outputs against finite differences: wide (MXNet's shapes),
    # square, tall (the projection terms) and batched
    "_npi_svd": [Sample([_rng.uniform(-1, 1, (3, 4))], check=_svd_check),
                 Sample([_rng.uniform(-1, 1, (2, 4, 3))], check=_svd_check),
                 Sample([_rng.uniform(-1, 1, (3, 3))], check=_svd_check),
                 Sample([_rng.uniform(-1, 1, (2, 2, 2, 5))], check=_svd_check)],
    "_npi_eigh": [Sample([_sym()], check=_eigh_check), Sample([_sym(2)], check=_eigh_check)],
    "_npi_qr": [Sample([_rng.uniform(-1, 1, (4, 3))], check=_qr_check),
                Sample([_rng.uniform(-1, 1, (2, 3, 3))], check=_qr_check)],
    "_npi_pinv_scalar_rcond": [Sample([_rng.uniform(-1, 1, (3, 4))],
                                      ref=lambda a, **k: np.linalg.pinv(a))],
    "_npi_pinv": [Sample([_rng.uniform(-1, 1, (2, 3, 4)), np.array([1e-15, 0.5])],
                         ref=lambda a, r, **k: np.linalg.pinv(a, r))],
    "_npi_eig": [Sample([_sym()], check=_eig_check)],
    "_npi_eigvals": [Sample([_sym()], check=_eigvals_check)],
    "_npi_lstsq": [Sample([_rng.uniform(-1, 1, (5, 3)), _rng.uniform(-1, 1, (5, 2))],
                          check=_lstsq_check)],
    "_npi_matrix_rank": [
        Sample([np.array([[1.0, 2, 3], [2, 4, 6], [0, 1, 1]])],
               ref=lambda a, **k: np.array(2, dtype=np.int64)),
        Sample([np.eye(4)], ref=lambda a, **k: np.array(4, dtype=np.int64)),
    ],
    "_npi_tensorinv": [
        Sample([_rng.uniform(-1, 1, (2, 3, 6)) + np.eye(6).reshape(6, 2, 3).transpose(1, 2, 0)],
               dict(ind=2), ref=lambda a, ind: np.linalg.tensorinv(a, ind)),
        Sample([_rng.uniform(-1, 1, (4, 2, 2)) + np.eye(4).reshape(4, 2, 2)], dict(ind=1),
               ref=lambda a, ind: np.linalg.tensorinv(a, ind)),
    ],
    "_npi_tensorsolve": [
        Sample([_rng.uniform(-1, 1, (6, 2, 3)) + np.eye(6).reshape(6, 2, 3), _rng.uniform(
            -1, 1, (6,))], ref=lambda a, b, a_axes=(): np.linalg.tensorsolve(a, b)),
        Sample([_rng.uniform(-1, 1, (2, 3, 6)) + np.eye(6).reshape(2, 3, 6), _rng.uniform(
            -1, 1, (6,))], dict(a_axes=(0, 1)),
            ref=lambda a, b, a_axes: np.linalg.tensorsolve(a, b, a_axes)),
    ],
    "_npi_det": [
        Sample([_rng.uniform(-1, 1, (3, 3)) + 2 * np.eye(3)], ref=np.linalg.det),
        Sample([_rng.uniform(-1, 1, (2, 4, 4)) + 2 * np.eye(4)], ref=np.linalg.det),
    ],
    "_npi_slogdet": [
        Sample([_rng.uniform(-1, 1, (3, 3)) - 2 * np.eye(3)],
               ref=lambda a: list(np.linalg.slogdet(a))),
        Sample([_rng.uniform(-1, 1, (2, 4, 4)) + 2 * np.eye(4)],
               ref=lambda a: list(np.linalg.slogdet(a))),
    ],
}
