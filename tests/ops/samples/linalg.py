"""Samples for the ``_linalg_*`` operators (MXNet parity is checked in
``tests/ops/test_linalg_mxnet.py``)."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(31)


def _m(*shape):
    return _rng.standard_normal(shape)


def _spd(*batch, n=3):
    x = _m(*batch, n, n)
    return x @ np.swapaxes(x, -1, -2) + n * np.eye(n)


def _tri(*batch, n=3):
    return _m(*batch, n, n) * 0.3 + 2 * np.eye(n)


def _t(x):
    return np.swapaxes(x, -1, -2)


def _gemm_ref(a, b, c=None, transpose_a=False, transpose_b=False, alpha=1.0, beta=1.0,
              axis=-2):
    a, b = np.moveaxis(a, axis, -2), np.moveaxis(b, axis, -2)
    y = alpha * (_t(a) if transpose_a else a) @ (_t(b) if transpose_b else b)
    if c is not None:
        y = y + beta * np.moveaxis(c, axis, -2)
    return np.moveaxis(y, -2, axis)


def _gemm2_ref(a, b, **kw):
    return _gemm_ref(a, b, None, **kw)


def _potrf_ref(a, lower=True):
    low = np.linalg.cholesky(a)
    return low if lower else _t(low)


def _potri_ref(a, lower=True):
    low = np.tril(a) if lower else _t(np.triu(a))
    return np.linalg.inv(low @ _t(low))


def _triop(a, transpose, lower):
    x = np.tril(a) if lower else np.triu(a)
    return _t(x) if transpose else x


def _trsm_ref(a, b, transpose=False, rightside=False, lower=True, alpha=1.0):
    x = _triop(a, transpose, lower)
    return alpha * (b @ np.linalg.inv(x) if rightside else np.linalg.inv(x) @ b)


def _trmm_ref(a, b, transpose=False, rightside=False, lower=True, alpha=1.0):
    x = _triop(a, transpose, lower)
    return alpha * (b @ x if rightside else x @ b)


def _syrk_ref(a, transpose=False, alpha=1.0):
    return alpha * (_t(a) @ a if transpose else a @ _t(a))


def _scalar(x):
    return np.asarray(x).reshape(np.shape(x) or (1,))


def _diag_idx(n, offset):
    i = np.arange(n - abs(offset))
    return i + max(-offset, 0), i + max(offset, 0)


def _trian_idx(n, offset, lower):
    r, c = np.tril_indices(n, -abs(offset))
    return (c, r) if offset > 0 or (offset == 0 and not lower) else (r, c)


def _extractdiag_ref(a, offset=0):
    r, c = _diag_idx(a.shape[-1], offset)
    return a[..., r, c]


def _makediag_ref(a, offset=0):
    n = a.shape[-1] + abs(offset)
    y = np.zeros(a.shape[:-1] + (n, n))
    r, c = _diag_idx(n, offset)
    y[..., r, c] = a
    return y


def _extracttrian_ref(a, offset=0, lower=True):
    r, c = _trian_idx(a.shape[-1], offset, lower)
    return a[..., r, c]


def _maketrian_ref(a, offset=0, lower=True):
    d = int((np.sqrt(8 * a.shape[-1] + 1) - 1) / 2)
    n = d + abs(offset)
    y = np.zeros(a.shape[:-1] + (n, n))
    r, c = _trian_idx(n, offset, lower)
    y[..., r, c] = a
    return y


def _trsm_cases(op, ref):
    out = []
    for tr, rs, lo in [(False, False, True), (True, False, False), (False, True, False),
                       (True, True, True)]:
        b = _m(2, 2, 3) if rs else _m(2, 3, 2)
        out.append(Sample([_tri(2), b], dict(transpose=tr, rightside=rs, lower=lo, alpha=1.5),
                          ref=ref, rtol=1e-6))
    return out


def _gelqf_ref(a):
    q, r = np.linalg.qr(_t(a))
    return [_t(q), _t(r)]


def _syevd_ref(a):
    w, v = np.linalg.eigh(a)
    u = _t(v)
    idx = np.abs(u).argmax(-1)[..., None]
    return [u * np.where(np.take_along_axis(u, idx, -1) < 0, -1, 1), w]


def _sym(*shape):
    x = _m(*shape)
    return x + _t(x)


SAMPLES = {
    "_linalg_gelqf": [Sample([_m(2, 3, 4)], ref=_gelqf_ref), Sample([_m(3, 3)], ref=_gelqf_ref)],
    # eigh reads one triangle while the gradient is MXNet's symmetric one:
    # checked against MXNet in test_linalg_mxnet.py
    "_linalg_syevd": [Sample([_sym(2, 3, 3)], ref=_syevd_ref, grad=False),
                      Sample([_sym(4, 4)], ref=_syevd_ref, grad=False)],
    "_linalg_gemm": [
        Sample([_m(2, 3, 4), _m(2, 4, 2), _m(2, 3, 2)], dict(alpha=1.5, beta=0.5),
               ref=_gemm_ref),
        Sample([_m(4, 3), _m(2, 4), _m(3, 2)], dict(transpose_a=True, transpose_b=True),
               ref=_gemm_ref),
        Sample([_m(3, 2, 4), _m(4, 2, 2), _m(3, 2, 2)], dict(axis=0, beta=2.0), ref=_gemm_ref),
    ],
    "_linalg_gemm2": [
        Sample([_m(2, 4, 3), _m(2, 4, 2)], dict(transpose_a=True, alpha=0.5), ref=_gemm2_ref),
        Sample([_m(3, 4), _m(2, 4)], dict(transpose_b=True), ref=_gemm2_ref),
        Sample([_m(3, 2, 4), _m(3, 2, 2)], dict(transpose_a=True, axis=0), ref=_gemm2_ref),
    ],
    # potrf reads one triangle but returns MXNet's symmetric gradient: the
    # gradient is checked against MXNet in test_linalg_mxnet.py instead
    "_linalg_potrf": [
        Sample([_spd(2)], ref=_potrf_ref, grad=False),
        Sample([_spd()], dict(lower=False), ref=_potrf_ref, grad=False),
    ],
    "_linalg_potri": [
        Sample([_tri(2)], ref=_potri_ref, rtol=1e-6),
        Sample([_tri()], dict(lower=False), ref=_potri_ref, rtol=1e-6),
    ],
    "_linalg_trsm": _trsm_cases("_linalg_trsm", _trsm_ref),
    "_linalg_trmm": _trsm_cases("_linalg_trmm", _trmm_ref),
    "_linalg_syrk": [
        Sample([_m(2, 3, 4)], dict(alpha=0.7), ref=_syrk_ref),
        Sample([_m(3, 2)], dict(transpose=True), ref=_syrk_ref),
    ],
    "_linalg_sumlogdiag": [
        Sample([_spd(2)], ref=lambda a: np.log(np.diagonal(a, 0, -2, -1)).sum(-1)),
        Sample([_spd()], ref=lambda a: _scalar(np.log(np.diag(a)).sum())),
    ],
    "_linalg_inverse": [Sample([_spd(2) + 0.5 * _m(2, 3, 3)], ref=np.linalg.inv, rtol=1e-6)],
    "_linalg_det": [
        Sample([_m(2, 3, 3)], ref=np.linalg.det),
        Sample([_m(3, 3)], ref=lambda a: _scalar(np.linalg.det(a))),
    ],
    "_linalg_slogdet": [
        Sample([_m(2, 3, 3)], ref=lambda a: list(np.linalg.slogdet(a))),
        Sample([_m(3, 3)], ref=lambda a: [_scalar(v) for v in np.linalg.slogdet(a)]),
    ],
    "_linalg_extractdiag": [Sample([_m(2, 4, 4)], dict(offset=o), ref=_extractdiag_ref)
                            for o in (0, 1, -2)],
    "_linalg_makediag": [Sample([_m(2, 3)], dict(offset=o), ref=_makediag_ref)
                         for o in (0, 2, -1)],
    "_linalg_extracttrian": [Sample([_m(2, 4, 4)], dict(offset=o, lower=lo),
                                    ref=_extracttrian_ref)
                             for o, lo in ((0, True), (0, False), (1, True), (-2, False))],
    "_linalg_maketrian": [Sample([_m(2, 6)], dict(offset=0, lower=True), ref=_maketrian_ref),
                          Sample([_m(6)], dict(offset=0, lower=False), ref=_maketrian_ref),
                          Sample([_m(3)], dict(offset=1), ref=_maketrian_ref),
                          Sample([_m(2, 3)], dict(offset=-2), ref=_maketrian_ref)],
}
