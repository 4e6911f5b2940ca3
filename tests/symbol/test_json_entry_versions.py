"""Entry versions (the third number of a JSON input entry) travel with the entries, as in
MXNet 1.9.1: ``tojson`` (which drops AMP casts through a copy), ``copy`` and composition
keep the versions read from JSON (Gluon exports ResNet-50's BatchNorm statistics with
version 2)."""
import copy
import json

import gluonlite as mx


def _graph():
    data = mx.sym.var("data")
    net = mx.sym.BatchNorm(mx.sym.Convolution(data, kernel=(1, 1), num_filter=2, name="c"),
                           name="bn")
    graph = json.loads(net.tojson())
    for node in graph["nodes"]:
        for entry in node["inputs"]:
            if graph["nodes"][entry[0]]["name"].startswith("bn_moving"):
                entry[2] = 2
    return mx.sym.load_json(json.dumps(graph))


def _versions(sym):
    graph = json.loads(sym.tojson())
    return {graph["nodes"][i]["name"]: v for n in graph["nodes"] for i, _, v in n["inputs"]}


def test_tojson_keeps_read_versions():
    versions = _versions(_graph())
    assert versions["bn_moving_mean"] == versions["bn_moving_var"] == 2
    assert versions["data"] == 0


def test_copy_and_compose_keep_read_versions():
    sym = _graph()
    assert _versions(copy.copy(sym))["bn_moving_var"] == 2
    composed = sym(data=mx.sym.var("x"))
    versions = _versions(composed)
    assert versions["bn_moving_var"] == 2 and versions["x"] == 0
