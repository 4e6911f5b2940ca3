"""Symbol API against MXNet 1.9.1 (fixture ``symbol_api.json`` from ``gen_symbol_api.py``):
graph structure and node names, auto-created variables and their attributes,
list_* orders, internals, children, shape and type inference."""
import json
import os
import warnings

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.symbol.graph import topo_order
from gluonlite.symbol.symbol import _node_attrs

from . import nets

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "symbol_api.json")
with open(FIXTURE) as _f:
    REF = json.load(_f)


def build(name):
    with mx.name.NameManager():
        return nets.BUILDERS[name](mx)


def nodes_of(sym):
    order = topo_order(sym._heads)
    index = {id(n): i for i, n in enumerate(order)}
    nodes = [["null" if n.op is None else n.op.name, n.name, _node_attrs(n),
              [[index[id(s)], o] for s, o in n.inputs]] for n in order]
    return nodes, [[index[id(n)], o] for n, o in sym._heads]


@pytest.mark.parametrize("net", sorted(REF["nets"]))
def test_graph_matches_mxnet(net):
    ref = REF["nets"][net]
    sym = build(net)
    nodes, heads = nodes_of(sym)
    for mine, theirs in zip(nodes, ref["nodes"]):
        assert mine == theirs
    assert len(nodes) == len(ref["nodes"])
    assert heads == ref["heads"]


@pytest.mark.parametrize("net", sorted(REF["nets"]))
def test_listings_match_mxnet(net):
    ref = REF["nets"][net]
    sym = build(net)
    assert repr(sym) == ref["repr"] and str(sym) == ref["repr"]
    assert sym.name == ref["name"]
    assert sym.list_arguments() == ref["arguments"]
    assert sym.list_outputs() == ref["outputs"]
    assert sym.list_auxiliary_states() == ref["aux"]
    assert sym.list_inputs() == ref["inputs"]
    assert sym.get_internals().list_outputs() == ref["internals"]
    children = sym.get_children()
    assert (None if children is None else children.list_outputs()) == ref["children"]
    assert sym.attr_dict() == ref["attr_dict"]
    assert sym.list_attr() == ref["list_attr"]
    assert [repr(s) for s in sym] == ref["items"]
    assert len(sym) == len(ref["outputs"])


def _shapes(res):
    return None if res[0] is None else [[list(s) for s in part] for part in res]


@pytest.mark.parametrize("case", REF["shape"], ids=lambda c: f"{c['net']}-{sorted(c['kwargs'])}")
def test_infer_shape_matches_mxnet(case):
    sym = build(case["net"])
    kw = {k: tuple(v) for k, v in case["kwargs"].items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _shapes(sym.infer_shape(**kw)) == case["full"]
    assert _shapes(sym.infer_shape_partial(**kw)) == case["partial"]


def test_partial_shape_waits_for_the_data_as_mxnet():
    """MXNet's FullyConnected infers nothing before its data's shape is known:
    ``fc1_weight`` alone gives no bias and no next-layer shapes (as MXNet's
    ``test_symbol_infer_shape`` expects ``()`` for such a weight)."""
    args, _, _ = build("mlp").infer_shape_partial(fc1_weight=(8, 4))
    assert args == [(), (8, 4), (), (), (), ()]


def test_infer_shape_positional_equals_keyword():
    sym = build("mlp")
    by_name = sym.infer_shape(data=(5, 4))
    assert sym.infer_shape((5, 4)) == by_name
    assert sym.infer_shape((5, 4), None, None) == by_name


def test_infer_shape_incomplete_warns():
    with pytest.warns(UserWarning, match="fc1_weight"):
        assert build("mlp").infer_shape(softmax_label=(5,)) == (None, None, None)


@pytest.mark.parametrize("case", REF["type"], ids=lambda c: f"{c['net']}-{sorted(c['kwargs'])}")
def test_infer_type_matches_mxnet(case):
    sym = build(case["net"])

    def names(res):
        if res[0] is None:
            return None
        return [[None if t is None else np.dtype(t).name for t in part] for part in res]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert names(sym.infer_type(**case["kwargs"])) == case["full"]
    assert names(sym.infer_type_partial(**case["kwargs"])) == case["partial"]


def test_infer_type_returns_numpy_types():
    args, outs, aux = build("mlp").infer_type(data="float16")
    assert args[0] is np.float16 and outs == [np.float16] and aux == []


@pytest.mark.parametrize("case", REF["conflict"], ids=lambda c: c["net"])
def test_infer_shape_conflict(case):
    """MXNet's message names the operator node; ours also names the input and shapes."""
    sym = build(case["net"])
    kw = {k: tuple(v) for k, v in case["kwargs"].items()}
    with pytest.raises(mx.MXNetError) as info:
        sym.infer_shape(**kw)
    msg = str(info.value)
    ref = case["message"][0]
    node = ref.split("Error in operator ")[1].split(":")[0]
    assert f"Error in operator {node}" in msg
    for shape in kw.values():  # the known input shapes are listed
        assert str(tuple(shape)) in msg


def test_unknown_keyword_lists_candidates():
    with pytest.raises(mx.MXNetError, match=r"dat not found[\s\S]*\[0\]data"):
        build("mlp").infer_shape(dat=(5, 4))


@pytest.mark.parametrize("net", sorted(REF["nets"]))
def test_tojson_nodes_match_mxnet(net, tmp_path):
    """The JSON writer sees the same nodes, attributes and inputs as MXNet's."""
    sym = build(net)
    path = tmp_path / "net-symbol.json"
    sym.save(str(path))
    graph = json.loads(path.read_text())
    nodes = [[n["op"], n["name"], n.get("attrs", {}), [[i, o] for i, o, _ in n["inputs"]]]
             for n in graph["nodes"]]
    assert nodes == REF["nets"][net]["nodes"]
    again = mx.sym.load(str(path))
    assert again.list_outputs() == sym.list_outputs() and again.tojson() == sym.tojson()
