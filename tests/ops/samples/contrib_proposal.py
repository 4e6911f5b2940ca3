"""Samples for ``_contrib_Proposal``, ``_contrib_MultiProposal`` and ``_contrib_RROIAlign``:
the references are MXNet 1.9.1's own outputs on the same inputs
(``tests/fixtures/contrib_extra.npz``, made by ``tests/fixtures/gen_contrib_extra.py``);
float64 samples run MXNet's float32 inputs in float64."""
import os

import numpy as np

from ..harness import Sample

_FIX = np.load(os.path.join(os.path.dirname(__file__), "..", "..", "fixtures",
                            "contrib_extra.npz"))


def _ins(key, dtype=np.float32):
    n = len([k for k in _FIX.files if k.startswith(f"{key}/in")])
    return [_FIX[f"{key}/in{i}"].astype(dtype) for i in range(n)]


def _ref(key, both=True):
    outs = [_FIX[f"{key}/out0"], _FIX[f"{key}/out1"]]
    return lambda *a, **k: outs if both else outs[0]


def _zeros(*inputs, **attrs):
    return [np.zeros_like(a) for a in inputs]


def _prop(key, attrs, dtype=np.float32, score=True, name=""):
    attrs = dict(attrs, output_score=score)
    return Sample(_ins(key, dtype), attrs, ref=_ref(key, score), grad_ref=_zeros,
                  rtol=1e-5, atol=2e-4, name=name or key)


_A1 = dict(scales=(2, 4), ratios=(0.5, 1, 2), rpn_pre_nms_top_n=40, rpn_post_nms_top_n=12,
           threshold=0.5, rpn_min_size=8, feature_stride=16)
_A2 = dict(scales=(4,), ratios=(0.5, 1, 2), rpn_pre_nms_top_n=-1, rpn_post_nms_top_n=30,
           threshold=0.3, rpn_min_size=16, feature_stride=16)
_A3 = dict(scales=(2,), ratios=(1, 2), rpn_pre_nms_top_n=10, rpn_post_nms_top_n=20,
           threshold=0.7, rpn_min_size=4, feature_stride=16, iou_loss=True)
_M1 = dict(scales=(2, 4), ratios=(0.5, 1, 2), rpn_pre_nms_top_n=50, rpn_post_nms_top_n=15,
           threshold=0.6, rpn_min_size=10, feature_stride=16)

SAMPLES = {
    "_contrib_Proposal": [
        _prop("prop_default_like", _A1),
        _prop("prop_default_like", _A1, score=False, name="no_score"),
        _prop("prop_padded", _A2, dtype=np.float64, name="padded_float64"),
        _prop("prop_iou_loss", _A3),
    ],
    "_contrib_MultiProposal": [
        _prop("mprop_batch", _M1),
        _prop("mprop_batch", _M1, dtype=np.float64, score=False, name="float64"),
        _prop("mprop_defaults", {}),
    ],
    "_contrib_RROIAlign": [
        Sample(_ins("rroi_adaptive"), dict(pooled_size=(2, 3), spatial_scale=1.0),
               ref=lambda *a, **k: _FIX["rroi_adaptive/out0"], rtol=1e-5, atol=1e-5,
               grad=False, name="adaptive"),
        Sample(_ins("rroi_ratio", np.float64),
               dict(pooled_size=(3, 2), spatial_scale=0.5, sampling_ratio=2),
               ref=lambda *a, **k: _FIX["rroi_ratio/out0"], rtol=1e-5, atol=1e-5,
               grad=False, name="sampling_ratio_float64"),
    ],
}
