"""Errors a user can cause raise ``MXNetError`` naming the operator and the shapes."""
import numpy as np
import pytest

from gluonlite import nd
from gluonlite.base import MXNetError


def _x(*shape):
    return nd.array(np.ones(shape))


# (description, call, words the message must contain)
CASES = [
    ("mismatched broadcast", lambda: nd.broadcast_add(_x(2, 3), _x(4, 5)),
     ["broadcast_add", "(2, 3)", "(4, 5)"]),
    ("mismatched elementwise", lambda: nd.elemwise_add(_x(2, 3), _x(3, 2)),
     ["elemwise_add", "(2, 3)", "(3, 2)"]),
    ("dot inner dimension", lambda: nd.dot(_x(2, 3), _x(4, 5)), ["dot", "(2, 3)", "(4, 5)"]),
    ("FullyConnected weight", lambda: nd.FullyConnected(_x(2, 3), _x(4, 5), _x(4), num_hidden=4),
     ["FullyConnected", "(4, 5)"]),
    ("Convolution rank", lambda: nd.Convolution(_x(2, 3), _x(4, 3, 3, 3), _x(4), kernel=(3, 3),
                                                num_filter=4),
     ["Convolution", "(2, 3)"]),
    ("Pooling rank", lambda: nd.Pooling(_x(2, 3), kernel=(2, 2)), ["Pooling", "(2, 3)"]),
    ("BatchNorm channels", lambda: nd.BatchNorm(_x(2, 3), _x(4), _x(4), _x(4), _x(4)),
     ["BatchNorm", "(2, 3)", "(4,)"]),
    ("Reshape size", lambda: nd.Reshape(_x(2, 3), shape=(4, 2)), ["Reshape", "(2, 3)"]),
    ("Concat shapes", lambda: nd.Concat(_x(2, 3), _x(3, 4), dim=0), ["Concat", "(2, 3)", "(3, 4)"]),
    ("sum axis", lambda: nd.sum(_x(2, 3), axis=4), ["sum", "axis"]),
    ("softmax axis", lambda: nd.softmax(_x(2, 3), axis=2), ["softmax", "axis"]),
    ("transpose axes", lambda: nd.transpose(_x(2, 3), axes=(0, 1, 2)), ["transpose"]),
    ("unknown attribute", lambda: nd.sum(_x(2, 3), axes=1), ["sum", "axes"]),
    ("bad attribute value", lambda: nd.softmax(_x(2, 3), axis="a"), ["softmax", "axis"]),
    ("missing attribute", lambda: nd.FullyConnected(_x(2, 3), _x(4, 3), _x(4)),
     ["FullyConnected", "num_hidden"]),
]


@pytest.mark.parametrize("call,words", [(c, w) for _, c, w in CASES],
                         ids=[d for d, _, _ in CASES])
def test_user_errors_name_operator_and_shapes(call, words):
    with pytest.raises(MXNetError) as info:
        call()
    message = str(info.value)
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"


def test_broadcast_like_rejects_empty_axes():
    # MXNet 1.9.1: "Empty axes tuple is not allowed"
    lhs, rhs = nd.ones((1, 2, 1, 3)), nd.ones((5, 6, 7, 8))
    with pytest.raises(MXNetError, match=r"broadcast_like.*empty.*\(1, 2, 1, 3\)"):
        nd.broadcast_like(lhs, rhs, lhs_axes=(), rhs_axes=())
    assert nd.broadcast_like(lhs, rhs, lhs_axes=(0, 2), rhs_axes=(1, 3)).shape == (6, 2, 8, 3)
