"""The event-handler base and its six event mixins: a handler is called at an event
when it inherits that event's mixin."""
from __future__ import annotations

from typing import List

__all__ = ["EventHandler", "TrainBegin", "TrainEnd", "EpochBegin", "EpochEnd",
           "BatchBegin", "BatchEnd", "_check_event_handlers"]


class EventHandler:
    """Base of every event handler."""


def _check_event_handlers(handlers) -> List[EventHandler]:
    """A list of handlers from a handler, a list of them or None (a new list).

    Raises
    ------
    ValueError
        When something is not an ``EventHandler``.
    """
    if isinstance(handlers, EventHandler):
        return [handlers]
    handlers = list(handlers or [])
    if not all(isinstance(h, EventHandler) for h in handlers):
        raise ValueError("handlers must be an EventHandler or a list of EventHandler, "
                         f"got: {handlers}")
    return handlers


class TrainBegin(EventHandler):
    """Called once before training: ``train_begin(estimator)``."""

    def train_begin(self, estimator, *args, **kwargs) -> None:
        pass


class TrainEnd(EventHandler):
    """Called once after training: ``train_end(estimator)``."""

    def train_end(self, estimator, *args, **kwargs) -> None:
        pass


class EpochBegin(EventHandler):
    """Called before each epoch (and before an evaluation): ``epoch_begin(estimator)``."""

    def epoch_begin(self, estimator, *args, **kwargs) -> None:
        pass


class EpochEnd(EventHandler):
    """Called after each epoch: ``epoch_end(estimator)``; returning True stops training."""

    def epoch_end(self, estimator, *args, **kwargs) -> bool:
        return False


class BatchBegin(EventHandler):
    """Called before each batch: ``batch_begin(estimator, batch=...)``."""

    def batch_begin(self, estimator, *args, **kwargs) -> None:
        pass


class BatchEnd(EventHandler):
    """Called after each batch: ``batch_end(estimator, batch=, pred=, label=, loss=)``;
    returning True ends the epoch and training."""

    def batch_end(self, estimator, *args, **kwargs) -> bool:
        return False
