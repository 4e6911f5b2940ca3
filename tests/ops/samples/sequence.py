"""Samples for the sequence operators and ``_contrib_div_sqrt_dim``."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(18)
_x = _rng.standard_normal((4, 3, 2))      # (T, B, C)
_xb = _rng.standard_normal((3, 4, 2))     # (B, T, C)
_len = np.array([2, 4, 1], dtype=np.float64)


def _mask_ref(x, length=None, use_sequence_length=False, value=0.0, axis=0):
    if not use_sequence_length:
        return x.copy()
    t = np.arange(x.shape[axis])
    keep = t[:, None] < length[None, :] if axis == 0 else t[None, :] < length[:, None]
    return np.where(keep.reshape(keep.shape + (1,) * (x.ndim - 2)), x, np.float32(value))


def _last_ref(x, length=None, use_sequence_length=False, axis=0):
    xs = np.moveaxis(x, axis, 0)
    if not use_sequence_length:
        return xs[-1]
    return xs[length.astype(int) - 1, np.arange(xs.shape[1])]


def _reverse_ref(x, length=None, use_sequence_length=False, axis=0):
    out = x.copy()
    for b in range(x.shape[1]):
        n = int(length[b]) if use_sequence_length else x.shape[0]
        out[:n, b] = x[:n, b][::-1]
    return out


SAMPLES = {
    "SequenceMask": [
        Sample([_x], ref=_mask_ref),
        Sample([_x, _len], dict(use_sequence_length=True, value=-1.5), ref=_mask_ref,
               grad=[0], infer_from=[0]),
        Sample([_xb, _len], dict(use_sequence_length=True, axis=1), ref=_mask_ref, grad=[0]),
        Sample([_x, np.array([3, 0, 4], dtype=np.int32)], dict(use_sequence_length=True),
               ref=_mask_ref, name="int_lengths"),
    ],
    "SequenceLast": [
        Sample([_x], ref=_last_ref),
        Sample([_x, _len], dict(use_sequence_length=True), ref=_last_ref, grad=[0],
               infer_from=[0]),
        Sample([_xb, _len], dict(use_sequence_length=True, axis=1), ref=_last_ref, grad=[0]),
    ],
    "SequenceReverse": [
        Sample([_x], ref=_reverse_ref),
        Sample([_x, _len], dict(use_sequence_length=True), ref=_reverse_ref, grad=[0],
               infer_from=[0]),
    ],
    "_contrib_div_sqrt_dim": [
        Sample([_rng.standard_normal((2, 3, 4))], ref=lambda x: x / 2.0),
    ],
}
