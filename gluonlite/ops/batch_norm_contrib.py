"""MXNet 1.9's contrib batch-norm variants, on top of :mod:`.batch_norm`.

* ``_contrib_BatchNormWithReLU``: ``relu(BatchNorm(x))`` as one operator (what
  ``gluon.nn.BatchNormReLU`` emits; MXNet's pip build runs it only with MKL-DNN).
  Same attributes, inputs, running statistics and moving-average timing as
  ``BatchNorm``; the backward masks the head gradient where the output is 0.
* ``_contrib_SyncBatchNorm``: batch norm over axis 1 whose batch statistics span
  ``ndev`` devices (what ``gluon.contrib.nn.SyncBatchNorm`` emits).  With ``ndev=1``
  it normalizes as ``BatchNorm``; as in MXNet its second and third outputs are the
  batch mean and (biased) variance, not BatchNorm's inverse deviation.  With ``ndev > 1`` the ``ndev`` calls sharing ``key`` must run
  concurrently (one thread per device, as MXNet's asynchronous engine runs them):
  each contributes per-channel sums in the forward and in the backward and all of
  them continue with the totals.  A call whose partners never come fails after
  :data:`SYNC_TIMEOUT` seconds with an ``MXNetError`` saying so.
"""
from __future__ import annotations

import threading
import types

import numpy as np

from ..base import MXNetError
from .attrs import Attr
from .batch_norm import (_EPS_DEFAULT, _backward as _bn_backward, _compute_dtype,
                         _forward as _bn_forward, _infer_shape as _bn_infer_shape,
                         _infer_type as _bn_infer_type, _layout, _update_moving)
from .common import put
from .registry import OpDef, register

#: seconds a SyncBatchNorm call waits for the other devices' calls
SYNC_TIMEOUT = 60.0

_BN_ATTRS = {
    "eps": Attr("float", _EPS_DEFAULT),
    "momentum": Attr("float", 0.9),
    "fix_gamma": Attr("bool", True),
    "use_global_stats": Attr("bool", False),
    "output_mean_var": Attr("bool", False),
}
_INPUTS = ("data", "gamma", "beta", "moving_mean", "moving_var")
_AUX = ("moving_mean", "moving_var")
_OUTPUT_NAMES = ("output", "mean", "var")


def _visible(attrs) -> int:
    return 3 if attrs.output_mean_var else 1


# -- BatchNormWithReLU -----------------------------------------------------------------
def _relu_forward(oc, attrs, inputs, out):
    y, mean, inv_std = _bn_forward(oc, attrs, inputs, None)
    oc.xp.maximum(y, 0, out=y)
    return [put(out, 0, y), put(out, 1, mean), put(out, 2, inv_std)]


def _relu_backward(oc, attrs, inputs, outputs, out_grads):
    dy = out_grads[0] * (outputs[0] > 0)
    return _bn_backward(oc, attrs, inputs, outputs, [dy] + list(out_grads[1:]))


register(OpDef(
    "_contrib_BatchNormWithReLU", _relu_forward, backward=_relu_backward,
    attrs=dict(_BN_ATTRS, axis=Attr("int", 1), cudnn_off=Attr("bool", False),
               min_calib_range=Attr("float", None), max_calib_range=Attr("float", None)),
    inputs=_INPUTS, aux=_AUX, num_outputs=3, num_visible_outputs=_visible,
    output_names=_OUTPUT_NAMES, infer_shape=_bn_infer_shape, infer_type=_bn_infer_type,
    backward_uses=("inputs", "outputs"),
    doc="Batch normalization fused with ReLU (MXNet ``_contrib_BatchNormWithReLU``)."))


# -- SyncBatchNorm ---------------------------------------------------------------------
class _Rendezvous:
    """``ndev`` threads each bring a list of host arrays and all get their sums."""

    def __init__(self, ndev: int):
        self.ndev = ndev
        self.cond = threading.Condition()
        self.parts: list = []
        self.result = None
        self.generation = 0

    def allreduce(self, key: str, parts: list) -> list:
        with self.cond:
            generation = self.generation
            self.parts.append(parts)
            if len(self.parts) == self.ndev:
                self.result = [sum(p[i] for p in self.parts) for i in range(len(parts))]
                self.parts = []
                self.generation += 1
                self.cond.notify_all()
                return self.result
            if not self.cond.wait_for(lambda: self.generation != generation,
                                      timeout=SYNC_TIMEOUT):
                self.parts = []
                raise MXNetError(
                    f"_contrib_SyncBatchNorm (key '{key}'): waited {SYNC_TIMEOUT:g} s for "
                    f"the other {self.ndev - 1} device(s) of ndev={self.ndev}. The forward "
                    f"(and backward) of every device must run concurrently, one thread per "
                    f"device; called one after the other they cannot share statistics. "
                    f"Use ndev=1 (plain BatchNorm statistics) otherwise.")
            return self.result


_RENDEZVOUS: dict = {}
_RENDEZVOUS_LOCK = threading.Lock()


def _allreduce(attrs, phase: str, xp, arrays: list) -> list:
    """Sum ``arrays`` over the ``ndev`` calls sharing ``attrs.key`` (on the host)."""
    if attrs.ndev == 1:
        return arrays
    with _RENDEZVOUS_LOCK:
        rv = _RENDEZVOUS.get((attrs.key, phase))
        if rv is None or rv.ndev != attrs.ndev:
            rv = _RENDEZVOUS[(attrs.key, phase)] = _Rendezvous(attrs.ndev)
    host = [a.get() if hasattr(a, "get") and xp is not np else np.asarray(a) for a in arrays]
    return [xp.asarray(t) for t in rv.allreduce(attrs.key, host)]


def _bn_view(attrs):
    """The attributes as BatchNorm's functions read them (channel axis 1)."""
    return types.SimpleNamespace(axis=1, eps=attrs.eps, momentum=attrs.momentum,
                                 fix_gamma=attrs.fix_gamma,
                                 use_global_stats=attrs.use_global_stats)


def _batch_stats(oc, attrs) -> bool:
    """Whether this call normalizes with batch statistics (else the moving ones)."""
    return bool(oc.is_train) and not attrs.use_global_stats


def _sync_forward(oc, attrs, inputs, out):
    """Outputs: y, the batch mean and the batch (biased) variance, as MXNet's
    SyncBatchNorm; the mean and variance outputs are zero when the moving statistics
    normalize (inference, ``use_global_stats``), which MXNet does not write."""
    if not _batch_stats(oc, attrs):
        y = _bn_forward(oc, _bn_view(attrs), inputs, None)[0]
        zeros = oc.xp.zeros(inputs[3].shape, inputs[3].dtype)
        return [put(out, 0, y), put(out, 1, zeros), put(out, 2, zeros.copy())]
    xp = oc.xp
    x, gamma, beta, moving_mean, _ = inputs
    _, red, bshape = _layout(x.ndim, 1)
    cdt = _compute_dtype(x.dtype)
    xc = x.astype(cdt, copy=False)
    count = xp.asarray(float(x.size // max(x.shape[1], 1)))
    total, total_sq, n = _allreduce(attrs, "forward", xp,
                                    [xc.sum(axis=red), (xc * xc).sum(axis=red), count])
    mean = total / n
    var = xp.maximum(total_sq / n - mean * mean, 0)
    inv_std = 1.0 / xp.sqrt(var + attrs.eps)
    scale = inv_std if attrs.fix_gamma else gamma.astype(cdt, copy=False) * inv_std
    y = (xc - mean.reshape(bshape)) * scale.reshape(bshape) \
        + beta.astype(cdt, copy=False).reshape(bshape)
    pdt = moving_mean.dtype
    return [put(out, 0, y.astype(x.dtype, copy=False)),
            put(out, 1, mean.astype(pdt, copy=False)),
            put(out, 2, var.astype(pdt, copy=False))]


def _sync_backward(oc, attrs, inputs, outputs, out_grads):
    bn = _bn_view(attrs)
    xp = oc.xp
    x, gamma, beta, moving_mean, moving_var = inputs
    if not _batch_stats(oc, attrs):
        # the moving statistics normalized: BatchNorm's backward, given them
        cdt = _compute_dtype(x.dtype)
        inv_std = 1.0 / xp.sqrt(moving_var.astype(cdt) + attrs.eps)
        stats = [outputs[0], moving_mean, inv_std.astype(moving_var.dtype, copy=False)]
        return _bn_backward(oc, bn, inputs, stats, out_grads)
    mean = outputs[1]
    _, red, bshape = _layout(x.ndim, 1)
    cdt = _compute_dtype(x.dtype)
    inv_std = 1.0 / xp.sqrt(outputs[2].astype(cdt) + attrs.eps)
    dy = out_grads[0].astype(cdt, copy=False)
    xhat = (x.astype(cdt, copy=False) - mean.astype(cdt).reshape(bshape)) \
        * inv_std.astype(cdt).reshape(bshape)
    local_dbeta = dy.sum(axis=red)
    local_dgamma = (dy * xhat).sum(axis=red)
    count = xp.asarray(float(x.size // max(x.shape[1], 1)))
    dbeta, dgamma, m = _allreduce(attrs, "backward", xp, [local_dbeta, local_dgamma, count])
    g = 1.0 if attrs.fix_gamma else gamma.astype(cdt)
    scale = (g * inv_std.astype(cdt)).reshape(bshape)
    dx = scale * (dy - (dbeta / m).reshape(bshape) - xhat * (dgamma / m).reshape(bshape))
    _update_moving(xp, bn, moving_mean, moving_var, mean, inv_std)
    # each device's parameter gradient is its own share, as with data parallelism
    if attrs.fix_gamma:
        local_dgamma = xp.zeros_like(local_dgamma)
    return [dx.astype(x.dtype, copy=False), local_dgamma.astype(gamma.dtype, copy=False),
            local_dbeta.astype(beta.dtype, copy=False), None, None]


def _sync_infer_shape(attrs, in_shapes):
    return _bn_infer_shape(_bn_view(attrs), in_shapes)


def _sync_infer_type(op, attrs, in_dtypes):
    return _bn_infer_type(op, attrs, in_dtypes)


register(OpDef(
    "_contrib_SyncBatchNorm", _sync_forward, backward=_sync_backward,
    attrs=dict(_BN_ATTRS, ndev=Attr("int", 1), key=Attr("str")),
    inputs=_INPUTS, aux=_AUX, num_outputs=3, num_visible_outputs=_visible,
    output_names=_OUTPUT_NAMES, infer_shape=_sync_infer_shape, infer_type=_sync_infer_type,
    backward_uses=("inputs", "outputs"),
    input_init={"moving_mean": '["zero", {}]', "moving_var": '["one", {}]'},
    float32_inputs=("gamma", "beta", "moving_mean", "moving_var"),
    doc="Batch normalization synchronized over ``ndev`` devices "
        "(MXNet ``_contrib_SyncBatchNorm``)."))
