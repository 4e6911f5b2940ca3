"""ONNX export of the fused ``RNN`` operator, ``box_nms``, ``box_decode``,
``sample_multinomial``, ``softmax`` with lengths, ``mod`` and integer ``prod``: ONNX
Runtime's outputs against gluonlite's.  Skips without ``onnx`` and ``onnxruntime``."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
import gluonlite.onnx  # noqa: E402,F401

RNG = np.random.RandomState(7)


def _export_and_run(sym, inputs, params, tmp_path):
    """``(onnx outputs, gluonlite outputs)`` of ``sym`` on ``inputs`` (data inputs, in
    ``list_inputs`` order) with ``params`` as initializers."""
    args = {k: mx.nd.array(v, dtype=v.dtype) for k, v in {**inputs, **params}.items()}
    aux = {k: args.pop(k) for k in sym.list_auxiliary_states()}
    ex = sym.bind(mx.cpu(), args, aux_states=aux)
    want = [o.asnumpy() for o in ex.forward(is_train=False)]
    names = [n for n in sym.list_inputs() if n in inputs]
    path = mx.onnx.export_model(sym, {k: mx.nd.array(v, dtype=v.dtype)
                                      for k, v in params.items()},
                                [inputs[n].shape for n in names],
                                [inputs[n].dtype for n in names],
                                str(tmp_path / "model.onnx"))
    onnx.checker.check_model(onnx.load(path))
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    got = sess.run(None, {n: inputs[n] for n in names})
    return got, want


def _check(sym, inputs, tmp_path, params=None, rtol=1e-5, atol=1e-5):
    got, want = _export_and_run(sym, inputs, params or {}, tmp_path)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        assert g.dtype == w.dtype
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=rtol,
                                   atol=atol)


# -- RNN ---------------------------------------------------------------------------------
_GATES = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}


def _rnn_size(mode, layers, dirs, in_size, hidden):
    g = _GATES[mode] * hidden
    total = 0
    for layer in range(layers):
        width = in_size if layer == 0 else dirs * hidden
        total += dirs * (g * width + g * hidden + 2 * g)
    return total


def _rnn_case(mode, layers, bidirectional, state_outputs, in_size=5, hidden=4, t_len=6,
              batch=3, lengths=False):
    dirs = 2 if bidirectional else 1
    kw = dict(mode=mode, state_size=hidden, num_layers=layers, bidirectional=bidirectional,
              state_outputs=state_outputs, p=0.2)
    names = ["data", "params", "state"] + (["cell"] if mode == "lstm" else [])
    syms = [mx.sym.var(n) for n in names]
    inputs = {"data": RNG.normal(0, 1, (t_len, batch, in_size)).astype(np.float32),
              "params": RNG.normal(0, 0.5, _rnn_size(mode, layers, dirs, in_size, hidden))
              .astype(np.float32),
              "state": RNG.uniform(-1, 1, (layers * dirs, batch, hidden)).astype(np.float32)}
    if mode == "lstm":
        inputs["cell"] = RNG.uniform(-1, 1, (layers * dirs, batch, hidden)).astype(np.float32)
    if lengths:
        syms.append(mx.sym.var("lengths"))
        inputs["lengths"] = RNG.randint(1, t_len + 1, batch).astype(np.int32)
        kw["use_sequence_length"] = True
    return mx.sym.RNN(*syms, **kw), inputs


@pytest.mark.parametrize("mode", ["lstm", "gru", "rnn_tanh", "rnn_relu"])
@pytest.mark.parametrize("layers,bidirectional", [(1, False), (1, True), (2, False),
                                                  (3, True)])
@pytest.mark.parametrize("state_outputs", [True, False])
def test_rnn_modes_layers_directions(mode, layers, bidirectional, state_outputs, tmp_path):
    sym, inputs = _rnn_case(mode, layers, bidirectional, state_outputs)
    _check(sym, inputs, tmp_path, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("mode", ["lstm", "gru"])
def test_rnn_parameters_as_initializer(mode, tmp_path):
    sym, inputs = _rnn_case(mode, 2, True, True)
    params = {"params": inputs.pop("params")}
    _check(sym, inputs, tmp_path, params=params, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("mode", ["lstm", "gru", "rnn_tanh"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_rnn_sequence_lengths(mode, bidirectional, tmp_path):
    sym, inputs = _rnn_case(mode, 2, bidirectional, True, lengths=True)
    _check(sym, inputs, tmp_path, rtol=1e-4, atol=1e-5)


def test_gluon_lstm_layer(tmp_path):
    """A hybridized ``gluon.rnn.LSTM`` (``_rnn_param_concat`` + ``RNN``) exported from its
    files; its begin states are the graph's inputs ``data1`` and ``data2``."""
    net = mx.gluon.rnn.LSTM(6, num_layers=2, bidirectional=True, input_size=5)
    net.initialize(mx.init.Xavier())
    net.hybridize()
    x = RNG.normal(0, 1, (7, 2, 5)).astype(np.float32)
    states = [RNG.uniform(-1, 1, (4, 2, 6)).astype(np.float32) for _ in range(2)]
    out, (h, c) = net(mx.nd.array(x), [mx.nd.array(s) for s in states])
    prefix = str(tmp_path / "lstm")
    net.export(prefix)
    path = mx.onnx.export_model(prefix + "-symbol.json", prefix + "-0000.params",
                                [x.shape] + [s.shape for s in states], [np.float32] * 3,
                                str(tmp_path / "lstm.onnx"))
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    got = sess.run(None, dict(zip([i.name for i in sess.get_inputs()], [x] + states)))
    for g, w in zip(got, (out, h, c)):
        np.testing.assert_allclose(g, w.asnumpy(), rtol=1e-4, atol=1e-5)


def test_rnn_refuses_projection_and_cell_clip(tmp_path):
    data, params, state, cell = (mx.sym.var(n) for n in ("data", "params", "state", "cell"))
    shapes = [(4, 2, 3), (2, 2, 5), (1, 2, 5)]
    for kw in (dict(projection_size=2), dict(lstm_state_clip_min=-1.0,
                                             lstm_state_clip_max=1.0)):
        sym = mx.sym.RNN(data, params, state, cell, mode="lstm", state_size=5, num_layers=1,
                         state_outputs=True, **kw)
        arg_shapes, _, _ = sym.infer_shape(data=shapes[0], state=shapes[2] if
                                           "projection_size" not in kw else (1, 2, 2),
                                           cell=shapes[2])
        p = {"params": mx.nd.zeros(arg_shapes[1])}
        with pytest.raises(MXNetError, match="RNN"):
            mx.onnx.export_model(sym, p, [shapes[0], arg_shapes[2], shapes[2]],
                                 [np.float32] * 3, str(tmp_path / "m.onnx"))


# -- box_nms -----------------------------------------------------------------------------
def _boxes(batch_shape, n, width, coord_start, score_index, id_index=-1, classes=3,
           center=False):
    data = RNG.uniform(0, 1, batch_shape + (n, width)).astype(np.float32)
    xy = RNG.uniform(0, 10, batch_shape + (n, 2))
    wh = RNG.uniform(1, 5, batch_shape + (n, 2))
    coords = np.concatenate([xy + wh / 2, wh], -1) if center else \
        np.concatenate([xy, xy + wh], -1)
    data[..., coord_start:coord_start + 4] = coords
    data[..., score_index] = RNG.permutation(n * int(np.prod(batch_shape))).reshape(
        batch_shape + (n,)) / (n * np.prod(batch_shape))
    if id_index >= 0:
        data[..., id_index] = RNG.randint(0, classes, batch_shape + (n,))
    return data


@pytest.mark.parametrize("topk", [-1, 1, 5, 30])
@pytest.mark.parametrize("overlap_thresh", [0.1, 0.5, 1.0])
@pytest.mark.parametrize("valid_thresh", [0.0, 0.4])
def test_box_nms_thresholds_and_topk(topk, overlap_thresh, valid_thresh, tmp_path):
    data = _boxes((2,), 20, 6, 2, 1)
    sym = mx.sym.contrib.box_nms(mx.sym.var("data"), overlap_thresh=overlap_thresh,
                                 valid_thresh=valid_thresh, topk=topk, coord_start=2,
                                 score_index=1, force_suppress=True)
    _check(sym, {"data": data}, tmp_path)


@pytest.mark.parametrize("in_format,out_format", [("corner", "corner"), ("center", "center"),
                                                  ("corner", "center"),
                                                  ("center", "corner")])
def test_box_nms_formats(in_format, out_format, tmp_path):
    data = _boxes((3, 2), 15, 5, 0, 4, center=in_format == "center")
    sym = mx.sym.contrib.box_nms(mx.sym.var("data"), overlap_thresh=0.3, coord_start=0,
                                 score_index=4, topk=10, force_suppress=True,
                                 in_format=in_format, out_format=out_format)
    _check(sym, {"data": data}, tmp_path)


@pytest.mark.parametrize("force_suppress", [True, False])
@pytest.mark.parametrize("background_id", [-1, 0])
@pytest.mark.parametrize("in_format", ["corner", "center"])
def test_box_nms_classes(force_suppress, background_id, in_format, tmp_path):
    data = _boxes((2,), 25, 6, 2, 1, id_index=0, center=in_format == "center")
    sym = mx.sym.contrib.box_nms(mx.sym.var("data"), overlap_thresh=0.2, coord_start=2,
                                 score_index=1, id_index=0, background_id=background_id,
                                 force_suppress=force_suppress, in_format=in_format,
                                 out_format=in_format)
    _check(sym, {"data": data}, tmp_path)


def test_box_nms_equal_scores_keep_the_first_box(tmp_path):
    data = np.array([[[0.5, 0, 0, 2, 2], [0.5, 0, 0, 2, 2.1], [0.5, 5, 5, 6, 6],
                      [0.9, 0, 0, 2, 1.9], [0.1, 0, 0, 1, 1]]], np.float32)
    sym = mx.sym.contrib.box_nms(mx.sym.var("data"), overlap_thresh=0.5, coord_start=1,
                                 score_index=0, force_suppress=True)
    _check(sym, {"data": data}, tmp_path)


def test_box_nms_float16_and_topk_zero(tmp_path):
    data = _boxes((1,), 12, 6, 2, 1).astype(np.float16)
    sym = mx.sym.contrib.box_nms(mx.sym.var("data"), overlap_thresh=0.4, coord_start=2,
                                 score_index=1, force_suppress=True)
    _check(sym, {"data": data}, tmp_path)
    sym = mx.sym.contrib.box_nms(mx.sym.var("data"), topk=0)
    _check(sym, {"data": data}, tmp_path)


# -- box_decode --------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("fmt", ["corner", "center"])
@pytest.mark.parametrize("clip", [-1.0, 0.5])
@pytest.mark.parametrize("stds", [(1.0, 1.0, 1.0, 1.0), (0.1, 0.2, 0.3, 0.4)])
def test_box_decode(dtype, fmt, clip, stds, tmp_path):
    data = RNG.normal(0, 1, (2, 5, 4)).astype(dtype)
    lo = RNG.uniform(0, 5, (1, 5, 2))
    anchors = np.concatenate([lo, lo + RNG.uniform(1, 3, (1, 5, 2))], -1).astype(dtype)
    sym = mx.sym.contrib.box_decode(mx.sym.var("data"), mx.sym.var("anchors"), format=fmt,
                                    clip=clip, std0=stds[0], std1=stds[1], std2=stds[2],
                                    std3=stds[3])
    tol = 2e-3 if dtype == "float16" else 1e-5
    _check(sym, {"data": data, "anchors": anchors}, tmp_path, rtol=tol, atol=tol)


# -- sample_multinomial ------------------------------------------------------------------
@pytest.mark.parametrize("data_shape", [(4,), (3, 4), (2, 3, 4)])
@pytest.mark.parametrize("shape", [(), (1,), (2, 3)])
@pytest.mark.parametrize("dtype", ["int32", "float32"])
def test_sample_multinomial_certain_draws(data_shape, shape, dtype, tmp_path):
    """One certain category per row: the draws (and their log-probabilities) are exact."""
    k = data_shape[-1]
    hot = RNG.randint(0, k, data_shape[:-1])
    data = (np.arange(k) == hot[..., None]).astype(np.float32)
    sym = mx.sym.sample_multinomial(mx.sym.var("data"), shape=shape, get_prob=True,
                                    dtype=dtype)
    _check(sym, {"data": data}, tmp_path)


def test_sample_multinomial_distribution(tmp_path):
    """Rows summing to less than 1: the last category takes the rest, as the operator's
    running-sum comparison gives."""
    data = np.array([[0.1, 0.2, 0.3, 0.1], [0.5, 0.1, 0.1, 0.3]], np.float32)
    sym = mx.sym.sample_multinomial(mx.sym.var("data"), shape=(20000,))
    got, want = _export_and_run(sym, {"data": data}, {}, tmp_path)
    expected = np.array([[0.1, 0.2, 0.3, 0.4], [0.5, 0.1, 0.1, 0.3]])
    for draws in (got[0], want[0]):
        assert draws.shape == (2, 20000) and draws.dtype == np.int32
        freq = np.stack([np.bincount(row, minlength=4) / row.size for row in draws])
        np.testing.assert_allclose(freq, expected, atol=0.02)


# -- softmax with lengths ----------------------------------------------------------------
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("temperature", [None, 0.5])
@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_softmax_use_length(axis, temperature, dtype, tmp_path):
    x = RNG.uniform(-2, 2, (4, 5, 6)).astype(dtype)
    len_shape = tuple(d for i, d in enumerate(x.shape) if i != axis % 3)
    length = RNG.randint(0, x.shape[axis] + 2, len_shape).astype(np.int32)  # 0 and past
    sym = mx.sym.softmax(mx.sym.var("data"), mx.sym.var("length"), axis=axis,
                         temperature=temperature, use_length=True)
    tol = 2e-3 if dtype == "float16" else 1e-5
    _check(sym, {"data": x, "length": length}, tmp_path, rtol=tol, atol=tol)


def test_softmax_output_dtype(tmp_path):
    x = RNG.uniform(-2, 2, (3, 5)).astype(np.float16)
    length = np.array([0, 2, 5], np.int32)
    for syms, inputs in (((mx.sym.var("data"),), {"data": x}),
                         ((mx.sym.var("data"), mx.sym.var("length")),
                          {"data": x, "length": length})):
        sym = mx.sym.softmax(*syms, axis=-1, dtype="float32", use_length=len(syms) == 2)
        _check(sym, inputs, tmp_path, rtol=2e-3, atol=2e-3)


# -- mod and prod ------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int32", "int64"])
def test_mod_signs_and_zero_divisor(dtype, tmp_path):
    a = np.array([[-7.5, 7.5, -7.5, 7.5, 3, -3, 0, 6]] * 2).astype(dtype)
    b = np.array([[2, -2, -2, 2, 0, 0, 3, 3], [3, 3, -3, -3, 0, 1, -1, 0]]).astype(dtype)
    _check(mx.sym.broadcast_mod(mx.sym.var("a"), mx.sym.var("b")), {"a": a, "b": b},
           tmp_path)
    _check(mx.sym.broadcast_mod(mx.sym.var("a"), mx.sym.var("b")),
           {"a": a, "b": b[:1, :1] * 0}, tmp_path)


@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_mod_scalar(dtype, tmp_path):
    a = np.array([-7, 7, -3, 3, 0, 5]).astype(dtype)
    for sym in (mx.sym.var("a") % 3, mx.sym.var("a") % -3, 10 % mx.sym.var("a"),
                mx.sym.var("a") % 0):
        _check(sym, {"a": a}, tmp_path)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2), (1, 2)])
@pytest.mark.parametrize("keepdims", [True, False])
def test_integer_prod_wraps_around(dtype, axis, keepdims, tmp_path):
    x = RNG.randint(1, 100, (4, 5, 7)).astype(dtype)
    x[0, 0, 0] = -3
    sym = mx.sym.prod(mx.sym.var("x"), axis=axis, keepdims=keepdims)
    _check(sym, {"x": x}, tmp_path, rtol=0, atol=0)


def test_dynamic_batch_and_time(tmp_path):
    """RNN, softmax with lengths and sample_multinomial exported with symbolic batch and
    time dimensions run at other sizes."""
    def run(sym, export_inputs, run_inputs, dyn):
        names = [n for n in sym.list_inputs() if n in export_inputs]
        path = mx.onnx.export_model(sym, {}, [export_inputs[n].shape for n in names],
                                    [export_inputs[n].dtype for n in names],
                                    str(tmp_path / "dyn.onnx"), dynamic=True,
                                    dynamic_input_shapes=[dyn[n] for n in names])
        sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        got = sess.run(None, {n: run_inputs[n] for n in names})
        ex = sym.bind(mx.cpu(), {k: mx.nd.array(v, dtype=v.dtype)
                                 for k, v in run_inputs.items()})
        return got, [o.asnumpy() for o in ex.forward()]

    sym, small = _rnn_case("lstm", 2, True, True, t_len=3, batch=2)
    _, big = _rnn_case("lstm", 2, True, True, t_len=8, batch=5)
    big["params"] = small["params"]
    dyn = {"data": (None, None, 5), "params": small["params"].shape,
           "state": (4, None, 4), "cell": (4, None, 4)}
    got, want = run(sym, small, big, dyn)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)

    sym = mx.sym.softmax(mx.sym.var("data"), mx.sym.var("length"), axis=1, use_length=True)
    x_small = {"data": np.zeros((2, 3), np.float32), "length": np.ones(2, np.int32)}
    x_big = {"data": RNG.normal(0, 1, (4, 7)).astype(np.float32),
             "length": np.array([0, 3, 7, 9], np.int32)}
    got, want = run(sym, x_small, x_big, {"data": (None, None), "length": (None,)})
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-6)

    sym = mx.sym.sample_multinomial(mx.sym.var("data"), shape=(2,), get_prob=True)
    hot = (np.arange(4) == RNG.randint(0, 4, (5, 1))).astype(np.float32)
    got, want = run(sym, {"data": hot[:2]}, {"data": hot}, {"data": (None, 4)})
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
