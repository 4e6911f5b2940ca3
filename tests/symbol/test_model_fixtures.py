"""Models exported by MXNet 1.9.1 (``tests/fixtures/gen_models.py``): three model-zoo
nets, a custom HybridBlock and three symbol-API graphs with multi-output heads.

Each is read with ``from_json`` and checked against what MXNet reported for it
(``manifest.json``): argument/output/auxiliary names, shape and type inference,
``get_internals`` names, the JSON written back, and the prediction-mode outputs
(final and internal) for the saved input and parameters.
"""
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.symbol.json_io import from_json, to_json

MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "models")
with open(os.path.join(MODELS, "manifest.json")) as _f:
    MANIFEST = json.load(_f)
NAMES = sorted(MANIFEST)


def _path(name, suffix):
    return os.path.join(MODELS, f"{name}{suffix}")


def _read(name):
    with open(_path(name, "-symbol.json")) as f:
        return f.read()


@pytest.fixture(scope="module")
def loaded():
    return {name: from_json(_read(name)) for name in NAMES}


@pytest.mark.parametrize("name", NAMES)
def test_names_match_mxnet(name, loaded):
    sym, entry = loaded[name], MANIFEST[name]
    assert sym.list_arguments() == entry["list_arguments"]
    assert sym.list_outputs() == entry["list_outputs"]
    assert sym.list_auxiliary_states() == entry["list_auxiliary_states"]
    assert sym.get_internals().list_outputs() == entry["internals"]


@pytest.mark.parametrize("name", NAMES)
def test_inference_matches_mxnet(name, loaded):
    sym, entry = loaded[name], MANIFEST[name]
    shapes = {k: tuple(v) for k, v in entry["input_shapes"].items()}
    arg_shapes, out_shapes, aux_shapes = sym.infer_shape(**shapes)
    expected = entry["infer_shape"]
    assert [list(s) for s in arg_shapes] == expected["arg_shapes"]
    assert [list(s) for s in out_shapes] == expected["out_shapes"]
    assert [list(s) for s in aux_shapes] == expected["aux_shapes"]
    arg_types, out_types, aux_types = sym.infer_type(
        **{k: np.float32 for k in entry["input_shapes"]})
    expected = entry["infer_type"]
    assert [np.dtype(t).name for t in arg_types] == expected["arg_types"]
    assert [np.dtype(t).name for t in out_types] == expected["out_types"]
    assert [np.dtype(t).name for t in aux_types] == expected["aux_types"]


@pytest.mark.parametrize("name", NAMES)
def test_json_round_trip_is_exact(name, loaded):
    text = _read(name)
    out = to_json(loaded[name])
    assert json.loads(out) == json.loads(text)
    assert out == text  # same layout too, so files diff cleanly


def _bind_inputs(name):
    params = mx.nd.load(_path(name, "-0000.params"))
    args = {k[4:]: v for k, v in params.items() if k.startswith("arg:")}
    aux = {k[4:]: v for k, v in params.items() if k.startswith("aux:")}
    assert len(args) + len(aux) == len(params)
    io = np.load(_path(name, "-io.npz"))
    for key in io.files:
        if key.startswith("input:"):
            args[key[6:]] = mx.nd.array(io[key], dtype=io[key].dtype)
    return args, aux, io


def _forward(sym, args, aux):
    used = set(sym.list_arguments())
    ex = sym.bind(mx.cpu(), args={k: v for k, v in args.items() if k in used},
                  aux_states={k: aux[k] for k in sym.list_auxiliary_states()},
                  grad_req="null")
    return [o.asnumpy() for o in ex.forward(is_train=False)]


def _close(actual, expected, what):
    # activations reach ~25 in these random nets; float32 summation order differs
    # between implementations, so the absolute tolerance follows the output's scale
    scale = max(1.0, float(np.abs(expected).max()))
    np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-5 * scale, err_msg=what)


@pytest.mark.parametrize("poison", [False, True], ids=["plain", "poisoned"])
@pytest.mark.parametrize("name", NAMES)
def test_prediction_outputs_match_mxnet(name, poison, loaded, monkeypatch):
    # poisoned: the engine fills every buffer it frees with NaN, so a memory plan that
    # reused a buffer too early would show in the outputs
    if poison:
        monkeypatch.setenv("GLUONLITE_ENGINE_DEBUG", "1")
    sym = loaded[name]
    args, aux, io = _bind_inputs(name)
    outs = _forward(sym, args, aux)
    assert len(outs) == len(MANIFEST[name]["list_outputs"])
    for i, out in enumerate(outs):
        _close(out, io[f"output:{i}"], f"{name} output {i}")
    internals = sym.get_internals()
    for internal in MANIFEST[name]["internal_checks"]:
        (out,) = _forward(internals[internal], args, aux)
        _close(out, io[f"internal:{internal}"], f"{name} internal {internal}")


def test_aux_states_untouched_by_prediction(loaded):
    name = "mobilenet0.25"
    args, aux, _ = _bind_inputs(name)
    before = {k: v.asnumpy().copy() for k, v in aux.items()}
    _forward(loaded[name], args, aux)
    for k, v in aux.items():
        np.testing.assert_array_equal(v.asnumpy(), before[k])
