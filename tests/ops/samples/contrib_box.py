"""Samples for the bounding-box contrib operators (``box_nms``, ``box_iou``,
``bipartite_matching``, ``box_encode``, ``box_decode``).  ``box_nms`` and ``box_iou``
have point-by-point references; the others replay MXNet 1.9.1's outputs from
``tests/fixtures/contrib_detection.npz`` (all values there are checked in
``tests/test_contrib_detection.py``)."""
import os

import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(41)
_FIX = np.load(os.path.join(os.path.dirname(__file__), "..", "..", "fixtures",
                            "contrib_detection.npz"))


def _fixture(case, n_out):
    """(inputs, ref) replaying a fixture case."""
    inputs = [_FIX[f"{case}/in{i}"].astype(np.float64) for i in range(10)
              if f"{case}/in{i}" in _FIX.files]

    def ref(*args, **attrs):
        return [_FIX[f"{case}/out{i}"] for i in range(n_out)]
    return inputs, ref


def _zeros(*inputs, **attrs):
    return [np.zeros_like(a) for a in inputs]


def _iou_1(a, b, center):
    if center:
        a = [a[0] - a[2] / 2, a[1] - a[3] / 2, a[0] + a[2] / 2, a[1] + a[3] / 2]
        b = [b[0] - b[2] / 2, b[1] - b[3] / 2, b[0] + b[2] / 2, b[1] + b[3] / 2]
    w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = w * h
    area = lambda r: max(r[2] - r[0], 0) * max(r[3] - r[1], 0) \
        if r[2] >= r[0] and r[3] >= r[1] else 0.0
    return inter / (area(a) + area(b) - inter) if inter > 0 else 0.0


def _iou_ref(lhs, rhs, format="corner"):
    la, ra = lhs.reshape(-1, 4), rhs.reshape(-1, 4)
    out = np.array([[_iou_1(a, b, format == "center") for b in ra] for a in la])
    return out.reshape(lhs.shape[:-1] + rhs.shape[:-1])


def _nms_ref(data, overlap_thresh=0.5, valid_thresh=0.0, topk=-1, coord_start=2,
             score_index=1, id_index=-1, background_id=-1, force_suppress=False,
             in_format="corner", out_format="corner"):
    x = data.reshape((-1,) + data.shape[-2:])
    out = -np.ones_like(x)
    for b, rows in enumerate(x):
        idx = [i for i in range(len(rows)) if rows[i, score_index] > valid_thresh and
               (id_index < 0 or rows[i, id_index] != background_id)]
        idx = sorted(idx, key=lambda i: -rows[i, score_index])
        if topk >= 0:
            idx = idx[:topk]
        kept = []
        for i in idx:
            box = rows[i, coord_start:coord_start + 4]
            if all(not ((force_suppress or id_index < 0 or rows[k, id_index] == rows[i, id_index])
                        and _iou_1(rows[k, coord_start:coord_start + 4], box,
                                   in_format == "center") > overlap_thresh) for k in kept):
                kept.append(i)
        for pos, i in enumerate(kept):
            out[b, pos] = rows[i]
    return out.reshape(data.shape)


def _nms_input(lead, n, classes=3, id_offset=0.0):
    """Rows [id, score, box]; ``id_offset=0.5`` keeps class ids away from the integer
    steps where a finite-difference probe would change the class."""
    shape = tuple(lead) + (n,)
    xy = _rng.uniform(0, 1, shape + (2,))
    wh = _rng.uniform(0.1, 0.6, shape + (2,))
    ids = _rng.integers(0, classes, shape + (1,)) + id_offset
    scores = _rng.permutation(np.linspace(0.05, 0.95, int(np.prod(shape)))).reshape(shape + (1,))
    return np.concatenate([ids, scores, xy, xy + wh], axis=-1)


def _boxes(shape):
    xy = _rng.uniform(0, 1, shape[:-1] + (2,))
    return np.concatenate([xy, xy + _rng.uniform(0.1, 0.6, shape[:-1] + (2,))], axis=-1)


_bm_in, _bm_ref = _fixture("bm/3d_ties", 2)
_bmt_in, _bmt_ref = _fixture("bm/topk", 2)
_enc_in, _enc_ref = _fixture("enc/basic", 2)
_dec_in, _dec_ref = _fixture("dec/corner_std", 1)
_decc_in, _decc_ref = _fixture("dec/clip", 1)

SAMPLES = {
    "_contrib_box_nms": [
        Sample([_nms_input((), 8)], {"overlap_thresh": 0.3}, ref=_nms_ref, name="2d"),
        Sample([_nms_input((2,), 7, id_offset=0.5)], {"overlap_thresh": 0.2, "id_index": 0, "topk": 5},
               ref=_nms_ref, name="3d_class_aware_topk"),
        Sample([_nms_input((2,), 6)], {"overlap_thresh": 0.2, "id_index": 0,
                                       "force_suppress": True, "background_id": 2,
                                       "valid_thresh": 0.2}, ref=_nms_ref, grad=False,
               name="force_background_valid"),
        Sample([_nms_input((2, 2), 5).astype(np.float32)], {"overlap_thresh": 0.4},
               ref=_nms_ref, grad=False, rtol=1e-6, name="4d_float32"),
    ],
    "_contrib_box_iou": [
        Sample([_boxes((4, 4)), _boxes((3, 4))], ref=_iou_ref, grad_ref=_zeros,
               name="corner"),
        Sample([_boxes((2, 3, 4)), _boxes((5, 4))], {"format": "center"}, ref=_iou_ref,
               grad=False, name="center_3d"),
    ],
    "_contrib_bipartite_matching": [
        Sample(_bm_in, {"threshold": 0.3}, ref=_bm_ref, grad_ref=_zeros, name="ties"),
        Sample(_bmt_in, {"threshold": 0.05, "topk": 2}, ref=_bmt_ref, grad=False,
               name="topk"),
    ],
    "_contrib_box_encode": [
        Sample(_enc_in, ref=_enc_ref, grad_ref=_zeros, rtol=1e-5, atol=1e-6, name="basic"),
    ],
    "_contrib_box_decode": [
        Sample(_dec_in, {"format": "corner", "std0": 0.1, "std1": 0.1, "std2": 0.2,
                         "std3": 0.2}, ref=_dec_ref, grad_ref=_zeros, rtol=1e-5, atol=1e-6,
               name="corner_std"),
        Sample(_decc_in, {"format": "corner", "clip": 1.5}, ref=_decc_ref, grad=False,
               rtol=1e-5, atol=1e-6, name="clip"),
    ],
}
