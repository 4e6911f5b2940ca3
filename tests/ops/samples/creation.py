"""Samples for the creation operators (no inputs) and ``_contrib_arange_like``."""
import math

import numpy as np

from ..harness import Sample


def _dt(dtype):
    return np.dtype(dtype or "float32")


def _zeros_ref(shape, dtype="float32", **_):
    return np.zeros(shape, dtype=_dt(dtype))


def _ones_ref(shape, dtype="float32", **_):
    return np.ones(shape, dtype=_dt(dtype))


def _full_ref(shape, value, dtype="float32", **_):
    dt = _dt(dtype)
    v = np.array(math.trunc(value)).astype(dt) if dt.kind in "iu" else dt.type(value)
    return np.full(shape, v, dtype=dt)


def _arange_ref(start, stop=None, step=1.0, repeat=1, dtype="float32", **_):
    if stop is None:
        start, stop = 0, start
    dt = _dt(dtype)
    n = math.ceil((stop - start) / step)
    s, d = (int(start), int(step)) if dt.kind in "iu" else (start, step)
    vals = np.arange(n).astype(dt) * dt.type(d) + dt.type(s)
    return np.repeat(vals, repeat)


def _linspace_ref(start, stop, num, endpoint=True, dtype="float32", **_):
    return np.linspace(start, stop, num, endpoint=endpoint).astype(_dt(dtype))


def _eye_ref(N, M=0, k=0, dtype="float32", **_):
    return np.eye(N, M or N, k, dtype=_dt(dtype))


def _arange_like_ref(data, start=0.0, step=1.0, repeat=1, axis=None, **_):
    n = data.size if axis is None else data.shape[axis]
    dt = data.dtype
    s, d = (int(start), int(step)) if dt.kind in "iu" else (start, step)
    vals = (np.arange(n) // repeat).astype(dt) * dt.type(d) + dt.type(s)
    return vals.reshape(data.shape) if axis is None else vals


SAMPLES = {
    "_zeros": [
        Sample([], dict(shape=(2, 3)), ref=_zeros_ref, name="default"),
        Sample([], dict(shape=(4,), dtype="int64"), ref=_zeros_ref, name="int64"),
    ],
    "_ones": [
        Sample([], dict(shape=(3, 1, 2)), ref=_ones_ref, name="default"),
        Sample([], dict(shape=(2,), dtype="uint8"), ref=_ones_ref, name="uint8"),
    ],
    "_full": [
        Sample([], dict(shape=(2, 2), value=3.7), ref=_full_ref, rtol=1e-6, name="float32"),
        Sample([], dict(shape=(3,), value=-3.7, dtype="int32"), ref=_full_ref,
               name="int32_truncates"),
        Sample([], dict(shape=(2,), value=2.5, dtype="float64"), ref=_full_ref,
               name="float64"),
    ],
    "_zeros_without_dtype": [
        Sample([], dict(shape=(2, 3)), ref=lambda shape, **_: np.zeros(shape, np.float32),
               name="default"),
        Sample([], dict(shape=(2,), dtype=6), ref=lambda shape, **_: np.zeros(shape, np.int64),
               name="flag_int64"),
    ],
    "_arange": [
        Sample([], dict(start=5), ref=_arange_ref, name="stop_only"),
        Sample([], dict(start=2, stop=10, step=3, repeat=2), ref=_arange_ref, name="repeat"),
        Sample([], dict(start=0, stop=5, step=1.5, dtype="int32"), ref=_arange_ref,
               name="int32"),
        Sample([], dict(start=5, stop=0, step=-1.5), ref=_arange_ref, name="negative_step"),
        Sample([], dict(start=0.1, stop=1.0, step=0.3), ref=_arange_ref, rtol=0, atol=0,
               name="float32_arith"),
        Sample([], dict(start=0.5, stop=2.0, step=0.25, dtype="float64"), ref=_arange_ref,
               name="float64"),
    ],
    "_linspace": [
        Sample([], dict(start=0, stop=1, num=5), ref=_linspace_ref, name="endpoint"),
        Sample([], dict(start=2, stop=3, num=5, endpoint=False), ref=_linspace_ref,
               name="no_endpoint"),
        Sample([], dict(start=0, stop=10, num=4, dtype="int32"), ref=_linspace_ref,
               name="int32"),
        Sample([], dict(start=5, stop=1, num=3, dtype="float64"), ref=_linspace_ref,
               name="reverse"),
    ],
    "_eye": [
        Sample([], dict(N=3), ref=_eye_ref, name="square"),
        Sample([], dict(N=3, M=4, k=1), ref=_eye_ref, name="rect_k"),
        Sample([], dict(N=3, k=-1, dtype="int32"), ref=_eye_ref, name="int32_below"),
    ],
    "_contrib_arange_like": [
        Sample([np.ones((2, 3, 4))], ref=_arange_like_ref, name="full"),
        Sample([np.ones((2, 3, 4))], dict(axis=1, start=2, step=0.5), ref=_arange_like_ref,
               name="axis"),
        Sample([np.ones((2, 3))], dict(repeat=2), ref=_arange_like_ref, name="repeat"),
        Sample([np.ones((2, 3), dtype=np.int32)], dict(start=1.5), ref=_arange_like_ref,
               name="int32"),
    ],
}
