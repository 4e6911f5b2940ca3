"""Symbol behaviour without a fixture: naming scopes, attributes, composition, indexing,
copies, operators' error paths, random dispatch, inference directions."""
import copy
import json
import pickle

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import NotImplementedForSymbol


def test_name_manager_counts_per_hint_and_nests():
    with mx.name.NameManager():
        d = mx.sym.var("d")
        assert mx.sym.FullyConnected(d, num_hidden=2).name == "fullyconnected0"
        assert mx.sym.FullyConnected(d, num_hidden=2).name == "fullyconnected1"
        assert mx.sym.relu(d).name == "relu0"
        with mx.name.NameManager():
            assert mx.sym.FullyConnected(d, num_hidden=2).name == "fullyconnected0"
        assert mx.sym.FullyConnected(d, num_hidden=2).name == "fullyconnected2"
        with mx.name.Prefix("net_"):
            fc = mx.sym.FullyConnected(d, num_hidden=2, name="fc")
            assert fc.list_arguments() == ["d", "net_fc_weight", "net_fc_bias"]
            assert mx.sym.relu(d).name == "net_relu0"
        assert mx.name.NameManager.current.get("given", "x") == "given"


def test_attr_scope_merges_and_checks_strings():
    with mx.AttrScope(ctx_group="a", __x__="1"):
        with mx.AttrScope(__x__="2"):
            assert mx.AttrScope.current.get({"__y__": "3"}) == {
                "ctx_group": "a", "__x__": "2", "__y__": "3"}
            v = mx.sym.var("v")
        assert mx.AttrScope.current.get(None) == {"ctx_group": "a", "__x__": "1"}
    assert mx.AttrScope.current.get(None) == {}
    assert v.list_attr() == {"__ctx_group__": "a", "ctx_group": "a", "__x__": "2"}
    with pytest.raises(ValueError, match="string"):
        mx.AttrScope(x=1)


def test_var_attributes():
    class Init:
        def dumps(self):
            return '["xavier", {}]'
    v = mx.sym.var("w", shape=(0, 3), dtype=np.float64, lr_mult=0.5, init=Init(),
                   stype="row_sparse")
    assert v.attr("__shape__") == "(0, 3)" and v.attr("__dtype__") == "1"
    assert v.attr("__init__") == '["xavier", {}]' and v.attr("__storage_type__") == "1"
    assert v.attr("lr_mult") == "0.5" and v.list_attr()["lr_mult"] == "0.5"
    assert mx.sym.Variable is mx.sym.var
    with pytest.raises(ValueError, match="double underscores"):
        mx.sym.var("x", foo="bar")
    with pytest.raises(TypeError):
        mx.sym.var(3)


def test_set_attr_and_operator_params():
    d = mx.sym.var("d")
    fc = mx.sym.FullyConnected(d, num_hidden=2, name="fc")
    fc._set_attr(ctx_group="g", num_hidden="4", __z__="1")
    assert fc.attr("ctx_group") == "g" and fc.attr("__ctx_group__") == "g"
    assert fc.attr("num_hidden") == "4"
    assert fc.infer_shape(d=(1, 3))[1] == [(1, 4)]
    with pytest.raises(mx.MXNetError, match="foo"):
        fc._set_attr(foo="x")
    with pytest.raises(ValueError):
        fc._set_attr(__z__=1)
    with pytest.raises(mx.MXNetError):
        mx.sym.Group([fc, d])._set_attr(__z__="2")
    assert mx.sym.Group([fc, d]).attr("num_hidden") is None


def test_compose_by_name_and_position():
    with mx.name.NameManager():
        d = mx.sym.var("data")
        net = mx.sym.FullyConnected(d, num_hidden=3, name="fc")
        x = mx.sym.var("x")
        e = mx.sym.exp(x)
        by_name = net(data=e, fc_bias=mx.sym.var("b"))
    assert by_name.list_arguments() == ["x", "fc_weight", "b"]
    assert net.list_arguments() == ["data", "fc_weight", "fc_bias"]  # original untouched
    by_pos = net(e)  # positional composition: list_arguments order (MXNet refuses it)
    assert by_pos.list_arguments() == ["x", "fc_weight", "fc_bias"]
    assert net(data=e, name="renamed").name == "renamed" and net.name == "fc"
    with pytest.raises(mx.MXNetError, match=r"nope not found[\s\S]*\[1\]fc_weight"):
        net(nope=e)
    with pytest.raises(TypeError):
        net(e, fc_weight=e)
    with pytest.raises(TypeError):
        net(data=1)
    with pytest.raises(mx.MXNetError, match="single output"):
        net(data=mx.sym.Group([x, e]))


def test_indexing_iteration_and_groups():
    d = mx.sym.var("d")
    s = mx.sym.split(d, num_outputs=3, name="sp")
    assert s.name == "sp" and len(s) == 3
    assert s[2].list_outputs() == ["sp_output2"]
    assert s["sp_output1"].list_outputs() == ["sp_output1"]
    assert s[1:].list_outputs() == ["sp_output1", "sp_output2"]
    assert [x.list_outputs()[0] for x in s] == s.list_outputs()
    with pytest.raises(ValueError, match="nope"):
        s["nope"]
    with pytest.raises(IndexError):
        s[3]
    g = mx.sym.Group([mx.sym.Group([d, s[0]]), d])
    assert g.list_outputs() == ["d", "sp_output0", "d"] and g.name is None
    with pytest.raises(TypeError):
        mx.sym.Group([d, 1])


def test_copy_and_pickle_are_independent():
    d = mx.sym.var("d")
    net = mx.sym.FullyConnected(d, num_hidden=2, name="fc")
    for other in (copy.copy(net), copy.deepcopy(net), pickle.loads(pickle.dumps(net))):
        assert other.tojson() == net.tojson()
        other._set_attr(__k__="v")
        assert net.attr("__k__") is None


def test_operator_errors():
    a = mx.sym.var("a")
    with pytest.raises(TypeError, match="str"):
        a + "x"
    with pytest.raises(NotImplementedForSymbol, match=r"\+="):
        a += 1
    with pytest.raises(NotImplementedForSymbol):
        bool(a)
    with pytest.raises(NotImplementedForSymbol):
        a.asnumpy()
    with pytest.raises(TypeError):
        hash(a)
    assert mx.sym.pow(2, 3) == 8 and mx.sym.maximum(2, 3) == 3


def test_op_call_errors_and_auto_inputs():
    d = mx.sym.var("d")
    with pytest.raises(mx.MXNetError, match="unknown argument 'foo'"):
        mx.sym.FullyConnected(d, num_hidden=2, foo=3)
    with pytest.raises(mx.MXNetError, match="zzz"):
        mx.sym.FullyConnected(d, num_hidden=2, attr={"zzz": "1"})
    assert mx.sym.relu(d, attr={"zzz": "1"}).attr("zzz") == "1"  # no parameters: kept
    with pytest.raises(mx.MXNetError, match="bogus"):
        mx.sym.FullyConnected(d, num_hidden=2, bogus=d)
    with pytest.raises(mx.MXNetError, match="single output"):
        mx.sym.relu(mx.sym.split(d, num_outputs=2))
    fc = mx.sym.FullyConnected(d, None, None, 5, name="fc")  # MXNet's positional order
    assert fc.attr("num_hidden") == "5" and fc.list_arguments() == ["d", "fc_weight",
                                                                    "fc_bias"]
    w = mx.sym.var("w")
    nob = mx.sym.FullyConnected(d, w, None, no_bias=True, num_hidden=3)  # Gluon's Dense call
    assert nob.list_arguments() == ["d", "w"]
    fc = mx.sym.FullyConnected(d, weight=mx.sym.var("w"), num_hidden=2, name="fc")
    assert fc.list_arguments() == ["d", "w", "fc_bias"]
    cat = mx.sym.Concat(*[mx.sym.var(n) for n in "abc"], dim=0, name="cat")
    assert cat.attr("num_args") == "3"


def test_random_dispatch():
    lo, hi = mx.sym.var("lo"), mx.sym.var("hi")
    with mx.name.NameManager():
        assert mx.sym.random.normal(0, 1, shape=(2,)).name == "_random_normal0"
        assert mx.sym.random.normal(lo, hi).name == "_sample_normal0"
        r = mx.sym.random.randn(2, 3)
    assert r.attr("shape") == "(2, 3)"
    with pytest.raises(AssertionError):
        mx.sym.random.uniform(lo, 1)
    with pytest.raises(ValueError):
        mx.sym.random.uniform("a", "b")


def test_infer_shape_from_shape_attr_and_backward_through_elementwise():
    a = mx.sym.var("a", shape=(2, 3))
    fc = mx.sym.FullyConnected(a, num_hidden=4, name="fc")
    assert fc.infer_shape()[0] == [(2, 3), (4, 3), (4,)]
    x, y = mx.sym.var("x"), mx.sym.var("y")
    out = mx.sym.exp(mx.sym.relu(x)) + y
    assert out.infer_shape(y=(5, 2))[0] == [(5, 2), (5, 2)]
    assert fc.infer_shape(a=(3, 3))[0][0] == (3, 3)  # a given shape replaces __shape__


def test_infer_type_dtype_attr_and_conflict():
    a = mx.sym.var("a", dtype="float16")
    b = mx.sym.var("b")
    assert (a + b).infer_type()[0] == [np.float16, np.float16]
    with pytest.raises(mx.MXNetError, match="_plus"):
        (a + b).infer_type(b="float32")


def test_debug_str_lists_ops_and_attrs():
    d = mx.sym.var("d")
    text = mx.sym.FullyConnected(d, num_hidden=2, name="fc").debug_str()
    assert "Op:FullyConnected, Name=fc" in text and "\tnum_hidden=2" in text
    assert "Variable:fc_weight" in text and "\targ[1]=fc_weight(0) version=0" in text


def test_namespaces_and_fluent():
    a = mx.sym.var("a")
    assert mx.sym.linalg.gemm2 is not None and mx.sym.contrib is not None
    assert mx.sym._internal._plus_scalar(a, scalar=1).attr("scalar") == "1"
    assert a.reshape((2, -1)).attr("shape") == "(2, -1)"
    assert a.astype("float16").attr("dtype") == "float16"
    assert a.flatten().list_outputs()[0].startswith("flatten")
    for name in ("zeros", "ones", "full", "arange", "linspace", "eye", "pow", "power",
                 "maximum", "minimum", "hypot", "Group", "load", "load_json", "var"):
        assert callable(getattr(mx.sym, name))
    assert mx.symbol is mx.sym


def test_eval_and_bind_delegate_to_executor():
    x = mx.sym.var("x")
    out = (x * 2 + 1).eval(x=mx.nd.array([1, 2]))
    np.testing.assert_allclose(out[0].asnumpy(), [3, 5])


def test_like_samplers_name_nodes_as_mxnet():
    # MXNet 1.9.1: sym.random.normal_like(x).name == 'normal_like0'
    with mx.name.NameManager():
        s = mx.sym.random.normal_like(mx.sym.var("x"), loc=1)
    assert s.name == "normal_like0"
    assert s.get_children().list_outputs() == ["x"]
    assert s.list_attr() == {"loc": "1"}


def test_operator_attr_values_are_converted_with_str_as_mxnet_does():
    """GluonCV's SSD passes ``attr={'__init__': Xavier(...)}`` to operators: MXNet's
    operator front end stores ``str(value)``; ``sym.var`` still refuses non-strings."""
    init = mx.init.Xavier(magnitude=2)
    c = mx.sym.Convolution(mx.sym.var("data"), kernel=(3, 3), num_filter=2, name="c",
                           attr={"__init__": init, "__lr_mult__": 2.0})
    assert c.attr("__init__") == str(init)
    assert c.attr("__lr_mult__") == "2.0"
    with pytest.raises(ValueError):
        mx.sym.var("a", attr={"__init__": init})


@pytest.mark.parametrize("scalar", [np.float64(2.5), np.float32(2.5), np.int64(2)])
def test_numpy_scalars_on_the_left_make_scalar_ops(scalar):
    # NumPy scalars used to treat the Symbol as a sequence and fail (ValueError)
    x = mx.sym.var("x")
    ops = [(scalar - x, "_rminus_scalar"), (scalar + x, "_plus_scalar"),
           (scalar * x, "_mul_scalar"), (scalar / x, "_rdiv_scalar"),
           (scalar ** x, "_rpower_scalar")]
    for sym, op in ops:
        assert json.loads(sym.tojson())["nodes"][-1]["op"] == op
    out = (scalar - x).eval(x=mx.nd.array([1.0]))[0].asscalar()
    assert out == pytest.approx(float(scalar) - 1.0)


def test_split_v2_on_symbols_as_mxnet():
    x = mx.sym.var("x")
    parts = mx.sym.split_v2(x, 3, axis=1)
    assert parts.infer_shape(x=(2, 6))[1] == [(2, 2)] * 3
    parts = mx.sym.split_v2(x, (1, 4), axis=1)
    assert parts.infer_shape(x=(2, 6))[1] == [(2, 1), (2, 3), (2, 2)]
    parts = mx.sym.split_v2(x, 3, axis=1, squeeze_axis=True)
    assert parts.infer_shape(x=(2, 3))[1] == [(2,)] * 3
    with pytest.raises(ValueError, match="int or tuple"):
        mx.sym.split_v2(x, [1, 2])
