"""Samples for the small elementwise utilities (``elemwise_misc.py``)."""
import numpy as np

from ..harness import Sample

_rng = np.random.default_rng(7)
_x = _rng.uniform(-2, 2, size=(3, 4))
_ints = np.array([[-5, 0, 3], [10, -1, 2]], dtype=np.int32)
# clip and smooth_l1 samples stay away from the kinks (finite differences)
_clip_x = np.array([[-2.0, -0.7, 0.3, 0.9], [1.6, -1.3, 0.05, 2.5]])
_sl1_x = np.array([[-2.0, -0.7, 0.3, 0.9], [1.6, -1.3, 0.05, 2.5]])


def _cast_ref(x, dtype):
    dt = np.dtype(dtype)
    if x.dtype.kind == "f" and dt.kind in "iu":
        return np.trunc(x).astype(np.int64).astype(dt)
    return x.astype(dt)


def _amp_cast_ref(x, dtype):
    return x.astype(dtype) if x.dtype in (np.float16, np.float32) else x.copy()


def _multicast_ref(*xs, num_outputs, cast_narrow=False):
    dts = {x.dtype for x in xs}
    if cast_narrow:
        src, dst = np.float32, (np.float16 if np.dtype(np.float16) in dts else None)
    else:
        src, dst = np.float16, (np.float32 if np.dtype(np.float32) in dts else None)
    return [x.astype(dst) if dst is not None and x.dtype == src else x for x in xs]


def _clip_ref(x, a_min, a_max):
    if x.dtype.kind in "iu":
        a_min, a_max = int(a_min), int(a_max)
    return np.where(x > a_max, a_max, np.where(x < a_min, a_min, x)).astype(x.dtype)


def _sl1_ref(x, scalar=1.0):
    s2 = scalar * scalar
    xf = x.astype(np.float64)
    y = np.where(np.abs(xf) < 1 / s2, 0.5 * s2 * xf * xf, np.abs(xf) - 0.5 / s2)
    return np.trunc(y).astype(x.dtype) if x.dtype.kind in "iu" else y.astype(x.dtype)


_f16 = _rng.uniform(-2, 2, size=(2, 3)).astype(np.float16)
_f32 = _rng.uniform(-2, 2, size=(2, 3)).astype(np.float32)

SAMPLES = {
    "_copy": [Sample([_x], ref=lambda x: x), Sample([_ints], ref=lambda x: x)],
    "BlockGrad": [Sample([_x], ref=lambda x: x, grad_ref=lambda x: [np.zeros_like(x)])],
    "_identity_with_attr_like_rhs": [
        Sample([_x, _x * 2], ref=lambda a, b: a,
               grad_ref=lambda a, b: [np.ones_like(a), np.zeros_like(b)]),
        Sample([_x, _x * 2], ref=lambda a, b: a, infer_from=[1],
               grad_ref=lambda a, b: [np.ones_like(a), np.zeros_like(b)])],
    "zeros_like": [Sample([_x], ref=np.zeros_like), Sample([_ints], ref=np.zeros_like)],
    "ones_like": [Sample([_x], ref=np.ones_like), Sample([_ints], ref=np.ones_like)],
    "Cast": [
        Sample([_x], dict(dtype="float32"), ref=_cast_ref, rtol=1e-6, grad=False),
        Sample([_x], dict(dtype="float64"), ref=_cast_ref),
        Sample([_x * 100], dict(dtype="int32"), ref=_cast_ref, grad=False, name="trunc"),
        Sample([np.array([-1.7, 2.9, 300.5, -0.5])], dict(dtype="uint8"), ref=_cast_ref,
               grad=False, name="uint8_wrap"),
        Sample([_ints], dict(dtype="float64"), ref=_cast_ref),
    ],
    "amp_cast": [
        Sample([_f32], dict(dtype="float16"), ref=_amp_cast_ref, rtol=1e-3, grad=False),
        Sample([_x], dict(dtype="float16"), ref=_amp_cast_ref, name="float64_passes"),
        Sample([_ints], dict(dtype="float32"), ref=_amp_cast_ref, name="int_passes"),
    ],
    "amp_multicast": [
        Sample([_f16, _f32], dict(num_outputs=2), ref=_multicast_ref, rtol=1e-3,
               grad=False),
        Sample([_f16, _f32, _x[:2, :3]], dict(num_outputs=3, cast_narrow=True),
               ref=_multicast_ref, rtol=1e-3, grad=False, name="narrow"),
        Sample([_x, _x[:2] * 2], dict(num_outputs=2), ref=_multicast_ref, name="float64"),
    ],
    "clip": [
        Sample([_clip_x], dict(a_min=-1.0, a_max=1.0), ref=_clip_ref),
        Sample([_clip_x], dict(a_min=0.5, a_max=-0.5), ref=_clip_ref, name="reversed"),
        Sample([_ints], dict(a_min=-1.5, a_max=2.7), ref=_clip_ref, name="int"),
    ],
    "smooth_l1": [
        Sample([_sl1_x], ref=_sl1_ref),
        Sample([_sl1_x], dict(scalar=2.0), ref=_sl1_ref),
        Sample([_sl1_x], dict(scalar=0.5), ref=_sl1_ref),
        Sample([np.array([-3, 0, 2], dtype=np.int32)], ref=_sl1_ref, name="int"),
    ],
}
