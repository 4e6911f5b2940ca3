"""Deformable convolutions (v1, v2), ``PSROIPooling``, ``DeformablePSROIPooling`` and the ``gluon.contrib.cnn`` layers
against MXNet 1.9.1 (``tests/fixtures/gen_contrib_deformable.py``): outputs and the
gradients of every input, imperative and hybridized; parameter names and shapes of the
layers.  MXNet 1.9.1's CPU build has no backward for the modulated operator, so its
gradients are checked against finite differences (here and in the op harness)."""
import ast
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.gluon.contrib import cnn

_FIX = np.load(os.path.join(os.path.dirname(__file__), "..", "fixtures",
                            "contrib_deformable.npz"))


def _cases(prefix):
    return sorted({k.split("/")[1] for k in _FIX.files if k.startswith(prefix + "/")})


def _input_names(op, attrs):
    names = ["data", "offset"] + (["mask"] if op.startswith("Mod") else []) + ["weight"]
    return names + ([] if attrs.get("no_bias") else ["bias"])


class _Net(mx.gluon.HybridBlock):
    def __init__(self, name, attrs):
        super().__init__()
        self._op, self._attrs = name, attrs

    def hybrid_forward(self, F, *xs):
        return getattr(F.contrib, self._op)(*xs, **self._attrs)


def _run(op, names, key, attrs, hybridize):
    arrays = [mx.nd.array(_FIX[f"{key}/{n}"]) for n in names]
    net = _Net(op, attrs)
    if hybridize:
        net.hybridize()
    for a in arrays:
        a.attach_grad()
    with mx.autograd.record():
        y = net(*arrays)
    np.testing.assert_allclose(y.asnumpy(), _FIX[f"{key}/out"], rtol=1e-4, atol=1e-5,
                               err_msg=f"{key} forward")
    if f"{key}/head" not in _FIX.files:
        return
    y.backward(mx.nd.array(_FIX[f"{key}/head"]))
    for n, a in zip(names, arrays):
        if n == "rois":
            assert not a.grad.asnumpy().any()
            continue
        expected = _FIX[f"{key}/d{n}"]
        np.testing.assert_allclose(a.grad.asnumpy(), expected, rtol=1e-4,
                                   atol=1e-4 * max(1.0, np.abs(expected).max()),
                                   err_msg=f"{key} gradient of {n}")


CONV = [(op, case) for op in ("DeformableConvolution", "ModulatedDeformableConvolution")
        for case in _cases(op)]


@pytest.mark.parametrize("hybridize", [False, True])
@pytest.mark.parametrize("op,case", CONV, ids=[f"{o}-{c}" for o, c in CONV])
def test_deformable_conv_matches_mxnet(op, case, hybridize):
    key = f"{op}/{case}"
    attrs = ast.literal_eval(str(_FIX[f"{key}/attrs"]))
    _run(op, _input_names(op, attrs), key, attrs, hybridize)


@pytest.mark.parametrize("hybridize", [False, True])
@pytest.mark.parametrize("case", _cases("PSROIPooling"))
def test_psroipooling_matches_mxnet(case, hybridize):
    key = f"PSROIPooling/{case}"
    attrs = ast.literal_eval(str(_FIX[f"{key}/attrs"]))
    _run("PSROIPooling", ["data", "rois"], key, attrs, hybridize)


@pytest.mark.parametrize("hybridize", [False, True])
@pytest.mark.parametrize("case", _cases("DeformablePSROIPooling"))
def test_deformable_psroipooling_matches_mxnet(case, hybridize):
    key = f"DeformablePSROIPooling/{case}"
    attrs = ast.literal_eval(str(_FIX[f"{key}/attrs"]))
    names = ["data", "rois"] + ([] if attrs.get("no_trans") else ["trans"])
    _run("DeformablePSROIPooling", names, key, attrs, hybridize)


def _numeric_grad(fn, arrays, i, head, eps=1e-6):
    base = arrays[i]
    grad = np.zeros_like(base)
    flat = base.reshape(-1)
    for j in range(flat.size):
        old = flat[j]
        flat[j] = old + eps
        plus = (fn(arrays) * head).sum()
        flat[j] = old - eps
        minus = (fn(arrays) * head).sum()
        flat[j] = old
        grad.reshape(-1)[j] = (plus - minus) / (2 * eps)
    return grad


@pytest.mark.parametrize("case", ["groups_dgroups", "exact_pixels", "far_outside"])
def test_modulated_gradients_by_finite_differences(case):
    """Float64 gradients of the modulated operator on MXNet's fixture inputs (away from
    the exact-pixel kinks: the offsets are nudged off integers)."""
    key = f"ModulatedDeformableConvolution/{case}"
    attrs = ast.literal_eval(str(_FIX[f"{key}/attrs"]))
    names = _input_names("ModulatedDeformableConvolution", attrs)
    arrays = [_FIX[f"{key}/{n}"].astype(np.float64) for n in names]
    arrays[1] = arrays[1] + 0.173
    head = np.random.default_rng(0).standard_normal(_FIX[f"{key}/out"].shape)

    def fn(arrs):
        return mx.nd.contrib.ModulatedDeformableConvolution(
            *[mx.nd.array(a, dtype=np.float64) for a in arrs], **attrs).asnumpy()

    nds = [mx.nd.array(a, dtype=np.float64) for a in arrays]
    for a in nds:
        a.attach_grad()
    with mx.autograd.record():
        y = mx.nd.contrib.ModulatedDeformableConvolution(*nds, **attrs)
    y.backward(mx.nd.array(head, dtype=np.float64))
    for i, n in enumerate(names):
        np.testing.assert_allclose(nds[i].grad.asnumpy(), _numeric_grad(fn, arrays, i, head),
                                   rtol=1e-5, atol=1e-6, err_msg=f"{case} gradient of {n}")


LAYERS = _cases("layer")


def _layer(case):
    kwargs = ast.literal_eval(str(_FIX[f"layer/{case}/kwargs"]))
    return getattr(cnn, kwargs.pop("cls"))(**kwargs)


@pytest.mark.parametrize("hybridize", [False, True])
@pytest.mark.parametrize("case", LAYERS)
def test_layers_match_mxnet(case, hybridize):
    pre = f"layer/{case}"
    layer = _layer(case)
    layer.initialize()
    x = mx.nd.array(_FIX[f"{pre}/x"])
    layer(x)
    params = layer.collect_params()
    mx_names = [str(n) for n in _FIX[f"{pre}/names"]]
    mx_prefix = mx_names[0][:mx_names[0].index("_", mx_names[0].index("conv")) + 1]
    ours = [k[len(layer.prefix):] for k in params.keys()]
    assert ours == [n[len(mx_prefix):] for n in mx_names]
    assert layer.prefix.rstrip("0123456789_") == mx_prefix.rstrip("0123456789_")
    assert repr([params[k].shape for k in params.keys()]) == str(_FIX[f"{pre}/shapes"])
    for k, n in zip(params.keys(), mx_names):
        params[k].set_data(mx.nd.array(_FIX[f"{pre}/p/{n}"]))
    if hybridize:
        layer.hybridize()
    x.attach_grad()
    with mx.autograd.record():
        y = layer(x)
    np.testing.assert_allclose(y.asnumpy(), _FIX[f"{pre}/out"], rtol=1e-4, atol=1e-5)
    if f"{pre}/head" not in _FIX.files:
        return
    y.backward(mx.nd.array(_FIX[f"{pre}/head"]))
    np.testing.assert_allclose(x.grad.asnumpy(), _FIX[f"{pre}/dx"], rtol=1e-4, atol=1e-4)
    for k, n in zip(params.keys(), mx_names):
        np.testing.assert_allclose(params[k].grad().asnumpy(), _FIX[f"{pre}/g/{n}"],
                                   rtol=1e-4, atol=1e-4, err_msg=k)


@pytest.mark.parametrize("cls", [cnn.DeformableConvolution, cnn.ModulatedDeformableConvolution])
def test_fresh_layer_is_a_plain_convolution(cls):
    """Offset convolution initialised to zeros: regular sampling (v2: mask 2*sigmoid(0)=1)."""
    layer = cls(5, kernel_size=3, padding=1, strides=2, in_channels=4)
    layer.initialize(mx.init.Xavier())
    for name, p in layer.collect_params().items():
        if "offset" in name:
            assert not p.data().asnumpy().any()
    x = mx.nd.random.normal(shape=(2, 4, 7, 7))
    y = layer(x)
    ref = mx.nd.Convolution(x, layer.deformable_conv_weight.data(),
                            layer.deformable_conv_bias.data(), kernel=(3, 3), pad=(1, 1),
                            stride=(2, 2), num_filter=5)
    np.testing.assert_allclose(y.asnumpy(), ref.asnumpy(), rtol=1e-5, atol=1e-5)


def test_layer_repr_and_symbol_names():
    layer = cnn.DeformableConvolution(4, kernel_size=3, padding=1, in_channels=3)
    assert repr(layer) == ("DeformableConvolution(None -> 4, kernel_size=(3, 3), "
                           "stride=(1, 1), padding=(1, 1))")
    layer.initialize()
    layer(mx.nd.ones((1, 3, 5, 5)))
    assert repr(layer).startswith("DeformableConvolution(3 -> 4,")
    sym = layer(mx.sym.var("data"))
    args = sym.list_arguments()
    assert args[0] == "data" and all(a.startswith(layer.prefix) for a in args[1:])
    assert any(n.endswith("fwd") for n in [sym.name])


def test_symbol_interface():
    s = mx.sym.contrib.DeformableConvolution(mx.sym.var("data"), mx.sym.var("offset"),
                                             kernel=(3, 3), num_filter=4, pad=(1, 1),
                                             num_deformable_group=2, name="dc")
    assert s.list_arguments() == ["data", "offset", "dc_weight", "dc_bias"]
    args, outs, _ = s.infer_shape(data=(2, 4, 7, 7), offset=(2, 36, 7, 7))
    assert args == [(2, 4, 7, 7), (2, 36, 7, 7), (4, 4, 3, 3), (4,)]
    assert outs == [(2, 4, 7, 7)]
    m = mx.sym.contrib.ModulatedDeformableConvolution(
        mx.sym.var("data"), mx.sym.var("offset"), mx.sym.var("mask"), kernel=(3, 3),
        num_filter=4, pad=(1, 1), num_deformable_group=2, name="mdc")
    assert m.list_arguments() == ["data", "offset", "mask", "mdc_weight", "mdc_bias"]
    args, outs, _ = m.infer_shape(data=(2, 4, 7, 7), offset=(2, 36, 7, 7), mask=(2, 18, 7, 7))
    assert args[3:] == [(4, 4, 3, 3), (4,)] and outs == [(2, 4, 7, 7)]
    back = mx.sym.load_json(m.tojson())
    assert back.list_arguments() == m.list_arguments()
    p = mx.sym.contrib.PSROIPooling(mx.sym.var("d"), mx.sym.var("r"), spatial_scale=1.0,
                                    output_dim=2, pooled_size=3)
    assert p.infer_shape(d=(1, 18, 5, 5), r=(4, 5))[1] == [(4, 2, 3, 3)]
    kw = dict(spatial_scale=1.0, output_dim=2, pooled_size=2, group_size=2)
    d = mx.sym.contrib.DeformablePSROIPooling(mx.sym.var("d"), mx.sym.var("r"),
                                              mx.sym.var("t"), **kw)
    assert d.list_arguments() == ["d", "r", "t"] and len(d.list_outputs()) == 1
    assert d.infer_shape(d=(1, 8, 6, 6), r=(3, 5), t=(3, 2, 2, 2))[1] == [(3, 2, 2, 2)]
    d = mx.sym.contrib.DeformablePSROIPooling(mx.sym.var("d"), mx.sym.var("r"),
                                              no_trans=True, **kw)
    assert d.list_arguments() == ["d", "r"]


@pytest.mark.parametrize("call,match", [
    (lambda: mx.nd.contrib.DeformableConvolution(
        mx.nd.ones((1, 4, 5, 5)), mx.nd.zeros((1, 18, 4, 5)), mx.nd.ones((2, 4, 3, 3)),
        kernel=(3, 3), pad=(1, 1), num_filter=2, no_bias=True), "offset must be"),
    (lambda: mx.nd.contrib.DeformableConvolution(
        mx.nd.ones((1, 3, 5, 5)), mx.nd.zeros((1, 36, 5, 5)), mx.nd.ones((2, 3, 3, 3)),
        kernel=(3, 3), pad=(1, 1), num_filter=2, num_deformable_group=2, no_bias=True),
     "num_deformable_group"),
    (lambda: mx.nd.contrib.ModulatedDeformableConvolution(
        mx.nd.ones((3, 2, 5, 5)), mx.nd.zeros((3, 18, 5, 5)), mx.nd.ones((3, 9, 5, 5)),
        mx.nd.ones((2, 2, 3, 3)), kernel=(3, 3), pad=(1, 1), num_filter=2, no_bias=True,
        im2col_step=2), "im2col_step"),
    (lambda: mx.nd.contrib.ModulatedDeformableConvolution(
        mx.nd.ones((1, 4, 5, 5)), mx.nd.zeros((1, 36, 5, 5)), mx.nd.ones((1, 18, 5, 5)),
        mx.nd.ones((3, 4, 3, 3)), kernel=(3, 3), pad=(1, 1), num_filter=3, no_bias=True,
        num_deformable_group=2), "num_filter"),
    (lambda: mx.nd.contrib.DeformableConvolution(
        mx.nd.ones((1, 3, 5)), mx.nd.zeros((1, 6, 5)), mx.nd.ones((2, 3, 3)),
        kernel=(3,), num_filter=2, no_bias=True), "2-D"),
    (lambda: mx.nd.contrib.PSROIPooling(mx.nd.ones((1, 17, 5, 5)), mx.nd.ones((1, 5)),
                                        spatial_scale=1.0, output_dim=2, pooled_size=3),
     "channels"),
])
def test_errors_name_the_operator(call, match):
    with pytest.raises(mx.base.MXNetError, match=match):
        call()
