"""``mx.contrib.amp``: casting under ``amp.init`` (in a subprocess, since init patches
the operator functions for the whole process; the dtypes and graph nodes are MXNet
1.9.1's on a GPU) and dynamic loss scaling of a Trainer."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.contrib import amp
from gluonlite.contrib.amp import amp as amp_module

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def test_init_casts_operator_inputs():
    script = textwrap.dedent("""
        import numpy as np
        import gluonlite as mx
        from gluonlite.contrib import amp
        assert not amp._amp_initialized
        amp.init()
        assert amp._amp_initialized
        x = mx.nd.ones((2, 3))
        h = x.astype("float16")
        fc = mx.nd.FullyConnected(x, mx.nd.ones((4, 3)), mx.nd.ones((4,)), num_hidden=4)
        out = {"fc": fc.dtype, "softmax": mx.nd.softmax(h).dtype,
               "add": mx.nd.elemwise_add(h, x).dtype, "concat": mx.nd.concat(h, h, dim=0).dtype,
               "softrelu": mx.nd.Activation(h, act_type="softrelu").dtype,
               "relu": mx.nd.Activation(h, act_type="relu").dtype}
        print(sorted((k, np.dtype(v).name) for k, v in out.items()))
        print(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=4,
                                    name="fc").get_internals().list_outputs())
        net = mx.gluon.nn.Dense(2)
        net.initialize()
        net.hybridize()
        print(np.dtype(net(mx.nd.ones((3, 5))).dtype).name)
    """)
    env = dict(os.environ, PYTHONPATH=os.path.abspath(ROOT))
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    assert lines[0] == str(sorted({"fc": "float16", "softmax": "float32", "add": "float32",
                                   "concat": "float16", "softrelu": "float32",
                                   "relu": "float16"}.items()))
    assert lines[1] == str(["data", "amp_cast0_output", "fc_weight", "amp_cast1_output",
                            "fc_bias", "amp_cast2_output", "fc_output"])
    assert lines[2] == "float16"


@pytest.fixture
def amp_on(monkeypatch):
    """init_trainer's precondition without patching the operators."""
    monkeypatch.setattr(amp_module, "_amp_initialized", True)
    monkeypatch.setattr(amp_module, "_loss_scaler", amp.LossScaler())
    monkeypatch.setattr(amp_module, "_loss_scaler_taken", False)


def _net_and_trainer():
    net = mx.gluon.nn.Dense(2, in_units=3)
    net.initialize(mx.init.Constant(0.5))
    return net, mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})


def test_scaled_loss_gives_the_unscaled_step(amp_on):
    reference, ref_trainer = _net_and_trainer()
    net, trainer = _net_and_trainer()
    amp.init_trainer(trainer)
    x = mx.nd.array([[1, 2, 3], [-1, 0, 2]])
    with mx.autograd.record():
        loss = reference(x).sum()
    loss.backward()
    ref_trainer.step(2)
    with mx.autograd.record():
        loss = net(x).sum()
        with amp.scale_loss(loss, trainer) as scaled:
            scaled.backward()
    # d sum(Wx + b) / dW sums x over the batch; the gradient carries the loss scale
    np.testing.assert_allclose(net.weight.grad().asnumpy(), 2.0 ** 16 * np.array(
        [[0, 2, 5], [0, 2, 5]]))
    trainer.step(2)
    np.testing.assert_allclose(net.weight.data().asnumpy(), reference.weight.data().asnumpy(),
                               rtol=1e-6)


def test_overflow_skips_the_update_and_halves_the_scale(amp_on):
    net, trainer = _net_and_trainer()
    amp.init_trainer(trainer)
    scaler = trainer._amp_loss_scaler
    x = mx.nd.array([[1, 2, 3]])
    with mx.autograd.record():
        loss = net(x).sum()
        with amp.scale_loss(loss, trainer) as scaled:
            (scaled * float("inf")).backward()
    before = net.weight.data().asnumpy().copy()
    trainer.step(1)
    np.testing.assert_array_equal(net.weight.data().asnumpy(), before)
    # MXNet's scaler: the halved scale takes effect at the next step's check
    assert scaler._next_loss_scale == 2.0 ** 15 and scaler.loss_scale == 2.0 ** 16
    with mx.autograd.record():
        loss = net(x).sum()
        with amp.scale_loss(loss, trainer) as scaled:
            scaled.backward()
    amp.unscale(trainer)
    np.testing.assert_allclose(net.weight.grad().asnumpy(), [[1, 2, 3], [1, 2, 3]])
    assert trainer._scale == 1.0
    trainer.step(1)
    assert scaler.loss_scale == 2.0 ** 15
    assert not np.array_equal(net.weight.data().asnumpy(), before)


def test_errors(monkeypatch):
    monkeypatch.setattr(amp_module, "_amp_initialized", False)
    _, trainer = _net_and_trainer()
    with pytest.raises(AssertionError, match="amp.init"):
        amp.init_trainer(trainer)
    with pytest.raises(mx.base.MXNetError, match="bfloat16"):
        amp.init(target_dtype="bfloat16")
    assert "FullyConnected" in amp.list_lp16_ops()
