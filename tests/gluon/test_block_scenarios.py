"""Block / HybridBlock / SymbolBlock scenarios compared with MXNet 1.9.1's recordings
(``tests/fixtures/blocks/scenarios.json``, made by ``tests/fixtures/gen_blocks.py``)."""
import json
import os

import pytest

import gluonlite as mx
from gluonlite.base import MXNetError

from . import block_scenarios as scen

FIX = os.path.join(os.path.dirname(__file__), "..", "fixtures", "blocks")
with open(os.path.join(FIX, "scenarios.json")) as f:
    EXPECTED = json.load(f)
SCENARIOS = scen.SCENARIOS

# errors raised inside an operator's shape/type check: the wording is the op's own
OPERATOR_MESSAGES = {"deferred_shape_failure", "infer_type_conflict"}


def _norm(text):
    return (text.replace("mxnet.", "gluonlite.").replace("tests.gluon.block_defs", "block_defs")
            if isinstance(text, str) else text)


def _norm_all(value):
    if isinstance(value, list):
        return [_norm_all(v) for v in value]
    return _norm(value)


def test_every_scenario_has_a_recording():
    assert sorted(EXPECTED) == sorted(SCENARIOS)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario_matches_mxnet(name, tmp_path):
    mx.random.seed(0)
    got = scen.run(SCENARIOS[name], mx, str(tmp_path))
    want = EXPECTED[name]
    assert _norm_all(got["warnings"]) == _norm_all(want["warnings"])
    if "error" not in want:
        assert "error" not in got, got
        assert _norm_all(got["result"]) == _norm_all(want["result"])
        return
    assert "error" in got, f"expected {want['error']}: {want['message']}, got {got}"
    if name in OPERATOR_MESSAGES:
        head = want["message"].split("MXNetError")[0]
        assert got["message"].startswith(head), got["message"]
        assert "net0_convbn0_convolution0" in got["message"]
    else:
        assert _norm(got["message"]) == _norm(want["message"])
    if want["error"] == "DeferredInitializationError":
        assert got["error"] == "DeferredInitializationError"


@pytest.mark.parametrize("name", sorted(n for n in SCENARIOS if "error" in EXPECTED[n]))
def test_scenario_errors_are_mxnet_errors(name, tmp_path):
    import builtins
    builtin = getattr(builtins, EXPECTED[name]["builtin"])
    with pytest.raises(MXNetError) as info:
        SCENARIOS[name](mx, str(tmp_path))
    assert isinstance(info.value, builtin), type(info.value).__mro__
