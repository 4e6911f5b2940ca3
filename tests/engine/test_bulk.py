"""``mx.engine.bulk`` / ``set_bulk_size``: MXNet's bulking hint (no effect on results)."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError


def test_set_bulk_size_returns_previous():
    assert mx.engine.set_bulk_size(5) == 0   # MXNet's default is 0
    assert mx.engine.set_bulk_size(0) == 5


def test_bulk_scope_restores_and_keeps_results():
    with mx.engine.bulk(10):
        assert mx.engine.set_bulk_size(10) == 10
        x = mx.nd.ones((10,))
        x *= 2
        x += 1
        for _ in range(100):
            x += 1
    assert mx.engine.set_bulk_size(0) == 0
    np.testing.assert_array_equal(x.asnumpy(), np.full(10, 103.0, np.float32))


def test_bad_bulk_sizes():
    with pytest.raises(TypeError):
        mx.engine.set_bulk_size("a")
    with pytest.raises(MXNetError):
        mx.engine.set_bulk_size(-1)
