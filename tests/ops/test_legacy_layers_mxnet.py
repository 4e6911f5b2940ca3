"""``im2col``, ``col2im``, ``Correlation``, ``SpatialTransformer``, ``SVMOutput`` and
``IdentityAttachKLSparseReg`` against MXNet 1.9.1 (fixture ``legacy_layers.npz``, made by
``tests/fixtures/gen_legacy_layers.py``): outputs, input gradients, the auxiliary moving
average, graph structure (hidden outputs in JSON, auxiliary states) and errors."""
import ast
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError

FIXTURE = np.load(os.path.join(os.path.dirname(__file__), "..", "fixtures",
                               "legacy_layers.npz"))


def _cases(op):
    return sorted({k.split("/")[1] for k in FIXTURE.files if k.startswith(op + "/")})


def _get(op, case):
    prefix = f"{op}/{case}/"
    return {k[len(prefix):]: FIXTURE[k] for k in FIXTURE.files if k.startswith(prefix)}


def _tol(case):
    return (2e-5, 2e-6) if case.endswith("float32") else (1e-10, 1e-12)


def _imperative(op, f, names):
    attrs = ast.literal_eval(str(f["attrs"]))
    arrays = [mx.nd.array(f[n], dtype=f[n].dtype) for n in names]
    for a in arrays:
        a.attach_grad()
    with mx.autograd.record():
        y = getattr(mx.nd, op)(*arrays, **attrs)
    y.backward(mx.nd.array(f["head"], dtype=f["head"].dtype))
    return y.asnumpy(), [a.grad.asnumpy() for a in arrays]


_IMPERATIVE = [("im2col", ["data"]), ("col2im", ["data"]), ("Correlation", ["data1", "data2"]),
               ("SpatialTransformer", ["data", "loc"])]
_IMPERATIVE_CASES = [(op, names, case) for op, names in _IMPERATIVE for case in _cases(op)]


def test_fixture_has_every_case():
    assert {op for op, _, _ in _IMPERATIVE_CASES} == {op for op, _ in _IMPERATIVE}
    assert _cases("SVMOutput") and _cases("IdentityAttachKLSparseReg")


@pytest.mark.parametrize("op,names,case", _IMPERATIVE_CASES,
                         ids=[f"{op}-{case}" for op, _, case in _IMPERATIVE_CASES])
def test_outputs_and_gradients_match_mxnet(op, names, case):
    f = _get(op, case)
    rtol, atol = _tol(case)
    y, grads = _imperative(op, f, names)
    assert y.dtype == f["out"].dtype
    np.testing.assert_allclose(y, f["out"], rtol=rtol, atol=atol, err_msg=f"{op} forward")
    for n, g in zip(names, grads):
        np.testing.assert_allclose(g, f["d" + n], rtol=rtol, atol=10 * atol,
                                   err_msg=f"{op} gradient of {n}")


def _bound(op, f, attrs):
    data = mx.sym.var("data")
    if op == "SVMOutput":
        sym = mx.sym.SVMOutput(data, mx.sym.var("label"), name="op", **attrs)
        arrays = {"data": f["data"], "label": f["label"]}
    else:
        sym = getattr(mx.sym, op)(data, name="op", **attrs)
        arrays = {"data": f["data"]}
    args = {k: mx.nd.array(v, dtype=f["data"].dtype) for k, v in arrays.items()}
    grads = {"data": mx.nd.zeros(f["data"].shape, dtype=f["data"].dtype)}
    aux = {}
    if "avg0" in f:
        aux = {"op_moving_avg": mx.nd.array(f["avg0"], dtype=f["avg0"].dtype)}
    ex = sym.bind(mx.cpu(), args, args_grad=grads,
                  grad_req={"data": "write", "label": "null"}, aux_states=aux)
    return ex, aux


@pytest.mark.parametrize("op", ["SVMOutput", "IdentityAttachKLSparseReg"])
def test_bound_output_layers_match_mxnet(op):
    for case in _cases(op):
        f = _get(op, case)
        rtol, atol = _tol(case)
        attrs = ast.literal_eval(str(f["attrs"]))
        ex, aux = _bound(op, f, attrs)
        y = ex.forward(is_train=True)[0]
        np.testing.assert_allclose(y.asnumpy(), f["out"], rtol=rtol, atol=atol)
        ex.backward(mx.nd.array(f["head"], dtype=f["head"].dtype))
        np.testing.assert_allclose(ex.grad_dict["data"].asnumpy(), f["ddata"], rtol=rtol,
                                   atol=atol, err_msg=f"{op} {case} gradient")
        if aux:
            np.testing.assert_allclose(aux["op_moving_avg"].asnumpy(), f["avg1"], rtol=rtol,
                                       atol=atol, err_msg=f"{op} {case} moving_avg")


def test_svm_output_ignores_the_head_gradient_imperatively():
    f = _get("SVMOutput", "l2_default_float64")
    x, label = mx.nd.array(f["data"], dtype="float64"), mx.nd.array(f["label"])
    x.attach_grad()
    label.attach_grad()
    with mx.autograd.record():
        y = mx.nd.SVMOutput(x, label)
    y.backward(mx.nd.ones_like(y) * 7)
    np.testing.assert_allclose(x.grad.asnumpy(), f["ddata"], rtol=1e-12)
    assert not label.grad.asnumpy().any()


def test_graph_structure_matches_mxnet():
    d, l = mx.sym.var("data"), mx.sym.var("label")
    kl = mx.sym.IdentityAttachKLSparseReg(d, name="kl")
    assert kl.list_arguments() == ["data"]
    assert kl.list_auxiliary_states() == ["kl_moving_avg"]
    assert kl.infer_shape(data=(3, 4))[2] == [(4,)]
    svm = mx.sym.SVMOutput(d, l, name="svm")
    assert svm.list_outputs() == ["svm_output"]
    assert svm.infer_shape(data=(3, 4, 5))[0] == [(3, 4, 5), (3, 4)]
    corr = mx.sym.Correlation(d, l, name="c", kernel_size=3, max_displacement=2, pad_size=2,
                              stride1=2, stride2=2)
    assert corr.list_outputs() == ["c_output"]
    assert corr.infer_shape(data=(2, 3, 9, 10))[1] == [(2, 9, 4, 4)]
    st = mx.sym.SpatialTransformer(d, mx.sym.var("loc"), name="st", target_shape=(3, 4),
                                   transform_type="affine", sampler_type="bilinear")
    assert st.infer_shape(data=(2, 3, 9, 10), loc=(2, 6))[1] == [(2, 3, 3, 4)]
    # MXNet's Correlation and SpatialTransformer nodes have two hidden outputs
    for sym in (corr, st):
        assert json.loads(sym.tojson())["node_row_ptr"][-1] == 5
    i2c = mx.sym.im2col(d, kernel=(3, 3), stride=(2, 1), pad=(1, 1))
    assert i2c.infer_shape(data=(2, 3, 9, 10))[1] == [(2, 27, 50)]
    c2i = mx.sym.col2im(d, output_size=(9, 10), kernel=(3, 3), stride=(2, 1), pad=(1, 1))
    assert c2i.infer_shape(data=(2, 27, 50))[1] == [(2, 3, 9, 10)]


def test_correlation_in_a_hybridized_block():
    f = _get("Correlation", "k3_d2_p2_float64")
    attrs = ast.literal_eval(str(f["attrs"]))

    class Corr(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, a, b):
            return F.Correlation(a, b, **attrs)

    net = Corr()
    net.hybridize()
    a, b = mx.nd.array(f["data1"], dtype="float64"), mx.nd.array(f["data2"], dtype="float64")
    a.attach_grad()
    with mx.autograd.record():
        y = net(a, b)
    y.backward(mx.nd.array(f["head"], dtype="float64"))
    np.testing.assert_allclose(y.asnumpy(), f["out"], rtol=1e-10)
    np.testing.assert_allclose(a.grad.asnumpy(), f["ddata1"], rtol=1e-10, atol=1e-12)


def test_errors_name_the_operator_and_shapes():
    with pytest.raises(MXNetError, match=r"Correlation.*odd"):
        mx.nd.Correlation(mx.nd.ones((1, 1, 6, 6)), mx.nd.ones((1, 1, 6, 6)), kernel_size=2)
    with pytest.raises(MXNetError, match=r"Correlation.*\(1, 2, 6, 6\)"):
        mx.nd.Correlation(mx.nd.ones((1, 1, 6, 6)), mx.nd.ones((1, 2, 6, 6)))
    with pytest.raises(MXNetError, match=r"Correlation.*too small"):
        mx.nd.Correlation(mx.nd.ones((1, 1, 4, 4)), mx.nd.ones((1, 1, 4, 4)),
                          max_displacement=3)
    with pytest.raises(MXNetError, match=r"SpatialTransformer.*\(2, 5\)"):
        mx.nd.SpatialTransformer(mx.nd.ones((2, 1, 4, 4)), mx.nd.ones((2, 5)),
                                 target_shape=(2, 2), transform_type="affine",
                                 sampler_type="bilinear")
    with pytest.raises(MXNetError, match=r"SpatialTransformer.*target_shape"):
        mx.nd.SpatialTransformer(mx.nd.ones((2, 1, 4, 4)), mx.nd.ones((2, 6)),
                                 transform_type="affine", sampler_type="bilinear")
    with pytest.raises(MXNetError, match=r"SpatialTransformer.*sampler_type"):
        mx.nd.SpatialTransformer(mx.nd.ones((2, 1, 4, 4)), mx.nd.ones((2, 6)),
                                 target_shape=(2, 2), transform_type="affine")
    with pytest.raises(MXNetError, match=r"SVMOutput.*\(3, 2\)"):
        mx.nd.SVMOutput(mx.nd.ones((3, 4)), mx.nd.ones((3, 2)))
    with pytest.raises(MXNetError, match=r"im2col.*\(2, 3, 4\)"):
        mx.nd.im2col(mx.nd.ones((2, 3, 4)), kernel=(2, 2))
    with pytest.raises(MXNetError, match=r"col2im.*\(2, 12, 7\)"):
        mx.nd.col2im(mx.nd.ones((2, 12, 7)), output_size=(4, 4), kernel=(2, 2))
    with pytest.raises(MXNetError, match=r"IdentityAttachKLSparseReg.*\(5,\)"):
        mx.nd.IdentityAttachKLSparseReg(mx.nd.ones((5,)), mx.nd.ones((5,)))
