"""Binding with gradients through an operator MXNet 1.9.1 gives no gradient raises, as
MXNet's bind does ("Operator X is non-differentiable because it didn't register
FGradient attribute"); a ``stop_gradient`` in between, a zero-gradient operator
(``argmax``) or ``grad_req='null'`` bind.  Outcomes checked on MXNet 1.9.1."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError
from gluonlite.ops.registry import get_op

X, IDX, Y = mx.sym.Variable("x"), mx.sym.Variable("idx"), mx.sym.Variable("y")
TYPES = {"x": np.float32, "idx": np.int32}


def _bind(sym, **kw):
    e = sym.simple_bind(mx.cpu(), x=(3, 4), idx=(3,), type_dict=TYPES, **kw)
    e.forward(is_train=True)
    e.backward([mx.nd.ones(o.shape) for o in e.outputs])
    return e


def test_zero_prop2():
    y = mx.sym.batch_take(X, IDX)
    z = mx.sym.stop_gradient(y)
    _bind(z)
    with pytest.raises(MXNetError, match="batch_take is non-differentiable"):
        y.simple_bind(mx.cpu(), x=(10, 10), idx=(10,), type_dict=TYPES)


def test_whole_graph_is_checked():
    # MXNet's gradient pass visits every node reachable from the heads
    s = mx.sym.batch_take(X, IDX) + Y
    with pytest.raises(MXNetError, match="batch_take"):
        _bind(s, y=(3,), grad_req={"x": "null", "idx": "null", "y": "write"})


@pytest.mark.parametrize("make", [
    lambda: mx.sym.argmax(mx.sym.batch_take(X, IDX).reshape((3, 1)), axis=1),
    lambda: mx.sym.Group([mx.sym.BlockGrad(mx.sym.batch_take(X, IDX)), mx.sym.sum(X)]),
    lambda: mx.sym.sum(X) + 0 * mx.sym.BlockGrad(mx.sym.batch_take(X, IDX)).sum(),
], ids=["argmax_after", "blockgrad_head", "blockgrad_inside"])
def test_zero_gradients_bind(make):
    _bind(make())


def test_no_gradient_wanted_binds():
    _bind(mx.sym.batch_take(X, IDX), grad_req="null")


def test_declared_table():
    assert not get_op("batch_take").has_fgradient
    assert get_op("argmax").has_fgradient      # MakeZeroGradNodes in MXNet
    assert get_op("argsort").has_fgradient
    assert get_op("relu").has_fgradient


def test_table_names_operators_without_gradient():
    from gluonlite.ops.no_fgradient import NO_FGRADIENT
    for name in NO_FGRADIENT:
        op = get_op(name)
        assert op.name == name and not op.differentiable, name
