"""``gluon.loss`` against MXNet 1.9.1 (fixture ``training/loss``): values and prediction
gradients, imperative and hybridized; bad labels raise."""
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import gluon

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "training")
with open(os.path.join(HERE, "loss.json")) as _f:
    SPEC = json.load(_f)
DATA = np.load(os.path.join(HERE, "loss.npz"))
# SDMLLoss reads x1.shape, which a symbol does not have: imperative only, as in MXNet
IMPERATIVE_ONLY = {"sdml"}


def _inputs(case):
    cls, kwargs, count, missing = SPEC[case]
    return [None if i in missing else mx.nd.array(DATA[f"{case}/in{i}"]) for i in range(count)]


def _call(case, hybridize):
    cls, kwargs, count, missing = SPEC[case]
    loss = getattr(gluon.loss, cls)(**kwargs)
    if hybridize:
        loss.hybridize()
    inputs = _inputs(case)
    inputs[0].attach_grad()
    with mx.autograd.record():
        out = loss(*inputs)
    out.backward()
    return out, inputs[0].grad


@pytest.mark.parametrize("hybridize", [False, True], ids=["imperative", "hybridized"])
@pytest.mark.parametrize("case", sorted(SPEC))
def test_loss_matches_mxnet(case, hybridize):
    if hybridize and (case in IMPERATIVE_ONLY or SPEC[case][3]):
        pytest.skip("MXNet's SDMLLoss needs concrete shapes; a hybridized block takes no "
                    "None input (pos_weight without sample_weight)")
    if case == "poisson_full":
        out = getattr(gluon.loss, SPEC[case][0])(**SPEC[case][1])(*_inputs(case))
        np.testing.assert_allclose(out.asnumpy(), DATA[f"{case}/out"], rtol=1e-5, atol=1e-6)
        return
    out, grad = _call(case, hybridize)
    np.testing.assert_allclose(out.asnumpy(), DATA[f"{case}/out"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(grad.asnumpy(), DATA[f"{case}/grad"], rtol=1e-4, atol=1e-6)


def test_aliases_and_repr():
    assert gluon.loss.SoftmaxCELoss is gluon.loss.SoftmaxCrossEntropyLoss
    assert gluon.loss.SigmoidBCELoss is gluon.loss.SigmoidBinaryCrossEntropyLoss
    assert repr(gluon.loss.L1Loss(weight=2)) == "L1Loss(batch_axis=0, w=2)"


def test_user_subclass_of_loss():
    class Cubed(gluon.loss.Loss):
        def __init__(self, **kwargs):
            super().__init__(weight=None, batch_axis=0, **kwargs)

        def hybrid_forward(self, F, pred, label):
            return F.mean((pred - label) ** 3, axis=0, exclude=True)
    loss = Cubed()
    loss.hybridize()
    out = loss(mx.nd.array([[2.0, 1.0]]), mx.nd.array([[0.0, 0.0]]))
    np.testing.assert_allclose(out.asnumpy(), [4.5])


def test_label_of_the_wrong_size_names_the_loss_and_shapes():
    with pytest.raises(mx.MXNetError, match=r"L2Loss.*\(4, 2\).*\(4, 3\)"):
        gluon.loss.L2Loss()(mx.nd.ones((4, 3)), mx.nd.ones((4, 2)))
    with pytest.raises(mx.MXNetError):
        gluon.loss.L1Loss(weight=mx.nd.ones((1,)))(mx.nd.ones((2, 2)), mx.nd.ones((2, 2)))
    with pytest.raises(ValueError):
        gluon.loss.CTCLoss(layout="NCT")
    with pytest.raises(ValueError):
        gluon.loss.LogisticLoss(label_format="zero_one")


def test_softmax_cross_entropy_operator_matches_loss_sum():
    x = mx.nd.array(np.random.default_rng(0).standard_normal((5, 4)))
    label = mx.nd.array([0, 3, 1, 1, 2])
    total = mx.nd.softmax_cross_entropy(x, label)
    per_sample = gluon.loss.SoftmaxCrossEntropyLoss()(x, label)
    np.testing.assert_allclose(total.asnumpy(), [per_sample.asnumpy().sum()], rtol=1e-5)
    with pytest.raises(mx.MXNetError, match="2-D"):
        mx.nd.softmax_cross_entropy(mx.nd.ones((2, 3, 4)), mx.nd.zeros((2,)))


def test_reshape_like_helper_takes_mxnets_three_arguments():
    # GluonCV's SSDMultiBoxLoss does ``from mxnet.gluon.loss import _reshape_like`` and
    # calls ``_reshape_like(nd, x, y)``
    from gluonlite.gluon.loss import _reshape_like
    out = _reshape_like(mx.nd, mx.nd.arange(6), mx.nd.zeros((2, 3)))
    assert out.shape == (2, 3)
    sym = _reshape_like(mx.sym, mx.sym.var("x"), mx.sym.var("y"))
    assert sym.infer_shape(x=(6,), y=(3, 2))[1] == [(3, 2)]
