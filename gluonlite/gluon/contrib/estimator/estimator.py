"""``Estimator``: a training loop over Gluon with event handlers (MXNet 1.9's
``gluon.contrib.estimator.estimator``)."""
from __future__ import annotations

import copy
import logging
import sys
import warnings
from typing import List, Optional, Tuple

from .batch_processor import BatchProcessor
from .event_handler import (BatchBegin, BatchEnd, EpochBegin, EpochEnd, GradientUpdateHandler,
                            LoggingHandler, MetricHandler, StoppingHandler, TrainBegin,
                            TrainEnd, ValidationHandler, _check_event_handlers)
from .utils import _check_handler_metric_ref, _check_metrics, _suggest_metric_for_loss
from ...data import DataLoader
from ...loss import Loss as GluonLoss
from ...trainer import Trainer
from ...utils import split_and_load
from ....context import Context, cpu, gpu, num_gpus
from ....metric import Loss as LossMetric

__all__ = ["Estimator"]

_EVENTS = (TrainBegin, EpochBegin, BatchBegin, BatchEnd, EpochEnd, TrainEnd)


def _categorize(handlers) -> Tuple[List, ...]:
    """Handlers of each event (train begin, epoch begin, batch begin, batch end, epoch
    end, train end), in the given order."""
    return tuple([h for h in handlers if isinstance(h, event)] for event in _EVENTS)


def _merge_handlers(given, defaults, known_metrics) -> list:
    """``given`` + ``defaults``, sorted stably by ``priority`` (default 0); when both
    are non-empty, every handler's metrics must be among ``known_metrics``."""
    handlers = given + defaults
    if given and defaults:
        for handler in handlers:
            _check_handler_metric_ref(handler, known_metrics)
    handlers.sort(key=lambda h: getattr(h, "priority", 0))
    return handlers


class Estimator:
    """Train and evaluate a Gluon network with event handlers.

    Parameters
    ----------
    net : gluon.Block
        The network to train (initialized here if it is not yet).
    loss : gluon.loss.Loss
        Training loss.
    train_metrics : EvalMetric or list of EvalMetric, optional
        Training metrics (renamed ``'training <name>'``); default accuracy for a softmax
        cross-entropy loss, plus a ``metric.Loss`` of the loss.
    val_metrics : EvalMetric or list of EvalMetric, optional
        Validation metrics (renamed ``'validation <name>'``); default copies of the
        training metrics.
    initializer : Initializer, optional
        Used when ``net`` is not fully initialized.
    trainer : gluon.Trainer, optional
        Default SGD with learning rate 0.001 (with a warning).
    context : Context or list of Context, optional
        Default ``gpu(0)`` when a GPU is present, else ``cpu()``.
    val_net : gluon.Block, optional
        Network for validation (default ``net``).
    val_loss : gluon.loss.Loss, optional
        Loss for validation (default ``loss``).
    batch_processor : BatchProcessor, optional
        Supplies ``fit_batch`` and ``evaluate_batch``.

    Attributes
    ----------
    logger : logging.Logger
        Where handlers log; writes INFO and above to ``sys.stdout`` (as it was when the
        estimator was made).
    """

    logger = None

    def __init__(self, net, loss, train_metrics=None, val_metrics=None, initializer=None,
                 trainer: Optional[Trainer] = None, context=None, val_net=None,
                 val_loss=None, batch_processor: Optional[BatchProcessor] = None) -> None:
        self.net = net
        self.loss = self._check_loss(loss)
        self._train_metrics = _check_metrics(train_metrics)
        self._val_metrics = _check_metrics(val_metrics)
        self._add_default_training_metrics()
        self._add_validation_metrics()
        self.val_loss = self.loss if val_loss is None else self._check_loss(val_loss)
        self.val_net = self.net if val_net is None else val_net
        self.logger = logging.Logger(name="Estimator", level=logging.INFO)
        self.logger.addHandler(logging.StreamHandler(sys.stdout))
        self.context = self._check_context(context)
        self._initialize(initializer)
        self.trainer = self._check_trainer(trainer)
        self.batch_processor = self._check_batch_processor(batch_processor)
        self.max_epoch = None
        self.max_batch = None
        self.batch_axis = 0

    # ---- checks -----------------------------------------------------------------------
    @staticmethod
    def _check_loss(loss):
        if not isinstance(loss, GluonLoss):
            raise ValueError(f"loss must be a Loss, refer to gluon.loss.Loss:{loss}")
        return loss

    @staticmethod
    def _check_context(context) -> List[Context]:
        available_gpus = [gpu(i) for i in range(num_gpus())]
        if not context:
            if len(available_gpus) > 1:
                warnings.warn("You have multiple GPUs, gpu(0) will be used by default.To "
                              "utilize all your GPUs, specify context as a list of gpus, e.g. "
                              "context=[mx.gpu(0), mx.gpu(1)] ")
            return [gpu(0)] if available_gpus else [cpu()]
        if isinstance(context, Context):
            context = [context]
        elif not (isinstance(context, list) and all(isinstance(c, Context) for c in context)):
            raise ValueError("context must be a Context or a list of Context, for example "
                             "mx.cpu() or [mx.gpu(0), mx.gpu(1)], refer to "
                             f"mxnet.Context:{context}")
        for ctx in context:
            assert ctx in available_gpus or str(ctx).startswith("cpu"), \
                "%s is not available, please make sure your context is in one of: " \
                "mx.cpu(), %s" % (ctx, ", ".join(str(c) for c in available_gpus))
        return context

    @staticmethod
    def _check_batch_processor(batch_processor):
        if batch_processor is None:
            return BatchProcessor()
        if not (callable(getattr(batch_processor, "fit_batch", None))
                and callable(getattr(batch_processor, "evaluate_batch", None))):
            raise ValueError("Customized Batch Processor must contain fit_batch() and "
                             "evaluate_batch() methods")
        return batch_processor

    def _check_trainer(self, trainer):
        if not trainer:
            warnings.warn("No trainer specified, default SGD optimizer with learning rate "
                          "0.001 is used.")
            return Trainer(self.net.collect_params(), "sgd", {"learning_rate": 0.001})
        if not isinstance(trainer, Trainer):
            raise ValueError("Trainer must be a Gluon Trainer instance, refer to "
                             f"gluon.Trainer:{trainer}")
        return trainer

    def _is_initialized(self) -> bool:
        params = self.net.collect_params()
        for name in params:
            try:
                params[name].list_ctx()
            except RuntimeError:
                return False
        return True

    def _initialize(self, initializer) -> None:
        if not self._is_initialized():
            # layers already initialized are left as they are
            if initializer:
                self.net.initialize(init=initializer, ctx=self.context)
            else:
                self.net.initialize(ctx=self.context)
        elif initializer:
            warnings.warn("Network already fully initialized, skipping initialization. You "
                          "don't need to pass initializer if you already initialized your "
                          "net. You can use net.initialize(init=your_initializer, "
                          "force_reinit=True)to force re-initialize.")

    def _get_data_and_label(self, batch, ctx, batch_axis: int = 0):
        data = split_and_load(batch[0], ctx_list=ctx, batch_axis=batch_axis)
        label = split_and_load(batch[1], ctx_list=ctx, batch_axis=batch_axis)
        return data, label

    # ---- metrics ----------------------------------------------------------------------
    def _add_default_training_metrics(self) -> None:
        if not self._train_metrics:
            suggested = _suggest_metric_for_loss(self.loss)
            if suggested:
                self._train_metrics = [suggested]
            self._train_metrics.append(LossMetric(self.loss.name.rstrip("1234567890")))
        for metric in self._train_metrics:
            metric.name = "training " + metric.name

    def _add_validation_metrics(self) -> None:
        if not self._val_metrics:
            self._val_metrics = [copy.deepcopy(m) for m in self._train_metrics]
        for metric in self._val_metrics:
            if "training" in metric.name:
                metric.name = metric.name.replace("training", "validation")
            else:
                metric.name = "validation " + metric.name

    @property
    def train_metrics(self) -> list:
        """list of EvalMetric: the training metrics."""
        return self._train_metrics

    @property
    def val_metrics(self) -> list:
        """list of EvalMetric: the validation metrics."""
        return self._val_metrics

    # ---- loops ------------------------------------------------------------------------
    def evaluate(self, val_data, batch_axis: int = 0, event_handlers=None) -> None:
        """Run the validation network over ``val_data`` and update the validation metrics.

        Parameters
        ----------
        val_data : DataLoader
            Validation data with labels.
        batch_axis : int, default 0
            Axis split across contexts.
        event_handlers : EventHandler or list, optional
            Handlers besides the default ``MetricHandler`` and ``LoggingHandler`` (added
            when none of their kind is given).

        Raises
        ------
        ValueError
            When ``val_data`` is not a ``DataLoader``.
        """
        if not isinstance(val_data, DataLoader):
            raise ValueError("Estimator only support input as Gluon DataLoader. "
                             "Alternatively, you can transform your DataIter or any NDArray "
                             "into Gluon DataLoader. Refer to gluon.data.DataLoader")
        for metric in self.val_metrics:
            metric.reset()
        handlers = self._prepare_default_validation_handlers(event_handlers)
        _, epoch_begin, batch_begin, batch_end, epoch_end, _ = _categorize(handlers)
        for handler in epoch_begin:
            handler.epoch_begin(self)
        for batch in val_data:
            for handler in batch_begin:
                handler.batch_begin(self, batch=batch)
            _, label, pred, loss = self.batch_processor.evaluate_batch(self, batch, batch_axis)
            for handler in batch_end:
                handler.batch_end(self, batch=batch, pred=pred, label=label, loss=loss)
        for handler in epoch_end:
            handler.epoch_end(self)

    def fit(self, train_data, val_data=None, epochs: Optional[int] = None,
            event_handlers=None, batches: Optional[int] = None, batch_axis: int = 0) -> None:
        """Train for ``epochs`` epochs or ``batches`` batches (exactly one of them).

        Default handlers are added where none of their kind is given: a
        ``StoppingHandler``, ``GradientUpdateHandler``, ``MetricHandler``,
        ``LoggingHandler``, and a ``ValidationHandler`` when ``val_data`` is given.
        Handlers run in ascending ``priority``.  Training stops when a handler's
        ``batch_end`` or ``epoch_end`` returns True.

        Parameters
        ----------
        train_data : DataLoader
            Training data with labels.
        val_data : DataLoader, optional
            Validation data, evaluated after every epoch by default.
        epochs : int, optional
            Epochs to train.
        event_handlers : EventHandler or list, optional
            Extra handlers.
        batches : int, optional
            Batches to train.
        batch_axis : int, default 0
            Axis split across contexts.

        Raises
        ------
        ValueError
            When ``train_data`` is not a ``DataLoader``, or not exactly one of
            ``epochs`` and ``batches`` is given.
        """
        if not isinstance(train_data, DataLoader):
            raise ValueError("Estimator only support input as Gluon DataLoader. "
                             "Alternatively, you can transform your DataIter or any NDArray "
                             "into Gluon DataLoader. Refer to gluon.data.dataloader")
        if (not epochs) == (not batches):
            raise ValueError("Fit only support exactly one type of iteration, train by number "
                             "of epochs or number of batches.Please specify one and only one "
                             "of: epochs or batches.")
        self.max_epoch = epochs
        self.max_batch = batches
        self.batch_axis = batch_axis
        handlers = self._prepare_default_handlers(val_data, event_handlers)
        train_begin, epoch_begin, batch_begin, batch_end, epoch_end, train_end = \
            _categorize(handlers)
        for handler in train_begin:
            handler.train_begin(self)
        while True:
            for handler in epoch_begin:
                handler.epoch_begin(self)
            for batch in train_data:
                for handler in batch_begin:
                    handler.batch_begin(self, batch=batch)
                _, label, pred, loss = self.batch_processor.fit_batch(self, batch, batch_axis)
                stops = [handler.batch_end(self, batch=batch, pred=pred, label=label,
                                           loss=loss) for handler in batch_end]
                if any(stops):
                    break
            if any([handler.epoch_end(self) for handler in epoch_end]):
                break
        for handler in train_end:
            handler.train_end(self)

    def _prepare_default_handlers(self, val_data, event_handlers) -> list:
        given = _check_event_handlers(event_handlers)

        def missing(kind):
            return not any(isinstance(h, kind) for h in given)

        defaults = [StoppingHandler(self.max_epoch, self.max_batch)]
        if missing(GradientUpdateHandler):
            defaults.append(GradientUpdateHandler())
        if missing(MetricHandler):
            defaults.append(MetricHandler(metrics=self.train_metrics))
        if missing(ValidationHandler) and val_data:
            defaults.append(ValidationHandler(val_data=val_data, eval_fn=self.evaluate))
        if missing(LoggingHandler):
            defaults.append(LoggingHandler(metrics=self.train_metrics))
        return _merge_handlers(given, defaults, set(self.train_metrics + self.val_metrics))

    def _prepare_default_validation_handlers(self, event_handlers) -> list:
        given = _check_event_handlers(event_handlers)
        defaults = []
        if not any(isinstance(h, MetricHandler) for h in given):
            defaults.append(MetricHandler(metrics=self.val_metrics))
        if not any(isinstance(h, LoggingHandler) for h in given):
            defaults.append(LoggingHandler(metrics=self.val_metrics))
        return _merge_handlers(given, defaults, set(self.val_metrics))

    def _categorize_handlers(self, event_handlers) -> Tuple[List, ...]:
        """Handlers of each of the six events (MXNet's helper)."""
        return _categorize(event_handlers)
