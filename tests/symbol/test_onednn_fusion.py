"""MXNet 1.9.1's ``MKLDNN`` subgraph backend (``gluonlite/symbol/onednn_fusion.py``) against
MXNet's own rewrite (``tests/fixtures/gen_onednn_fusion.py``): the JSON of
``get_backend_symbol``, ``Symbol.optimize_for`` and a Gluon block's ``optimize_for`` /
``hybridize(backend=...)`` export must equal MXNet's text (fused node names and their
numbering, attribute strings, subgraph contents, input order), and the fused graphs must
give the unfused graph's outputs."""
import gzip
import json
import os
import sys

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError
from gluonlite.symbol.onednn_fusion import partition_onednn

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "fixtures")
sys.path.insert(0, FIXTURES)
import onednn_fusion_cases as cases  # noqa: E402

with gzip.open(os.path.join(FIXTURES, "onednn_fusion.json.gz"), "rt") as _f:
    REF = json.load(_f)
SYMS, BLOCKS, ENV = REF["symbols"], REF["blocks"], REF["env"]


# Deliberate differences: MXNet 1.9.1 reconnects every outside reader of a fused chain to
# its last output, so where an inner node (conv0, a graph head; bn0, read by the add too;
# conv1 and the FCs, read by the adds too) is read outside, its readers get the
# activation's result: wrong numbers.  gluonlite ends the chain at that node instead.
DELIBERATE = {"branches": ["sg_mkldnn_conv_0", "bn0", "relu0", "add0", "sg_mkldnn_conv_1",
                           "relu1", "add1", "sg_mkldnn_fully_connected_0", "relu2", "add2",
                           "sg_mkldnn_fully_connected_1", "relu3", "add3"]}


def _kinds(sym) -> list:
    """Per output of ``sym``: whether it is an operator's (not a variable)."""
    nodes = json.loads(sym.tojson())["nodes"]
    return [nodes[h[0]]["op"] != "null" for h in json.loads(sym.tojson())["heads"]]


def _want(entry: dict, key: str) -> str:
    value = entry[key]
    while value.startswith("="):
        value = entry[value[1:]]
    return value


def _same_json(got: str, want: str) -> None:
    if got == want:
        return
    g, w = json.loads(got), json.loads(want)
    gn = [(n["op"], n["name"], n.get("attrs")) for n in g["nodes"]]
    wn = [(n["op"], n["name"], n.get("attrs")) for n in w["nodes"]]
    assert gn == wn
    assert got == want


def _arrays(sym, shapes: dict, seed: int = 0, dtype="float32") -> tuple:
    rng = np.random.RandomState(seed)
    arg_shapes, _, aux_shapes = sym.infer_shape(**shapes)
    args = {n: mx.nd.array(rng.uniform(-1, 1, s), dtype=dtype)
            for n, s in zip(sym.list_arguments(), arg_shapes)}
    aux = {n: mx.nd.array(rng.uniform(0.5, 1.5, s), dtype=dtype)
           for n, s in zip(sym.list_auxiliary_states(), aux_shapes)}
    return args, aux


def _run(sym, args: dict, aux: dict) -> list:
    ex = sym.bind(mx.cpu(), dict(args), aux_states=dict(aux))
    return [o.asnumpy() for o in ex.forward(is_train=False)]


@pytest.mark.parametrize("name", sorted(SYMS))
@pytest.mark.parametrize("quantize", [False, True])
def test_fused_json_matches_mxnet(name, quantize):
    entry = SYMS[name]
    sym = mx.sym.load_json(entry["plain"])
    if name in DELIBERATE:
        got = partition_onednn(sym, quantize=quantize)
        internals = got.get_internals()
        ops = [name for name, kind in zip(internals.list_outputs(), _kinds(internals))
               if kind]
        assert [o.rsplit("_output", 1)[0] for o in ops] == DELIBERATE[name]
        assert got.list_outputs() == ["add3_output", "sg_mkldnn_conv_0_output"]
        return
    if quantize:
        got = partition_onednn(sym, quantize=True)
        want = _want(entry, "MKLDNN_QUANTIZE")
    else:
        got = sym.get_backend_symbol("MKLDNN")
        want = _want(entry, "MKLDNN")
    _same_json(got.tojson(), want)
    assert sym.tojson() == entry["plain"]  # the input graph is left unchanged


@pytest.mark.parametrize("name", sorted(SYMS))
def test_cases_build_mxnets_graph(name):
    sym, _ = cases.SYMBOLS[name](mx)
    assert sym.tojson() == SYMS[name]["plain"]


@pytest.mark.parametrize("name", sorted(SYMS))
@pytest.mark.parametrize("quantize", [False, True])
def test_fused_graph_gives_unfused_outputs(name, quantize):
    entry = SYMS[name]
    sym = mx.sym.load_json(entry["plain"])
    fused = partition_onednn(sym, quantize=quantize)
    # the fused graph keeps the inputs (list_inputs order may change)
    assert sorted(fused.list_arguments()) == sorted(sym.list_arguments())
    assert sorted(fused.list_auxiliary_states()) == sorted(sym.list_auxiliary_states())
    assert fused.list_outputs() != [] and len(fused.list_outputs()) == len(sym.list_outputs())
    args, aux = _arrays(sym, {k: tuple(v) for k, v in entry["shapes"].items()})
    want = _run(sym, args, aux)
    got = _run(fused, args, aux)
    for w, g in zip(want, got):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)
    if name in DELIBERATE:
        return
    # the MXNet-written fused graph loads and runs the same
    loaded = mx.sym.load_json(_want(entry, "MKLDNN_QUANTIZE" if quantize else "MKLDNN"))
    for w, g in zip(want, _run(loaded, args, aux)):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", sorted(SYMS))
def test_symbol_optimize_for_with_arrays(name):
    entry = SYMS[name]
    sym = mx.sym.load_json(entry["plain"])
    arg_shapes, _, aux_shapes = sym.infer_shape(**entry["shapes"])
    args = {n: mx.nd.ones(s) for n, s in zip(sym.list_arguments(), arg_shapes)}
    aux = {n: mx.nd.ones(s) for n, s in zip(sym.list_auxiliary_states(), aux_shapes)}
    out = sym.optimize_for("MKLDNN", args, aux)
    if name in DELIBERATE:
        assert out.tojson() == sym.get_backend_symbol("MKLDNN").tojson()
    else:
        _same_json(out.tojson(), _want(entry, "optimize_for"))
    assert set(args) == set(sym.list_arguments())  # nothing deleted, nothing added
    if "optimize_for_float64" in entry:  # oneDNN fuses float32 (and bfloat16) only
        args = {k: v.astype("float64") for k, v in args.items()}
        aux = {k: v.astype("float64") for k, v in aux.items()}
        out = sym.optimize_for("MKLDNN", args, aux)
        _same_json(out.tojson(), entry["optimize_for_float64"])


def test_optimize_for_without_arrays_equals_backend_symbol():
    entry = SYMS["resnet_sym"]
    sym = mx.sym.load_json(entry["plain"])
    _same_json(sym.optimize_for("MKLDNN").tojson(), entry["MKLDNN"])


@pytest.mark.parametrize("var,name", [(v, n) for v in sorted(ENV) for n in sorted(ENV[v])])
def test_disable_environment_variables(monkeypatch, var, name):
    monkeypatch.setenv(var, "1")
    sym = mx.sym.load_json(SYMS[name]["plain"])
    _same_json(sym.get_backend_symbol("MKLDNN").tojson(), ENV[var][name])


def test_disabled_property_still_runs_in_optimize_for(monkeypatch):
    """MXNet honours ``MXNET_DISABLE_MKLDNN_CONV_OPT`` in ``get_backend_symbol`` only."""
    monkeypatch.setenv("MXNET_DISABLE_MKLDNN_CONV_OPT", "1")
    entry = SYMS["resnet_sym"]
    sym = mx.sym.load_json(entry["plain"])
    _same_json(sym.optimize_for("MKLDNN").tojson(), entry["MKLDNN"])


def _block_run(name: str, mode: str, tmp_path):
    net, shape = cases.BLOCKS[name](mx)
    net.initialize()
    x = mx.nd.array(np.random.RandomState(3).uniform(-1, 1, shape))
    want = net(x).asnumpy()
    if mode == "plain":
        net.hybridize()
        got = net(x)
    elif mode == "optimize_for":
        assert net.optimize_for(x, backend="MKLDNN") is None
        got = net(x)
    else:
        net.hybridize(backend="MKLDNN")
        got = net(x)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-6)
    path = str(tmp_path / name)
    net.export(path)
    with open(path + "-symbol.json") as f:
        return f.read(), path, x, want


@pytest.mark.parametrize("name", sorted(BLOCKS))
@pytest.mark.parametrize("mode", ["plain", "optimize_for", "hybridize"])
def test_block_export_matches_mxnet(name, mode, tmp_path):
    text, path, x, want = _block_run(name, mode, tmp_path)
    _same_json(text, _want(BLOCKS[name], mode))
    # the exported fused model loads back and gives the same outputs
    net = mx.gluon.SymbolBlock.imports(path + "-symbol.json", ["data"], path + "-0000.params")
    np.testing.assert_allclose(net(x).asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_unknown_backends_raise():
    sym, _ = cases.SYMBOLS["conv_bn_relu"](mx)
    for call in (lambda: sym.get_backend_symbol("TensorRT"),
                 lambda: sym.optimize_for("myProp")):
        with pytest.raises(MXNetError, match="TensorRT|myProp"):
            call()
    net, shape = cases.BLOCKS["resnet_block"](mx)
    net.initialize()
    with pytest.raises(MXNetError, match="myProp"):
        net.optimize_for(mx.nd.ones(shape), backend="myProp")
    with pytest.raises(ValueError, match="backend"):
        net.optimize_for(mx.nd.ones(shape))


def test_mkldnn_quantize_backend():
    """``MKLDNN_QUANTIZE`` is the quantize fusion followed by the post-quantization passes
    (``gluonlite/symbol/onednn_post_quantize.py``), or an error while those are missing."""
    import importlib.util
    sym = mx.sym.load_json(SYMS["conv_acts"]["plain"])
    if importlib.util.find_spec("gluonlite.symbol.onednn_post_quantize") is None:
        with pytest.raises(MXNetError, match="MKLDNN_QUANTIZE"):
            sym.get_backend_symbol("MKLDNN_QUANTIZE")
    else:  # on a float graph the post-quantization passes change nothing
        _same_json(sym.get_backend_symbol("MKLDNN_QUANTIZE").tojson(),
                   _want(SYMS["conv_acts"], "MKLDNN_QUANTIZE"))


def test_partition_is_idempotent():
    sym = mx.sym.load_json(SYMS["resnet_sym"]["plain"])
    once = sym.get_backend_symbol("MKLDNN")
    assert once.get_backend_symbol("MKLDNN").tojson() == once.tojson()
