"""SGD and its relatives: ``SGD`` (aggregated multi-tensor updates), ``ccSGD``, ``NAG``,
``Signum``, ``LARS``, ``LBSGD``, ``DCASGD``, ``SGLD``."""
from __future__ import annotations

import logging
import math
import os
import warnings

import numpy as np

from .. import ndarray as nd
from .optimizer import (Optimizer, check_dense, is_dense, register, update_kwargs,
                        zeros_like_weight)

__all__ = ["SGD", "ccSGD", "NAG", "Signum", "LARS", "LBSGD", "DCASGD", "SGLD"]


def _aggregation_size(default: str) -> int:
    return int(os.getenv("MXNET_OPTIMIZER_AGGREGATION_SIZE", default))


def _interleave(*columns) -> list:
    """``[a0, b0, c0, a1, b1, c1, ...]`` from columns ``a, b, c``."""
    return [x for group in zip(*columns) for x in group]


class _MomentumSGDBase(Optimizer):
    """Shared by SGD, NAG and LARS: a momentum buffer (``None`` without momentum) and,
    for float16 weights with ``multi_precision``, ``(momentum, float32 master)``."""

    def __init__(self, momentum: float = 0.0, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum

    def create_state(self, index, weight):
        if self.momentum == 0.0:
            return None
        return zeros_like_weight(weight, stype=self._momentum_stype(weight))

    def _momentum_stype(self, weight) -> str:
        """The storage type of the momentum of ``weight`` (dense here)."""
        return "default"

    def create_state_multi_precision(self, index, weight):
        if self.multi_precision and weight.dtype == np.float16:
            master = weight.astype(np.float32)
            return (self.create_state(index, master), master)
        if weight.dtype == np.float16:
            warnings.warn("Accumulating with float16 in optimizer can lead to poor accuracy "
                          "or slow convergence. Consider using multi_precision=True option "
                          f"of the {type(self).__name__} optimizer")
        return self.create_state(index, weight)

    def update(self, index, weight, grad, state) -> None:
        self._update_impl(index, weight, grad, state, multi_precision=False)

    def update_multi_precision(self, index, weight, grad, state) -> None:
        self._update_impl(index, weight, grad, state,
                          multi_precision=self._uses_master_copy(index, weight))

    def _single_update(self, weight, grad, state, lr, wd, kwargs, multi_precision,
                       nesterov=False, lazy_update: bool | None = None) -> None:
        """One weight's update operator call; ``lazy_update`` is passed to the plain
        (not multi-precision) SGD operators, which update a row_sparse gradient's rows
        only when it is set."""
        if not multi_precision:
            lazy = {} if lazy_update is None else {"lazy_update": lazy_update}
            if state is not None and nesterov:
                nd.nag_mom_update(weight, grad, state, out=weight, lr=lr, wd=wd, **kwargs)
            elif state is not None:
                nd.sgd_mom_update(weight, grad, state, out=weight, lr=lr, wd=wd, **lazy,
                                  **kwargs)
            else:
                nd.sgd_update(weight, grad, out=weight, lr=lr, wd=wd, **lazy, **kwargs)
        elif state[0] is not None:
            op = nd.mp_nag_mom_update if nesterov else nd.mp_sgd_mom_update
            op(weight, grad, state[0], state[1], out=weight, lr=lr, wd=wd, **kwargs)
        else:
            nd.mp_sgd_update(weight, grad, state[1], out=weight, lr=lr, wd=wd, **kwargs)


def _multi_update(prefix: str, weights, grads, states, momentum: bool, multi_precision: bool,
                  extra_inputs: tuple, kwargs) -> None:
    """One aggregated update operator call over a group of weights."""
    if not multi_precision:
        columns = (weights, grads, states) if momentum else (weights, grads)
    else:
        moms, masters = zip(*states)
        columns = (weights, grads, moms, masters) if momentum else (weights, grads, masters)
    name = prefix + ("multi_mp_sgd" if multi_precision else "multi_sgd") \
        + ("_mom_update" if momentum else "_update")
    getattr(nd, name)(*(_interleave(*columns) + list(extra_inputs)), out=list(weights),
                      num_weights=len(weights), **kwargs)


@register
class SGD(_MomentumSGDBase):
    """Stochastic gradient descent with momentum and weight decay::

        rescaled = clip(rescale_grad * grad) + wd * weight
        state = momentum * state - lr * rescaled
        weight = weight + state

    Lists of dense weights and gradients are updated by the aggregated ``multi_sgd_*``
    operators in groups of ``MXNET_OPTIMIZER_AGGREGATION_SIZE`` (default 4).

    Parameters
    ----------
    momentum : float
        Momentum coefficient (0: no momentum buffer).
    lazy_update : bool
        With a row_sparse gradient, update only the rows it holds (weight decay and
        momentum included), and give a row_sparse weight a row_sparse momentum; when
        False the update is the standard (dense) one.
    """

    def __init__(self, momentum: float = 0.0, lazy_update: bool = True, **kwargs):
        super().__init__(momentum=momentum, **kwargs)
        self.lazy_update = lazy_update
        self.aggregate_num = _aggregation_size("4")

    def _momentum_stype(self, weight) -> str:
        return weight.stype if self.lazy_update else "default"

    def _update_impl(self, indices, weights, grads, states, multi_precision=False) -> None:
        if not isinstance(indices, (tuple, list)):
            indices, weights, grads, states = [indices], [weights], [grads], [states]
        for w, g in zip(weights, grads):
            check_dense(w, g, "SGD")
        self._update_count(indices)
        lrs = self._get_lrs(indices)
        wds = self._get_wds(indices)
        kwargs = update_kwargs(self)
        if self.momentum > 0:
            kwargs["momentum"] = self.momentum
        if len(indices) > 1 and is_dense(*weights, *grads):
            _multi_update("", weights, grads, states, self.momentum > 0, multi_precision, (),
                          dict(lrs=tuple(lrs), wds=tuple(wds), **kwargs))
            return
        for w, g, s, lr, wd in zip(weights, grads, states, lrs, wds):
            self._single_update(w, g, s, lr, wd, kwargs, multi_precision,
                                lazy_update=self.lazy_update)


@register
class ccSGD(SGD):  # noqa: N801 - MXNet's name
    """The deprecated name of :class:`SGD`."""


@register
class NAG(_MomentumSGDBase):
    """Nesterov accelerated gradient (``nag_mom_update``)."""

    def _update_impl(self, index, weight, grad, state, multi_precision=False) -> None:
        check_dense(weight, grad, "NAG")
        self._update_count(index)
        kwargs = update_kwargs(self)
        if self.momentum > 0:
            kwargs["momentum"] = self.momentum
        self._single_update(weight, grad, state, self._get_lr(index), self._get_wd(index),
                            kwargs, multi_precision, nesterov=True)

    def update_multi_precision(self, index, weight, grad, state) -> None:
        use_mp = (self.multi_precision and weight.dtype == np.float16
                  and isinstance(state, (tuple, list)))
        self._update_impl(index, weight, grad, state, multi_precision=use_mp)


@register
class Signum(Optimizer):
    """SignSGD (no momentum) or Signum: the update follows the sign of the momentum.

    ``wd_lh`` is the decoupled weight decay of Loshchilov and Hutter.
    """

    def __init__(self, learning_rate: float = 0.01, momentum: float = 0.9, wd_lh: float = 0.0,
                 **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.momentum = momentum
        self.wd_lh = wd_lh

    def create_state(self, index, weight):
        if self.momentum == 0.0:
            return None
        return zeros_like_weight(weight, stype=weight.stype)

    def update(self, index, weight, grad, state) -> None:
        check_dense(weight, grad, "Signum")
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        kwargs = update_kwargs(self)
        if self.momentum > 0:
            kwargs["momentum"] = self.momentum
        if self.wd_lh:
            kwargs["wd_lh"] = self.wd_lh
        if state is not None:
            nd.signum_update(weight, grad, state, out=weight, lr=lr, wd=wd, **kwargs)
        else:
            kwargs.pop("wd_lh", None)
            nd.signsgd_update(weight, grad, out=weight, lr=lr, wd=wd, **kwargs)


_NO_LARS_SUFFIXES = ("gamma", "beta", "bias")


@register
class LARS(_MomentumSGDBase):
    """SGD with layer-wise adaptive rate scaling: each weight's rate is scaled by
    ``eta * |w| / (|g| + wd * |w| + eps)``; biases and normalization parameters keep
    the plain rate.  With ``momentum_correction`` the momentum is scaled by the ratio
    of the current to the previous learning rate."""

    def __init__(self, momentum: float = 0.0, lazy_update: bool = True, eta: float = 0.001,
                 eps: float = 0, momentum_correction: bool = True, **kwargs):
        super().__init__(momentum=momentum, **kwargs)
        self.momentum_correction = momentum_correction
        self.lazy_update = lazy_update
        self.aggregate_num = _aggregation_size("4")
        self.eta = eta
        self.eps = eps
        self.skip = 0
        self.last_lr = None
        self.cur_lr = None

    def _get_lrs(self, indices) -> list:
        if self.cur_lr is not None:
            self.last_lr = self.cur_lr
        lr = self._scheduled_lr()
        if self.cur_lr is None:
            self.last_lr = lr
        self.cur_lr = lr
        return [lr * self._multiplier(i, self.lr_mult, "lr_mult") for i in indices]

    def _no_decay(self, name: str) -> bool:
        return not name.endswith("_weight")

    def _momentum_stype(self, weight) -> str:
        return weight.stype if self.lazy_update else "default"

    def _name(self, index) -> str:
        return self.idx2name.get(index, str(index))

    def _update_impl(self, indices, weights, grads, states, multi_precision=False) -> None:
        if not isinstance(indices, (tuple, list)):
            indices, weights, grads, states = [indices], [weights], [grads], [states]
        for w, g in zip(weights, grads):
            check_dense(w, g, "LARS")
        self._update_count(indices)
        lrs = self._get_lrs(indices)
        wds = self._get_wds(indices)
        kwargs = update_kwargs(self)
        if self.momentum > 0:
            corrected = self.momentum_correction and self.last_lr != 0
            kwargs["momentum"] = (self.momentum * (self.cur_lr / self.last_lr) if corrected
                                  else self.momentum)
        # weights with layer-wise rates first, then the others
        order = sorted(range(len(indices)),
                       key=lambda i: self._name(indices[i]).endswith(_NO_LARS_SUFFIXES))
        n_lars = sum(not self._name(indices[i]).endswith(_NO_LARS_SUFFIXES) for i in order)
        ctx = weights[0].context
        new_lrs = nd.array([lrs[i] for i in order], ctx=ctx, dtype="float32")
        new_wds = nd.array([wds[i] for i in order], ctx=ctx, dtype="float32")
        ws = [weights[i] for i in order]
        gs = [grads[i] for i in order]
        ss = [states[i] for i in order]
        if n_lars:
            w_sq = nd.multi_sum_sq(*ws[:n_lars], num_arrays=n_lars)
            g_sq = nd.multi_sum_sq(*gs[:n_lars], num_arrays=n_lars)
            new_lrs[:n_lars] = nd.multi_lars(new_lrs[:n_lars], w_sq, g_sq, new_wds[:n_lars],
                                             eta=self.eta, eps=self.eps,
                                             rescale_grad=self.rescale_grad)
        step = max(self.aggregate_num, 1)
        for start in range(0, len(ws), step):
            end = min(start + step, len(ws))
            _multi_update("preloaded_", ws[start:end], gs[start:end], ss[start:end],
                          self.momentum > 0, multi_precision,
                          (new_lrs[start:end], new_wds[start:end]), kwargs)


@register
class LBSGD(Optimizer):
    """Large-batch SGD: gradients are accumulated over ``batch_scale`` calls and the
    rate is warmed up (``linear``, ``power2``, ``sqrt``) or set by LARS (``lars``)."""

    def __init__(self, momentum: float = 0.0, multi_precision: bool = False,
                 warmup_strategy: str = "linear", warmup_epochs: int = 5, batch_scale: int = 1,
                 updates_per_epoch: int = 32, begin_epoch: int = 0, num_epochs: int = 60,
                 **kwargs):
        super().__init__(**kwargs)
        logging.info("Running Large-Batch SGD Algorithm")
        self.momentum = momentum
        self.multi_precision = multi_precision
        self.warmup_strategy = warmup_strategy
        self.warmup_epochs = warmup_epochs
        self.batch_scale = batch_scale
        self.updates_per_epoch = updates_per_epoch
        self.init_updates = begin_epoch * updates_per_epoch
        self.num_epochs = num_epochs
        self.lbmult = 1
        self.cumgrads: dict = {}
        self.adaptive = False
        self.admult = 1

    def create_state(self, index, weight):
        if self.multi_precision and weight.dtype == np.float16:
            master = weight.astype(np.float32)
            mom = (zeros_like_weight(weight, np.float32, weight.stype)
                   if self.momentum != 0.0 else None)
            return (mom, master)
        return zeros_like_weight(weight, stype=weight.stype) if self.momentum != 0.0 else None

    def _get_lbmult(self, nup: int) -> float:
        nwup = self.warmup_epochs * self.updates_per_epoch
        maxmult = float(self.batch_scale)
        if nup >= nwup:
            return maxmult
        if nwup <= 1:
            return 1.0
        frac = nup / nwup
        if self.warmup_strategy == "linear":
            return 1.0 + (maxmult - 1) * frac
        if self.warmup_strategy == "power2":
            return 1.0 + (maxmult - 1) * frac * frac
        if self.warmup_strategy == "sqrt":
            return 1.0 + (maxmult - 1) * math.sqrt(frac)
        return 1.0

    @staticmethod
    def _sum_sq(v) -> float:
        return float((v * v).asnumpy().sum())

    def _get_lars(self, weight, g, wd) -> float:
        w2, g2 = self._sum_sq(weight), self._sum_sq(g)
        return min(max(math.sqrt(w2 / (g2 + wd * w2 + 1e-18)), 0.01), 100.0)

    def _cumulate_gradient(self, grad, index) -> dict:
        prev = self.cumgrads.get(index)
        if prev and prev["num_cums"] > 0:
            entry = {"cum_grad": prev["cum_grad"] + grad, "num_cums": prev["num_cums"] + 1}
        else:
            entry = {"cum_grad": grad, "num_cums": self.init_updates + 1}
        self.cumgrads[index] = entry
        return entry

    def update(self, index, weight, grad, state) -> None:
        check_dense(weight, grad, "LBSGD")
        lr, wd = self._get_lr(index), self._get_wd(index)
        self._update_count(index)
        cgrad = self._cumulate_gradient(grad, index)
        if cgrad["num_cums"] % self.batch_scale != 0:
            # between macro-batches MXNet still runs a zero-rate step (weight unchanged)
            nd.sgd_update(weight, grad, out=weight, lr=0.0, wd=wd)
            return
        grad = cgrad["cum_grad"] / self.batch_scale
        if self.warmup_strategy == "lars":
            lr *= self._get_lars(weight, grad, wd)
        else:
            lr *= self._get_lbmult(cgrad["num_cums"])
        kwargs = update_kwargs(self)
        if self.momentum > 0:
            kwargs["momentum"] = self.momentum
        if isinstance(state, (list, tuple)):
            if state[0] is not None:
                nd.mp_sgd_mom_update(weight, grad, state[0], state[1], out=weight, lr=lr,
                                     wd=wd, **kwargs)
            else:
                nd.mp_sgd_update(weight, grad, state[1], out=weight, lr=lr, wd=wd, **kwargs)
        elif state is not None:
            nd.sgd_mom_update(weight, grad, state, out=weight, lr=lr, wd=wd, **kwargs)
        else:
            nd.sgd_update(weight, grad, out=weight, lr=lr, wd=wd, **kwargs)
        self.cumgrads[index]["cum_grad"] = 0


def _scaled_clipped(opt: Optimizer, grad):
    grad = grad * opt.rescale_grad
    if opt.clip_gradient is not None:
        grad = nd.clip(grad, -opt.clip_gradient, opt.clip_gradient)
    return grad


@register
class DCASGD(Optimizer):
    """Delay-compensated asynchronous SGD: the gradient is corrected by
    ``lamda * g * g * (weight - previous weight)``."""

    def __init__(self, momentum: float = 0.0, lamda: float = 0.04, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum
        self.weight_previous: dict = {}
        self.lamda = lamda

    def create_state(self, index, weight):
        mom = zeros_like_weight(weight) if self.momentum != 0.0 else None
        return (mom, weight.copy())

    def update(self, index, weight, grad, state) -> None:
        check_dense(weight, grad, "DCASGD")
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        grad = _scaled_clipped(self, grad)
        mom, previous = state
        step = -lr * (grad + wd * weight + self.lamda * grad * grad * (weight - previous))
        if mom is not None:
            mom[:] *= self.momentum
            mom[:] += step
            step = mom
        previous[:] = weight
        weight[:] += step


@register
class SGLD(Optimizer):
    """Stochastic gradient Langevin dynamics: a half gradient step plus Gaussian noise
    of variance ``lr``."""

    def update(self, index, weight, grad, state) -> None:
        check_dense(weight, grad, "SGLD")
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        grad = _scaled_clipped(self, grad)
        weight[:] += -lr / 2 * (grad + wd * weight)
        weight[:] += nd.random.normal(0, math.sqrt(lr), shape=weight.shape, dtype=weight.dtype,
                                      ctx=weight.context)
