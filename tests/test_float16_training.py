"""float16 training of the layers that accumulate (BatchNorm, LayerNorm, softmax and the
losses built on it) agrees with float32, on data whose sums would overflow float16 (MXNet
accumulates them in float32).

Each case runs forward and backward in training mode twice: on float16 data, and on the
same values in float32.  Outputs and gradients must agree to float16's resolution, be
finite, and (for BatchNorm) update the running statistics alike.
"""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, gluon
from gluonlite.gluon import nn

RNG = np.random.default_rng(16)
# float16 holds values to ~1e-3 relative and up to 65504: sums of these overflow it
LARGE_MEAN = 300.0


def _data(shape, mean=LARGE_MEAN, scale=1.0):
    return (mean + scale * RNG.standard_normal(shape)).astype(np.float16)


def _run(make_block, inputs, dtype, head):
    mx.random.seed(0)
    block = make_block()
    block.initialize(mx.init.Xavier())
    block.cast(dtype)
    arrays = [mx.nd.array(x, dtype=dtype if x.dtype.kind == "f" else x.dtype) for x in inputs]
    for a in arrays:
        if np.dtype(a.dtype).kind == "f":
            a.attach_grad()
    with autograd.record(train_mode=True):
        out = block(*arrays)
    out.backward(mx.nd.array(head(out.shape), dtype=dtype))
    grads = [a.grad.asnumpy().astype(np.float32) for a in arrays
             if np.dtype(a.dtype).kind == "f"]
    params = {name.split("_", 1)[-1]: p.data().asnumpy().astype(np.float32)
              for name, p in block.collect_params().items()}
    return out.asnumpy().astype(np.float32), grads, params


def _compare(make_block, inputs, rtol=2e-2, atol=2e-2):
    """float16 against float32: outputs, gradients and parameters (BatchNorm's running
    statistics) to ``rtol`` and ``atol`` times the largest float32 value of the array."""
    heads = {}

    def fixed_head(shape):  # both runs get the same head gradient
        return heads.setdefault(shape, RNG.uniform(-1, 1, shape))

    got = _run(make_block, inputs, "float16", fixed_head)
    want = _run(make_block, inputs, "float32", fixed_head)
    for g, w in zip([got[0], *got[1]], [want[0], *want[1]]):
        assert np.isfinite(g).all()
        scale = max(float(np.abs(w).max()), 1e-3)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol * scale)
    for name in want[2]:
        w = want[2][name]
        np.testing.assert_allclose(got[2][name], w, rtol=rtol,
                                   atol=atol * max(float(np.abs(w).max()), 1e-3),
                                   err_msg=name)


@pytest.mark.parametrize("shape", [(16, 3, 20), (8, 3, 6, 6)], ids=["3d", "4d"])
def test_batchnorm_training(shape):
    # over 300 values per channel, a float16 sum of the data would overflow (> 65504); the
    # running statistics (updated in training) are compared too
    _compare(lambda: nn.BatchNorm(in_channels=shape[1]), [_data(shape)])


@pytest.mark.parametrize("shape", [(4, 3, 128), (2, 3, 4, 128)], ids=["3d", "4d"])
def test_layernorm(shape):
    # 128 values of ~30 per row: a float16 sum of their squares would overflow.  (Not a
    # mean of 300: MXNet's LayerNorm backward recomputes the normalized input in float16
    # from a float16 mean, and there its input gradient is off by up to ~10% of its scale
    # against float32; gluonlite gives MXNet's numbers, checked against MXNet 1.9.1.)
    _compare(lambda: nn.LayerNorm(in_channels=shape[-1]), [_data(shape, mean=30.0)])


class _Apply(gluon.HybridBlock):
    def __init__(self, fn, **kwargs):
        super().__init__(**kwargs)
        self._fn = fn

    def hybrid_forward(self, F, *inputs):
        return self._fn(F, *inputs)


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("axis", [-1, 1])
def test_softmax(op, axis):
    logits = _data((4, 6, 5), mean=200.0, scale=3.0)  # exp(200) overflows any float
    _compare(lambda: _Apply(lambda F, x: getattr(F, op)(x, axis=axis)), [logits])


@pytest.mark.parametrize("loss", ["SoftmaxCrossEntropyLoss", "L2Loss", "L1Loss",
                                  "SigmoidBinaryCrossEntropyLoss", "HuberLoss"])
def test_losses(loss):
    pred = _data((8, 10), mean=100.0, scale=3.0)
    if loss == "SoftmaxCrossEntropyLoss":
        label = RNG.integers(0, 10, size=8).astype(np.float16)
    elif loss == "SigmoidBinaryCrossEntropyLoss":
        label = RNG.integers(0, 2, size=(8, 10)).astype(np.float16)
    else:
        label = _data((8, 10), mean=100.0, scale=3.0)
    loss_block = getattr(gluon.loss, loss)
    _compare(lambda: _Apply(lambda F, p, y: loss_block()(p, y)), [pred, label])
