"""``mx.optimizer.contrib``: ``GroupAdaGrad``."""
from __future__ import annotations

from .. import ndarray as nd
from ..base import MXNetError
from .optimizer import Optimizer, check_dense, register, update_kwargs

__all__ = ["GroupAdaGrad"]


@register
class GroupAdaGrad(Optimizer):
    """AdaGrad with one history value per row of a 2-D weight (embeddings)::

        history += mean(clip(rescale_grad * grad) ** 2, axis=1)
        weight -= lr * grad / sqrt(history + eps)

    Weight decay is not supported, as in MXNet.  A row_sparse gradient updates its
    rows only (``nd.contrib.group_adagrad_update``).
    """

    def __init__(self, eps: float = 1e-5, **kwargs):
        super().__init__(**kwargs)
        self.float_stable_eps = eps

    def create_state(self, index, weight):
        if len(weight.shape) != 2:
            raise MXNetError(f"GroupAdaGrad: weights must be 2-D, got shape {weight.shape}")
        return nd.zeros((weight.shape[0], 1), weight.context, stype=weight.stype)

    def update(self, index, weight, grad, state) -> None:
        check_dense(weight, grad, "GroupAdaGrad")
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        if wd != 0:
            raise MXNetError("Weight decay is not supported for GroupAdaGrad")
        if grad.stype == "row_sparse":
            nd.contrib.group_adagrad_update(weight, grad, state, out=weight, lr=lr,
                                            **update_kwargs(self,
                                                            epsilon=self.float_stable_eps))
            return
        grad = grad * self.rescale_grad
        if self.clip_gradient is not None:
            grad = nd.clip(grad, -self.clip_gradient, self.clip_gradient)
        state[:] += nd.mean(nd.square(grad), axis=1, keepdims=True)
        weight[:] -= lr * grad / nd.sqrt(state + self.float_stable_eps)
