"""``BatchProcessor``: how the estimator trains and evaluates one batch (MXNet 1.9's
``gluon.contrib.estimator.batch_processor``); subclass it to customise both."""
from __future__ import annotations

from typing import List, Tuple

from ...utils import split_and_load
from .... import autograd

__all__ = ["BatchProcessor"]


class BatchProcessor:
    """Default ``fit_batch``/``evaluate_batch``: split ``(data, label)`` over the
    estimator's contexts, run the network and the loss (recorded, with backward, when
    training)."""

    def __init__(self) -> None:
        pass

    def _get_data_and_label(self, batch, ctx, batch_axis: int = 0):
        data = split_and_load(batch[0], ctx_list=ctx, batch_axis=batch_axis)
        label = split_and_load(batch[1], ctx_list=ctx, batch_axis=batch_axis)
        return data, label

    def evaluate_batch(self, estimator, val_batch, batch_axis: int = 0
                       ) -> Tuple[List, List, List, List]:
        """Run ``estimator.val_net`` and ``estimator.val_loss`` on a validation batch.

        Parameters
        ----------
        estimator : Estimator
            The estimator.
        val_batch : tuple
            ``(data, label)`` from the validation loader.
        batch_axis : int, default 0
            Axis split across contexts.

        Returns
        -------
        tuple of lists
            ``(data, label, pred, loss)``, one entry per context.
        """
        data, label = self._get_data_and_label(val_batch, estimator.context, batch_axis)
        pred = [estimator.val_net(x) for x in data]
        loss = [estimator.val_loss(y_hat, y) for y_hat, y in zip(pred, label)]
        return data, label, pred, loss

    def fit_batch(self, estimator, train_batch, batch_axis: int = 0
                  ) -> Tuple[List, List, List, List]:
        """Forward (recorded) and backward of ``estimator.net`` and ``estimator.loss`` on
        a training batch; the parameter update is ``GradientUpdateHandler``'s.

        Parameters
        ----------
        estimator : Estimator
            The estimator.
        train_batch : tuple
            ``(data, label)`` from the training loader.
        batch_axis : int, default 0
            Axis split across contexts.

        Returns
        -------
        tuple of lists
            ``(data, label, pred, loss)``, one entry per context.
        """
        data, label = self._get_data_and_label(train_batch, estimator.context, batch_axis)
        with autograd.record():
            pred = [estimator.net(x) for x in data]
            loss = [estimator.loss(y_hat, y) for y_hat, y in zip(pred, label)]
        for l in loss:
            l.backward()
        return data, label, pred, loss
