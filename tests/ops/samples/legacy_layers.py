"""Samples for ``SVMOutput``, ``IdentityAttachKLSparseReg``, ``Correlation`` and
``SpatialTransformer`` (NumPy references written point by point; MXNet 1.9.1's values are
checked in ``test_legacy_layers_mxnet.py``).  ``SVMOutput`` and
``IdentityAttachKLSparseReg`` have backwards that are not the derivative of their
(identity) forward: their gradients are checked against ``grad_ref``."""
import math

import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(59)


def _f32(v):
    return float(np.float32(v))


# -- SVMOutput --------------------------------------------------------------------------
def _identity_ref(x, *rest, **_):
    return x


def _svm_grad_ref(x, label, margin=1.0, regularization_coefficient=1.0, use_linear=False):
    m, r = _f32(margin), _f32(regularization_coefficient)
    rows = x.reshape(-1, x.shape[-1])
    labels = label.reshape(-1)
    grad = np.zeros_like(rows)
    for i in range(rows.shape[0]):
        for j in range(rows.shape[1]):
            v = rows[i, j]
            if j == int(labels[i]):
                grad[i, j] = (-r if use_linear else 2 * r * (v - m)) if v < m else 0.0
            else:
                grad[i, j] = (r if use_linear else 2 * r * (v + m)) if v > -m else 0.0
    return [grad.reshape(x.shape), np.zeros_like(label)]


def _svm_label(classes, *shape):
    # -1 and `classes` mark no class, 2.7 truncates to 2
    return _rng.integers(-1, classes + 1, size=shape).astype(np.float64)


# -- IdentityAttachKLSparseReg -------------------------------------------------------------
def _kl_grad_ref(x, avg, sparseness_target=0.1, penalty=0.001, momentum=0.9):
    t, p, mom = _f32(sparseness_target), _f32(penalty), _f32(momentum)
    axes = (0,) + tuple(range(2, x.ndim))
    new = mom * avg + (1 - mom) * x.mean(axis=axes)
    kl = p * (-t / new + (1 - t) / (1 - new))
    return [np.ones_like(x) + kl.reshape((1, -1) + (1,) * (x.ndim - 2))]




# -- Correlation ------------------------------------------------------------------------
def _corr_ref(a, b, kernel_size=1, max_displacement=1, stride1=1, stride2=1, pad_size=0,
              is_multiply=True):
    n, c, h, w = a.shape
    p, k, d = pad_size, kernel_size, max_displacement
    ap = np.pad(a, ((0, 0), (0, 0), (p, p), (p, p)))
    bp = np.pad(b, ((0, 0), (0, 0), (p, p), (p, p)))
    border = d + (k - 1) // 2
    th = math.ceil((h + 2 * p - 2 * border) / stride1)
    tw = math.ceil((w + 2 * p - 2 * border) / stride1)
    r = d // stride2
    g = 2 * r + 1
    out = np.zeros((n, g * g, th, tw), dtype=a.dtype)
    for i in range(th):
        for j in range(tw):
            y1, x1 = i * stride1 + d, j * stride1 + d
            for q in range(g * g):
                dy, dx = (q // g - r) * stride2, (q % g - r) * stride2
                pa = ap[:, :, y1:y1 + k, x1:x1 + k]
                pb = bp[:, :, y1 + dy:y1 + dy + k, x1 + dx:x1 + dx + k]
                v = pa * pb if is_multiply else np.abs(pa - pb)
                out[:, q, i, j] = v.sum(axis=(1, 2, 3)) / (k * k * c)
    return out


def _pair(*shape, dtype=np.float64):
    return [_rng.standard_normal(shape).astype(dtype), _rng.standard_normal(shape).astype(dtype)]


# -- SpatialTransformer -----------------------------------------------------------------
def _st_ref(data, loc, target_shape=(0, 0), transform_type="affine", sampler_type="bilinear",
            cudnn_off=None):
    n, c, h, w = data.shape
    th, tw = target_shape
    out = np.zeros((n, c, th, tw))
    for b in range(n):
        theta = loc[b].reshape(2, 3).astype(np.float64)
        for i in range(th):
            for j in range(tw):
                xt = -1 + 2 * j / (tw - 1) if tw > 1 else -1.0
                yt = -1 + 2 * i / (th - 1) if th > 1 else -1.0
                xs, ys = theta @ np.array([xt, yt, 1.0])
                x = (xs + 1) * (w - 1) / 2
                y = (ys + 1) * (h - 1) / 2
                x0, y0 = int(np.floor(x)), int(np.floor(y))
                for yy, wy in ((y0, 1 - (y - y0)), (y0 + 1, y - y0)):
                    for xx, wx in ((x0, 1 - (x - x0)), (x0 + 1, x - x0)):
                        if 0 <= yy < h and 0 <= xx < w:
                            out[b, :, i, j] += data[b, :, yy, xx] * wy * wx
    return out.astype(data.dtype)


_ST = dict(transform_type="affine", sampler_type="bilinear")

SAMPLES = {
    "SVMOutput": [
        Sample([_rng.uniform(-2, 2, (5, 4)), _svm_label(4, 5)], ref=_identity_ref,
               grad_ref=_svm_grad_ref, infer_from=[0], name="l2_default"),
        Sample([_rng.uniform(-2, 2, (5, 4)), _svm_label(4, 5)], dict(use_linear=True),
               ref=_identity_ref, grad_ref=_svm_grad_ref, name="l1"),
        Sample([_rng.uniform(-2, 2, (6, 3)), _svm_label(3, 6)],
               dict(margin=0.5, regularization_coefficient=2.0), ref=_identity_ref,
               grad_ref=_svm_grad_ref, name="l2_margin_coefficient"),
        Sample([_rng.uniform(-2, 2, (6, 3)), _svm_label(3, 6)],
               dict(margin=0.3, regularization_coefficient=0.7, use_linear=True),
               ref=_identity_ref, grad_ref=_svm_grad_ref, name="l1_margin_coefficient"),
        Sample([_rng.uniform(-2, 2, (2, 3, 4)), np.array([[0, 2.7, 3], [4, -1, 1]])],
               ref=_identity_ref, grad_ref=_svm_grad_ref, infer_from=[0],
               name="rows_of_3d_truncated_labels"),
        Sample([_rng.uniform(-2, 2, (4, 3)).astype(np.float32),
                _svm_label(3, 4).astype(np.float32)], dict(margin=0.5),
               ref=_identity_ref, grad_ref=_svm_grad_ref, grad_rtol=1e-5, name="float32"),
    ],
    "IdentityAttachKLSparseReg": [
        Sample([_rng.uniform(0.05, 0.95, (4, 5)), _rng.uniform(0.1, 0.6, 5)],
               ref=_identity_ref, grad_ref=_kl_grad_ref, infer_from=[0], name="default"),
        Sample([_rng.uniform(0.05, 0.95, (3, 6)), _rng.uniform(0.1, 0.6, 6)],
               dict(sparseness_target=0.2, penalty=0.5, momentum=0.7), ref=_identity_ref,
               grad_ref=_kl_grad_ref, name="target_penalty_momentum"),
        Sample([_rng.uniform(0.05, 0.95, (2, 3, 4)), _rng.uniform(0.1, 0.6, 3)],
               dict(penalty=0.1), ref=_identity_ref, grad_ref=_kl_grad_ref,
               name="3d_mean_over_other_axes"),
        Sample([_rng.uniform(0.05, 0.95, (4, 3)).astype(np.float32),
                _rng.uniform(0.1, 0.6, 3).astype(np.float32)],
               dict(penalty=0.3), ref=_identity_ref, grad_ref=_kl_grad_ref,
               grad_rtol=1e-5, name="float32"),
    ],
    "Correlation": [
        Sample(_pair(2, 2, 5, 6), ref=_corr_ref, name="default"),
        Sample(_pair(1, 2, 7, 7), dict(kernel_size=3, max_displacement=2, pad_size=2),
               ref=_corr_ref, name="kernel3_pad"),
        Sample(_pair(1, 2, 9, 8), dict(kernel_size=3, max_displacement=2, stride1=2,
                                       stride2=2, pad_size=1), ref=_corr_ref,
               name="kernel3_strides"),
        Sample(_pair(1, 2, 7, 8), dict(max_displacement=2, stride1=3, stride2=2, pad_size=2),
               ref=_corr_ref, name="kernel1_strides"),
        Sample(_pair(2, 2, 5, 5), dict(max_displacement=1, pad_size=1, is_multiply=False),
               ref=_corr_ref, name="subtract"),
        Sample(_pair(1, 2, 7, 7), dict(kernel_size=3, max_displacement=1, stride1=2,
                                       is_multiply=False), ref=_corr_ref,
               name="subtract_kernel3"),
        Sample(_pair(1, 3, 6, 6, dtype=np.float32), dict(kernel_size=3, pad_size=1),
               ref=_corr_ref, grad=False, rtol=1e-5, atol=1e-6, name="float32"),
    ],
    "SpatialTransformer": [
        Sample([_rng.standard_normal((2, 3, 5, 6)), _rng.uniform(-0.8, 0.8, (2, 6))],
               dict(_ST, target_shape=(4, 3)), ref=_st_ref, name="inside"),
        Sample([_rng.standard_normal((1, 2, 4, 5)), _rng.uniform(-1.4, 1.4, (1, 6))],
               dict(_ST, target_shape=(5, 4)), ref=_st_ref, name="outside_zero"),
        Sample([_rng.standard_normal((2, 2, 5, 5)).astype(np.float32),
                _rng.uniform(-1, 1, (2, 6)).astype(np.float32)],
               dict(_ST, target_shape=(3, 3), cudnn_off=True), ref=_st_ref, grad=False,
               rtol=1e-5, atol=1e-6, name="float32"),
    ],
}
