"""The one-launch GPU update kernels (``ops/_gpu_update.py``) against the NumPy rules."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.ops import _gpu_update, batch_norm, optimizer_updates as rules
from gluonlite.ops.registry import get_op

_TOL = {np.float16: 2e-3, np.float32: 2e-6, np.float64: 1e-12}

CASES = [
    dict(lr=0.1, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0),
    dict(lr=0.05, wd=1e-3, rescale_grad=0.5, clip_gradient=-1.0),
    dict(lr=0.05, wd=1e-3, rescale_grad=2.0, clip_gradient=0.3),
]


def _attrs(op, case, **extra):
    return get_op(op).parse_attrs({**case, **extra})


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("rule,op,n_states,extra", [
    (rules.sgd_rule, "sgd_update", 0, {}),
    (rules.sgd_mom_rule, "sgd_mom_update", 1, {"momentum": 0.9}),
    (rules.adam_rule, "adam_update", 2, {"beta1": 0.8, "beta2": 0.99, "epsilon": 1e-6}),
])
def test_fused_rule_matches_numpy(rule, op, n_states, extra, case, dtype):
    import cupy as cp
    rng = np.random.default_rng(0)
    w, g = (rng.standard_normal((7, 33)).astype(dtype) for _ in range(2))
    states = [np.abs(rng.standard_normal((7, 33))).astype(dtype) for _ in range(n_states)]
    attrs = _attrs(op, case, **extra)
    ref_states = [s.copy() for s in states]
    want = rule(np, attrs, w.copy(), g, *ref_states)
    dev = [cp.asarray(a) for a in [w, g] + states]
    fused = _gpu_update.fused_rule(cp, rule, dev)
    assert fused is not None
    got = fused(cp, attrs, dev, dev[0])       # in place, as optimizers call it
    assert got is dev[0]
    tol = _TOL[dtype]
    np.testing.assert_allclose(cp.asnumpy(got), want, rtol=tol, atol=tol)
    for s, r in zip(dev[2:], ref_states):
        np.testing.assert_allclose(cp.asnumpy(s), r, rtol=tol, atol=tol)


@pytest.mark.gpu
def test_optimizer_step_on_gpu_matches_cpu():
    results = []
    for ctx in (mx.cpu(), mx.gpu(0)):
        w = mx.nd.array(np.linspace(-1, 1, 60).reshape(6, 10), ctx=ctx)
        opt = mx.optimizer.create("sgd", learning_rate=0.1, momentum=0.9, wd=1e-4,
                                  rescale_grad=0.5)
        updater = mx.optimizer.get_updater(opt)
        for step in range(3):
            g = mx.nd.array(np.cos(np.arange(60) + step).reshape(6, 10), ctx=ctx)
            updater(0, g, w)
        results.append(w.asnumpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-6, atol=1e-7)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bn_moving_update_matches_numpy(dtype):
    import cupy as cp
    rng = np.random.default_rng(1)
    mm, mv, mean = (rng.standard_normal(9).astype(dtype) for _ in range(3))
    inv = (np.abs(rng.standard_normal(9)) + 0.5).astype(dtype)
    attrs = get_op("BatchNorm").parse_attrs({"momentum": 0.85, "eps": 1e-3})
    want_m, want_v = mm.copy(), mv.copy()
    batch_norm._update_moving(np, attrs, want_m, want_v, mean, inv)
    got_m, got_v = cp.asarray(mm), cp.asarray(mv)
    batch_norm._update_moving(cp, attrs, got_m, got_v, cp.asarray(mean), cp.asarray(inv))
    tol = _TOL[dtype]
    np.testing.assert_allclose(cp.asnumpy(got_m), want_m, rtol=tol, atol=tol)
    np.testing.assert_allclose(cp.asnumpy(got_v), want_v, rtol=tol, atol=tol)


def test_numpy_and_other_rules_keep_their_path():
    w = np.ones(3, np.float32)
    assert _gpu_update.fused_rule(np, rules.sgd_rule, [w, w]) is None
    assert not _gpu_update.bn_moving_update(np, 0.9, 1e-3, w, w, w, w)
    assert "rmsprop_rule" not in _gpu_update.RULES
