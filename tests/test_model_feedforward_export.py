"""``mx.model.FeedForward`` is reachable as in MXNet 1.9.1 (tests/python/train uses it)."""
import pytest

import gluonlite as mx
from gluonlite.model.feedforward import FeedForward


def test_model_feedforward_is_exported():
    assert mx.model.FeedForward is FeedForward
    with pytest.raises(AttributeError):
        mx.model.NotAThing  # noqa: B018
