"""MXNet symbol JSON read/write against MXNet 1.9.1's own behaviour.

``tests/fixtures/symbol_json_cases.json`` (``gen_symbol_json.py``) holds inputs with
MXNet's verdict: the text ``mx.sym.load_json(input).tojson()`` gives, or an error.
"""
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError
from gluonlite.name import NameManager
from gluonlite.symbol import json_io
from gluonlite.symbol.json_io import from_json, to_json
from gluonlite.symbol.symbol import Symbol

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "..", "fixtures", "symbol_json_cases.json")) as _f:
    CASES = {c["name"]: c for c in json.load(_f)}
LOADED = [c for c in CASES.values() if "expected" in c]
REJECTED = [c for c in CASES.values() if "error" in c]
# documented deviation: MXNet keeps the *_v1 operators distinct, gluonlite reads them
# as aliases of the current operators and writes the current names
V1_NAMES = {"Convolution_v1": "Convolution", "BatchNorm_v1": "BatchNorm",
            "Pooling_v1": "Pooling"}


@pytest.mark.parametrize("case", LOADED, ids=[c["name"] for c in LOADED])
def test_reads_and_rewrites_like_mxnet(case):
    sym = from_json(case["input"])
    assert isinstance(sym, Symbol)
    out = to_json(sym)
    expected = case["expected"]
    if case["name"] == "v1_operators":
        for old, new in V1_NAMES.items():
            expected = expected.replace(f'"op": "{old}"', f'"op": "{new}"')
    assert out == expected
    assert sym.list_arguments() == case["list_arguments"]
    assert sym.list_outputs() == case["list_outputs"]
    assert sym.list_auxiliary_states() == case["list_auxiliary_states"]
    # and our own output reads back to the same text
    assert to_json(from_json(out)) == out


@pytest.mark.parametrize("case", REJECTED, ids=[c["name"] for c in REJECTED])
def test_rejects_what_mxnet_rejects(case):
    with pytest.raises(MXNetError):
        from_json(case["input"])


def test_error_messages_name_the_problem():
    with pytest.raises(MXNetError, match="NoSuchOp"):
        from_json(CASES["unknown_op"]["input"])
    with pytest.raises(MXNetError, match="foo"):
        from_json(CASES["unknown_attribute"]["input"])
    with pytest.raises(MXNetError, match="num_filter"):
        from_json(CASES["bad_attribute_value"]["input"])


def _graph(nodes, heads, version=10901):
    return json.dumps({"nodes": nodes, "arg_nodes": [], "heads": heads,
                       "attrs": {"mxnet_version": ["int", version]}})


DATA = {"op": "null", "name": "d", "inputs": []}


def test_output_index_out_of_range():
    # MXNet 1.9.1 loads these and fails later; gluonlite rejects them when reading
    relu = {"op": "relu", "name": "r", "inputs": [[0, 1, 0]]}
    with pytest.raises(MXNetError, match="output 1 of 'd'"):
        from_json(_graph([DATA, relu], [[1, 0, 0]]))
    relu["inputs"] = [[0, 0, 0]]
    with pytest.raises(MXNetError, match="head 0"):
        from_json(_graph([DATA, relu], [[1, 1, 0]]))
    # hidden outputs are addressable: BatchNorm has 3
    nodes = [DATA] + [{"op": "null", "name": n, "inputs": []} for n in "gbmv"]
    nodes.append({"op": "BatchNorm", "name": "bn", "inputs": [[i, 0, 0] for i in range(5)]})
    sym = from_json(_graph(nodes, [[5, 2, 0]]))
    assert sym.list_outputs() == ["bn_var"]
    with pytest.raises(MXNetError, match="3 output"):
        from_json(_graph(nodes, [[5, 3, 0]]))


def test_input_count_and_cycles():
    relu2 = {"op": "relu", "name": "r", "inputs": [[0, 0, 0], [0, 0, 0]]}
    with pytest.raises(MXNetError, match="expected 1 input"):
        from_json(_graph([DATA, relu2], [[1, 0, 0]]))
    # a current file with a BatchNorm lacking its aux inputs is not upgraded
    nodes = [DATA, {"op": "BatchNorm", "name": "bn", "inputs": [[0, 0, 0]]}]
    with pytest.raises(MXNetError, match="moving_mean"):
        from_json(_graph(nodes, [[1, 0, 0]]))
    cyc = [{"op": "relu", "name": "a", "inputs": [[1, 0, 0]]},
           {"op": "relu", "name": "b", "inputs": [[0, 0, 0]]}]
    with pytest.raises(MXNetError, match="cycle"):
        from_json(_graph(cyc, [[0, 0, 0]]))
    with pytest.raises(MXNetError, match="cannot have inputs"):
        from_json(_graph([DATA, {"op": "null", "name": "v", "inputs": [[0, 0, 0]]}],
                         [[1, 0, 0]]))


def test_truncated_at_every_length():
    text = CASES["legacy_v080"]["expected"]
    for n in range(0, len(text) - 1, 7):
        with pytest.raises(MXNetError):
            from_json(text[:n])
    with pytest.raises(MXNetError):
        from_json(b"\xff\xfe{}")


_WRONG = [None, 1, -1, 1.5, True, "x", [], [1], {}, {"a": 1}]


def _mutations(value, path=()):
    """Every path into a parsed JSON value (dict keys and list positions)."""
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _mutations(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _mutations(v, path + (i,))


def _replace(value, path, new):
    if not path:
        return new
    value = json.loads(json.dumps(value))
    cur = value
    for p in path[:-1]:
        cur = cur[p]
    cur[path[-1]] = new
    return value


def test_wrong_types_anywhere_raise_mxneterror():
    """Replacing any part of a valid file by a value of another type loads or raises
    ``MXNetError``, never anything else."""
    graph = json.loads(CASES["hidden_outputs_bn"]["expected"])
    paths = list(_mutations(graph))
    loaded = 0
    for path in paths:
        for wrong in _WRONG:
            text = json.dumps(_replace(graph, path, wrong))
            try:
                from_json(text)
                loaded += 1
            except MXNetError:
                pass
    assert 0 < loaded < len(paths) * len(_WRONG)


def test_symbol_api_graphs_write_like_mxnet():
    """Graphs built with gluonlite's ``mx.sym`` give MXNet's text (entry versions of
    mutated auxiliary states, hidden outputs in ``node_row_ptr``)."""
    with NameManager():
        d = mx.sym.var("data")
        mm, mv = mx.sym.var("mm"), mx.sym.var("mv")
        b1 = mx.sym.BatchNorm(d, moving_mean=mm, moving_var=mv, name="b1")
        b2 = mx.sym.BatchNorm(b1, moving_mean=mm, moving_var=mv, name="b2")
        assert to_json(b2 + mm) == CASES["entry_versions"]["expected"]
        built = {
            "bn": mx.sym.BatchNorm(d, name="bn"),
            "drop": mx.sym.Dropout(d, p=0.2, name="drop"),
            "lrn": mx.sym.LRN(d, nsize=3, name="lrn"),
            "lnmv": mx.sym.LayerNorm(d, output_mean_var=True, name="lnmv"),
            "pmax": mx.sym.Pooling(d, kernel=(2, 2), pool_type="max", name="pmax"),
            "pnhwc": mx.sym.Pooling(d, kernel=(2, 2), pool_type="max", layout="NHWC",
                                    name="pnhwc"),
            "ctc": mx.sym.CTCLoss(d, mx.sym.var("label"), name="ctc"),
            "slogdet": mx.sym.linalg.slogdet(d, name="slogdet"),
            "lstm": mx.sym.RNN(d, mx.sym.var("p"), mx.sym.var("s"), mx.sym.var("c"),
                               mode="lstm", state_size=4, num_layers=1, state_outputs=True,
                               name="lstm"),
            "slice1": mx.sym.SliceChannel(d, num_outputs=1, name="slice1"),
        }
    for name, sym in built.items():
        case = CASES[f"hidden_outputs_{name}"]
        assert to_json(sym) == case["expected"], name
        assert sym.list_outputs() == case["list_outputs"], name


def test_round_trip_keeps_user_attributes_and_strings(tmp_path):
    case = CASES["user_attributes"]
    sym = from_json(case["expected"])
    fname = str(tmp_path / "g-symbol.json")
    json_io.save(sym, fname)
    with open(fname) as f:
        assert f.read() == case["expected"]
    again = json_io.load(fname)
    assert again.attr_dict() == sym.attr_dict()
    fc = again.get_internals()["fc_output"]
    assert fc.attr("lr_mult") == "3" and fc.attr("ctx_group") == "dev1"
    # op attributes keep their spelling, user attributes go to ``extra``
    case = CASES["verbatim_attr_strings"]
    conv = from_json(case["input"]).get_internals()["conv_output"]
    node = conv._heads[0][0]
    assert node.attrs.kernel == (3, 3) and node.attrs.no_bias is True
    assert node.attrs.to_strings()["kernel"] == "(3L, 3L)"
    act = from_json(case["input"])._heads[0][0]
    assert act.extra == {"__profiler_scope__": "s:", "__ctx_group__": "g"}


def test_legacy_upgrade_results():
    sym = from_json(CASES["legacy_v080"]["input"])
    nodes = {n["name"]: n for n in json.loads(to_json(sym))["nodes"]}
    assert nodes["data"]["attrs"] == {"__ctx_group__": "stage1", "__lr_mult__": "0.2"}
    assert nodes["bn_moving_var"]["attrs"]["__init__"] == '["one", {}]'
    assert nodes["prelu1_gamma"]["attrs"]["__init__"] == '["Constant", {"value": 0.25}]'
    assert sym.list_auxiliary_states() == ["bn_moving_mean", "bn_moving_var"]
    # the upgraded graph runs
    args, outs, aux = sym.infer_shape(data=(2, 5))
    assert outs == [(2, 8)] and aux == [(8,), (8,)]


def test_tojson_and_load_json_go_through_json_io():
    sym = mx.sym.load_json(CASES["aliases"]["input"])
    assert sym.tojson() == CASES["aliases"]["expected"]
    assert isinstance(mx.sym.load_json(sym.tojson()), Symbol)


def test_bytes_input_and_type_errors():
    text = CASES["two_element_entries"]["input"]
    assert to_json(from_json(text.encode())) == CASES["two_element_entries"]["expected"]
    with pytest.raises(TypeError):
        from_json(np.zeros(3))


_BAD_STRINGS = ["", "None", "(", "((((", "1e999", "-1", "abc", "[1,[2]]", "(3L,)", "nan",
                "()", "1.5", "{}", "(" * 300 + ")" * 300, "9" * 60]


def test_bad_attribute_strings_raise_mxneterror():
    """Any attribute string replaced by garbage loads or raises ``MXNetError`` (a huge
    ``num_args`` must not try to allocate its inputs)."""
    graph = json.loads(CASES["aliases"]["input"])
    tried = 0
    for i, node in enumerate(graph["nodes"]):
        for key in node.get("attrs", {}):
            for bad in _BAD_STRINGS:
                node_copy = json.loads(json.dumps(graph))
                node_copy["nodes"][i]["attrs"][key] = bad
                tried += 1
                try:
                    from_json(json.dumps(node_copy))
                except MXNetError:
                    pass
    assert tried > 100


def test_np_shape_graphs_are_marked():
    """Under NumPy shape semantics MXNet writes ``is_np_shape`` into the graph's
    attributes (before ``mxnet_version``); legacy graphs carry only the version."""
    import json
    from gluonlite.util import np_shape
    net = mx.sym.FullyConnected(mx.sym.var("data"), mx.sym.var("weight", shape=(4, 0)),
                                num_hidden=4)
    with np_shape(True):
        attrs = json.loads(net.tojson())["attrs"]
    assert list(attrs.items()) == [("is_np_shape", ["int", 1]),
                                   ("mxnet_version", ["int", 10901])]
    assert json.loads(net.tojson())["attrs"] == {"mxnet_version": ["int", 10901]}
