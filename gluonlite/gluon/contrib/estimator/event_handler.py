"""``gluon.contrib.estimator.event_handler`` (MXNet 1.9): the event mixins and the
handlers the estimator runs.  Each handler lives in its own private module."""
from ._events import (EventHandler, TrainBegin, TrainEnd, EpochBegin, EpochEnd,  # noqa: F401
                      BatchBegin, BatchEnd, _check_event_handlers)
from ._basic_handlers import (StoppingHandler, MetricHandler, ValidationHandler,  # noqa: F401
                              GradientUpdateHandler)
from ._logging_handler import LoggingHandler  # noqa: F401
from ._checkpoint_handler import CheckpointHandler  # noqa: F401
from ._early_stopping import EarlyStoppingHandler  # noqa: F401

__all__ = ["TrainBegin", "TrainEnd", "EpochBegin", "EpochEnd", "BatchBegin", "BatchEnd",
           "StoppingHandler", "MetricHandler", "ValidationHandler", "LoggingHandler",
           "CheckpointHandler", "EarlyStoppingHandler", "GradientUpdateHandler"]
