"""gather_nd's out-of-range indices raise IndexError, as MXNet 1.9.1 (which maps the
error to Python's IndexError), and the error is an MXNetError too."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError


@pytest.mark.parametrize("indices", [[[0, 1, 0], [0, 1, 3]], [[0, 1, 0], [0, 1, -5]]])
def test_gather_nd_out_of_bounds_is_index_error(indices):
    data = mx.nd.array([[0, 1, 2], [3, 4, 5]])
    with pytest.raises(IndexError, match="gather_nd") as info:
        mx.nd.gather_nd(data, mx.nd.array(indices)).asnumpy()
    assert isinstance(info.value, MXNetError)


def test_gather_nd_negative_indices_wrap():
    data = mx.nd.array([[0, 1, 2], [3, 4, 5]])
    a = mx.nd.gather_nd(data, mx.nd.array([[0, 1, -1], [0, 1, -2]])).asnumpy()
    b = mx.nd.gather_nd(data, mx.nd.array([[0, 1, 1], [0, 1, 1]])).asnumpy()
    assert np.array_equal(a, b)
