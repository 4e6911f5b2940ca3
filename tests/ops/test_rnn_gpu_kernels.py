"""The fused CuPy kernels of the ``RNN`` operator (:mod:`gluonlite.ops._gpu_rnn`) against
the NumPy path: forward outputs and every gradient, for every mode, float32 and float16,
bidirectional, several layers, sequence lengths, LSTM clipping and projection (skipped
without a usable GPU)."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.ops import _gpu_rnn
from gluonlite.ops.registry import OpContext, get_op
from gluonlite.ops.rnn import param_size

pytestmark = pytest.mark.gpu

T, N, I, H = 6, 3, 5, 8
TOL = {"float32": (2e-4, 2e-5), "float16": (3e-2, 3e-2), "float64": (1e-10, 1e-12)}


def _case(mode, layers=2, bidir=True, proj=None, clip=None, lengths=None, dtype="float32",
          seed=0):
    rng = np.random.default_rng(seed)
    dirs = 2 if bidir else 1
    rec = proj or H
    cfg = dict(mode=mode, num_layers=layers, bidirectional=bidir, state_size=H,
               state_outputs=True)
    if proj:
        cfg["projection_size"] = proj
    if clip:
        cfg.update(lstm_state_clip_min=clip[0], lstm_state_clip_max=clip[1],
                   lstm_state_clip_nan=clip[2])
    arrs = [rng.standard_normal((T, N, I)),
            rng.uniform(-0.5, 0.5, param_size(mode, layers, dirs, I, H, proj)),
            rng.standard_normal((layers * dirs, N, rec)) * 0.5]
    if mode == "lstm":
        arrs.append(rng.standard_normal((layers * dirs, N, H)) * 0.5)
    arrs = [a.astype(dtype) for a in arrs]
    if lengths is not None:
        cfg["use_sequence_length"] = True
        arrs.append(np.array(lengths, dtype=np.int32))
    heads = [rng.standard_normal((T, N, dirs * rec)),
             rng.standard_normal((layers * dirs, N, rec))]
    if mode == "lstm":
        heads.append(rng.standard_normal((layers * dirs, N, H)))
    return cfg, arrs, [h.astype(dtype) for h in heads]


def _run(xp, cfg, arrs, heads):
    op = get_op("RNN")
    attrs = op.parse_attrs({k: str(v) for k, v in cfg.items()})
    oc = OpContext(xp, True, mx.gpu(0) if xp is not np else mx.cpu())
    ins = [xp.asarray(a) for a in arrs]
    outs, state = op.forward(oc, attrs, ins, None, keep_state=True)
    grads = op.backward(oc, attrs, ins, outs, [xp.asarray(h) for h in heads], state=state)
    return list(outs) + [g for g in grads if g is not None]


def _compare(cfg, arrs, heads, dtype):
    cp = pytest.importorskip("cupy")
    want = _run(np, cfg, arrs, heads)
    got = _run(cp, cfg, arrs, heads)
    rtol, atol = TOL[dtype]
    assert len(got) == len(want)
    for w, g in zip(want, got):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(cp.asnumpy(g).astype(np.float64), w.astype(np.float64),
                                   rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("mode", ["lstm", "gru", "rnn_tanh", "rnn_relu"])
@pytest.mark.parametrize("bidir,lengths", [(False, None), (True, None), (True, [6, 2, 0]),
                                           (False, [3, 6, 1])])
def test_modes_match_numpy(mode, dtype, bidir, lengths):
    cfg, arrs, heads = _case(mode, bidir=bidir, lengths=lengths, dtype=dtype)
    _compare(cfg, arrs, heads, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float16", "float64"])
@pytest.mark.parametrize("clip", [(-0.2, 0.25, False), (-0.2, 0.25, True), (None, 0.3, False)])
def test_lstm_clipping_matches_numpy(clip, dtype):
    cfg, arrs, heads = _case("lstm", clip=clip, lengths=[4, 6, 2], dtype=dtype)
    if clip[0] is None:
        del cfg["lstm_state_clip_min"]
    _compare(cfg, arrs, heads, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("lengths", [None, [6, 1, 3]])
def test_lstm_projection_matches_numpy(dtype, lengths):
    cfg, arrs, heads = _case("lstm", proj=3, lengths=lengths, dtype=dtype)
    _compare(cfg, arrs, heads, dtype)


@pytest.mark.parametrize("nan_to_min", [True, False])
def test_lstm_clip_nan(nan_to_min):
    cp = pytest.importorskip("cupy")
    cfg, arrs, _ = _case("lstm", layers=1, bidir=False, clip=(-0.3, 0.3, nan_to_min))
    arrs[3][0, 1, 2] = np.nan
    op = get_op("RNN")
    attrs = op.parse_attrs({k: str(v) for k, v in cfg.items()})
    want = op.forward(OpContext(np, False, mx.cpu()), attrs, arrs, None)
    got = op.forward(OpContext(cp, False, mx.gpu(0)), attrs, [cp.asarray(a) for a in arrs],
                     None)
    for w, g in zip(want, got):
        np.testing.assert_allclose(cp.asnumpy(g), w, rtol=1e-5, atol=1e-6)   # NaN == NaN


def test_nd_and_gluon_calls_take_the_fused_path(monkeypatch):
    pytest.importorskip("cupy")
    calls = []
    for name in ("lstm_forward", "lstm_backward"):
        fn = getattr(_gpu_rnn, name)
        monkeypatch.setattr(_gpu_rnn, name,
                            lambda *a, _fn=fn, _n=name, **k: calls.append(_n) or _fn(*a, **k))
    ctx = mx.gpu(0)
    layer = mx.gluon.rnn.LSTM(H, num_layers=2, bidirectional=True, input_size=I)
    layer.initialize(ctx=ctx)
    x = mx.nd.array(np.random.default_rng(0).standard_normal((T, N, I)), ctx=ctx)
    x.attach_grad()
    with mx.autograd.record():
        y = layer(x)
    y.backward()
    cpu = mx.gluon.rnn.LSTM(H, num_layers=2, bidirectional=True, input_size=I)
    cpu.initialize(ctx=mx.cpu())
    for p_gpu, p_cpu in zip(layer.collect_params().values(), cpu.collect_params().values()):
        p_cpu.set_data(p_gpu.data().copyto(mx.cpu()))
    xc = x.copyto(mx.cpu())
    xc.attach_grad()
    with mx.autograd.record():
        yc = cpu(xc)
    yc.backward()
    assert calls.count("lstm_forward") == 4 and calls.count("lstm_backward") == 4
    np.testing.assert_allclose(y.asnumpy(), yc.asnumpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(x.grad.asnumpy(), xc.grad.asnumpy(), rtol=1e-4, atol=1e-5)
    for p_gpu, p_cpu in zip(layer.collect_params().values(), cpu.collect_params().values()):
        np.testing.assert_allclose(p_gpu.grad().asnumpy(), p_cpu.grad().asnumpy(),
                                   rtol=1e-4, atol=1e-5)
