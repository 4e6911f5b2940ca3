"""Samples for ``broadcast_to``/``_like``/``_axis``, ``tile``, ``repeat``, ``reverse``,
``Crop`` and ``pad``."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(43)


def _x(*shape):
    return _rng.standard_normal(shape)


def _pad_ref(x, mode="constant", pad_width=(), constant_value=0.0):
    pairs = [(pad_width[2 * i], pad_width[2 * i + 1]) for i in range(x.ndim)]
    if mode == "constant":
        return np.pad(x, pairs, mode="constant", constant_values=constant_value)
    return np.pad(x, pairs, mode=mode)


def _crop_ref(x, *like, num_args=1, offset=(0, 0), h_w=(0, 0), center_crop=False):
    h, w = like[0].shape[-2:] if like else h_w
    oy, ox = ((x.shape[2] - h) // 2, (x.shape[3] - w) // 2) if center_crop else offset
    return x[:, :, oy:oy + h, ox:ox + w]


SAMPLES = {
    "broadcast_to": [
        Sample([_x(1, 3)], dict(shape=(4, 3)), ref=lambda x, shape: np.broadcast_to(x, shape)),
        Sample([_x(2, 1, 1)], dict(shape=(0, 3, 2)),
               ref=lambda x, **_: np.broadcast_to(x, (2, 3, 2))),
    ],
    "broadcast_like": [
        Sample([_x(1, 3, 1), _x(2, 3, 4)], ref=lambda a, b: np.broadcast_to(a, b.shape), grad=[0]),
        Sample([_x(1, 3, 1), _x(5, 6)], dict(lhs_axes=(0, 2), rhs_axes=(0, 1)),
               ref=lambda a, b, **_: np.broadcast_to(a, (5, 3, 6)), grad=[0]),
    ],
    "broadcast_axis": [
        Sample([_x(1, 3, 1)], dict(axis=(0, 2), size=(2, 4)),
               ref=lambda x, **_: np.broadcast_to(x, (2, 3, 4))),
        Sample([_x(3, 1)], dict(axis=-1, size=2), ref=lambda x, **_: np.broadcast_to(x, (3, 2))),
    ],
    "tile": [
        Sample([_x(2, 3)], dict(reps=(2, 2)), ref=lambda x, reps: np.tile(x, reps)),
        Sample([_x(3)], dict(reps=(2, 1, 2)), ref=lambda x, reps: np.tile(x, reps)),
        Sample([_x(2, 3, 2)], dict(reps=(3,)), ref=lambda x, reps: np.tile(x, reps)),
        Sample([_x(2, 3)], dict(reps=()), ref=lambda x, reps: np.tile(x, reps),
               name="empty_reps_identity"),
    ],
    "repeat": [
        Sample([_x(2, 3)], dict(repeats=2), ref=lambda x, repeats: np.repeat(x, repeats)),
        Sample([_x(2, 3)], dict(repeats=3, axis=-1), ref=lambda x, **k: np.repeat(x, **k)),
        Sample([_x(2, 3)], dict(repeats=2, axis=0), ref=lambda x, **k: np.repeat(x, **k)),
    ],
    "reverse": [
        Sample([_x(2, 3, 4)], dict(axis=(0, 2)), ref=lambda x, axis: np.flip(x, axis)),
        Sample([_x(3, 4)], dict(axis=-1), ref=lambda x, axis: np.flip(x, axis)),
    ],
    "Crop": [
        Sample([_x(2, 2, 5, 6)], dict(num_args=1, h_w=(2, 3), offset=(1, 2)), ref=_crop_ref),
        Sample([_x(1, 2, 5, 6)], dict(num_args=1, h_w=(2, 3), center_crop=True), ref=_crop_ref),
        Sample([_x(1, 2, 5, 6), _x(1, 1, 2, 4)], dict(num_args=2, center_crop=True),
               ref=_crop_ref, grad=[0]),
    ],
    "Pad": [
        Sample([_x(1, 2, 3, 4)], dict(mode="constant", pad_width=(0, 0, 0, 0, 1, 2, 2, 1),
                                      constant_value=1.5), ref=_pad_ref),
        Sample([_x(1, 2, 3, 4)], dict(mode="edge", pad_width=(0, 0, 0, 0, 2, 1, 0, 3)),
               ref=_pad_ref),
        Sample([_x(1, 1, 3, 4)], dict(mode="reflect", pad_width=(0, 0, 0, 0, 2, 1, 1, 3)),
               ref=_pad_ref),
        Sample([_x(1, 1, 2, 3, 3)], dict(mode="reflect", pad_width=(0, 0, 0, 0, 1, 1, 1, 0, 2, 1)),
               ref=_pad_ref),
    ],
}
