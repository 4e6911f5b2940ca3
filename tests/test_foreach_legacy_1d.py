"""``_foreach`` over 1-D data outside ``np_shape``: each step is shape ``(1,)`` (MXNet
1.x has no 0-d arrays there), as in MXNet 1.9.1's ``test_foreach`` (step16/17).
Expected values printed by MXNet 1.9.1."""
import numpy as np

import gluonlite as mx


def _graph():
    d, s = mx.sym.var("d"), mx.sym.var("s")
    out, st = mx.sym.contrib.foreach(lambda x, st: ([x * st[0]], [st[0] * 2]), d, [s])
    return mx.sym.Group([out[0], st[0]])


def test_infer_shape():
    assert _graph().infer_shape(d=(3,), s=(1,)) == ([(3,), (1,)], [(3, 1), (1,)], [])


def test_forward_backward():
    ex = _graph().bind(mx.cpu(), {"d": mx.nd.array([1.0, 2, 3]), "s": mx.nd.array([2.0])},
                       args_grad={"d": mx.nd.zeros((3,)), "s": mx.nd.zeros((1,))})
    ex.forward(is_train=True)
    np.testing.assert_allclose(ex.outputs[0].asnumpy(), [[2.0], [8.0], [24.0]])
    np.testing.assert_allclose(ex.outputs[1].asnumpy(), [16.0])
    ex.backward([mx.nd.array([[1.0], [2.0], [3.0]]), mx.nd.array([1.0])])
    np.testing.assert_allclose(ex.grad_dict["d"].asnumpy(), [2.0, 8.0, 24.0])
    np.testing.assert_allclose(ex.grad_dict["s"].asnumpy(), [53.0])


def test_imperative_steps_are_1_element():
    shapes = []

    def body(x, st):
        shapes.append(x.shape)
        return x * st[0], [st[0] * 2]
    out, st = mx.nd.contrib.foreach(body, mx.nd.array([1.0, 2, 3]), [mx.nd.array([2.0])])
    assert shapes[0] == (1,)
    np.testing.assert_allclose(out.asnumpy(), [[2.0], [8.0], [24.0]])
