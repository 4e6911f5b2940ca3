"""Pooling with pooling_convention='same' takes any all-zero pad, refuses a nonzero one
(MXNet 1.9.1's test_valid/invalid_max_pooling_pad_type_same)."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError


def test_same_convention_accepts_all_zero_pad_of_any_length():
    x = mx.nd.array(np.random.rand(1, 1, 10))
    y = mx.nd.Pooling(x, kernel=2, stride=2, pad=(0, 0, 0), pool_type="max",
                      pooling_convention="same")
    assert y.shape == (1, 1, 5)


def test_same_convention_refuses_a_pad():
    x = mx.nd.array(np.random.rand(1, 1, 10))
    with pytest.raises(MXNetError, match="Pooling"):
        mx.nd.Pooling(x, kernel=2, stride=2, pad=2, pool_type="max",
                      pooling_convention="same")
