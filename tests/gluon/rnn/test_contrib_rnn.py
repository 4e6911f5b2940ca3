"""``gluon.contrib.rnn`` against MXNet 1.9.1 (fixture ``contrib_rnn.npz``, made by
``tests/fixtures/gen_contrib_rnn.py``): ``LSTMPCell``, ``VariationalDropoutCell`` and
the convolutional RNN/LSTM/GRU cells: outputs, states and gradients of ``unroll``
(imperative and hybridized), parameter names and shapes, states, symbolic unrolling,
variational masks and errors."""
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd
from gluonlite.base import MXNetError
from gluonlite.gluon import contrib

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "contrib_rnn.npz")
DATA = np.load(FIXTURE)
CASES = json.loads(str(DATA["__cases__"]))
T, N = 3, 2


def build(spec):
    """The cell of a fixture case (same recipe as the fixture script)."""
    kwargs = {k: tuple(v) if isinstance(v, list) else v for k, v in spec["kwargs"].items()}
    args = [tuple(a) if isinstance(a, list) else a for a in spec["args"]]
    ns = mx.gluon.rnn if spec["cls"] in ("LSTMCell", "GRUCell") else contrib.rnn
    cell = getattr(ns, spec["cls"])(*args, prefix="cell_", **kwargs)
    if "vardrop" in spec:
        cell = contrib.rnn.VariationalDropoutCell(cell, **spec["vardrop"])
    return cell


def run_case(case, hybridize):
    spec = CASES[case]
    cell = build(spec)
    cell.initialize()
    params = cell._collect_params_with_prefix()
    assert sorted(params) == sorted(k[len(f"{case}/param/"):] for k in DATA.files
                                    if k.startswith(f"{case}/param/"))
    x = mx.nd.array(DATA[f"{case}/x"])
    cell.unroll(T, x, layout=spec["layout"], merge_outputs=True)  # settle deferred shapes
    for name, p in params.items():
        p.set_data(mx.nd.array(DATA[f"{case}/param/{name}"]))
    if hybridize:
        cell.hybridize()
    x.attach_grad()
    begin = None
    if spec["begin"]:
        begin = [mx.nd.array(DATA[f"{case}/begin{i}"]) for i in range(len(cell.state_info()))]
        for b in begin:
            b.attach_grad()
    valid = mx.nd.array(spec["valid"]) if "valid" in spec else None
    with autograd.record(train_mode=False):
        out, states = cell.unroll(T, x, begin_state=begin, layout=spec["layout"],
                                  merge_outputs=spec["merge"], valid_length=valid)
        if not spec["merge"]:
            assert isinstance(out, list) and len(out) == T
            out = mx.nd.stack(*out, axis=spec["layout"].find("T"))
        loss = (out * mx.nd.array(DATA[f"{case}/w"])).sum() + sum(s.sum() for s in states)
    loss.backward()
    res = {"out": out.asnumpy(), "dx": x.grad.asnumpy()}
    res.update({f"state{i}": s.asnumpy() for i, s in enumerate(states)})
    res.update({f"dbegin{i}": b.grad.asnumpy() for i, b in enumerate(begin or [])})
    res.update({f"grad/{name}": p.grad().asnumpy() for name, p in params.items()})
    return res


@pytest.mark.parametrize("hybridize", [False, True], ids=["imperative", "hybridized"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_unroll_matches_mxnet(case, hybridize):
    res = run_case(case, hybridize)
    expected = sorted(k[len(case) + 1:] for k in DATA.files if k.startswith(case + "/")
                      and k.split("/")[1] not in ("x", "w", "param")
                      and not k.split("/")[1].startswith("begin"))
    assert sorted(res) == expected
    for key, value in res.items():
        rtol = 1e-5 if key in ("out",) or key.startswith("state") else 1e-4
        np.testing.assert_allclose(value, DATA[f"{case}/{key}"], rtol=rtol, atol=1e-6,
                                   err_msg=f"{case}: {key}")


@pytest.mark.parametrize("case", ["lstmp", "conv2d_lstm", "conv2d_gru_nhwc", "vardrop_states"])
def test_hybridized_equals_imperative(case):
    a, b = run_case(case, False), run_case(case, True)
    for key in a:
        np.testing.assert_allclose(b[key], a[key], rtol=1e-6, atol=1e-7, err_msg=key)


# --- names, shapes, states ------------------------------------------------------------

CONV_SHAPES = [  # (class, input_shape, layout, weight shapes (i2h, h2h), state shape)
    ("Conv1DRNNCell", (5, 7), "NCW", (8, 5, 3), (8, 8, 3), (8, 5), 1),
    ("Conv1DLSTMCell", (5, 7), "NCW", (32, 5, 3), (32, 8, 3), (8, 5), 2),
    ("Conv1DGRUCell", (5, 7), "NCW", (24, 5, 3), (24, 8, 3), (8, 5), 1),
    ("Conv2DRNNCell", (5, 6, 7), "NCHW", (8, 5, 3, 3), (8, 8, 3, 3), (8, 4, 5), 1),
    ("Conv2DLSTMCell", (5, 6, 7), "NCHW", (32, 5, 3, 3), (32, 8, 3, 3), (8, 4, 5), 2),
    ("Conv2DGRUCell", (6, 7, 5), "NHWC", (24, 3, 3, 5), (24, 3, 3, 8), (4, 5, 8), 1),
    ("Conv3DRNNCell", (5, 4, 6, 7), "NCDHW", (8, 5, 3, 3, 3), (8, 8, 3, 3, 3), (8, 2, 4, 5),
     1),
    ("Conv3DGRUCell", (5, 4, 6, 7), "NCDHW", (24, 5, 3, 3, 3), (24, 8, 3, 3, 3),
     (8, 2, 4, 5), 1),
    ("Conv3DLSTMCell", (4, 6, 7, 5), "NDHWC", (32, 3, 3, 3, 5), (32, 3, 3, 3, 8),
     (2, 4, 5, 8), 2),
]


@pytest.mark.parametrize("cls,shape,layout,i2h,h2h,state,n_states", CONV_SHAPES,
                         ids=[f"{c[0]}-{c[2]}" for c in CONV_SHAPES])
def test_conv_cell_params_and_states(cls, shape, layout, i2h, h2h, state, n_states):
    cell = getattr(contrib.rnn, cls)(shape, 8, 3, 3, conv_layout=layout, prefix="rnn_")
    params = {k: v.shape for k, v in cell.collect_params().items()}
    assert params == {"rnn_i2h_weight": i2h, "rnn_h2h_weight": h2h,
                      "rnn_i2h_bias": (i2h[0],), "rnn_h2h_bias": (i2h[0],)}
    assert cell.state_info(2) == [{"shape": (2,) + state, "__layout__": layout}] * n_states
    assert cell.state_info() == [{"shape": (0,) + state, "__layout__": layout}] * n_states
    states = cell.begin_state(batch_size=3)
    assert [s.shape for s in states] == [(3,) + state] * n_states
    assert all(float(s.abs().sum().asscalar()) == 0 for s in states)


def test_default_prefixes_and_repr():
    for cls, alias in [(contrib.rnn.Conv1DRNNCell, "conv_rnn"),
                       (contrib.rnn.Conv2DLSTMCell, "conv_lstm"),
                       (contrib.rnn.Conv3DGRUCell, "conv_gru")]:
        dims = int(cls.__name__[4])
        cell = cls((5,) + (7,) * dims, 8, 3, 3)
        assert cell.prefix.startswith(alias) and cell.prefix[len(alias):-1].isdigit()
    assert repr(contrib.rnn.Conv1DRNNCell((5, 7), 8, 3, 3)) == \
        "Conv1DRNNCell(5 -> 8, tanh, NCW)"
    assert repr(contrib.rnn.Conv2DGRUCell((6, 7, 5), 8, 3, 3, conv_layout="NHWC")) == \
        "Conv2DGRUCell(5 -> 24, tanh, NHWC)"
    assert repr(contrib.rnn.Conv1DLSTMCell((0, 7), 8, 3, 3, activation="relu")) == \
        "Conv1DLSTMCell(None -> 32, relu, NCW)"
    lstmp = contrib.rnn.LSTMPCell(10, 4)
    assert lstmp.prefix.startswith("lstmp") and repr(lstmp) == "LSTMPCell(None -> 40 -> 4)"
    vd = contrib.rnn.VariationalDropoutCell(mx.gluon.rnn.RNNCell(3, prefix="rnn_"),
                                            drop_states=0.5)
    assert vd.prefix == "rnn_vardrop"
    assert repr(vd) == "VariationalDropoutCell(p_out = 0.0, p_state = 0.5)"


def test_conv_settings_forms():
    """Ints, tuples and lists give the same settings; pads and dilations shape the state."""
    a = contrib.rnn.Conv2DRNNCell((5, 7, 7), 8, 3, 3, i2h_pad=1, i2h_dilate=2, h2h_dilate=2)
    b = contrib.rnn.Conv2DRNNCell((5, 7, 7), 8, (3, 3), [3, 3], i2h_pad=[1, 1],
                                  i2h_dilate=(2, 2), h2h_dilate=(2, 2))
    assert a.state_info() == b.state_info() == [{"shape": (0, 8, 5, 5), "__layout__": "NCHW"}]
    assert contrib.rnn.Conv2DRNNCell((5, 7, 7), 8, (3, 3), (3, 5)).state_info()[0]["shape"] \
        == (0, 8, 5, 5)


def test_lstmp_params_states_and_symbolic_unroll():
    cell = contrib.rnn.LSTMPCell(100, 64, prefix="rnn_")
    assert {k: v.shape for k, v in cell.collect_params().items()} == {
        "rnn_i2h_weight": (400, 0), "rnn_h2h_weight": (400, 64), "rnn_h2r_weight": (64, 100),
        "rnn_i2h_bias": (400,), "rnn_h2h_bias": (400,)}
    assert cell.state_info(10) == [{"shape": (10, 64), "__layout__": "NC"},
                                   {"shape": (10, 100), "__layout__": "NC"}]
    inputs = [mx.sym.var(f"rnn_t{i}_data") for i in range(3)]
    outputs, states = cell.unroll(3, inputs)
    group = mx.sym.Group(outputs)
    assert group.list_outputs() == ["rnn_t0_out_output", "rnn_t1_out_output",
                                    "rnn_t2_out_output"]
    shapes = {f"rnn_t{i}_data": (10, 50) for i in range(3)}
    assert group.infer_shape(**shapes)[1] == [(10, 64)] * 3
    assert mx.sym.Group(states).infer_shape(**shapes)[1] == [(10, 64), (10, 100)]


@pytest.mark.parametrize("cls,in_shape,out_shape", [
    ("Conv1DRNNCell", (1, 10, 50), (1, 100, 48)),
    ("Conv2DLSTMCell", (1, 10, 20, 50), (1, 100, 18, 48)),
    ("Conv3DGRUCell", (1, 10, 6, 7, 8), (1, 100, 4, 5, 6)),
])
def test_conv_symbolic_unroll(cls, in_shape, out_shape):
    cell = getattr(contrib.rnn, cls)(in_shape[1:], 100, 3, 3, prefix="rnn_")
    outputs, _ = cell.unroll(3, [mx.sym.var(f"rnn_t{i}_data") for i in range(3)])
    group = mx.sym.Group(outputs)
    assert sorted(cell.collect_params()) == ["rnn_h2h_bias", "rnn_h2h_weight",
                                             "rnn_i2h_bias", "rnn_i2h_weight"]
    assert group.list_outputs() == [f"rnn_t{i}_out_output" for i in range(3)]
    assert group.infer_shape(**{f"rnn_t{i}_data": in_shape for i in range(3)})[1] == \
        [out_shape] * 3


@pytest.mark.parametrize("hybridize", [False, True])
def test_conv_deferred_input_channels(hybridize):
    cell = contrib.rnn.Conv1DLSTMCell((0, 7), 10, (3,), (3,))
    assert cell.i2h_weight.shape == (40, 0, 3)
    cell.initialize()
    if hybridize:
        cell.hybridize()
    x = mx.nd.ones((8, 3, 5, 7))
    x.attach_grad()
    with autograd.record():
        out, states = cell.unroll(3, x, merge_outputs=True)
    out.backward()
    assert cell.i2h_weight.shape == (40, 5, 3)
    assert out.shape == (8, 3, 10, 5) and [s.shape for s in states] == [(8, 10, 5)] * 2
    assert x.grad.shape == x.shape


def test_stacked_conv_cells_step_and_unroll():
    net = mx.gluon.rnn.SequentialRNNCell()
    net.add(contrib.rnn.Conv1DLSTMCell((5, 7), 10, (3,), (3,)))
    net.add(contrib.rnn.Conv1DRNNCell((10, 5), 11, (3,), (3,)))
    net.add(contrib.rnn.Conv1DGRUCell((11, 3), 12, (3,), (3,)))
    net.collect_params().initialize()
    x = mx.nd.ones((8, 3, 5, 7))
    merged, states = net.unroll(3, x, merge_outputs=True)
    split, _ = net.unroll(3, x, merge_outputs=False)
    assert merged.shape == (8, 3, 12, 1) and len(split) == 3
    assert [s.shape for s in states] == [(8, 10, 5), (8, 10, 5), (8, 11, 3), (8, 12, 1)]
    np.testing.assert_allclose(split[2].asnumpy(), merged[:, 2].asnumpy(), rtol=1e-6)
    out, _ = net(x[:, 0], net.begin_state(batch_size=8))
    np.testing.assert_allclose(out.asnumpy(), merged[:, 0].asnumpy(), rtol=1e-6)


# --- variational dropout --------------------------------------------------------------

def _vardrop(drop_inputs=0., drop_states=0., drop_outputs=0., hidden=20):
    base = mx.gluon.rnn.RNNCell(hidden, prefix="rnn_")
    cell = contrib.rnn.VariationalDropoutCell(base, drop_inputs=drop_inputs,
                                              drop_states=drop_states,
                                              drop_outputs=drop_outputs)
    cell.initialize(init="xavier")
    return cell


@pytest.mark.parametrize("drop_states", [0., 0.5])
@pytest.mark.parametrize("hybridize", [False, True])
def test_vardrop_output_mask_shared_across_steps(drop_states, hybridize):
    mx.random.seed(3)
    cell = _vardrop(drop_states=drop_states, drop_outputs=0.5)
    if hybridize and not drop_states:  # the sequence-level path; hybridized steps redraw
        cell.hybridize()
    x = mx.nd.random.uniform(shape=(6, 4, 5))
    with autograd.record():
        out, _ = cell.unroll(4, x, merge_outputs=True)
    zeros = out.asnumpy() == 0
    assert 0 < zeros.mean() < 1
    for t in range(1, 4):
        np.testing.assert_array_equal(zeros[:, t], zeros[:, 0])
    with autograd.record():
        out2, _ = cell.unroll(4, x, merge_outputs=True)
    assert not np.array_equal(out2.asnumpy() == 0, zeros)  # a new sequence, new masks


def test_vardrop_masks_kept_until_reset():
    cell = _vardrop(0.5, 0.5, 0.5)
    x = mx.nd.random.uniform(shape=(4, 5))
    states = cell.begin_state(batch_size=4)
    with autograd.record():
        out, states = cell(x, states)
        masks = (cell.drop_inputs_mask, cell.drop_states_mask, cell.drop_outputs_mask)
        assert all(m is not None for m in masks)
        assert masks[0].shape == (4, 5) and masks[1].shape == masks[2].shape == (4, 20)
        out, states = cell(x, states)
    assert (cell.drop_inputs_mask, cell.drop_states_mask, cell.drop_outputs_mask) == masks
    cell.reset()
    assert cell.drop_inputs_mask is None and cell.drop_states_mask is None \
        and cell.drop_outputs_mask is None


def test_vardrop_predict_mode_is_base_cell():
    cell = _vardrop(0.5, 0.5, 0.5)
    x = mx.nd.random.uniform(shape=(3, 4, 5))
    out, states = cell.unroll(4, x, merge_outputs=True)
    cell.base_cell._modified = False
    ref, ref_states = cell.base_cell.unroll(4, x, merge_outputs=True)
    np.testing.assert_allclose(out.asnumpy(), ref.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(states[0].asnumpy(), ref_states[0].asnumpy(), rtol=1e-6)


@pytest.mark.parametrize("drop_states", [0., 0.5])
def test_vardrop_symbolic_unroll(drop_states):
    cell = _vardrop(0.5, drop_states, 0.5, hidden=100)
    outputs, _ = cell.unroll(3, [mx.sym.var(f"rnn_t{i}_data") for i in range(3)],
                             merge_outputs=False)
    shapes = {f"rnn_t{i}_data": (10, 50) for i in range(3)}
    assert mx.sym.Group(outputs).infer_shape(**shapes)[1] == [(10, 100)] * 3
    merged, _ = cell.unroll(3, mx.sym.var("data"), layout="TNC", merge_outputs=True)
    assert merged.infer_shape(data=(3, 10, 50))[1] == [(3, 10, 100)]


def test_vardrop_modifies_base_cell():
    base = mx.gluon.rnn.LSTMCell(4)
    cell = contrib.rnn.VariationalDropoutCell(base, drop_inputs=0.2)
    assert cell.params is base.params and cell.state_info(2) == base.state_info(2)
    assert [s.shape for s in cell.begin_state(batch_size=2)] == [(2, 4), (2, 4)]
    with pytest.raises(AssertionError):
        base.begin_state(batch_size=2)
    with pytest.raises(AssertionError):
        contrib.rnn.VariationalDropoutCell(base)


# --- errors ---------------------------------------------------------------------------

def test_bad_settings_raise():
    with pytest.raises(AssertionError, match="Only support odd number"):
        contrib.rnn.Conv1DRNNCell((5, 7), 8, 3, 2)
    with pytest.raises(AssertionError, match="For 1D convolution"):
        contrib.rnn.Conv1DRNNCell((5, 7), 8, (3, 3), 3)
    with pytest.raises(AssertionError, match="For 2D convolution"):
        contrib.rnn.Conv2DLSTMCell((5, 7, 7), 8, 3, 3, i2h_pad=(1, 1, 1))
    bi = mx.gluon.rnn.BidirectionalCell(mx.gluon.rnn.RNNCell(3), mx.gluon.rnn.RNNCell(3))
    with pytest.raises(AssertionError, match="BidirectionalCell doesn't support"):
        contrib.rnn.VariationalDropoutCell(bi, drop_states=0.5)


@pytest.mark.parametrize("hybridize", [False, True])
@pytest.mark.parametrize("shape", [(2, 2, 4, 7, 7), (2, 2, 5, 8, 8)],
                         ids=["channels", "spatial"])
def test_input_not_matching_input_shape_raises(shape, hybridize):
    cell = contrib.rnn.Conv2DRNNCell((5, 7, 7), 8, 3, 3)
    cell.initialize()
    if hybridize:
        cell.hybridize()
    with pytest.raises(MXNetError):
        cell.unroll(2, mx.nd.ones(shape))[0].asnumpy()


def test_lstmp_wrong_input_size_raises():
    cell = contrib.rnn.LSTMPCell(10, 4, input_size=6)
    cell.initialize()
    with pytest.raises(MXNetError):
        cell.unroll(2, mx.nd.ones((2, 2, 5)))[0].asnumpy()


def test_public_names():
    assert sorted(contrib.rnn.__all__) == sorted([
        "Conv1DRNNCell", "Conv2DRNNCell", "Conv3DRNNCell", "Conv1DLSTMCell",
        "Conv2DLSTMCell", "Conv3DLSTMCell", "Conv1DGRUCell", "Conv2DGRUCell",
        "Conv3DGRUCell", "VariationalDropoutCell", "LSTMPCell"])
    assert contrib.rnn.rnn_cell.LSTMPCell is contrib.rnn.LSTMPCell
    assert contrib.rnn.conv_rnn_cell.Conv2DGRUCell is contrib.rnn.Conv2DGRUCell
