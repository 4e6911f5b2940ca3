"""Every network of MXNet 1.9.1's Gluon model zoo, as MXNet exports it: the graph loads,
re-saves to MXNet's exact text, and reports MXNet's arguments, outputs, auxiliary
states and output shapes (fixtures from ``tests/fixtures/gen_zoo_json.py``)."""
import gzip
import json
import os

import pytest

import gluonlite as mx

HERE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "zoo_json")
with open(os.path.join(HERE, "manifest.json")) as _f:
    MANIFEST = json.load(_f)


def _text(name):
    with gzip.open(os.path.join(HERE, f"{name}-symbol.json.gz"), "rt") as f:
        return f.read()


def test_the_whole_zoo_is_covered():
    assert len(MANIFEST) >= 30 and {"resnet50_v1", "densenet121", "inceptionv3",
                                     "mobilenetv2_1.0", "vgg16_bn"} <= set(MANIFEST)


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_zoo_graph_matches_mxnet(name):
    expected = MANIFEST[name]
    text = _text(name)
    sym = mx.sym.load_json(text)
    assert sym.list_arguments() == expected["list_arguments"]
    assert sym.list_outputs() == expected["list_outputs"]
    assert sym.list_auxiliary_states() == expected["list_auxiliary_states"]
    _, out_shapes, _ = sym.infer_shape(data=tuple(expected["input_shape"]))
    assert [list(s) for s in out_shapes] == expected["out_shapes"]
    assert sym.tojson() == text
