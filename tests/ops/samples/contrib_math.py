"""Samples for ``quadratic`` and ``gradientmultiplier`` (``contrib_math.py``)."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(21)
_x = _rng.normal(size=(3, 4))
_x3 = _rng.normal(size=(2, 3, 2)).astype(np.float32)


def _quad(x, a=0.0, b=0.0, c=0.0):
    return a * x * x + b * x + c


SAMPLES = {
    "_contrib_quadratic": [
        Sample([_x], dict(a=1.5, b=-2.0, c=0.5), ref=_quad),
        Sample([_x], ref=_quad),
        Sample([_x3], dict(a=0.25, c=3.0), ref=_quad, rtol=1e-6, grad=False),
    ],
    "_contrib_gradientmultiplier": [
        Sample([_x], dict(scalar=-0.5), ref=lambda x, scalar: x,
               grad_ref=lambda x, scalar: [np.full_like(x, scalar)]),
        Sample([_x3], ref=lambda x: x, grad=False),
    ],
}
