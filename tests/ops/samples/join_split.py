"""Samples for ``Concat``, ``stack``, ``split``, ``slice``, ``slice_axis``, ``slice_like``,
``_split_v2``."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(47)


def _x(*shape):
    return _rng.standard_normal(shape)


def _slice_ref(x, begin, end, step=()):
    step = step or (None,) * len(begin)
    return x[tuple(slice(b, e, s) for b, e, s in zip(begin, end, step))]


def _split_ref(x, num_outputs, axis=1, squeeze_axis=False):
    parts = np.split(x, num_outputs, axis=axis)
    if squeeze_axis:
        parts = [np.squeeze(p, axis=axis) for p in parts]
    return parts if num_outputs > 1 else parts[0]


def _split_v2_ref(x, indices=(), axis=1, squeeze_axis=False, sections=0):
    n = x.shape[axis]
    if sections:
        small, extra = divmod(n, sections)
        indices = [i * small + min(i, extra) for i in range(sections)]
    parts = np.split(x, list(indices[1:]), axis=axis)
    if squeeze_axis:
        parts = [np.squeeze(p, axis=axis) for p in parts]
    return parts if len(parts) > 1 else parts[0]


SAMPLES = {
    "Concat": [
        Sample([_x(2, 3), _x(2, 1)], dict(num_args=2, dim=1),
               ref=lambda a, b, **_: np.concatenate([a, b], 1)),
        Sample([_x(1, 3), _x(2, 3), _x(3, 3)], dict(num_args=3, dim=0),
               ref=lambda *a, **_: np.concatenate(a, 0), infer_from=[0, 1, 2]),
        Sample([_x(2, 2, 3), _x(2, 2, 1)], dict(num_args=2, dim=-1),
               ref=lambda a, b, **_: np.concatenate([a, b], -1)),
    ],
    "stack": [
        Sample([_x(2, 3), _x(2, 3)], dict(num_args=2), ref=lambda *a, **_: np.stack(a)),
        Sample([_x(2, 3), _x(2, 3), _x(2, 3)], dict(num_args=3, axis=-1),
               ref=lambda *a, **_: np.stack(a, -1), infer_from=[1]),
    ],
    "SliceChannel": [
        Sample([_x(2, 6)], dict(num_outputs=3), ref=_split_ref),
        Sample([_x(2, 3, 2)], dict(num_outputs=2, axis=0, squeeze_axis=True), ref=_split_ref),
        Sample([_x(4, 2)], dict(num_outputs=1, axis=0), ref=_split_ref),
    ],
    "slice": [
        Sample([_x(4, 5)], dict(begin=(1, 0), end=(3, 4)), ref=_slice_ref),
        Sample([_x(4, 5)], dict(begin=(None, 4), end=(None, 0), step=(None, -2)), ref=_slice_ref),
        Sample([_x(4, 5, 2)], dict(begin=(-1, -5), end=(-3, None), step=(-1, 2)), ref=_slice_ref),
        Sample([_x(4, 5)], dict(begin=(3,), end=(None,), step=(-1,)), ref=_slice_ref),
    ],
    "slice_axis": [
        Sample([_x(4, 5)], dict(axis=1, begin=-3, end=None),
               ref=lambda x, axis, begin, end: x[:, begin:]),
        Sample([_x(4, 5)], dict(axis=0, begin=1, end=-1), ref=lambda x, **_: x[1:-1]),
    ],
    "slice_like": [
        Sample([_x(4, 5), _x(2, 3)], ref=lambda a, b: a[:2, :3], grad=[0]),
        Sample([_x(4, 5, 3), _x(2, 3, 1)], dict(axes=(1, -1)), ref=lambda a, b, **_: a[:, :3, :1],
               grad=[0]),
    ],
    "_split_v2": [
        # nd.split_v2(x, (1, 3, 5), axis=1) on (2, 6): parts of 1, 2, 2 and 1 columns
        Sample([_x(2, 6)], dict(indices=(0, 1, 3, 5)), ref=_split_v2_ref, name="indices"),
        Sample([_x(3, 2, 1)], dict(indices=(0, 1, 2), axis=0, squeeze_axis=True),
               ref=_split_v2_ref, name="squeeze"),
        # the last part may be empty: indices (0, 6) on 6 columns give (2, 6) and (2, 0)
        Sample([_x(2, 6)], dict(indices=(0, 6)), ref=_split_v2_ref, grad=False,
               name="empty_last"),
        Sample([_x(7, 2)], dict(indices=(0,), axis=0, sections=3), ref=_split_v2_ref,
               name="sections_uneven"),
        Sample([_x(4)], dict(indices=(0,), axis=0), ref=_split_v2_ref, name="one_part"),
    ],
}
