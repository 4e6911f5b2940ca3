"""``mx.contrib.onnx``: models imported from ONNX give MXNet 1.9.1's names and numbers
(fixtures from ``tests/fixtures/gen_onnx_import.py``), and model-zoo nets exported
with ``mx.onnx.export_model`` come back with the same outputs.  Skips without
``onnx``."""
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import gluonlite.onnx  # noqa: E402,F401
from gluonlite.contrib import onnx as onnx_mxnet  # noqa: E402
from gluonlite.contrib.onnx.onnx2mx import import_onnx  # noqa: E402
from gluonlite.contrib.onnx.onnx2mx._import_helper import _convert_map  # noqa: E402
from gluonlite.contrib.onnx.onnx2mx.import_model import (  # noqa: E402
    get_model_metadata, import_model)
from gluonlite.contrib.onnx.onnx2mx.import_to_gluon import import_to_gluon  # noqa: E402
from gluonlite.gluon.model_zoo import vision  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "fixtures", "onnx_import")


def _forward(sym, arg_params, aux_params, feeds):
    args = dict(arg_params)
    args.update({k: mx.nd.array(v) for k, v in feeds.items()})
    exe = sym.bind(mx.cpu(), args, aux_states=dict(aux_params), grad_req="null")
    return [o.asnumpy() for o in exe.forward(is_train=False)]


# -- against MXNet 1.9.1 ------------------------------------------------------------------

with open(os.path.join(FIXTURES, "expected.json")) as _f:
    EXPECTED = json.load(_f)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_matches_mxnet(name):
    want = EXPECTED[name]
    arrays = np.load(os.path.join(FIXTURES, "expected.npz"))
    path = os.path.join(FIXTURES, name + ".onnx")
    with mx.name.NameManager():
        sym, arg_params, aux_params = import_model(path)
    assert {k: list(v.shape) for k, v in arg_params.items()} == want["arg_params"]
    assert {k: list(v.shape) for k, v in aux_params.items()} == want["aux_params"]
    assert sorted({np.dtype(v.dtype).name for v in list(arg_params.values())
                   + list(aux_params.values())}) == want["param_dtypes"]
    assert sym.list_arguments() == want["list_arguments"]
    assert sym.list_auxiliary_states() == want["list_auxiliary_states"]
    assert sym.list_outputs() == want["list_outputs"]
    meta = get_model_metadata(path)
    assert {k: [[e[0], list(e[1])] + list(e[2:]) for e in v] for k, v in meta.items()} \
        == want["metadata"]
    x = arrays[f"{name}/x"]
    got = _forward(sym, arg_params, aux_params, {"x": x})[0]
    np.testing.assert_allclose(got, arrays[f"{name}/y"], rtol=1e-5, atol=1e-6)
    net = import_to_gluon(path, mx.cpu())
    np.testing.assert_allclose(net(mx.nd.array(x)).asnumpy(), arrays[f"{name}/y"],
                               rtol=1e-5, atol=1e-6)


def test_public_wrappers_print_notice(capsys):
    path = os.path.join(FIXTURES, "convnet.onnx")
    sym, arg_params, _ = onnx_mxnet.import_model(path)
    assert "deprecated" in capsys.readouterr().out
    assert set(arg_params) == set(EXPECTED["convnet"]["arg_params"])
    meta = onnx_mxnet.get_model_metadata(path)
    assert meta["input_tensor_data"][0][:2] == ("x", (2, 3, 8, 8))
    net = onnx_mxnet.import_to_gluon(path, [mx.cpu()])
    assert isinstance(net, mx.gluon.SymbolBlock)
    assert "import_to_gluon" in capsys.readouterr().out


def test_module_paths():
    import importlib
    for mod in ("gluonlite.contrib.onnx", "gluonlite.contrib.onnx.onnx2mx",
                "gluonlite.contrib.onnx.onnx2mx.import_model",
                "gluonlite.contrib.onnx.onnx2mx.import_onnx",
                "gluonlite.contrib.onnx.onnx2mx.import_to_gluon",
                "gluonlite.contrib.onnx.onnx2mx._op_translations",
                "gluonlite.contrib.onnx.onnx2mx._translation_utils",
                "gluonlite.contrib.onnx.onnx2mx._import_helper"):
        importlib.import_module(mod)
    proto = import_onnx.GraphProto()
    for method in ("from_onnx", "get_graph_metadata", "graph_to_gluon", "_convert_operator",
                   "_parse_array", "_parse_attr"):
        assert callable(getattr(proto, method))
    assert callable(onnx_mxnet.export_model)


# -- round trips through mx.onnx.export_model ------------------------------------------------

ZOO = [("resnet18_v1", 32), ("mobilenet0.25", 32), ("squeezenet1.1", 224),
       ("mobilenetv2_0.25", 32), ("vgg11_bn", 32), ("resnet18_v2", 32)]


@pytest.mark.parametrize("name,size", ZOO)
def test_model_zoo_round_trip(name, size, tmp_path):
    rng = np.random.RandomState(3)
    net = vision.get_model(name, pretrained=False)
    net.initialize(mx.init.Xavier())
    x = mx.nd.array(rng.uniform(-1, 1, (2, 3, size, size)).astype(np.float32))
    net.hybridize()
    net(x)
    for key, param in net.collect_params().items():
        if key.endswith(("running_var", "gamma")):
            param.set_data(mx.nd.array(rng.uniform(0.5, 1.5, param.shape)))
        elif key.endswith(("running_mean", "beta")):
            param.set_data(mx.nd.array(rng.uniform(-0.5, 0.5, param.shape)))
    want = net(x).asnumpy()
    prefix = str(tmp_path / name)
    net.export(prefix)
    path = mx.onnx.export_model(prefix + "-symbol.json", prefix + "-0000.params",
                                [x.shape], np.float32, str(tmp_path / "model.onnx"))
    sym, arg_params, aux_params = import_model(path)
    exported = mx.nd.load(prefix + "-0000.params")
    exported_args = {k[4:] for k in exported if k.startswith("arg:")}
    # the exporter writes a fix_gamma BatchNorm's gamma as a new "<node>_gamma_fixed"
    assert all(k.endswith("_gamma_fixed") for k in set(arg_params) - exported_args)
    assert all(k.endswith("_gamma") for k in exported_args - set(arg_params))
    assert set(aux_params) == {k[4:] for k in exported if k.startswith("aux:")}
    got = _forward(sym, arg_params, aux_params, {"data": x.asnumpy()})[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    block = import_to_gluon(path, mx.cpu())
    np.testing.assert_allclose(block(x).asnumpy(), want, rtol=1e-5, atol=1e-5)


# -- errors --------------------------------------------------------------------------------------


def _save(tmp_path, nodes, inputs, outputs, inits=(), opset=13, name="m.onnx"):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    path = str(tmp_path / name)
    onnx.save(model, path)
    return path


def test_unsupported_operator(tmp_path):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, (2, 3))
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, (2, 3))
    path = _save(tmp_path, [helper.make_node("Einsum", ["x"], ["y"], equation="ij->ij")],
                 [x], [y])
    with pytest.raises(MXNetError, match="Einsum"):
        import_model(path)
    with pytest.raises(NotImplementedError, match="Einsum"):  # MXNet's exception type
        import_model(path)


def test_non_constant_shape_input(tmp_path):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, (2, 6))
    s = helper.make_tensor_value_info("s", TensorProto.INT64, (2,))
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, (3, 4))
    path = _save(tmp_path, [helper.make_node("Reshape", ["x", "s"], ["y"])], [x, s], [y])
    with pytest.raises(MXNetError, match="Reshape"):
        import_model(path)


def test_bad_file(tmp_path):
    path = tmp_path / "bad.onnx"
    path.write_bytes(b"\x00\x01 not an onnx model \xff" * 10)
    with pytest.raises(MXNetError, match="bad.onnx"):
        import_model(str(path))
    with pytest.raises(MXNetError):
        get_model_metadata(str(path))


def test_missing_onnx(monkeypatch):
    import builtins
    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name == "onnx" or name.startswith("onnx."):
            raise ImportError("No module named 'onnx'")
        return real_import(name, *args, **kwargs)
    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(ImportError, match="Onnx and protobuf need to be installed"):
        import_model(os.path.join(FIXTURES, "convnet.onnx"))


def test_initializers_outside_graph_inputs_and_constants(tmp_path):
    """IR 4+ models (as gluonlite and PyTorch write them) need not list initializers as
    inputs; Constant nodes and Shape chains fold."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, (2, 3, 4))
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, (2, 12))
    w = numpy_helper.from_array(np.full((12,), 2.0, np.float32), "w")
    nodes = [
        helper.make_node("Shape", ["x"], ["shp"]),
        helper.make_node("Constant", [], ["idx"], value=numpy_helper.from_array(
            np.array(0, np.int64), "idx")),
        helper.make_node("Gather", ["shp", "idx"], ["n"], axis=0),
        helper.make_node("Unsqueeze", ["n", "ax"], ["n1"]),
        helper.make_node("Constant", [], ["minus1"], value_ints=[-1]),
        helper.make_node("Concat", ["n1", "minus1"], ["newshape"], axis=0),
        helper.make_node("Reshape", ["x", "newshape"], ["r"]),
        helper.make_node("Mul", ["r", "w"], ["y"]),
    ]
    ax = numpy_helper.from_array(np.array([0], np.int64), "ax")
    path = _save(tmp_path, nodes, [x], [y], inits=[w, ax])
    sym, arg_params, aux_params = import_model(path)
    assert set(arg_params) == {"w"}
    data = np.random.rand(2, 3, 4).astype(np.float32)
    got = _forward(sym, arg_params, aux_params, {"x": data})[0]
    np.testing.assert_allclose(got, data.reshape(2, 12) * 2.0)


def test_convert_map_covers_exported_ops():
    for op in ("Conv", "Gemm", "MatMul", "BatchNormalization", "Relu", "MaxPool",
               "AveragePool", "GlobalAveragePool", "Add", "Mul", "Sub", "Div", "Concat",
               "Flatten", "Reshape", "Transpose", "Softmax", "Dropout", "Pad", "Clip",
               "Identity", "Constant", "LRN", "LeakyRelu", "PRelu", "Squeeze",
               "Unsqueeze", "Slice", "Gather", "ReduceMean", "ReduceSum", "ReduceMax",
               "ReduceMin", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Pow"):
        assert op in _convert_map, op
