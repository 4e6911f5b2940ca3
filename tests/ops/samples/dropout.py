"""Samples for ``Dropout`` (random: training-mode samples check properties)."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(14)
_x = _rng.uniform(0.5, 2, size=(4, 5, 3))
_wide = _rng.uniform(0.5, 2, size=(2, 40, 2))


def _check(p, axes=()):
    def check(outs, inputs):
        (y,) = outs
        x = inputs[0]
        kept = y != 0
        np.testing.assert_allclose(y[kept], x[kept] / (1 - p), rtol=1e-6)
        frac = kept.mean()
        # the mask has one independent draw per position outside the shared axes
        draws = kept.size // int(np.prod([kept.shape[a] for a in axes], dtype=np.int64))
        spread = 4.5 * np.sqrt(p * (1 - p) / draws)
        assert abs(frac - (1 - p)) <= spread, f"kept fraction {frac} for p={p}"
        for a in axes:  # the mask is shared along the listed axes
            assert np.all(kept == kept.take([0], axis=a))
    return check


SAMPLES = {
    "Dropout": [
        Sample([_x], dict(p=0.5), ref=lambda x, **_: x, name="predict_identity"),
        Sample([_x], dict(p=0.0), ref=lambda x, **_: x, train=True, name="p0_train"),
        Sample([_x], dict(p=0.4), train=True, check=_check(0.4), grad=False, name="train"),
        Sample([_x], dict(p=0.3, mode="always"), check=_check(0.3), grad=False,
               name="always"),
        Sample([_x], dict(p=0.5, axes=(1,)), train=True, check=_check(0.5, (1,)),
               grad=False, name="axes"),
        Sample([_wide], dict(p=0.25, axes=(0, 2), cudnn_off=True), train=True,
               check=_check(0.25, (0, 2)), grad=False, name="two_axes"),
    ],
}
