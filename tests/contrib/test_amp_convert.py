"""AMP model conversion (``amp.convert_symbol``, ``convert_model``,
``convert_hybrid_block``, ``convert_bucketing_module``) against MXNet 1.9.1: the graphs
with and without their casts, node names, ``__dtype__`` attributes, parameter dtypes
(``tests/fixtures/gen_amp_convert.py``), and float16 outputs against float32 ones."""
import json
import os
import sys

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError
from gluonlite.contrib import amp

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "fixtures")
sys.path.insert(0, FIXTURES)
from amp_convert_cases import CASES, conv_bn, describe, mlp  # noqa: E402

with open(os.path.join(FIXTURES, "amp_convert.json")) as _f:
    EXPECTED = json.load(_f)
MODEL = np.load(os.path.join(FIXTURES, "amp_convert.npz"))


@pytest.mark.parametrize("name", sorted(CASES))
def test_convert_symbol_matches_mxnet(name):
    build, kwargs = CASES[name]
    got = json.loads(json.dumps(describe(mx, amp.convert_symbol(build(mx), **kwargs))))
    want = EXPECTED[name]
    for key in ("full", "saved"):
        assert [n[:3] for n in got[key]] == [n[:3] for n in want[key]], key
        for g, w in zip(got[key], want[key]):
            if g[0] in ("amp_cast", "amp_multicast", "null"):
                assert g[3] == w[3], (key, g[1])
    assert got["attrs"] == want["attrs"]
    for key in ("outputs", "arguments", "aux"):
        assert got[key] == want[key], key


def test_convert_symbol_leaves_the_input_alone():
    sym = mlp(mx)
    before = sym.tojson()
    amp.convert_symbol(sym, cast_optional_params=True)
    assert sym.tojson() == before
    assert "__dtype__" not in json.dumps(sym.attr_dict())


def _model():
    sym = conv_bn(mx)
    args = {k[4:]: mx.nd.array(v) for k, v in MODEL.items() if k.startswith("arg_")}
    auxs = {k[4:]: mx.nd.array(v) for k, v in MODEL.items() if k.startswith("aux_")}
    return sym, args, auxs


@pytest.mark.parametrize("optional", [False, True])
def test_convert_model_runs_in_float16(optional):
    sym, args, auxs = _model()
    csym, cargs, cauxs = amp.convert_model(sym, args, auxs, cast_optional_params=optional)
    params = dict(cargs, **cauxs)
    dtypes = [f"{n}:{np.dtype(params[n].dtype).name}" for n in sorted(params)]
    assert dtypes == list(MODEL["optional_dtypes" if optional else "plain_dtypes"])
    ex = csym.bind(mx.cpu(), dict(cargs, data=mx.nd.array(MODEL["data"])), aux_states=cauxs)
    out = ex.forward()[0]
    assert out.dtype == np.float32
    # float16 arithmetic against MXNet's float32 output
    np.testing.assert_allclose(out.asnumpy(), MODEL["float32"], rtol=2e-2, atol=2e-2)
    assert not np.allclose(out.asnumpy(), MODEL["float32"], rtol=1e-6, atol=1e-6)


def test_checkpoints_drop_the_casts(tmp_path):
    sym, args, auxs = _model()
    csym, cargs, cauxs = amp.convert_model(sym, args, auxs)
    mx.model.save_checkpoint(str(tmp_path / "m"), 0, csym, cargs, cauxs)
    loaded = mx.sym.load(str(tmp_path / "m-symbol.json"))
    ops = [n["op"] for n in json.loads(loaded.tojson())["nodes"]]
    assert "amp_cast" in ops[-1:] and ops.count("amp_cast") == 1   # the head's cast stays
    mx.model.save_checkpoint(str(tmp_path / "k"), 0, csym, cargs, cauxs,
                             remove_amp_cast=False)
    kept = json.loads(mx.sym.load(str(tmp_path / "k-symbol.json")).tojson(False))["nodes"]
    assert [n[:2] for n in (k for k in EXPECTED["conv_bn"]["full"])] == \
        [[n["op"], n["name"]] for n in kept]


def test_convert_hybrid_block():
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Conv2D(4, 3, padding=1), mx.gluon.nn.BatchNorm(),
            mx.gluon.nn.Activation("relu"), mx.gluon.nn.Dense(5))
    net.initialize(mx.init.Xavier())
    x = mx.nd.array(np.random.default_rng(1).standard_normal((2, 3, 6, 6)))
    with pytest.raises(MXNetError, match="hybridize"):
        amp.convert_hybrid_block(net, ctx=mx.cpu())
    net.hybridize()
    ref = net(x).asnumpy()
    for optional in (False, True):
        low = amp.convert_hybrid_block(net, ctx=mx.cpu(), cast_optional_params=optional)
        assert isinstance(low, mx.gluon.SymbolBlock)
        params = low.collect_params()
        # (names carry the process-wide layer counters: find them by suffix and shape)
        conv_w = next(p for k, p in params.items() if k.endswith("_weight")
                      and len(p.shape) == 4)
        gamma = next(p for k, p in params.items() if k.endswith("_gamma"))
        assert np.dtype(conv_w.dtype) == (np.float16 if optional else np.float32)
        assert np.dtype(gamma.dtype) == np.float32
        out = low(x)
        assert out.dtype == np.float32
        np.testing.assert_allclose(out.asnumpy(), ref, rtol=3e-2, atol=3e-2)
    ops = [n["op"] for n in json.loads(low._cached_graph[1].tojson(False))["nodes"]]
    assert "amp_cast" in ops


def test_convert_bucketing_module():
    def sym_gen(key):
        data = mx.sym.var("data")
        out = mx.sym.FullyConnected(data, num_hidden=3, name="fc")
        return mx.sym.SoftmaxOutput(out, name="softmax"), ("data",), ("softmax_label",)

    mod = mx.mod.BucketingModule(sym_gen, default_bucket_key=4)
    mod.bind(data_shapes=[("data", (2, 4))], label_shapes=[("softmax_label", (2,))],
             for_training=False)
    mod.init_params(mx.init.Xavier())
    x = mx.nd.array(np.random.default_rng(2).standard_normal((2, 4)))
    batch = mx.io.DataBatch([x], [mx.nd.zeros((2,))], bucket_key=4,
                            provide_data=[("data", (2, 4))],
                            provide_label=[("softmax_label", (2,))])
    mod.forward(batch, is_train=False)
    ref = mod.get_outputs()[0].asnumpy()
    low = amp.convert_bucketing_module(mod, cast_optional_params=True)
    low.bind(data_shapes=[("data", (2, 4))], label_shapes=[("softmax_label", (2,))],
             for_training=False)
    low.forward(batch, is_train=False)
    out = low.get_outputs()[0]
    assert out.dtype == np.float32
    np.testing.assert_allclose(out.asnumpy(), ref, rtol=2e-2, atol=2e-2)
    args, _ = low.get_params()
    assert args["fc_weight"].dtype == np.float16


def test_listed_outputs_are_registered_operators():
    from gluonlite.ops.listed_outputs import LISTED_OUTPUTS
    from gluonlite.ops.registry import op_names
    assert LISTED_OUTPUTS <= set(op_names())


def test_small_graphs_as_mxnets_amp_test_builds_them():
    """MXNet's own AMP test (``tests/python/gpu/test_contrib_amp.py``) compares converted
    graphs with ones built by hand: the same structures here."""
    from gluonlite.test_utils import same_symbol_structure
    x, y = mx.sym.var("x"), mx.sym.var("y")
    res = mx.sym.FullyConnected(x, y, num_hidden=10, no_bias=True) + mx.sym.sin(y)
    got = amp.convert_symbol(res, target_dtype="float16", target_dtype_ops=["FullyConnected"],
                             fp32_ops=["sin"])
    x16, y16 = mx.sym.amp_cast(x, dtype="float16"), mx.sym.amp_cast(y, dtype="float16")
    want = mx.sym.amp_cast(mx.sym.FullyConnected(x16, y16, num_hidden=10, no_bias=True),
                           dtype="float32") + mx.sym.sin(y)
    assert same_symbol_structure(got, want)
    fc = mx.sym.FullyConnected(x, y, num_hidden=10, no_bias=True)
    for value, want in (("False", fc), ("True", mx.sym.FullyConnected(
            mx.sym.amp_cast(x, dtype="float32"), mx.sym.amp_cast(y, dtype="float32"),
            num_hidden=10, no_bias=True))):
        got = amp.convert_symbol(fc, target_dtype="float16", target_dtype_ops=[],
                                 fp32_ops=["sin"],
                                 conditional_fp32_ops=[("FullyConnected", "no_bias", [value])])
        assert same_symbol_structure(got, want), value


def test_errors():
    sym = mlp(mx)
    # MXNet checks the arguments with assert: its tests expect AssertionError
    for kw in (dict(target_dtype_ops=["FullyConnected"], fp32_ops=["elemwise_add"]),
               dict(target_dtype_ops=["FullyConnected"], fp32_ops=["Activation"],
                    conditional_fp32_ops=[("Activation", "act_type", ["selu"])]),
               dict(target_dtype_ops=["FullyConnected"], fp32_ops=["FullyConnected"])):
        with pytest.raises(AssertionError):
            amp.convert_symbol(sym, target_dtype="float16", **kw)
    net = mx.gluon.nn.Dense(2)
    net.initialize()
    with pytest.raises(RuntimeError, match="hybridize"):
        amp.convert_hybrid_block(net, ctx=mx.cpu())
    with pytest.raises(MXNetError, match="bfloat16"):
        amp.convert_symbol(sym, target_dtype="bfloat16")
    with pytest.raises(MXNetError, match="two or more lists"):
        amp.convert_symbol(sym, target_dtype_ops=["FullyConnected"],
                           fp32_ops=["FullyConnected"])
    with pytest.raises(MXNetError, match="none of"):
        amp.convert_symbol(sym, fp32_ops=["not_an_op"])
    with pytest.raises(MXNetError, match="Symbol"):
        amp.convert_symbol(mx.nd.ones((1,)))
    assert "BatchNorm" in amp.list_lp16_fp32_ops("float16")
