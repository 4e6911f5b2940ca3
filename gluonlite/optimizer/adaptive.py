"""Optimizers with per-element adaptive rates: ``Adam``, ``AdaGrad``, ``RMSProp``,
``AdaDelta``, ``Ftrl``, ``Adamax``, ``Nadam``, ``FTML``, ``LAMB``, and ``Test``."""
from __future__ import annotations

import math
import os

from .. import ndarray as nd
from .optimizer import Optimizer, check_dense, register, update_kwargs, zeros_like_weight

__all__ = ["Adam", "AdaGrad", "RMSProp", "AdaDelta", "Ftrl", "Adamax", "Nadam", "FTML",
           "LAMB", "Test"]


def _rescaled(opt: Optimizer, grad, weight=None, wd: float = 0.0):
    """``clip(rescale_grad * grad [+ wd * weight])`` with NDArray operators."""
    grad = grad * opt.rescale_grad
    if weight is not None:
        grad = grad + wd * weight
    if opt.clip_gradient is not None:
        grad = nd.clip(grad, -opt.clip_gradient, opt.clip_gradient)
    return grad


def _begin(opt: Optimizer, index, weight, grad, name: str):
    check_dense(weight, grad, name)
    opt._update_count(index)
    return opt._get_lr(index), opt._get_wd(index)


@register
class Adam(Optimizer):
    """Adam; the bias corrections are folded into the learning rate:
    ``lr * sqrt(1 - beta2**t) / (1 - beta1**t)``.  With ``lazy_update`` a row_sparse
    gradient updates only its rows of the weight, mean and variance, and a row_sparse
    weight gets row_sparse states."""

    def __init__(self, learning_rate: float = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-8, lazy_update: bool = True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.lazy_update = lazy_update

    def create_state(self, index, weight):
        stype = weight.stype if self.lazy_update else "default"
        return (zeros_like_weight(weight, stype=stype), zeros_like_weight(weight, stype=stype))

    def update(self, index, weight, grad, state) -> None:
        lr, wd = _begin(self, index, weight, grad, "Adam")
        t = self._index_update_count[index]
        lr *= math.sqrt(1.0 - self.beta2 ** t) / (1.0 - self.beta1 ** t)
        mean, var = state
        nd.adam_update(weight, grad, mean, var, out=weight, lazy_update=self.lazy_update, lr=lr,
                       wd=wd, **update_kwargs(self, beta1=self.beta1, beta2=self.beta2,
                                              epsilon=self.epsilon))


@register
class AdaGrad(Optimizer):
    """AdaGrad: ``history += g**2; weight -= lr * (g / sqrt(history + eps) + wd * weight)``.

    A row_sparse gradient goes through ``nd.sparse.adagrad_update``, which updates its
    rows only and refuses weight decay, as MXNet's."""

    def __init__(self, eps: float = 1e-7, **kwargs):
        super().__init__(**kwargs)
        self.float_stable_eps = eps

    def create_state(self, index, weight):
        return nd.zeros(weight.shape, weight.context, stype=weight.stype)

    def update(self, index, weight, grad, state) -> None:
        lr, wd = _begin(self, index, weight, grad, "AdaGrad")
        if grad.stype == "row_sparse":
            nd.sparse.adagrad_update(weight, grad, state, out=weight, lr=lr, wd=wd,
                                     **update_kwargs(self, epsilon=self.float_stable_eps))
            return
        grad = _rescaled(self, grad)
        state[:] += nd.square(grad)
        weight[:] += (grad / nd.sqrt(state + self.float_stable_eps) + weight * wd) * -lr


@register
class RMSProp(Optimizer):
    """RMSProp (Tieleman and Hinton), or with ``centered=True`` Graves' variant."""

    def __init__(self, learning_rate: float = 0.001, gamma1: float = 0.9, gamma2: float = 0.9,
                 epsilon: float = 1e-8, centered: bool = False, clip_weights=None, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.gamma1 = gamma1
        self.gamma2 = gamma2
        self.centered = centered
        self.epsilon = epsilon
        self.clip_weights = clip_weights

    def create_state(self, index, weight):
        count = 3 if self.centered else 1
        return tuple(nd.zeros(weight.shape, weight.context, stype=weight.stype)
                     for _ in range(count))

    def update(self, index, weight, grad, state) -> None:
        lr, wd = _begin(self, index, weight, grad, "RMSProp")
        kwargs = update_kwargs(self, gamma1=self.gamma1, epsilon=self.epsilon)
        if self.centered:
            kwargs["gamma2"] = self.gamma2
        if self.clip_weights:
            kwargs["clip_weights"] = self.clip_weights
        if self.centered:
            n, g, delta = state
            nd.rmspropalex_update(weight, grad, n, g, delta, out=weight, lr=lr, wd=wd, **kwargs)
        else:
            nd.rmsprop_update(weight, grad, state[0], out=weight, lr=lr, wd=wd, **kwargs)


@register
class AdaDelta(Optimizer):
    """AdaDelta (Zeiler): no learning rate; ``rho`` decays both running averages."""

    def __init__(self, rho: float = 0.90, epsilon: float = 1e-5, **kwargs):
        super().__init__(**kwargs)
        self.rho = rho
        self.epsilon = epsilon

    def create_state(self, index, weight):
        return (nd.zeros(weight.shape, weight.context), nd.zeros(weight.shape, weight.context))

    def update(self, index, weight, grad, state) -> None:
        check_dense(weight, grad, "AdaDelta")
        wd = self._get_wd(index)
        self._update_count(index)
        grad = _rescaled(self, grad)
        acc_g, acc_delta = state
        acc_g[:] *= self.rho
        acc_g[:] += (1.0 - self.rho) * grad * grad
        delta = nd.sqrt(acc_delta + self.epsilon) / nd.sqrt(acc_g + self.epsilon) * grad
        acc_delta[:] *= self.rho
        acc_delta[:] += (1.0 - self.rho) * delta * delta
        weight[:] -= delta + wd * weight


@register
class Ftrl(Optimizer):
    """FTRL-proximal (McMahan et al.) with L1 strength ``lamda1``.  A row_sparse
    weight gets row_sparse states; with a row_sparse gradient too, only the gradient's
    rows are updated."""

    def __init__(self, lamda1: float = 0.01, learning_rate: float = 0.1, beta: float = 1,
                 **kwargs):
        super().__init__(**kwargs)
        self.lamda1 = lamda1
        self.beta = beta
        self.lr = learning_rate

    def create_state(self, index, weight):
        return (nd.zeros(weight.shape, weight.context, stype=weight.stype),
                nd.zeros(weight.shape, weight.context, stype=weight.stype))

    def update(self, index, weight, grad, state) -> None:
        check_dense(weight, grad, "Ftrl")
        self._update_count(index)
        wd, lr = self._get_wd(index), self._get_lr(index)
        z, n = state
        nd.ftrl_update(weight, grad, z, n, out=weight, lr=lr, wd=wd,
                       **update_kwargs(self, lamda1=self.lamda1, beta=self.beta))


@register
class Adamax(Optimizer):
    """AdaMax, Adam's infinity-norm variant."""

    def __init__(self, learning_rate: float = 0.002, beta1: float = 0.9, beta2: float = 0.999,
                 **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2

    def create_state(self, index, weight):
        return (zeros_like_weight(weight), zeros_like_weight(weight))

    def update(self, index, weight, grad, state) -> None:
        lr, wd = _begin(self, index, weight, grad, "Adamax")
        t = self._index_update_count[index]
        lr /= 1.0 - self.beta1 ** t
        grad = _rescaled(self, grad, weight, wd)
        m, u = state
        m[:] *= self.beta1
        m[:] += (1.0 - self.beta1) * grad
        u[:] = nd.maximum(self.beta2 * u, nd.abs(grad))
        weight[:] -= lr * m / u


@register
class Nadam(Optimizer):
    """Adam with Nesterov momentum (Dozat), with the momentum schedule
    ``beta1 * (1 - 0.5 * 0.96 ** (t * schedule_decay))``."""

    def __init__(self, learning_rate: float = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-8, schedule_decay: float = 0.004, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.schedule_decay = schedule_decay
        self.m_schedule = 1.0

    def create_state(self, index, weight):
        return (zeros_like_weight(weight), zeros_like_weight(weight))

    def update(self, index, weight, grad, state) -> None:
        lr, wd = _begin(self, index, weight, grad, "Nadam")
        t = self._index_update_count[index]
        grad = _rescaled(self, grad, weight, wd)
        mom_t = self.beta1 * (1.0 - 0.5 * pow(0.96, t * self.schedule_decay))
        mom_next = self.beta1 * (1.0 - 0.5 * pow(0.96, (t + 1) * self.schedule_decay))
        self.m_schedule = self.m_schedule * mom_t
        m_schedule_next = self.m_schedule * mom_next
        m, v = state
        m[:] *= self.beta1
        m[:] += (1.0 - self.beta1) * grad
        v[:] *= self.beta2
        v[:] += (1.0 - self.beta2) * grad * grad
        m_bar = ((1.0 - mom_t) * (grad / (1.0 - self.m_schedule))
                 + mom_next * (m / (1.0 - m_schedule_next)))
        v_hat = v / (1.0 - pow(self.beta2, t))
        weight[:] -= lr * m_bar / (nd.sqrt(v_hat) + self.epsilon)


@register
class FTML(Optimizer):
    """Follow the moving leader (Zheng and Kwok)."""

    def __init__(self, beta1: float = 0.6, beta2: float = 0.999, epsilon: float = 1e-8,
                 **kwargs):
        super().__init__(**kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon

    def create_state(self, index, weight):
        return tuple(zeros_like_weight(weight) for _ in range(3))

    def update(self, index, weight, grad, state) -> None:
        lr, wd = _begin(self, index, weight, grad, "FTML")
        kwargs = {"beta1": self.beta1, "beta2": self.beta2, "epsilon": self.epsilon,
                  "rescale_grad": self.rescale_grad, "t": self._index_update_count[index]}
        if self.clip_gradient:
            kwargs["clip_grad"] = self.clip_gradient
        d, v, z = state
        nd.ftml_update(weight, grad, d, v, z, out=weight, lr=lr, wd=wd, **kwargs)


@register
class LAMB(Optimizer):
    """Layer-wise adaptive moments (You et al.): an Adam direction scaled per layer by
    ``|w| / |direction|`` (bounded by ``lower_bound``/``upper_bound``)."""

    def __init__(self, learning_rate: float = 0.001, beta1: float = 0.9, beta2: float = 0.999,
                 epsilon: float = 1e-6, lower_bound=None, upper_bound=None,
                 bias_correction: bool = True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        self.bias_correction = bias_correction
        self.aggregate_num = max(1, min(45, int(os.getenv("MXNET_OPTIMIZER_AGGREGATION_SIZE",
                                                          "45"))))

    def create_state(self, index, weight):
        return (zeros_like_weight(weight, stype=weight.stype),
                zeros_like_weight(weight, stype=weight.stype))

    def update(self, index, weight, grad, state) -> None:
        self._update_impl(index, weight, grad, state, multi_precision=False)

    def update_multi_precision(self, index, weight, grad, state) -> None:
        self._update_impl(index, weight, grad, state,
                          multi_precision=self._uses_master_copy(index, weight))

    def _update_impl(self, index, weight, grad, state, multi_precision=False) -> None:
        if isinstance(index, (list, tuple)):
            # the aggregated path: one weight at a time, the same rule
            for i, w, g, s in zip(index, weight, grad, state):
                self._update_impl(i, w, g, s, multi_precision)
            return
        lr, wd = _begin(self, index, weight, grad, "LAMB")
        phase1 = dict(beta1=self.beta1, beta2=self.beta2, epsilon=self.epsilon,
                      bias_correction=self.bias_correction, rescale_grad=self.rescale_grad,
                      t=self._index_update_count[index], wd=wd)
        if self.clip_gradient:
            phase1["clip_gradient"] = self.clip_gradient
        bounds = {}
        if self.lower_bound:
            bounds["lower_bound"] = self.lower_bound
        if self.upper_bound:
            bounds["upper_bound"] = self.upper_bound
        if multi_precision:
            master, (mean, var) = state
            g = nd.mp_lamb_update_phase1(weight, grad, mean, var, master, **phase1)
            nd.mp_lamb_update_phase2(weight, g, master.norm(), g.norm(), master, lr=lr,
                                     out=weight, **bounds)
        else:
            mean, var = state
            g = nd.lamb_update_phase1(weight, grad, mean, var, **phase1)
            nd.lamb_update_phase2(weight, g, weight.norm(), g.norm(), lr=lr, out=weight,
                                  **bounds)


@register
class Test(Optimizer):
    """MXNet's test optimizer: ``weight += rescale_grad * grad``; the state mirrors the
    weight."""

    def create_state(self, index, weight):
        return nd.zeros(weight.shape, weight.context)

    def update(self, index, weight, grad, state) -> None:
        weight[:] += grad * self.rescale_grad
        state[:] = weight
