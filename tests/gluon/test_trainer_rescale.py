"""``Trainer(..., {"rescale_grad": r}).step(batch_size)`` scales every gradient by
``r / batch_size`` before the update, for every registered optimizer, with the update in
the Trainer and on the kvstore.

The check needs no reference implementation: scaling the gradient by ``r`` and stepping
with ``rescale_grad=1`` must give the same weights, bit for bit (``r`` and the batch size
are powers of two, so both routes round alike).  Three steps, so that optimizer states
built from the scaled gradients take part.
"""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import gluon

# MXNet's optimizers, as mx.optimizer defines them (contrib modules and tests may register
# more, and which of them are imported depends on the order tests are collected in)
OPTIMIZERS = sorted(name for name, cls in mx.optimizer.Optimizer.opt_registry.items()
                    if cls.__module__.startswith("gluonlite.optimizer"))
RESCALE, BATCH = 0.5, 4
_GRADS = np.random.default_rng(3).standard_normal((3, 4, 3)).astype(np.float32)


def _train(name: str, rescale: float, grad_scale: float, update_on_kvstore: bool):
    mx.random.seed(11)  # sgld draws noise: both runs draw the same
    np.random.seed(11)
    weight = gluon.Parameter("weight", shape=(4, 3))
    weight.initialize(mx.init.Constant(0.25), ctx=mx.cpu())
    weight.set_data(mx.nd.array(np.linspace(-1, 1, 12).reshape(4, 3)))
    trainer = gluon.Trainer([weight], name, {"learning_rate": 0.1, "rescale_grad": rescale},
                            kvstore="local", update_on_kvstore=update_on_kvstore)
    for grad in _GRADS:
        with mx.autograd.record():  # the gradient of sum(w * g) is g
            (weight.data() * mx.nd.array(grad * grad_scale)).sum().backward()
        trainer.step(BATCH)
    assert trainer.optimizer.rescale_grad == rescale / BATCH
    return weight.data().asnumpy()


@pytest.mark.parametrize("update_on_kvstore", [False, True], ids=["trainer", "kvstore"])
@pytest.mark.parametrize("name", OPTIMIZERS)
def test_rescale_grad_scales_each_gradient(name, update_on_kvstore):
    rescaled = _train(name, RESCALE, 1.0, update_on_kvstore)
    prescaled = _train(name, 1.0, RESCALE, update_on_kvstore)
    np.testing.assert_array_equal(rescaled, prescaled)
    assert not np.array_equal(rescaled, np.linspace(-1, 1, 12).reshape(4, 3))  # it moved
