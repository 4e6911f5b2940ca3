"""``_sample_multinomial``: category indices must be exact in the output dtype."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError


@pytest.mark.parametrize("dtype,largest_k", [("uint8", 256), ("float16", 2049)])
def test_index_range_of_output_dtype(dtype, largest_k):
    y = mx.nd.random.multinomial(mx.nd.ones((largest_k,)), dtype=dtype)
    assert y.dtype == np.dtype(dtype)
    with pytest.raises(MXNetError, match=f"dtype {dtype} cannot represent"):
        mx.nd.random.multinomial(mx.nd.ones((largest_k + 1,)), dtype=dtype)


def test_index_range_checked_by_shape_inference():
    s = mx.sym.random.multinomial(mx.sym.var("d"), dtype="uint8")
    with pytest.raises(MXNetError, match="cannot represent"):
        s.infer_shape(d=(2, 300))
    assert s.infer_shape(d=(2, 256))[1] == [(2,), (2,)]  # sym default: get_prob=True
