"""BatchNorm on sparse inputs: MXNet's storage fallback, and its refusal of
``fix_gamma=True`` for sparse arrays."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError


def _inputs(stype):
    rng = np.random.RandomState(0)
    data = mx.nd.array(rng.normal(size=(2, 3)))
    gamma, beta = mx.nd.array([1.0, 3.0, 1.0]), mx.nd.array([3.0, 1.0, 1.0])
    mean, var = mx.nd.zeros((3,)), mx.nd.ones((3,))
    return [data.tostype(stype), gamma.tostype(stype), beta.tostype(stype), mean, var]


def test_fix_gamma_with_sparse_inputs_raises():
    with pytest.raises(MXNetError, match="fix_gamma=True is not supported for sparse"):
        mx.nd.BatchNorm(*_inputs("row_sparse"), fix_gamma=True)


def test_sparse_inputs_fall_back_to_dense():
    kw = dict(fix_gamma=False, use_global_stats=True)
    got = mx.nd.BatchNorm(*_inputs("row_sparse"), **kw)
    want = mx.nd.BatchNorm(*_inputs("default"), **kw)
    np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-6)
