"""``mx.np`` and ``mx.npx`` against MXNet 1.9.1: every case of
``tests/fixtures/numpy_api_cases.py`` runs here and must give MXNet's answer (values,
dtypes, shapes, array classes), recorded by ``tests/fixtures/gen_numpy_api.py``."""
import json
import os
import sys

import numpy as onp
import pytest

import gluonlite as mx
from gluonlite import np, npx

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "fixtures")
sys.path.insert(0, FIXTURES)
from numpy_api_cases import CASES, GRAD_CASES, _SETUP  # noqa: E402

with open(os.path.join(FIXTURES, "numpy_api.json")) as _f:
    META = json.load(_f)
ARRAYS = onp.load(os.path.join(FIXTURES, "numpy_api.npz"))
ALL = {**CASES, **GRAD_CASES}


@pytest.fixture(autouse=True)
def np_mode():
    npx.set_np()
    yield
    npx.reset_np()


def check(tree, value, where):
    if "error" in tree:
        pytest.fail(f"{where}: MXNet raised ({tree['error']}) but gluonlite answered")
    if "seq" in tree:
        assert isinstance(value, (list, tuple)), f"{where}: expected a sequence, got {value!r}"
        assert isinstance(value, tuple) == tree["tuple"], f"{where}: list/tuple differs"
        assert len(value) == len(tree["seq"]), f"{where}: length differs"
        for k, (t, v) in enumerate(zip(tree["seq"], value)):
            check(t, v, f"{where}[{k}]")
        return
    if "array" in tree:
        cls = np.ndarray if tree["cls"] == "mx" else onp.ndarray
        assert isinstance(value, cls), f"{where}: expected {cls}, got {type(value)}"
        got = value.asnumpy() if tree["cls"] == "mx" else value
        assert str(got.dtype) == tree["dtype"], f"{where}: dtype {got.dtype} != {tree['dtype']}"
        assert list(got.shape) == tree["shape"], f"{where}: shape {got.shape} != {tree['shape']}"
        expected = ARRAYS[tree["array"]]
        if got.dtype.kind == "f":
            onp.testing.assert_allclose(got, expected, rtol=2e-5, atol=2e-6, err_msg=where)
        else:
            onp.testing.assert_array_equal(got, expected, err_msg=where)
        return
    expected = tree["value"]
    if isinstance(expected, list):  # a tuple of ints (a shape) comes back as a list
        value = list(value) if isinstance(value, tuple) else value
    if isinstance(expected, float):
        assert value == pytest.approx(expected, rel=1e-5), where
    else:
        assert value == expected, f"{where}: {value!r} != {expected!r}"
    if "npscalar" in tree:
        assert str(onp.asarray(value).dtype) == tree["npscalar"], where


@pytest.mark.parametrize("name", sorted(ALL))
def test_case_matches_mxnet(name):
    scope = {"np": np, "npx": npx, "mx": mx, "onp": onp}
    tree = META[name]
    if "error" in tree:
        with pytest.raises(Exception):
            exec(_SETUP + ALL[name], scope)
        return
    exec(_SETUP + ALL[name], scope)
    check(tree, scope["result"], name)
