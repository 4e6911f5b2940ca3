"""Behaviour GluonNLP 0.10 relies on, outside the operators (values from MXNet 1.9.1).

- an out-of-bounds integer index raises ``IndexError`` (MXNet does): Python's sequence
  protocol stops on it, e.g. ``np.asarray`` of a ``SimpleDataset`` over an NDArray, as
  ``gluonnlp.data.batchify.CorpusBatchify`` returns;
- ``Parameter._trainer`` can be assigned, as in MXNet where it is a plain attribute
  (GluonNLP's ``WeightDropParameter``, used by every AWD-LSTM, copies it).
"""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError


def test_out_of_bounds_index_is_index_error():
    a = mx.nd.array(np.arange(20, dtype="float32").reshape(10, 2))
    for key in (10, -11, (0, 5)):
        with pytest.raises(IndexError):
            a[key]
        with pytest.raises(MXNetError):  # still an MXNetError for code that catches those
            a[key]
    ds = mx.gluon.data.SimpleDataset(a)
    rows = np.asarray([r.asnumpy() for r in iter(ds[i] for i in range(len(ds)))])
    np.testing.assert_array_equal(rows, a.asnumpy())
    # the sequence protocol: iterate by __getitem__ until IndexError
    got = np.asarray(ds)
    assert got.shape == (10, 2)
    np.testing.assert_array_equal(got.astype("float32"), a.asnumpy())


class _WrappedParameter(mx.gluon.Parameter):
    """Wraps a Parameter the way GluonNLP's WeightDropParameter does."""

    def __init__(self, p):
        self._deferred_init = p._deferred_init
        super().__init__(name=p.name, grad_req=p.grad_req, shape=p._shape, dtype=p.dtype,
                         init=p.init, allow_deferred_init=p._allow_deferred_init)
        self._var = p._var
        self._data = p._data
        self._grad = p._grad
        self._ctx_list = p._ctx_list
        self._ctx_map = p._ctx_map
        self._trainer = p._trainer

    def data(self, ctx=None):
        return self._check_and_get(self._data, ctx) * 2


def test_parameter_trainer_is_assignable():
    dense = mx.gluon.nn.Dense(3, in_units=2, use_bias=False)
    dense.initialize(mx.init.Constant(0.5))
    wrapped = _WrappedParameter(dense.weight)
    assert wrapped._trainer is None
    dense._reg_params["weight"] = wrapped
    object.__setattr__(dense, "weight", wrapped)
    x = mx.nd.ones((1, 2))
    np.testing.assert_allclose(dense(x).asnumpy(), [[2.0, 2.0, 2.0]])
    trainer = mx.gluon.Trainer([wrapped], "sgd", {"learning_rate": 0.1})
    assert wrapped._trainer is trainer
    wrapped._trainer = None
    assert wrapped._trainer is None
    wrapped._trainer = trainer
    with mx.autograd.record():
        y = dense(x).sum()
    y.backward()
    trainer.step(1)
    # d(sum(2 W x))/dW = 2 for every entry: 0.5 - 0.1 * 2
    np.testing.assert_allclose(wrapped._data[0].asnumpy(), np.full((3, 2), 0.3), rtol=1e-6)
