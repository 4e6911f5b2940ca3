"""nn layer API against MXNet 1.9.1: constructor reprs, parameter names and deferred
shapes, construction errors (fixture ``nn_layers.json``), and behaviour checked without
numeric fixtures: containers, ``cast('float16')``, Dropout statistics, default
initializers, BatchNormReLU as BatchNorm + ReLU."""
import json
import os
import warnings

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd
from gluonlite.base import MXNetError
from gluonlite.gluon import nn
from gluonlite.gluon.contrib import nn as cnn
from gluonlite.gluon.parameter import DeferredInitializationError

with open(os.path.join(os.path.dirname(__file__), "..", "fixtures", "nn_layers.json")) as _f:
    _FIXTURE = json.load(_f)
REPRS = _FIXTURE["reprs"]
ERRORS = _FIXTURE["errors"]


def build(code: str):
    scope = {"nn": nn, "cnn": cnn, "mx": mx}
    with mx.name.NameManager(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(code, scope)  # noqa: S102  (trusted fixture code strings)
    return scope["net"]


def param_info(net):
    return [[k, list(v.shape) if v.shape is not None else None, str(np.dtype(v.dtype)),
             v.grad_req] for k, v in net.collect_params().items()]


@pytest.mark.parametrize("index", range(len(REPRS)), ids=[r["code"][:50] for r in REPRS])
def test_construction_matches_mxnet(index):
    case = REPRS[index]
    net = build(case["code"])
    assert repr(net) == case["repr"]
    assert param_info(net) == case["params"]
    assert (net.prefix, net.name) == (case["prefix"], case["name"])


@pytest.mark.parametrize("index", range(len(ERRORS)), ids=[e["code"][:50] for e in ERRORS])
def test_construction_errors_match_mxnet(index):
    case = ERRORS[index]
    builtin = {"AssertionError": AssertionError, "ValueError": ValueError}[case["type"]]
    with pytest.raises(builtin) as info:
        build(case["code"])
    assert isinstance(info.value, MXNetError)
    assert str(info.value) == case["message"]


# -- containers ------------------------------------------------------------------------
def _mlp(cls):
    net = cls()
    with net.name_scope():
        net.add(nn.Dense(4, activation="relu"), nn.Dense(3), nn.Dense(2))
    return net


@pytest.mark.parametrize("cls", [nn.Sequential, nn.HybridSequential])
def test_container_indexing(cls):
    net = _mlp(cls)
    children = list(net._children.values())
    assert len(net) == 3
    assert net[1] is children[1] and net[-1] is children[2]
    part = net[1:]
    assert type(part) is cls
    assert part.prefix == net.prefix
    assert list(part._children.values()) == children[1:]
    assert len(net[:0]) == 0


@pytest.mark.parametrize("cls", [nn.Sequential, nn.HybridSequential])
def test_container_slice_runs_like_the_chain(cls):
    net = _mlp(cls)
    net.initialize()
    x = mx.nd.array(np.random.default_rng(0).standard_normal((5, 6)))
    full = net(x)
    head = net[:1](x)
    np.testing.assert_allclose(net[1:](head).asnumpy(), full.asnumpy(), rtol=1e-6)


def test_sequential_hybridize_warns_when_all_children_hybrid():
    net = _mlp(nn.Sequential)
    with pytest.warns(UserWarning, match="Consider using HybridSequential"):
        net.hybridize()
    mixed = nn.Sequential()
    mixed.add(nn.Dense(2), nn.Lambda("tanh"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mixed.hybridize()


@pytest.mark.parametrize("hybridize", [False, True])
def test_sequential_passes_tuple_tails_on(hybridize):
    net = nn.HybridSequential()
    net.add(nn.HybridLambda(lambda F, x: (x + 1, x * 2)),
            nn.HybridLambda(lambda F, a, b: a * b))
    if hybridize:
        net.hybridize()
    x = mx.nd.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(net(x).asnumpy(), (x.asnumpy() + 1) * x.asnumpy() * 2)


def test_hybrid_sequential_rejects_plain_blocks():
    with pytest.raises(ValueError, match="HybridBlock"):
        nn.HybridSequential().add(nn.Lambda("tanh"))


# -- dtypes ----------------------------------------------------------------------------
@pytest.mark.parametrize("hybridize", [False, True])
def test_cast_float16_keeps_batchnorm_float32(hybridize):
    net = nn.HybridSequential(prefix="net_")
    with net.name_scope():
        net.add(nn.Dense(3, in_units=3), nn.BatchNorm(in_channels=3), nn.PReLU())
    net.initialize()
    net.cast("float16")
    dtypes = {k[len("net_"):]: np.dtype(p.dtype).name for k, p in
              net.collect_params().items()}
    assert dtypes == {"dense0_weight": "float16", "dense0_bias": "float16",
                      "batchnorm0_gamma": "float32", "batchnorm0_beta": "float32",
                      "batchnorm0_running_mean": "float32", "batchnorm0_running_var": "float32",
                      "prelu0_alpha": "float16"}
    assert all(p.data().dtype == np.dtype(p.dtype) for p in net.collect_params().values())
    if hybridize:
        net.hybridize()
    x = mx.nd.array(np.random.default_rng(1).standard_normal((4, 3))).astype("float16")
    assert net(x).dtype == np.float16
    bn = nn.BatchNorm(in_channels=3)
    bn.initialize()
    bn.cast(np.float16)
    assert bn.gamma.dtype == "float32" and bn(x).dtype == np.float16


def test_dense_and_embedding_dtype_argument():
    dense = nn.Dense(2, in_units=3, dtype="float64")
    emb = nn.Embedding(4, 2, dtype="float16")
    for layer in (dense, emb):
        layer.initialize()
    assert dense.weight.data().dtype == np.float64 and dense.bias.data().dtype == np.float64
    assert dense(mx.nd.ones((1, 3), dtype="float64")).dtype == np.float64
    assert emb(mx.nd.array([0, 3])).dtype == np.float16


# -- dropout ---------------------------------------------------------------------------
@pytest.mark.parametrize("hybridize", [False, True])
def test_dropout_statistics(hybridize):
    net = nn.Dropout(0.4, axes=(1,))
    if hybridize:
        net.hybridize()
    x = mx.nd.array(np.random.default_rng(2).uniform(1, 2, (64, 8, 32)))
    np.testing.assert_array_equal(net(x).asnumpy(), x.asnumpy())  # predict: identity
    with autograd.record():
        y = net(x).asnumpy()
    kept = y != 0
    np.testing.assert_allclose(y[kept], x.asnumpy()[kept] / 0.6, rtol=1e-6)
    # one mask per (sample, position), shared along axis 1
    assert (kept == kept[:, :1, :]).all()
    assert abs(1 - kept[:, 0, :].mean() - 0.4) < 0.08


# -- initial values ----------------------------------------------------------------------
def test_default_initializers():
    layers = [nn.Dense(2, in_units=3), nn.BatchNorm(in_channels=3), nn.PReLU(in_channels=2),
              nn.LayerNorm(in_channels=3), nn.InstanceNorm(in_channels=3), nn.GroupNorm(2),
              nn.Conv2D(2, 3, in_channels=1)]
    expect = {"bias": 0.0, "gamma": 1.0, "beta": 0.0, "running_mean": 0.0,
              "running_var": 1.0, "alpha": 0.25}
    for layer in layers:
        layer.initialize(mx.init.Uniform(5))
        for attr, param in layer._reg_params.items():
            values = param.data().asnumpy()
            if attr in expect:
                np.testing.assert_array_equal(values, expect[attr], err_msg=param.name)
            else:  # the weights take the global initializer
                assert np.abs(values).max() > 0.25, param.name


def test_deferred_parameters_raise_before_first_forward():
    net = nn.Dense(3)
    net.initialize()
    with pytest.raises(DeferredInitializationError):
        net.weight.data()
    net(mx.nd.ones((2, 5)))
    assert net.weight.shape == (3, 5)


def test_alias_prefixes():
    with mx.name.NameManager():
        names = [nn.Activation("relu").prefix, nn.Activation("relu").prefix,
                 nn.MaxPool2D().prefix, nn.GlobalAvgPool1D().prefix, nn.Conv2D(1, 1).prefix,
                 nn.Conv1DTranspose(1, 1).prefix, nn.Dense(1, activation="tanh").act.prefix]
    assert names == ["relu0_", "relu1_", "pool0_", "pool1_", "conv0_", "conv1_",
                     "dense0_tanh_"]


# -- BatchNormReLU -------------------------------------------------------------------------
@pytest.mark.parametrize("hybridize", [False, True])
def test_batchnorm_relu_is_batchnorm_then_relu(hybridize):
    rng = np.random.default_rng(3)
    fused, plain = nn.BatchNormReLU(in_channels=3), nn.BatchNorm(in_channels=3)
    values = [rng.standard_normal(3), rng.standard_normal(3), rng.standard_normal(3) * 0.1,
              rng.uniform(0.5, 1.5, 3)]
    for layer in (fused, plain):
        layer.initialize()
        for p, v in zip(layer.collect_params().values(), values):
            p.set_data(mx.nd.array(v))
        if hybridize:
            layer.hybridize()
    x = rng.standard_normal((4, 3, 5))
    dy = rng.standard_normal((4, 3, 5))
    results = []
    for layer, post in ((fused, lambda y: y), (plain, mx.nd.relu)):
        xa = mx.nd.array(x)
        xa.attach_grad()
        pred = post(layer(xa)).asnumpy()
        with autograd.record():
            y = post(layer(xa))
        y.backward(mx.nd.array(dy))
        results.append([pred, y.asnumpy(), xa.grad.asnumpy(), layer.gamma.grad().asnumpy(),
                        layer.beta.grad().asnumpy(), layer.running_mean.data().asnumpy(),
                        layer.running_var.data().asnumpy()])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


class _MXNetStyleDense(mx.gluon.HybridBlock):
    """User code in MXNet's own style: the optional bias passed positionally as None."""

    def __init__(self, use_bias, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.weight = self.params.get("weight", shape=(2, 0), allow_deferred_init=True)
            self.bias = self.params.get("bias", shape=(2,), init="zeros") if use_bias else None

    def hybrid_forward(self, F, x, weight, bias=None):
        return F.FullyConnected(x, weight, bias, no_bias=bias is None, num_hidden=2)


@pytest.mark.parametrize("use_bias", [False, True])
def test_optional_input_given_as_none(use_bias):
    net = _MXNetStyleDense(use_bias)
    net.initialize()
    x = mx.nd.array(np.arange(6.0).reshape(2, 3))
    imperative = net(x).asnumpy()
    expected = x.asnumpy() @ net.weight.data().asnumpy().T
    np.testing.assert_allclose(imperative, expected, rtol=1e-6)
    net.hybridize()
    np.testing.assert_allclose(net(x).asnumpy(), expected, rtol=1e-6)


# -- channel-last convolutions ---------------------------------------------------------------
# MXNet 1.9.1's pip build cannot compute these on the CPU (its MKL-DNN primitive is
# refused), so they are checked against the channel-first layer on transposed data.
_CHANNEL_LAST = [
    ("Conv2D", dict(channels=4, kernel_size=(3, 2), strides=(2, 1), padding=1, dilation=(1, 2),
                    groups=2), "NHWC", (2, 7, 6, 4)),
    ("Conv3D", dict(channels=3, kernel_size=2, padding=(1, 0, 1)), "NDHWC", (1, 3, 4, 4, 2)),
    ("Conv2DTranspose", dict(channels=4, kernel_size=3, strides=2, padding=1,
                             output_padding=1, groups=2), "NHWC", (2, 3, 4, 2)),
    ("Conv3DTranspose", dict(channels=2, kernel_size=2, strides=(1, 2, 1)), "NDHWC",
     (1, 2, 3, 2, 3)),
]


@pytest.mark.parametrize("hybridize", [False, True])
@pytest.mark.parametrize("cls,kwargs,layout,shape", _CHANNEL_LAST,
                         ids=[c[0] for c in _CHANNEL_LAST])
def test_channel_last_convolution_matches_channel_first(cls, kwargs, layout, shape, hybridize):
    rng = np.random.default_rng(5)
    last = getattr(nn, cls)(layout=layout, in_channels=shape[-1], **kwargs)
    first = getattr(nn, cls)(in_channels=shape[-1], **kwargs)
    for layer in (last, first):
        layer.initialize()
        if hybridize:
            layer.hybridize()
    weight = rng.standard_normal(last.weight.shape)
    bias = rng.standard_normal(last.bias.shape)
    last.weight.set_data(mx.nd.array(weight))
    first.weight.set_data(mx.nd.array(np.moveaxis(weight, -1, 1)))
    for layer in (last, first):
        layer.bias.set_data(mx.nd.array(bias))
    x = rng.standard_normal(shape)
    results = []
    for layer, data in ((last, x), (first, np.moveaxis(x, -1, 1))):
        xa = mx.nd.array(data)
        xa.attach_grad()
        with autograd.record():
            y = layer(xa)
        if layer is last:
            dy = np.arange(y.size, dtype=np.float64).reshape(y.shape) % 7 - 3
            y.backward(mx.nd.array(dy))
        else:
            y.backward(mx.nd.array(np.moveaxis(dy, -1, 1)))
        results.append((y.asnumpy(), xa.grad.asnumpy(), layer.weight.grad().asnumpy(),
                        layer.bias.grad().asnumpy()))
    (y_l, dx_l, dw_l, db_l), (y_f, dx_f, dw_f, db_f) = results
    np.testing.assert_allclose(np.moveaxis(y_l, -1, 1), y_f, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.moveaxis(dx_l, -1, 1), dx_f, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.moveaxis(dw_l, -1, 1), dw_f, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(db_l, db_f, rtol=1e-5, atol=1e-5)
