"""The imperative tape and operators without MXNet's ``FGradient``; head gradients
whose shape differs from their head's.

MXNet 1.9.1 records a call of an operator without ``FGradient`` (``argmax_channel``,
``khatri_rao``, ``all_finite``, the optimizer updates, ...) like any other and raises
"Operator X is non-differentiable because it didn't register FGradient attribute." at
``backward``/``autograd.grad`` when a gradient that may be non-zero reaches it, even
when its own inputs need none; recording alone never raises, and a ``stop_gradient``
after it (or nobody reading it) makes it harmless.  A hybridized block raises at the
recorded call.  MXNet does not check a head gradient's shape: its leading elements,
read row-major, are used (MXNet's own ``test_foreach`` relies on it).  Every expected
value here was printed by MXNet 1.9.1.
"""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError

nd = mx.nd
NON_DIFF = "non-differentiable because it didn't register FGradient attribute"


def _run(build, x_grad=True):
    x = nd.array(np.arange(6).reshape(2, 3) + 1.0)
    w = nd.array(np.arange(6).reshape(2, 3) * 0.5 + 1.0)
    if x_grad:
        x.attach_grad()
    w.attach_grad()
    with mx.autograd.record():
        y = build(x, w)
    y.backward()
    return (x.grad.asnumpy().tolist() if x_grad else None), w.grad.asnumpy().tolist()


def _col(a):
    return a.reshape((2, 1))


@pytest.mark.parametrize("build, name", [
    (lambda x, w: nd.argmax_channel(x), "argmax_channel"),
    (lambda x, w: _col(nd.argmax_channel(x)) * w, "argmax_channel"),
    (lambda x, w: _col(nd.argmax_channel(nd.stop_gradient(x))) * w, "argmax_channel"),
    (lambda x, w: nd.khatri_rao(x, w), "khatri_rao"),
    (lambda x, w: nd.all_finite(x) * w, "all_finite"),
])
def test_backward_through_an_op_without_fgradient_raises(build, name):
    with pytest.raises(MXNetError, match=f"Operator {name} is {NON_DIFF}"):
        _run(build)


def test_raises_even_when_its_own_inputs_need_no_gradient():
    with pytest.raises(MXNetError, match=f"khatri_rao is {NON_DIFF}"):
        _run(lambda x, w: nd.khatri_rao(x, w), x_grad=False)


def test_recording_alone_does_not_raise():
    x = nd.ones((2, 3))
    x.attach_grad()
    with mx.autograd.record():
        y = nd.argmax_channel(x)
    assert y.shape == (2,)


def test_cases_mxnet_accepts():
    two = [[2.0] * 3] * 2
    zeros = [[0.0] * 3] * 2
    # not recorded: no input takes part in a gradient
    assert _run(lambda x, w: _col(nd.argmax_channel(x)) * w, x_grad=False) == (None, two)
    # only a zero gradient reaches it
    assert _run(lambda x, w: _col(nd.stop_gradient(nd.argmax_channel(x))) * w) == (zeros, two)
    assert _run(lambda x, w: nd.stop_gradient(nd.khatri_rao(x, w)))[0] == zeros
    assert _run(lambda x, w: nd.stop_gradient(nd.exp(nd.khatri_rao(x, w) * 0)))[0] == zeros
    # recorded but not read by the head
    assert _run(lambda x, w: (nd.argmax_channel(x), w * 2)[1]) == (zeros, two)
    # argmax has a (zero) gradient in MXNet
    assert _run(lambda x, w: _col(nd.argmax(x, axis=1)) * w) == (zeros, two)


def test_autograd_grad_and_optimizer_updates_raise():
    x = nd.array(np.arange(6).reshape(2, 3) + 1.0)
    x.attach_grad()
    with mx.autograd.record():
        y = _col(nd.argmax_channel(x)) * x
    with pytest.raises(MXNetError, match=f"argmax_channel is {NON_DIFF}"):
        mx.autograd.grad(y, [x])
    w = nd.ones((3,))
    w.attach_grad()
    with mx.autograd.record():
        z = nd.sgd_update(w, nd.ones((3,)), lr=0.1)
    with pytest.raises(MXNetError, match=f"sgd_update is {NON_DIFF}"):
        z.backward()


def test_hybridized_block_raises_at_the_recorded_call():
    net = mx.gluon.nn.HybridLambda(
        lambda F, x: F.broadcast_mul(F.argmax_channel(x).reshape((2, 1)), x))
    net.hybridize()
    x = nd.array(np.arange(6).reshape(2, 3) + 1.0)
    x.attach_grad()
    with pytest.raises(MXNetError, match=f"argmax_channel is {NON_DIFF}"):
        with mx.autograd.record():
            net(x).backward()


def _head_grad(x_shape, g_shape, op=lambda x: x * 2):
    x = nd.array(np.arange(np.prod(x_shape)).reshape(x_shape) + 1.0)
    x.attach_grad()
    with mx.autograd.record():
        y = op(x)
    y.backward(nd.array(np.arange(np.prod(g_shape)).reshape(g_shape) + 1.0))
    return x.grad.asnumpy().tolist()


@pytest.mark.parametrize("g_shape", [(4, 2), (6,), (2, 3)])
def test_head_gradient_of_another_shape_is_read_row_major(g_shape):
    assert _head_grad((3, 2), g_shape) == [[2.0, 4.0], [6.0, 8.0], [10.0, 12.0]]


def test_larger_head_gradient_through_concat():
    # what test_foreach does (MXNet's concat backward takes the leading rows)
    concat = _head_grad((3, 2), (4, 2), lambda x: nd.concat(x * 2, dim=0))
    assert concat == [[2.0, 4.0], [6.0, 8.0], [10.0, 12.0]]


def test_smaller_head_gradient_raises():
    # a deliberate difference: MXNet reads past the end of the buffer here
    with pytest.raises(MXNetError, match="head gradient shape"):
        _head_grad((3, 2), (2, 2))
