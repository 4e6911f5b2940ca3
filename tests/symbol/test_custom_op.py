"""``Custom`` operators in symbols, executors and hybridized blocks.

Names, shapes and JSON attributes asserted here were read off MXNet 1.9.1.
"""
import json

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, nd

from ..ops.samples import custom  # noqa: F401 - registers the harness's custom ops

from ..test_operator import LOG  # also registers t_muladd

# scale * x**2, registered by the op-harness samples
SQUARE = "_harness_scaled_square"
# (a*b, a+b) with an aux state counting forwards, registered by tests/test_operator.py
MULADD = "t_muladd"

def test_symbol_names_from_the_prop():
    s = mx.sym.Custom(op_type=MULADD, name="c")
    assert s.list_arguments() == ["c_lhs", "c_rhs"]
    assert s.list_outputs() == ["c_prod", "c_sum"]
    assert s.list_auxiliary_states() == ["c_count"]
    a, b = mx.sym.var("a"), mx.sym.var("b")
    s2 = mx.sym.Custom(a, b, op_type=MULADD, name="d")
    assert s2.list_arguments() == ["a", "b"] and s2.list_auxiliary_states() == ["d_count"]
    s3 = mx.sym.Custom(lhs=a, rhs=b, op_type=MULADD, name="q")
    assert s3.list_arguments() == ["a", "b"] and s3.list_auxiliary_states() == ["q_count"]


def test_symbol_inference_and_json():
    s = mx.sym.Custom(op_type=MULADD, name="c")
    assert s.infer_shape(c_lhs=(2, 3)) == ([(2, 3), (2, 3)], [(2, 3), (2, 3)], [(1,)])
    args, outs, auxs = s.infer_type(c_lhs="float64", c_rhs="float64")
    assert outs == [np.float64, np.float64] and auxs == [np.float64]
    sq = mx.sym.Custom(mx.sym.var("x"), op_type=SQUARE, scale=1.5, name="sq")
    nodes = json.loads(sq.tojson())["nodes"]
    assert nodes[-1]["op"] == "Custom"
    assert nodes[-1]["attrs"] == {"op_type": SQUARE, "scale": "1.5"}
    again = mx.sym.load_json(sq.tojson())
    assert again.list_arguments() == ["x"]
    ex = again.bind(mx.cpu(), {"x": nd.array([1.0, 2.0])})
    np.testing.assert_allclose(ex.forward()[0].asnumpy(), [1.5, 6.0])


def test_simple_bind_forward_backward_with_aux():
    s = mx.sym.Custom(op_type=MULADD, name="c")
    ex = s.simple_bind(mx.cpu(), c_lhs=(2, 3), c_rhs=(2, 3))
    ex.arg_dict["c_lhs"][:] = 2
    ex.arg_dict["c_rhs"][:] = 3
    for _ in range(2):
        outs = ex.forward(is_train=True)
        ex.backward([nd.ones((2, 3)), nd.ones((2, 3))])
    np.testing.assert_allclose(outs[0].asnumpy(), np.full((2, 3), 6.0))
    np.testing.assert_allclose(outs[1].asnumpy(), np.full((2, 3), 5.0))
    np.testing.assert_allclose(ex.grad_dict["c_lhs"].asnumpy(), np.full((2, 3), 4.0))
    np.testing.assert_allclose(ex.grad_dict["c_rhs"].asnumpy(), np.full((2, 3), 3.0))
    np.testing.assert_allclose(ex.aux_dict["c_count"].asnumpy(), [2.0])
    created = [e for e in LOG if e[0] == "create_muladd"]
    assert created and created[-1][1:] == ([[2, 3], [2, 3], [1]], [0, 0, 0])


def test_hybridized_block_matches_imperative():
    from gluonlite import gluon

    class Net(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.Custom(x, op_type=SQUARE, scale=2) + 1

    x = nd.array([[1.0, -2.0], [0.5, 3.0]])
    results = []
    for hybrid in (False, True):
        net = Net()
        if hybrid:
            net.hybridize()
        xs = x.copy()
        xs.attach_grad()
        for _ in range(2):  # second call runs the cached plan
            with autograd.record():
                y = net(xs)
            y.backward()
        results.append((y.asnumpy(), xs.grad.asnumpy()))
    np.testing.assert_allclose(results[1][0], 2 * x.asnumpy() ** 2 + 1)
    np.testing.assert_allclose(results[1][1], 4 * x.asnumpy())
    for r0, r1 in zip(*results):
        np.testing.assert_allclose(r0, r1)


if __name__ == "__main__":
    pytest.main([__file__, "-q"])
