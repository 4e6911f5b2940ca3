"""Gluon under ``npx.set_np()`` against MXNet 1.9.1 (``tests/fixtures/gen_numpy_gluon.py``):
a block written with ``F.np``/``F.npx``, imperative and hybridized, its export, MXNet's
export of it loaded here, and a training loop with ``mx.np`` batches."""
import json
import os
import sys

import numpy as onp
import pytest

import gluonlite as mx

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "fixtures")
sys.path.insert(0, FIXTURES)
from numpy_gluon_cases import hybrid_block, training  # noqa: E402

EXPECTED = onp.load(os.path.join(FIXTURES, "numpy_gluon", "expected.npz"))


@pytest.fixture(autouse=True)
def np_mode():
    mx.install_mxnet_alias()
    mx.npx.set_np()
    yield
    mx.npx.reset_np()


def _check(got: dict, prefix: str):
    for key, value in got.items():
        expected = EXPECTED[prefix + key]
        if value.dtype.kind in "US":
            assert list(value) == list(expected), key
        else:
            onp.testing.assert_allclose(value, expected, rtol=1e-5, atol=1e-6, err_msg=key)


def test_np_block_imperative_and_hybridized_match_mxnet(tmp_path):
    res = hybrid_block(mx, str(tmp_path / "npnet"))
    _check(res, "block_")
    nodes = json.loads((tmp_path / "npnet-symbol.json").read_text())["nodes"]
    ops = {n["op"] for n in nodes}
    assert {"_npi_add", "_np_sum", "_npi_mean", "_npi_greater_scalar"} <= ops


def test_mxnet_np_export_loads_and_gives_mxnet_numbers():
    prefix = os.path.join(FIXTURES, "numpy_gluon", "npnet")
    with open(prefix + "-symbol.json") as f:
        ops = {n["op"] for n in json.load(f)["nodes"]}
    assert {"_npx_relu", "_npi_tanh"} <= ops  # MXNet's np names
    block = mx.gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"],
                                         prefix + "-0000.params")
    x = mx.np.array(onp.random.RandomState(1).uniform(-1, 1, (4, 3)).astype("float32"))
    out, mask = block(x)
    assert isinstance(out, mx.np.ndarray) and mask.dtype == onp.bool_
    onp.testing.assert_allclose(out.asnumpy(), EXPECTED["block_hybrid_out"], rtol=1e-5,
                                atol=1e-6)
    onp.testing.assert_array_equal(mask.asnumpy(), EXPECTED["block_hybrid_mask"])


def test_training_loop_with_np_arrays_matches_mxnet():
    _check(training(mx), "train_")


def test_parameters_made_under_set_np_are_np_arrays_and_legacy_ones_stay():
    dense = mx.gluon.nn.Dense(2, in_units=3)
    dense.initialize()
    assert isinstance(dense.weight.data(), mx.np.ndarray)
    assert isinstance(dense.weight.grad(), mx.np.ndarray)
    mx.npx.reset_np()
    legacy = mx.gluon.nn.Dense(2, in_units=3)
    legacy.initialize()
    assert type(legacy.weight.data()) is mx.nd.NDArray
    assert type(legacy(mx.nd.ones((1, 3)))) is mx.nd.NDArray


def test_symbolic_np_functions_build_shape_free_graphs():
    x = mx.sym.var("x").as_np_ndarray()
    y = mx.sym.var("y").as_np_ndarray()
    z = mx.sym.npx.relu(mx.sym.np.dot(x, y) + 1)[0, 1:]
    z = mx.sym.npx.reshape(z * 2, (-1, 1))
    assert z.infer_shape(x=(2, 3), y=(3, 4))[1] == [(3, 1)]
    out = z.as_nd_ndarray().eval(x=mx.nd.ones((2, 3)), y=mx.nd.ones((3, 4)))[0]
    onp.testing.assert_array_equal(out.asnumpy(), onp.full((3, 1), 8.0))


def test_deferred_init_through_np_dot():
    # MXNet's test_optimizer_with_np_ndarrays: a weight of unknown input size, F.np.dot
    class Linear(mx.gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.w = self.params.get("w", shape=(0, 5), allow_deferred_init=True)

        def hybrid_forward(self, F, x, w):
            return F.np.dot(x, w)

    net = Linear()
    net.initialize()
    net.hybridize()
    out = net(mx.np.ones((4, 7)))
    assert out.shape == (4, 5) and net.w.shape == (7, 5)
