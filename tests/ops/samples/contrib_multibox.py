"""Samples for ``_contrib_MultiBoxPrior``, ``_contrib_MultiBoxTarget`` and
``_contrib_MultiBoxDetection``; they replay MXNet 1.9.1's outputs from
``tests/fixtures/contrib_detection.npz`` (checked in ``tests/test_contrib_detection.py``).
All three pass zero gradients back, as MXNet's do."""
import json
import os

import numpy as np

from ..harness import Sample

_FIX = np.load(os.path.join(os.path.dirname(__file__), "..", "..", "fixtures",
                            "contrib_detection.npz"))


def _zeros(*inputs, **attrs):
    return [np.zeros_like(a) for a in inputs]


def _case(case, **kw):
    inputs = [_FIX[f"{case}/in{i}"] for i in range(10) if f"{case}/in{i}" in _FIX.files]
    outs = [_FIX[f"{case}/out{i}"] for i in range(10) if f"{case}/out{i}" in _FIX.files]
    attrs = {k: tuple(v) if isinstance(v, list) else v
             for k, v in json.loads(str(_FIX[f"{case}/attrs"])).items()}
    return Sample(inputs, attrs, ref=lambda *a, **k: outs, rtol=1e-5, atol=1e-6,
                  name=case.split("/")[1], **kw)


SAMPLES = {
    "_contrib_MultiBoxPrior": [_case("mbprior/sizes_ratios", grad_ref=_zeros),
                               _case("mbprior/clip", grad=False),
                               _case("mbprior/steps_offsets", grad=False)],
    "_contrib_MultiBoxTarget": [_case("mbtarget/default", grad_ref=_zeros),
                                _case("mbtarget/mining", grad=False)],
    "_contrib_MultiBoxDetection": [_case("mbdet/threshold_topk", grad_ref=_zeros),
                                   _case("mbdet/force_noclip", grad=False)],
}
