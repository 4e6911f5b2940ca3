"""Max and average pooling on cuDNN (forward and backward).

cuDNN pools with symmetric padding and ``floor`` output sizes; a Pooling call
takes this path when its windows are exactly cuDNN's (see :func:`eligible`):
MXNet's ``valid`` convention, ``full`` and ``same`` where they coincide with it,
and ``global_pool``.  Max pooling ignores padding (MXNet pads with the lowest
value: the same maximum), average pooling divides by the whole window
(``count_include_pad``) or by its real elements.  Sum and Lp pooling, and
windows cuDNN cannot express, keep the operator's own kernels.
"""
from __future__ import annotations

from . import _cudnn_lib as L
from .common import fail

_PLAN_CACHE_MAX = 1024


def _as_4d(shape):
    return (shape[0], shape[1], 1, shape[2]) if len(shape) == 3 else tuple(shape)


class PoolPlan:
    """Descriptors of one pooling geometry."""

    def __init__(self, x_shape, y_shape, dtype, mode: int, window, pad, stride):
        code = L.data_type("Pooling", dtype)
        if len(window) == 1:
            window, pad, stride = (1,) + tuple(window), (0,) + tuple(pad), (1,) + tuple(stride)
        self.x = L.TensorDesc(code, _as_4d(x_shape))
        self.y = L.TensorDesc(code, _as_4d(y_shape))
        self.pool = L.PoolDesc(mode, window, pad, stride)
        self.shapes = (tuple(x_shape), tuple(y_shape))
        self.one, self.zero = L.scalars(dtype)

    def forward(self, xp, x, y):
        try:
            L.library().check("cudnnPoolingForward", L.handle(xp), self.pool.ptr, self.one,
                              self.x.ptr, x.data.ptr, self.zero, self.y.ptr, y.data.ptr)
        except L.CudnnError as e:
            fail("Pooling", str(e), *self.shapes)
        L.count("cudnnPoolingForward")
        return y

    def backward(self, xp, x, y, dy, dx):
        try:
            L.library().check("cudnnPoolingBackward", L.handle(xp), self.pool.ptr, self.one,
                              self.y.ptr, y.data.ptr, self.y.ptr, dy.data.ptr, self.x.ptr,
                              x.data.ptr, self.zero, self.x.ptr, dx.data.ptr)
        except L.CudnnError as e:
            fail("Pooling", str(e), *self.shapes)
        L.count("cudnnPoolingBackward")
        return dx


def eligible(xp, attrs, x, kernel, stride, lo, out) -> int | None:
    """cuDNN's pooling mode for this call, or ``None`` when it cannot serve it.

    ``kernel``/``stride``/``lo``/``out`` are the op's per-axis window, stride, left
    padding and output sizes (after ``global_pool`` and the convention).
    """
    if getattr(attrs, "cudnn_off", False) or not L.usable(xp):
        return None
    if x.dtype.char not in L.FLOAT_CHARS or not x.size:
        return None
    if attrs.pool_type == "max":
        mode = L.POOL_MAX
    elif attrs.pool_type == "avg":
        include = attrs.count_include_pad is None or attrs.count_include_pad
        mode = L.POOL_AVG_INCLUDE_PAD if include else L.POOL_AVG_EXCLUDE_PAD
    else:
        return None
    for n, k, s, p, o in zip(x.shape[2:], kernel, stride, lo, out):
        # cuDNN's windows: symmetric padding below the window size, floor sizes, and
        # every window inside the padded input (so both average divisors agree)
        if p >= k or (n + 2 * p - k) // s + 1 != o or (o - 1) * s + k > n + 2 * p:
            return None
    return mode


_plans: dict = {}


def plan(x, y_shape, mode: int, kernel, pad, stride) -> PoolPlan:
    """The cached :class:`PoolPlan` of a geometry."""
    key = (tuple(x.shape), tuple(y_shape), x.dtype.char, mode, tuple(kernel), tuple(pad),
           tuple(stride))
    p = _plans.get(key)
    if p is None:
        if len(_plans) >= _PLAN_CACHE_MAX:
            _plans.clear()
        p = _plans[key] = PoolPlan(x.shape, y_shape, x.dtype, mode, kernel, pad, stride)
    return p


def forward(xp, p: PoolPlan, x, out):
    """Pooled ``x`` (into ``out`` when cuDNN can write there)."""
    x = L.operand(x)
    shape = p.shapes[1]
    y = out if L.writable(out, shape, x.dtype) else xp.empty(shape, x.dtype)
    p.forward(xp, x, y)
    if out is not None and out is not y:
        out[...] = y
        return out
    return y


def backward(xp, p: PoolPlan, x, y, dy):
    """The input gradient of a pooling on plan ``p``."""
    dx = xp.empty(x.shape, x.dtype)
    if dy.dtype != x.dtype:
        dy = dy.astype(x.dtype)
    return p.backward(xp, L.operand(x), L.operand(y), L.operand(dy), dx)

