"""The INT8 fused nodes' fast paths keep MXNet's numbers: the float32 GEMM bound taken
from the operands' values per channel, and the quantized weights kept between calls
while the parameters are unchanged (``OpDef.prepare``; MXNet's nodes compare their
weights' versions the same way).  Fixtures: ``tests/fixtures/onednn_fused.npz``."""
import json

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.ops import _quantized_math as qm
from gluonlite.ops.registry import get_op

from .onednn_util import import_fixture, imports, load_fixture

DATA = load_fixture("onednn_fused.npz")


# -- the float32 bound ----------------------------------------------------------------
def test_gemm_bound_reads_each_columns_largest_magnitude():
    """Only one column of the data reaches 255: the per-column bound keeps float32
    where a bound from the largest value alone (2000 x 255 x 127 > 2**24) would not."""
    a = np.full((4, 2000), 3, dtype=np.uint8)
    a[:, 7] = 255
    b = np.full((2000, 5), -127, dtype=np.int8)
    assert 2000 * 255 * 127 >= 1 << 24
    assert qm.matmul_exact_dtype(np, a, b) == np.float32
    np.testing.assert_array_equal(qm.int_matmul(np, a, b),
                                  a.astype(np.int64) @ b.astype(np.int64))


def test_channel_top_of_signed_data_sees_minus_128():
    x = np.zeros((2, 3, 4, 4), dtype=np.int8)
    x[1, 2, 3, 0] = -128
    x[0, 0, 1, 1] = 5
    np.testing.assert_array_equal(qm.channel_top(np, x, 1), [5, 0, 128])
    np.testing.assert_array_equal(qm.channel_top(np, x.transpose(0, 2, 3, 1), -1),
                                  [5, 0, 128])


@pytest.mark.parametrize("groups", [1, 2, 4])
def test_conv_bound_covers_every_output_and_chooses_the_dtype(groups):
    """The bound is at least the largest sum of |data| * |weight| any output reaches
    (computed here by a float64 convolution of the magnitudes), and float32 is chosen
    exactly when the bound is under 2**24."""
    rng = np.random.RandomState(groups)
    data = rng.randint(0, 256, (2, 8, 6, 6)).astype(np.uint8)
    data[:, 3] = rng.randint(0, 4, (2, 6, 6))     # a quiet channel: a smaller bound
    w = rng.randint(-128, 128, (8, 8 // groups, 3, 3)).astype(np.float32)
    conv = get_op("Convolution")
    cattrs = conv.parse_attrs(dict(kernel=(3, 3), num_filter=8, num_group=groups,
                                   no_bias=True, pad=(1, 1)))
    bound_of = qm.conv_bound(np, w, groups)
    top = qm.channel_top(np, data, 1)
    bound = qm.sum_bound(top, bound_of.rows)
    sums = conv.forward(_oc(), cattrs,
                        [data.astype(np.float64), np.abs(w).astype(np.float64)], None)[0]
    assert sums.max() <= bound
    # the bound by its definition, channel by channel
    per_group = 8 // groups
    want = max(sum(top[(o // per_group) * per_group + i] * np.abs(w[o, i]).sum()
                   for i in range(per_group)) for o in range(8))
    assert bound == pytest.approx(want, rel=1e-12)
    assert qm.conv_exact_dtype(np, data, bound_of) == np.float32
    big = qm.conv_bound(np, np.full((8, 8 // groups, 40, 40), 127, np.float32), groups)
    full = np.full((1, 8, 40, 40), 255, dtype=np.uint8)
    assert qm.sum_bound(qm.channel_top(np, full, 1), big.rows) >= 1 << 24
    assert qm.conv_exact_dtype(np, full, big) == np.float64
    # channel-last weights (O, *kernel, I/g) give the same bound
    last = qm.conv_bound(np, np.ascontiguousarray(w.transpose(0, 2, 3, 1)), groups, True)
    np.testing.assert_array_equal(last.rows, bound_of.rows)


@pytest.mark.parametrize("seed", range(6))
def test_staged_bound_decides_as_the_exact_one(seed):
    """ChannelBound's cheap stages answer only where they already prove the sums fit:
    float32 or float64 exactly as the per-output bound decides."""
    rng = np.random.RandomState(seed)
    groups = [1, 2, 4][seed % 3]
    rows = rng.randint(0, 128 * 9, (groups, 16, 32)).astype(np.float64)
    rows[:, :, rng.randint(32)] *= rng.randint(1, 30)     # one heavy input
    for scale in (1, 4, 16, 64, 255):
        top = rng.randint(0, scale + 1, groups * 32).astype(np.float64)
        tight = qm.sum_bound(top, rows)
        staged = qm.ChannelBound(rows).bound(top)
        assert staged >= tight
        assert qm.exact_dtype(staged) == qm.exact_dtype(tight)


def _oc():
    from gluonlite.ops.op_context import OpContext
    return OpContext(np, False, mx.cpu())


# -- the prepared weights ---------------------------------------------------------------
def _imported(case, tmp_path):
    net = import_fixture(DATA, case, str(tmp_path / "net"))
    net.hybridize(static_alloc=True, static_shape=True)
    return net


_FUSED = ("_sg_mkldnn_conv", "_sg_mkldnn_fully_connected")


def _assert_as_fresh(net, x, got, tmp_path):
    """``got`` equals the output of a network imported afresh from ``net``'s current
    parameters (nothing kept from before the change)."""
    net.export(str(tmp_path / "changed"))
    np.testing.assert_array_equal(imports(str(tmp_path / "changed"))(x).asnumpy(), got)


@pytest.fixture
def count_prepares(monkeypatch):
    calls = []
    for name in _FUSED:
        op = get_op(name)

        def counting(oc, attrs, inputs, original=op.prepare):
            calls.append(attrs)
            return original(oc, attrs, inputs)
        monkeypatch.setattr(op, "prepare", counting)
    return calls


def _n_quantized_nodes(case):
    nodes = json.loads(str(DATA[f"{case}/json"]))["nodes"]
    return sum(n["op"] in _FUSED and n.get("attrs", {}).get("quantized", "").lower() == "true"
               for n in nodes)


@pytest.mark.parametrize("case", ["res_naive", "fc_leaky_naive", "att_naive"])
def test_weights_are_quantized_once_while_unchanged(tmp_path, count_prepares, case):
    net = _imported(case, tmp_path)
    x = mx.nd.array(DATA[f"{case}/x"])
    first = net(x).asnumpy()
    for _ in range(3):
        np.testing.assert_array_equal(net(x).asnumpy(), first)
    assert len(count_prepares) == _n_quantized_nodes(case) > 0


def test_plans_of_one_graph_share_the_prepared_weights(tmp_path, count_prepares):
    """Another batch size is another plan of the same graph: the weights are not
    quantized (nor kept) twice."""
    net = _imported("res_naive", tmp_path)
    x = DATA["res_naive/x"]
    net(mx.nd.array(x))
    net(mx.nd.array(np.concatenate([x, x])))
    net(mx.nd.array(x))
    assert len(count_prepares) == _n_quantized_nodes("res_naive")


@pytest.mark.parametrize("how", ["set_data", "in_place", "bn_mean"])
def test_changed_parameters_are_quantized_again(tmp_path, count_prepares, how):
    net = _imported("res_naive", tmp_path)
    x = mx.nd.array(DATA["res_naive/x"])
    before = net(x).asnumpy()
    params = net.collect_params()
    if how == "bn_mean":
        name = next(k for k in params if k.endswith("running_mean") or k.endswith("_mean"))
        params[name].data()[:] += 0.5
    else:
        name = next(k for k in params if k.endswith("weight"))
        if how == "set_data":
            params[name].set_data(params[name].data() * 0.5)
        else:
            params[name].data()[:] *= 0.5
    n = len(count_prepares)
    after = net(x).asnumpy()
    assert len(count_prepares) > n
    assert not np.array_equal(after, before)
    _assert_as_fresh(net, x, after, tmp_path)


def test_quantized_inference_leaves_batchnorm_statistics_unwritten(tmp_path):
    """A quantized node does not write its BatchNorm statistics (MXNet lists them as
    auxiliary states): the CachedOp counts no write for them after an inference call,
    while a float BatchNorm in training still counts one."""
    net = _imported("res_naive", tmp_path)
    x = mx.nd.array(DATA["res_naive/x"])
    net(x)
    plan = net._cached_op._last
    assert plan.versioned_slots and plan.written_aux == ()

    bn = mx.gluon.nn.HybridSequential()
    bn.add(mx.gluon.nn.Conv2D(4, 3), mx.gluon.nn.BatchNorm())
    bn.initialize()
    bn.hybridize()
    with mx.autograd.record():
        bn(mx.nd.ones((1, 2, 5, 5)))
    assert len(bn._cached_op._last.written_aux) == 2


def test_changed_int8_dense_weight_is_read_again(tmp_path, count_prepares):
    """An offline-quantized (int8) Dense weight written in place: the next call uses it."""
    net = _imported("fc_leaky_naive", tmp_path)
    x = mx.nd.array(DATA["fc_leaky_naive/x"])
    before = net(x).asnumpy()
    params = net.collect_params()
    name = next(k for k in params if k.endswith("weight_quantize"))
    w = params[name].data()
    w[:] = mx.nd.array(np.clip(-w.asnumpy().astype(np.int16), -128, 127), dtype=np.int8)
    n = len(count_prepares)
    after = net(x).asnumpy()
    assert len(count_prepares) == n + 1
    assert not np.array_equal(after, before)
    _assert_as_fresh(net, x, after, tmp_path)


@pytest.mark.parametrize("layer", ["conv", "fc"])
def test_plain_quantized_layers_prepare_their_int8_weight_once(monkeypatch, layer):
    """``quantize_model``'s ``_contrib_quantized_conv``/``_fully_connected`` nodes (int8
    weights) keep the weight's float32 values while it is unchanged, with the same
    int32 results as an imperative call (which prepares every time)."""
    name = "_contrib_quantized_conv" if layer == "conv" else \
        "_contrib_quantized_fully_connected"
    op = get_op(name)
    calls = []

    def counting(oc, attrs, inputs, original=op.prepare):
        calls.append(1)
        return original(oc, attrs, inputs)
    monkeypatch.setattr(op, "prepare", counting)
    rng = np.random.RandomState(0)
    if layer == "conv":
        x = rng.randint(0, 256, (2, 6, 9, 9)).astype(np.uint8)
        w = rng.randint(-127, 128, (4, 3, 3, 3)).astype(np.int8)
        kw = dict(kernel=(3, 3), num_filter=4, num_group=2, pad=(1, 1), no_bias=True)
        build = mx.sym.contrib.quantized_conv
    else:
        x = rng.randint(0, 256, (5, 7)).astype(np.uint8)
        w = rng.randint(-127, 128, (3, 7)).astype(np.int8)
        kw = dict(num_hidden=3, no_bias=True)
        build = mx.sym.contrib.quantized_fully_connected
    names = ["data", "weight", "min_data", "max_data", "min_weight", "max_weight"]
    syms = [mx.sym.var(n) for n in names]
    out = build(*syms, **kw)[0]
    values = [mx.nd.array(x, dtype=np.uint8), mx.nd.array(w, dtype=np.int8)] + \
        [mx.nd.array([v]) for v in (0.0, 2.0, -1.0, 1.0)]
    args = dict(zip(names, values))
    ex = out.bind(mx.cpu(), args, grad_req="null")
    first = ex.forward()[0].asnumpy()
    for _ in range(2):
        np.testing.assert_array_equal(ex.forward()[0].asnumpy(), first)
    assert len(calls) == 1
    direct = getattr(mx.nd.contrib, build.__name__)(*values, **kw)[0].asnumpy()
    np.testing.assert_array_equal(first, direct)
    args["weight"][:] = mx.nd.array(-w, dtype=np.int8)
    changed = ex.forward()[0].asnumpy()
    assert len(calls) == 2
    np.testing.assert_array_equal(changed, -first)
