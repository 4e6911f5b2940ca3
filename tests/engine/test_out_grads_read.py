"""``OpDef.out_grads_read``: a head gradient for an output whose gradient the operator's
backward never reads (``topk``'s indices) is neither needed nor checked, as in MXNet 1.9.1
(expected gradients from MXNet 1.9.1)."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError
from gluonlite.ops.registry import get_op


def test_topk_both_ignores_indices_head_gradient():
    x = mx.sym.var("x")
    t = mx.sym.topk(x, k=2, ret_typ="both", axis=-1)
    xv = mx.nd.array([[3, 1, 2, 5], [0, 4, 1, 2]])
    gx = mx.nd.zeros((2, 4))
    e = t.bind(mx.cpu(), {"x": xv}, args_grad={"x": gx})
    e.forward(is_train=True)
    # a wrong-shaped gradient for the indices: MXNet neither reads nor checks it
    e.backward([mx.nd.array([[1, 2], [3, 4]]), mx.nd.ones((7,))])
    np.testing.assert_array_equal(gx.asnumpy(), [[2, 0, 0, 1], [0, 3, 0, 4]])


def test_values_head_gradient_still_checked():
    x = mx.sym.var("x")
    t = mx.sym.topk(x, k=2, ret_typ="both", axis=-1)
    e = t.bind(mx.cpu(), {"x": mx.nd.ones((2, 4))}, args_grad={"x": mx.nd.zeros((2, 4))})
    e.forward(is_train=True)
    with pytest.raises(MXNetError):
        e.backward([mx.nd.ones((3,)), mx.nd.ones((2, 2))])


def test_declared_traits():
    topk = get_op("topk")
    assert topk.reads_out_grads(topk.parse_attrs({"ret_typ": "both"})) == (True, False)
    assert topk.reads_out_grads(topk.parse_attrs({"ret_typ": "indices"})) == (False,)
    assert get_op("sort").reads_out_grads(get_op("sort").parse_attrs({})) == (True, False)
    assert get_op("relu").reads_out_grads(get_op("relu").parse_attrs({})) is None
