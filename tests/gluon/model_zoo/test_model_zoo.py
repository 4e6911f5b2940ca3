"""``gluon.model_zoo.vision`` against MXNet 1.9.1: every net's parameter names (the
graphs of ``fixtures/zoo_json``), outputs of twelve nets with deterministic parameters
(``fixtures/model_zoo/outputs.npz``), a ``save_parameters`` file MXNet wrote, and the
pretrained-file lookup of ``model_store``."""
import json
import os
import re
import shutil
import sys

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.gluon.model_zoo import model_store, vision

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures")
sys.path.insert(0, FIXTURES)
from zoo_cases import CASES, CLASSES, model_input, set_params  # noqa: E402

MANIFEST = json.load(open(os.path.join(FIXTURES, "zoo_json", "manifest.json")))
OUTPUTS = np.load(os.path.join(FIXTURES, "model_zoo", "outputs.npz"))
MXNET_FILE = os.path.join(FIXTURES, "model_zoo", "mobilenet0.25-classes10.params")


def _strip_counter(names, prefix):
    return sorted(n[len(prefix):] for n in names)


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_parameter_names_are_mxnets(name):
    net = vision.get_model(name)
    info = MANIFEST[name]
    theirs = [a for a in info["list_arguments"] if a != "data"] + info["list_auxiliary_states"]
    # MXNet's prefixes carry a per-process counter (resnetv12_ when made twelfth)
    their_prefix = re.match(r"[a-z]+\d*?\d_", theirs[0]).group(0)
    assert net.prefix.rstrip("_").rstrip("0123456789") == their_prefix.rstrip("_").rstrip(
        "0123456789")
    assert _strip_counter(net.collect_params().keys(), net.prefix) == \
        _strip_counter(theirs, their_prefix)


def test_get_model_table_and_unknown_name():
    assert sorted(vision._models) == sorted(set(MANIFEST) | {"mobilenetv2_0.25"})
    assert isinstance(vision.get_model("ResNet18_V1"), vision.ResNetV1)
    with pytest.raises(ValueError, match="resnet19_v1 is not supported"):
        vision.get_model("resnet19_v1")


def _run(name, shape, hybridize):
    net = vision.get_model(name, classes=CLASSES)
    net.initialize(mx.init.Zero())  # set_params replaces every value: no random draws
    x = mx.nd.array(model_input(shape))
    net(x)
    set_params(net, mx.nd)
    if hybridize:
        net.hybridize()
    return net(x).asnumpy()


@pytest.mark.parametrize("hybridize", [False, True], ids=["imperative", "hybridized"])
@pytest.mark.parametrize("name,shape", CASES, ids=[c[0] for c in CASES])
def test_outputs_match_mxnet(name, shape, hybridize):
    if hybridize and shape[-1] > 64:
        pytest.skip("the large-input nets are checked imperatively only (time)")
    expected = OUTPUTS[name]
    out = _run(name, shape, hybridize)
    scale = np.abs(expected).max()
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4 * scale)


def _mxnet_file_net(**kwargs):
    return vision.mobilenet0_25(classes=CLASSES, **kwargs)


def test_loads_mxnet_save_parameters_file():
    expected = np.load(os.path.join(FIXTURES, "model_zoo", "mobilenet0.25-classes10.npz"))
    net = _mxnet_file_net()
    net.load_parameters(MXNET_FILE)
    out = net(mx.nd.array(model_input((2, 3, 64, 64)))).asnumpy()
    np.testing.assert_allclose(out, expected["output"], rtol=1e-4, atol=1e-5)


def test_pretrained_found_under_root_with_mxnets_file_name(tmp_path, monkeypatch):
    sha1 = _sha1(MXNET_FILE)
    monkeypatch.setitem(model_store._model_sha1, "mobilenet0.25", sha1)
    shutil.copy(MXNET_FILE, tmp_path / f"mobilenet0.25-{sha1[:8]}.params")
    net = _mxnet_file_net(pretrained=True, root=str(tmp_path))
    reference = _mxnet_file_net()
    reference.load_parameters(MXNET_FILE)
    x = mx.nd.array(model_input((2, 3, 64, 64)))
    np.testing.assert_array_equal(net(x).asnumpy(), reference(x).asnumpy())
    # $MXNET_HOME/models is the default root, read at call time
    models = tmp_path / "home" / "models"
    models.mkdir(parents=True)
    shutil.copy(MXNET_FILE, models / f"mobilenet0.25-{sha1[:8]}.params")
    monkeypatch.setenv("MXNET_HOME", str(tmp_path / "home"))
    assert model_store.get_model_file("mobilenet0.25") == str(
        models / f"mobilenet0.25-{sha1[:8]}.params")


def _sha1(path):
    import hashlib
    with open(path, "rb") as f:
        return hashlib.sha1(f.read()).hexdigest()


def test_missing_or_damaged_pretrained_file_raises(tmp_path):
    with pytest.raises(mx.base.MXNetError) as err:
        vision.get_model("squeezenet1.1", pretrained=True, root=str(tmp_path))
    message = str(err.value)
    assert "squeezenet1.1-33ba0f93.params" in message
    assert "33ba0f93753c83d86e1eb397f38a667eaf2e9376" in message
    assert str(tmp_path) in message
    (tmp_path / "squeezenet1.1-33ba0f93.params").write_bytes(b"not a parameter file")
    with pytest.raises(mx.base.MXNetError, match="SHA-1 differs"):
        vision.squeezenet1_1(pretrained=True, root=str(tmp_path))
    with pytest.raises(ValueError, match="not available"):
        model_store.get_model_file("resnet19_v1", root=str(tmp_path))


def test_purge_removes_parameter_files_only(tmp_path):
    (tmp_path / "a.params").write_bytes(b"x")
    (tmp_path / "notes.txt").write_text("keep")
    model_store.purge(str(tmp_path))
    assert sorted(os.listdir(tmp_path)) == ["notes.txt"]
    model_store.purge(str(tmp_path / "missing"))


def test_resnet_options():
    net = vision.get_resnet(1, 18, classes=7, thumbnail=True)
    net.initialize()
    assert net(mx.nd.ones((1, 3, 32, 32))).shape == (1, 7)
    with pytest.raises(AssertionError, match="Invalid number of layers"):
        vision.get_resnet(1, 20)
    with pytest.raises(AssertionError, match="Invalid resnet version"):
        vision.get_resnet(3, 18)
