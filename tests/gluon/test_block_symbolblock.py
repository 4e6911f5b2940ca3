"""SymbolBlock on models MXNet 1.9.1 exported (``tests/fixtures/models/``,
``tests/fixtures/parameter/tiny-*``): imports, outputs, internal layers as outputs,
wrapping in a larger network and fine-tuning."""
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, nd
from gluonlite.base import MXNetError
from gluonlite.gluon import SymbolBlock

from . import block_defs

HERE = os.path.dirname(__file__)
MODELS = os.path.join(HERE, "..", "fixtures", "models")
PARAM_FIX = os.path.join(HERE, "..", "fixtures", "parameter")
with open(os.path.join(MODELS, "manifest.json")) as f:
    MANIFEST = json.load(f)
B = block_defs.make(mx)
pytestmark = pytest.mark.filterwarnings("ignore:Cannot decide type")


def _files(name):
    return (os.path.join(MODELS, f"{name}-symbol.json"),
            os.path.join(MODELS, f"{name}-0000.params"))


def _io(name):
    return np.load(os.path.join(MODELS, f"{name}-io.npz"))


def _inputs(name, io):
    names = list(MANIFEST[name]["input_shapes"])
    return names, [nd.array(io["input:" + n]) for n in names]


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_imports_gives_mxnet_outputs(name):
    io = _io(name)
    names, inputs = _inputs(name, io)
    sym_file, params_file = _files(name)
    net = SymbolBlock.imports(sym_file, names, params_file)
    out = net(*inputs)
    outs = out if isinstance(out, list) else [out]
    n_out = len([k for k in io.files if k.startswith("output:")])
    assert len(outs) == n_out
    for i, o in enumerate(outs):
        np.testing.assert_allclose(o.asnumpy(), io[f"output:{i}"], rtol=1e-4, atol=1e-4,
                                   err_msg=f"{name} output {i}")
    # aux states are grad_req='null', arguments trainable
    aux = set(MANIFEST[name]["list_auxiliary_states"])
    for pname, p in net.collect_params().items():
        assert p.grad_req == ("null" if pname in aux else "write"), pname


@pytest.mark.parametrize("name", ["mobilenet0.25", "squeezenet1.1", "custom", "mlp"])
def test_internal_layers_as_outputs(name):
    io = _io(name)
    names, inputs = _inputs(name, io)
    sym_file, params_file = _files(name)
    full = SymbolBlock.imports(sym_file, names, params_file)
    internals = mx.sym.load(sym_file).get_internals()
    checks = MANIFEST[name]["internal_checks"]
    outputs = [internals[c] for c in checks]
    feats = SymbolBlock(outputs, [mx.sym.var(n) for n in names],
                        params=full.collect_params())
    got = feats(*inputs)
    for c, g in zip(checks, got):
        np.testing.assert_allclose(g.asnumpy(), io["internal:" + c], rtol=1e-4, atol=1e-4,
                                   err_msg=c)
    # only the parameters the internal graph uses
    assert set(feats.collect_params()) <= set(full.collect_params())


def test_tiny_export_and_params():
    io = np.load(os.path.join(PARAM_FIX, "tiny_io.npz"))
    net = SymbolBlock.imports(os.path.join(PARAM_FIX, "tiny-symbol.json"), "data",
                              os.path.join(PARAM_FIX, "tiny-0000.params"))
    np.testing.assert_allclose(net(nd.array(io["input"])).asnumpy(), io["output"],
                               rtol=1e-5, atol=1e-5)
    for k, p in net.collect_params().items():
        np.testing.assert_array_equal(p.data().asnumpy(), io["param:" + k])


def test_imports_without_params_then_load():
    sym_file, params_file = _files("mobilenet0.25")
    net = SymbolBlock.imports(sym_file, ["data"])
    assert all(p.shape is None for p in net.collect_params().values())
    net.collect_params().load(params_file)
    io = _io("mobilenet0.25")
    np.testing.assert_allclose(net(nd.array(io["input:data"])).asnumpy(), io["output:0"],
                               rtol=1e-4, atol=1e-4)


def test_imports_deferred_init_from_first_forward():
    sym_file, _ = _files("custom")
    net = SymbolBlock.imports(sym_file, ["data"])
    net.initialize(mx.init.One())
    with pytest.raises(MXNetError, match="deferred"):
        next(iter(net.collect_params().values())).data()
    net(nd.ones((1, 3, 64, 64)))
    shapes = dict(zip(MANIFEST["custom"]["list_arguments"],
                      MANIFEST["custom"]["infer_shape"]["arg_shapes"]))
    for k, p in net.collect_params().items():
        if k in shapes:
            assert p.shape == tuple(shapes[k]), k


def test_shape_mismatch_names_parameter_and_shapes(tmp_path):
    sym_file, params_file = _files("mlp")
    net = SymbolBlock.imports(sym_file, ["data", "softmax_label"], params_file)
    d = nd.load(params_file)
    key = next(k for k in d if k.endswith("weight"))
    d[key] = nd.ones((3, 3))
    bad = str(tmp_path / "bad.params")
    nd.save(bad, d)
    want = tuple(net.collect_params()[key[4:]].shape)
    with pytest.raises(MXNetError) as info:
        net.collect_params().load(bad)
    msg = str(info.value)
    assert key[4:] in msg and str(want) in msg and "(3, 3)" in msg


FINETUNE = np.load(os.path.join(HERE, "..", "fixtures", "blocks", "finetune.npz"))
_X = np.load(os.path.join(MODELS, "mobilenet0.25-io.npz"))["input:data"]
FINETUNE_X = np.concatenate([_X, 0.5 * _X])  # the batch gen_blocks.py used


def _finetune_net():
    """mobilenet0.25 cut at its flatten layer under a Lin(5) head (as gen_blocks.py)."""
    sym_file, params_file = _files("mobilenet0.25")
    base = SymbolBlock.imports(sym_file, ["data"], params_file)
    feat = mx.sym.load(sym_file).get_internals()["mobilenet0_flatten0_flatten0_output"]
    with mx.name.NameManager():
        net = B["HSeq"]()
        with net.name_scope():
            net.add(SymbolBlock(feat, mx.sym.var("data"), params=base.collect_params()),
                    B["Lin"](5))
    lin = net._children["1"]
    lin.initialize()
    net(nd.array(FINETUNE_X))
    lin.weight.set_data(nd.array(FINETUNE["lin_weight"]))
    return net


@pytest.mark.parametrize("hybrid", [False, True], ids=["imperative", "hybridized"])
def test_finetune_gradients_match_mxnet(hybrid):
    net = _finetune_net()
    if hybrid:
        net.hybridize()
    params = net.collect_params()
    with autograd.record():
        y = net(nd.array(FINETUNE_X))
    y.backward()
    np.testing.assert_allclose(y.asnumpy(), FINETUNE["y"], rtol=1e-3, atol=1e-3)
    for key in [k for k in FINETUNE.files if k.startswith("grad:")]:
        want = FINETUNE[key]
        got = params[key[5:]].grad().asnumpy()
        # deep BatchNorm stacks in training mode amplify float32 rounding differences
        np.testing.assert_allclose(got, want, rtol=1e-2, atol=1e-2 * np.abs(want).max(),
                                   err_msg=key)
    np.testing.assert_allclose(params["mobilenet0_batchnorm0_running_mean"].data().asnumpy(),
                               FINETUNE["running_mean"], rtol=1e-5, atol=1e-6)
    assert params["mobilenet0_batchnorm0_running_mean"].grad_req == "null"


def test_frozen_symbolblock_params():
    net = _finetune_net()
    net.hybridize()
    net._children["0"].collect_params().setattr("grad_req", "null")
    with autograd.record():
        y = net(nd.array(FINETUNE_X))
    y.backward()
    np.testing.assert_allclose(net.collect_params()["hseq0_lin0_weight"].grad().asnumpy(),
                               FINETUNE["grad:hseq0_lin0_weight"], rtol=1e-3, atol=1e-4)


def test_symbolblock_save_load_parameters(tmp_path):
    sym_file, params_file = _files("squeezenet1.1")
    a = SymbolBlock.imports(sym_file, ["data"], params_file)
    path = str(tmp_path / "sq.params")
    a.save_parameters(path)
    keys = list(nd.load(path))
    # the common leading string of all names ('squeezenet0_conv', character-wise) is
    # dropped from the structural names, as MXNet does
    assert keys[:2] == ["0_weight", "0_bias"] and "25_weight" in keys
    # names without '.' are taken for a legacy file: MXNet 1.9 cannot load this back
    # into a bare SymbolBlock either, and fails the same way
    with pytest.raises(MXNetError, match="Parameter 'squeezenet0_conv0_weight' is missing"):
        SymbolBlock.imports(sym_file, ["data"]).load_parameters(path)

    def wrapped(block):
        with mx.name.NameManager():
            s = B["HSeq"]()
            s.add(block)
        return s
    wa = wrapped(a)
    wa.save_parameters(path)
    assert list(nd.load(path))[:2] == ["0.0_weight", "0.0_bias"]
    wb = wrapped(SymbolBlock.imports(sym_file, ["data"]))
    wb.load_parameters(path)
    for (ka, pa), (kb, pb) in zip(wa.collect_params().items(), wb.collect_params().items()):
        assert ka == kb
        np.testing.assert_array_equal(pa.data().asnumpy(), pb.data().asnumpy())


def test_symbolblock_export_roundtrip(tmp_path):
    sym_file, params_file = _files("custom")
    a = SymbolBlock.imports(sym_file, ["data"], params_file)
    a.hybridize()
    x = nd.array(_io("custom")["input:data"])
    want = a(x).asnumpy()
    path = str(tmp_path / "again")
    a.export(path)
    b = SymbolBlock.imports(path + "-symbol.json", ["data"], path + "-0000.params")
    np.testing.assert_allclose(b(x).asnumpy(), want, rtol=1e-6, atol=1e-6)


def test_imports_on_a_given_context():
    sym_file, params_file = _files("mlp")
    io = _io("mlp")
    ctx = mx.cpu(1)
    net = SymbolBlock.imports(sym_file, ["data", "softmax_label"], params_file, ctx=ctx)
    assert all(p.list_ctx() == [ctx] for p in net.collect_params().values())
    out = net(nd.array(io["input:data"], ctx=ctx), nd.array(io["input:softmax_label"], ctx=ctx))
    assert out.context == ctx
    np.testing.assert_allclose(out.asnumpy(), io["output:0"], rtol=1e-5, atol=1e-5)


def test_imports_ignore_extra_and_allow_missing(tmp_path):
    sym_file, params_file = _files("mlp")
    d = nd.load(params_file)
    d["arg:not_in_graph"] = nd.ones((1,))
    extra = str(tmp_path / "extra.params")
    nd.save(extra, d)
    with pytest.raises(MXNetError, match="not_in_graph"):
        SymbolBlock.imports(sym_file, ["data", "softmax_label"], extra)
    SymbolBlock.imports(sym_file, ["data", "softmax_label"], extra, ignore_extra=True)
    missing_key = next(iter(nd.load(params_file)))
    del d[missing_key]
    nd.save(extra, d)
    with pytest.raises(MXNetError, match=missing_key[4:]):
        SymbolBlock.imports(sym_file, ["data", "softmax_label"], extra, ignore_extra=True)
    net = SymbolBlock.imports(sym_file, ["data", "softmax_label"], extra, ignore_extra=True,
                              allow_missing=True)
    assert net.collect_params()[missing_key[4:]].shape is None


def test_symbol_block_refuses_row_sparse_parameters():
    # MXNet 1.9.1 raises AssertionError here (its test_sparse_symbol_block)
    data = mx.sym.var("data")
    weight = mx.sym.var("weight", stype="row_sparse")
    out = mx.sym.broadcast_add(mx.sym.dot(data, weight), mx.sym.var("bias"))
    with pytest.raises(AssertionError, match="weight.*row_sparse"):
        mx.gluon.SymbolBlock(out, data)


def test_np_shape_scope_at_top_level():
    # MXNet's test_np_shape_parameters: mx.np_shape(True) as a scope around Gluon code
    with mx.np_shape(True):
        assert mx.is_np_shape()
        dense = mx.gluon.nn.Dense(16)
        dense.initialize()
        assert dense(mx.nd.zeros((2, 2016))).shape == (2, 16)
    assert not mx.is_np_shape()


def test_imports_a_parameterless_graph_from_an_empty_params_file(tmp_path):
    """MXNet's nd.save of an empty dict loads back as an empty list; a graph without
    parameters imports from it (MXNet's test_subgraph quantizes such graphs)."""
    sym = mx.sym.relu(mx.sym.var("data"))
    sym.save(str(tmp_path / "net-symbol.json"))
    mx.nd.save(str(tmp_path / "net-0000.params"), {})
    net = mx.gluon.SymbolBlock.imports(str(tmp_path / "net-symbol.json"), ["data"],
                                       str(tmp_path / "net-0000.params"))
    out = net(mx.nd.array([[-1.0, 2.0]]))
    assert out.asnumpy().tolist() == [[0.0, 2.0]]
