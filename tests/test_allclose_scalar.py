"""``contrib.allclose`` gives a 0-d result (shape ``()``) even outside NumPy shape
semantics, as MXNet 1.9.1."""
import numpy as np

import gluonlite as mx
from gluonlite.ops.registry import get_op


def test_symbolic_shape_is_scalar():
    s = mx.sym.contrib.allclose(mx.sym.var("a"), mx.sym.var("b"))
    _, outs, _ = s.infer_shape(a=(2, 3), b=(2, 3))
    assert outs == [()]
    a = mx.nd.array(np.ones((2, 3)))
    out = s.bind(mx.cpu(), {"a": a, "b": a}).forward()[0]
    assert out.shape == ()
    assert int(out.asnumpy()) == 1


def test_declared_zero_dim():
    assert get_op("_contrib_allclose").zero_dim_outputs
