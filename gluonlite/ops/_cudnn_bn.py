"""BatchNorm on cuDNN (spatial mode): training and inference forward, backward.

The semantics stay MXNet's (``batch_norm.py``): cuDNN computes the output and the
batch mean and ``1 / sqrt(biased_var + eps)`` (the op's ``mean``/``var``
outputs); the running statistics are *not* given to cuDNN (it would fold in the
unbiased variance, at forward time) but updated by the op's backward as MXNet
does.  ``fix_gamma`` passes a vector of ones as the scale and zeroes its
gradient.  Channel axis 1 only (cuDNN's ``NCHW`` spatial mode); 2-D to 5-D data,
float16 data with float32 parameters, float32 and float64.
"""
from __future__ import annotations

import numpy as np

from . import _cudnn_lib as L
from .common import fail, put

_PLAN_CACHE_MAX = 512


def _as_nd(shape):
    """cuDNN descriptors start at 4 dimensions: pad with trailing 1s."""
    return tuple(shape) + (1,) * (4 - len(shape))


class BNPlan:
    """Data and per-channel parameter descriptors of one input shape and dtype."""

    def __init__(self, shape, dtype, pdtype):
        shape4 = _as_nd(shape)
        self.x = L.TensorDesc(L.data_type("BatchNorm", dtype), shape4)
        self.p = L.TensorDesc(L.data_type("BatchNorm", pdtype),
                              (1, shape4[1]) + (1,) * (len(shape4) - 2))
        self.shape = tuple(shape)
        self.one, self.zero = L.scalars(dtype)


_plans: dict = {}
_ones: dict = {}


def _plan(x, pdtype) -> BNPlan:
    key = (x.shape, x.dtype.char, pdtype.char)
    p = _plans.get(key)
    if p is None:
        if len(_plans) >= _PLAN_CACHE_MAX:
            _plans.clear()
        p = _plans[key] = BNPlan(x.shape, x.dtype, pdtype)
    return p


def _unit_scale(xp, c: int, dtype):
    """A cached vector of ones (gamma under ``fix_gamma``) on the current device."""
    key = (c, np.dtype(dtype).char, xp.cuda.runtime.getDevice())
    v = _ones.get(key)
    if v is None:
        v = _ones[key] = xp.ones(c, dtype)
    return v


def eligible(xp, attrs, x, params, axis: int) -> bool:
    """Whether this BatchNorm call runs on cuDNN."""
    if getattr(attrs, "cudnn_off", False) or not L.usable(xp):
        return False
    char = x.dtype.char
    if axis != 1 or not 2 <= x.ndim <= 5 or not x.size or char not in L.FLOAT_CHARS:
        return False
    pchar = "d" if char == "d" else "f"   # float32 statistics for float16 data
    return attrs.eps >= 0 and all(p.dtype.char == pchar for p in params)


def _call(name: str, plan: BNPlan, *args) -> None:
    try:
        L.library().check(name, *args)
    except L.CudnnError as e:
        fail("BatchNorm", str(e), plan.shape)
    L.count(name)


_INV_STD = {}


def _inv_std(xp, var, eps: float):
    """``1 / sqrt(var + eps)`` in one launch (the NumPy path's rounding)."""
    k = _INV_STD.get("k")
    if k is None:
        k = _INV_STD["k"] = xp.ElementwiseKernel(
            "T v, float64 eps", "T r", "r = (T)(1.0 / sqrt((double)v + eps))",
            "gluonlite_bn_inv_std")
    return k(var, float(eps))


def forward(xp, attrs, is_train: bool, inputs, out):
    """``[y, mean, inv_std]`` of BatchNorm on cuDNN (see the module docstring)."""
    x, gamma, beta, moving_mean, moving_var = inputs
    pdt = gamma.dtype
    x = L.operand(x)
    plan = _plan(x, pdt)
    h = L.handle(xp)
    y = out[0] if out is not None and L.writable(out[0], x.shape, x.dtype) else \
        xp.empty(x.shape, x.dtype)
    scale = _unit_scale(xp, x.shape[1], pdt) if attrs.fix_gamma else L.operand(gamma)
    beta = L.operand(beta)
    if is_train and not attrs.use_global_stats:
        mean = xp.empty(x.shape[1], pdt)
        inv_std = xp.empty(x.shape[1], pdt)
        _call("cudnnBatchNormalizationForwardTraining", plan, h, L.BATCHNORM_SPATIAL,
              plan.one, plan.zero, plan.x.ptr, x.data.ptr, plan.x.ptr, y.data.ptr, plan.p.ptr,
              scale.data.ptr, beta.data.ptr, 0.0, None, None, float(attrs.eps),
              mean.data.ptr, inv_std.data.ptr)
    else:
        mm, mv = L.operand(moving_mean), L.operand(moving_var)
        _call("cudnnBatchNormalizationForwardInference", plan, h, L.BATCHNORM_SPATIAL,
              plan.one, plan.zero, plan.x.ptr, x.data.ptr, plan.x.ptr, y.data.ptr, plan.p.ptr,
              scale.data.ptr, beta.data.ptr, mm.data.ptr, mv.data.ptr, float(attrs.eps))
        mean = mm.copy()
        inv_std = _inv_std(xp, mv, attrs.eps)
    y = y if out is None or out[0] is y else put(out, 0, y)
    return [y, put(out, 1, mean), put(out, 2, inv_std)]


def backward(xp, attrs, inputs, outputs, dy):
    """``[dx, dgamma, dbeta]`` with the batch statistics saved by the forward."""
    x, gamma, beta = inputs[:3]
    pdt = gamma.dtype
    x = L.operand(x)
    plan = _plan(x, pdt)
    if dy.dtype != x.dtype:
        dy = dy.astype(x.dtype)
    dy = L.operand(dy)
    dx = xp.empty(x.shape, x.dtype)
    dgamma = xp.empty(x.shape[1], pdt)
    dbeta = xp.empty(x.shape[1], pdt)
    scale = _unit_scale(xp, x.shape[1], pdt) if attrs.fix_gamma else L.operand(gamma)
    mean, inv_std = L.operand(outputs[1]), L.operand(outputs[2])
    _call("cudnnBatchNormalizationBackward", plan, L.handle(xp), L.BATCHNORM_SPATIAL,
          plan.one, plan.zero, plan.one, plan.zero, plan.x.ptr, x.data.ptr, plan.x.ptr,
          dy.data.ptr, plan.x.ptr, dx.data.ptr, plan.p.ptr, scale.data.ptr, dgamma.data.ptr,
          dbeta.data.ptr, float(attrs.eps), mean.data.ptr, inv_std.data.ptr)
    if attrs.fix_gamma:
        dgamma.fill(0)
    return [dx, dgamma, dbeta]
