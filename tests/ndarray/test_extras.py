"""``nd.moveaxis`` and ``nd.contrib.isinf`` / ``isfinite`` / ``isnan`` equal MXNet
1.9.1's (values below taken from it)."""
import numpy as np
import pytest

import gluonlite as mx


def test_moveaxis():
    assert mx.nd.moveaxis(mx.nd.zeros((3, 4, 5)), [0, 1], [-1, -2]).shape == (5, 4, 3)
    assert mx.nd.moveaxis(mx.nd.zeros((2, 3, 4, 5)), [3, 0], [1, 2]).shape == (3, 5, 2, 4)
    x = np.arange(24).reshape(2, 3, 4)
    np.testing.assert_array_equal(mx.nd.moveaxis(mx.nd.array(x), 0, -1).asnumpy(),
                                  np.moveaxis(x, 0, -1))
    with pytest.raises(ValueError, match="same number"):
        mx.nd.moveaxis(mx.nd.zeros((2, 3)), [0, 1], [1])
    with pytest.raises(ValueError, match="source"):
        mx.nd.moveaxis(mx.nd.zeros((2, 3)), 2, 0)


def test_isinf_isfinite_isnan():
    a = mx.nd.array([1, np.inf, -np.inf, np.nan, 2])
    np.testing.assert_array_equal(mx.nd.contrib.isinf(a).asnumpy(), [0, 1, 1, 0, 0])
    np.testing.assert_array_equal(mx.nd.contrib.isfinite(a).asnumpy(), [1, 0, 0, 0, 1])
    np.testing.assert_array_equal(mx.nd.contrib.isnan(a).asnumpy(), [0, 0, 0, 1, 0])
    assert mx.nd.contrib.isnan(a).dtype == np.float32
