"""The fast paths of Pooling (max gradient at input resolution, upsampled avg/sum
gradients) and of the normalization layers, against naive references.

The references loop over windows / use float64 textbook formulas on tiny inputs;
the operators must agree exactly for pooling (pure selections and copies) and
within float rounding for the normalizations.
"""
import itertools

import numpy as np
import pytest

import gluonlite as mx
from gluonlite.ops import pooling
from gluonlite.ops.registry import OpContext, get_op

nd = mx.nd
_rng = np.random.default_rng(11)


def _data(shape, dtype, mode):
    x = _rng.standard_normal(shape) * 3
    if mode == "ties":
        x = np.round(x / 2)              # many equal values inside windows
    elif mode == "zeros":
        x = np.where(_rng.random(shape) < 0.5, 0.0, -0.0)
    elif mode == "nan":
        x[_rng.random(shape) < 0.15] = np.nan
    return x.astype(dtype)


def _windows(spatial, kernel, stride):
    """(output index, window element indices in row-major order) for valid pooling."""
    out = [(n - k) // s + 1 for n, k, s in zip(spatial, kernel, stride)]
    for o in itertools.product(*map(range, out)):
        yield o, [tuple(a * s + b for a, s, b in zip(o, stride, off))
                  for off in itertools.product(*map(range, kernel))]


def _max_pool_ref(x, dy, kernel, stride):
    """Forward value and MXNet's gradient: the first maximum of a window in scan order."""
    y = np.zeros(x.shape[:2] + dy.shape[2:], x.dtype)
    dx = np.zeros_like(x)
    for n, c in itertools.product(range(x.shape[0]), range(x.shape[1])):
        for o, idx in _windows(x.shape[2:], kernel, stride):
            vals = [x[(n, c) + i] for i in idx]
            m = vals[0]
            for v in vals[1:]:
                m = np.maximum(m, v)
            y[(n, c) + o] = m
            first = next((i for i, v in zip(idx, vals) if v == m), None)
            if first is not None:
                dx[(n, c) + first] += dy[(n, c) + o]
    return y, dx


def _pool(x, dy, **kw):
    xa = nd.array(x, dtype=x.dtype)
    xa.attach_grad()
    with mx.autograd.record():
        y = nd.Pooling(xa, **kw)
    y.backward(nd.array(dy, dtype=x.dtype))
    return y.asnumpy(), xa.grad.asnumpy()


_MAX_CASES = [
    ((2, 3, 6, 8), (2, 2)),
    ((2, 2, 6, 6), (3, 3)),
    ((2, 3, 7, 9), (2, 2)),               # last row/column outside every window
    ((2, 2, 6, 6), (1, 2)),
    ((2, 2, 6, 6), (2, 1)),
    ((3, 2, 8), (2,)),
    ((3, 2, 9), (4,)),
    ((1, 2, 4, 4, 6), (2, 2, 3)),
    ((2, 2, 3, 3), (1, 1)),
]


@pytest.mark.parametrize("shape,kernel", _MAX_CASES)
@pytest.mark.parametrize("dtype,mode", [("float32", "random"), ("float32", "ties"),
                                        ("float32", "zeros"), ("float32", "nan"),
                                        ("float64", "random"), ("float16", "ties"),
                                        ("int32", "ties")])
def test_max_pool_matches_first_maximum_reference(shape, kernel, dtype, mode):
    x = _data(shape, dtype, mode)
    out = [(n - k) // k + 1 for n, k in zip(shape[2:], kernel)]
    dy = (_rng.standard_normal(shape[:2] + tuple(out)) * 4).astype(dtype)
    y, dx = _pool(x, dy, kernel=kernel, stride=kernel, pool_type="max")
    y_ref, dx_ref = _max_pool_ref(x, dy, kernel, kernel)
    np.testing.assert_array_equal(y, y_ref)
    np.testing.assert_array_equal(dx, dx_ref)
    assert np.array_equal(np.signbit(y), np.signbit(y_ref))


def test_unique_maximum_path_declines_ties_and_nan():
    attrs = get_op("Pooling").parse_attrs({"kernel": (2, 2), "stride": (2, 2)})
    oc = OpContext(np, True, None)
    for mode, expect_fast in [("random", True), ("ties", False), ("nan", False)]:
        x = _data((2, 3, 8, 8), "float32", mode)
        if mode == "ties":
            x[0, 0, :2, :2] = 1.0        # at least one window with a tie
        plan = pooling._PoolPlan(attrs, x.shape)
        y = pooling._forward(oc, attrs, [x], None)[0]
        dy = np.ones_like(y)
        got = pooling._max_grad_unique(np, x, y, dy, plan)
        assert (got is not None) == expect_fast, mode


def test_nan_window_cannot_hide_a_tie():
    # one window without any maximum (NaN) and one with two: the hit count equals the
    # number of windows, yet only the first maximum of the tied window may get dy
    x = _data((1, 1, 4, 4), "float32", "random")
    x[0, 0, 0, 1] = np.nan
    x[0, 0, 2:, 2:] = [[7.0, 1.0], [7.0, 2.0]]
    dy = np.arange(1, 5, dtype=np.float32).reshape(1, 1, 2, 2)
    _, dx = _pool(x, dy, kernel=(2, 2), stride=(2, 2), pool_type="max")
    _, dx_ref = _max_pool_ref(x, dy, (2, 2), (2, 2))
    np.testing.assert_array_equal(dx, dx_ref)
    assert dx[0, 0, 2, 2] == 4 and dx[0, 0, 3, 2] == 0


@pytest.mark.parametrize("dtype,k", [("float32", 2), ("float32", 1), ("float16", 2),
                                     ("float16", 4), ("float64", 2), ("int8", 3),
                                     ("uint8", 2), ("float32", 3)])
def test_repeat_last_and_upsample_match_repeat(dtype, k):
    a = (_rng.standard_normal((2, 3, 4, 5)) * 50).astype(dtype)
    np.testing.assert_array_equal(pooling._repeat_last(np, a, k, None), np.repeat(a, k, -1))
    kernel = (2, 3, k)
    b = (_rng.standard_normal((2, 1, 2, 3, 4)) * 50).astype(dtype)
    ref = b
    for i, kk in enumerate(kernel):
        ref = np.repeat(ref, kk, axis=2 + i)
    up = pooling._upsample(np, b, kernel)
    np.testing.assert_array_equal(up, ref)
    assert not np.shares_memory(up, b)
    # a gradient buffer is never the head gradient itself, even for 1x...x1 windows
    assert not np.shares_memory(pooling._upsample(np, b, (1, 1, 1)), b)
    assert not np.shares_memory(pooling._upsample(np, b[:, :, 0, 0], (1,)), b)


@pytest.mark.parametrize("pool_type", ["avg", "sum"])
@pytest.mark.parametrize("shape,kernel", [((2, 3, 6, 8), (2, 2)), ((2, 2, 9), (3,)),
                                          ((1, 2, 4, 6, 4), (2, 3, 2))])
def test_tiled_avg_sum_gradients_are_spread_over_windows(pool_type, shape, kernel):
    x = _data(shape, "float32", "random")
    out = tuple(n // k for n, k in zip(shape[2:], kernel))
    dy = _rng.standard_normal(shape[:2] + out).astype(np.float32)
    _, dx = _pool(x, dy, kernel=kernel, stride=kernel, pool_type=pool_type)
    g = dy / np.prod(kernel) if pool_type == "avg" else dy
    ref = g
    for i, k in enumerate(kernel):
        ref = np.repeat(ref, k, axis=2 + i)
    np.testing.assert_allclose(dx, ref, rtol=1e-6)


@pytest.mark.parametrize("shape", [(2, 3, 5, 7), (2, 3, 6), (1, 2, 3, 2, 4)])
def test_global_pool_gradients(shape):
    x = _data(shape, "float32", "ties")
    dy = _rng.standard_normal(shape[:2] + (1,) * (len(shape) - 2)).astype(np.float32)
    _, dx = _pool(x, dy, kernel=(1,) * (len(shape) - 2), global_pool=True, pool_type="max")
    _, dx_ref = _max_pool_ref(x, dy, shape[2:], (1,) * (len(shape) - 2))
    np.testing.assert_array_equal(dx, dx_ref)
    _, dx = _pool(x, dy, kernel=(1,) * (len(shape) - 2), global_pool=True, pool_type="avg")
    np.testing.assert_allclose(dx, np.broadcast_to(dy / np.prod(shape[2:]), shape), rtol=1e-6)


# -- normalization layers against float64 textbook formulas --------------------------
def _norm_ref(x, gamma, beta, dy, red, pshape, eps):
    """Outputs and gradients of ``(x - mean) / sqrt(var + eps) * gamma + beta``."""
    x, dy = x.astype(np.float64), dy.astype(np.float64)
    g = gamma.astype(np.float64).reshape(pshape)
    b = beta.astype(np.float64).reshape(pshape)
    mean = x.mean(axis=red, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=red, keepdims=True)
    std = np.sqrt(var + eps)
    xhat = (x - mean) / std
    other = tuple(i for i, d in enumerate(pshape) if d == 1)
    dgamma = (dy * xhat).sum(axis=other).reshape(-1)
    dbeta = dy.sum(axis=other).reshape(-1)
    dxh = dy * g
    dx = (dxh - dxh.mean(axis=red, keepdims=True)
          - xhat * (dxh * xhat).mean(axis=red, keepdims=True)) / std
    return xhat * g + b, mean, var, std, dx, dgamma, dbeta


def _run(op, x, gamma, beta, dy, dtype, train=True, **kw):
    arrs = [nd.array(a, dtype=dtype) for a in (x, gamma, beta)]
    for a in arrs:
        a.attach_grad()
    with mx.autograd.record(train_mode=train):
        y = getattr(nd, op)(*arrs, **kw)
    y.backward(nd.array(dy, dtype=dtype))
    return y.asnumpy(), [a.grad.asnumpy() for a in arrs]


_TOL = {"float32": dict(rtol=2e-4, atol=2e-5), "float64": dict(rtol=1e-9, atol=1e-12)}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,axis", [((3, 4, 5), -1), ((3, 4, 5), 1), ((3, 4, 5), 0),
                                        ((6, 7), -1), ((2, 3, 4, 5), 2)])
def test_layer_norm_matches_formula(dtype, shape, axis):
    x = (_rng.standard_normal(shape) * 2 + 3).astype(dtype)
    n = shape[axis]
    gamma, beta = _rng.uniform(0.5, 1.5, n).astype(dtype), _rng.standard_normal(n).astype(dtype)
    dy = _rng.standard_normal(shape).astype(dtype)
    pshape = [1] * len(shape)
    pshape[axis] = n
    y, (dx, dg, db) = _run("LayerNorm", x, gamma, beta, dy, dtype, axis=axis, eps=1e-5)
    ry, _, _, _, rdx, rdg, rdb = _norm_ref(x, gamma, beta, dy, (axis % len(shape),),
                                           pshape, float(np.float32(1e-5)))
    for got, ref in [(y, ry), (dx, rdx), (dg, rdg), (db, rdb)]:
        np.testing.assert_allclose(got, ref, **_TOL[dtype])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,groups", [((3, 6, 4, 5), 3), ((2, 4, 7), 1), ((2, 4, 3), 4)])
def test_group_norm_matches_formula(dtype, shape, groups):
    x = (_rng.standard_normal(shape) * 2 - 1).astype(dtype)
    gamma = _rng.uniform(0.5, 1.5, groups).astype(dtype)
    beta = _rng.standard_normal(groups).astype(dtype)
    dy = _rng.standard_normal(shape).astype(dtype)
    y, (dx, dg, db) = _run("GroupNorm", x, gamma, beta, dy, dtype, num_groups=groups)
    xr, dyr = x.reshape(shape[0], groups, -1), dy.reshape(shape[0], groups, -1)
    ry, _, _, _, rdx, rdg, rdb = _norm_ref(xr, gamma, beta, dyr, (2,), (1, groups, 1),
                                           float(np.float32(1e-5)))
    for got, ref in [(y, ry.reshape(shape)), (dx, rdx.reshape(shape)), (dg, rdg), (db, rdb)]:
        np.testing.assert_allclose(got, ref, **_TOL[dtype])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(3, 4, 5, 6), (2, 3, 7)])
def test_instance_norm_matches_formula(dtype, shape):
    x = (_rng.standard_normal(shape) * 3 + 2).astype(dtype)
    c = shape[1]
    gamma, beta = _rng.uniform(0.5, 1.5, c).astype(dtype), _rng.standard_normal(c).astype(dtype)
    dy = _rng.standard_normal(shape).astype(dtype)
    y, (dx, dg, db) = _run("InstanceNorm", x, gamma, beta, dy, dtype)
    xr, dyr = x.reshape(shape[0], c, -1), dy.reshape(shape[0], c, -1)
    ry, _, _, _, rdx, rdg, rdb = _norm_ref(xr, gamma, beta, dyr, (2,), (1, c, 1),
                                           float(np.float32(1e-3)))
    for got, ref in [(y, ry.reshape(shape)), (dx, rdx.reshape(shape)), (dg, rdg), (db, rdb)]:
        np.testing.assert_allclose(got, ref, **_TOL[dtype])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,axis", [((4, 3, 5, 6), 1), ((8, 5), 1), ((4, 5, 3), -1),
                                        ((5, 3, 4), 0)])
@pytest.mark.parametrize("fix_gamma", [False, True])
def test_batch_norm_training_matches_formula(dtype, shape, axis, fix_gamma):
    x = (_rng.standard_normal(shape) * 2 + 5).astype(dtype)
    c = shape[axis]
    gamma, beta = _rng.uniform(0.5, 1.5, c).astype(dtype), _rng.standard_normal(c).astype(dtype)
    dy = _rng.standard_normal(shape).astype(dtype)
    mm, mv = nd.zeros((c,), dtype=dtype), nd.ones((c,), dtype=dtype)
    xa, ga, ba = (nd.array(a, dtype=dtype) for a in (x, gamma, beta))
    for a in (xa, ga, ba):
        a.attach_grad()
    with mx.autograd.record():
        y = nd.BatchNorm(xa, ga, ba, mm, mv, axis=axis, fix_gamma=fix_gamma)
    y.backward(nd.array(dy, dtype=dtype))
    red = tuple(i for i in range(len(shape)) if i != axis % len(shape))
    pshape = [1] * len(shape)
    pshape[axis] = c
    g_used = np.ones(c, dtype) if fix_gamma else gamma
    eps = float(np.float32(1e-3))
    ry, mean, var, _, rdx, rdg, rdb = _norm_ref(x, g_used, beta, dy, red, pshape, eps)
    tol = _TOL[dtype]
    np.testing.assert_allclose(y.asnumpy(), ry, **tol)
    np.testing.assert_allclose(xa.grad.asnumpy(), rdx, **tol)
    np.testing.assert_allclose(ga.grad.asnumpy(), 0 * rdg if fix_gamma else rdg, **tol)
    np.testing.assert_allclose(ba.grad.asnumpy(), rdb, **tol)
    m = float(np.float32(0.9))                # moving stats start at 0 and 1
    np.testing.assert_allclose(mm.asnumpy(), (1 - m) * mean.reshape(-1), **tol)
    np.testing.assert_allclose(mv.asnumpy(), m + (1 - m) * var.reshape(-1), **tol)


def test_batch_norm_global_stats_gradient_is_affine():
    x = _rng.standard_normal((4, 3, 5)).astype(np.float64)
    gamma, beta = _rng.uniform(0.5, 1.5, 3), _rng.standard_normal(3)
    mm, mv = _rng.standard_normal(3) * 0.1, _rng.uniform(0.5, 2, 3)
    dy = _rng.standard_normal(x.shape)
    arrs = [nd.array(a, dtype="float64") for a in (x, gamma, beta, mm, mv)]
    arrs[0].attach_grad()
    with mx.autograd.record():
        y = nd.BatchNorm(*arrs, fix_gamma=False, use_global_stats=True)
    y.backward(nd.array(dy, dtype="float64"))
    inv = 1 / np.sqrt(mv + float(np.float32(1e-3)))
    b = (slice(None), None)
    np.testing.assert_allclose(y.asnumpy(), (x - mm[b]) * (gamma * inv)[b] + beta[b], rtol=1e-12)
    np.testing.assert_allclose(arrs[0].grad.asnumpy(), dy * (gamma * inv)[b], rtol=1e-12)


# -- the same paths on the simulated GPU (fake CuPy: any NumPy/CuPy mixing raises) ----
_SIM_CASES = [
    ("Pooling", [(2, 3, 6, 8)], dict(kernel=(2, 2), stride=(2, 2), pool_type="max")),
    ("Pooling", [(2, 3, 7, 9)], dict(kernel=(2, 2), stride=(2, 2), pool_type="max")),
    ("Pooling", [(1, 2, 4, 6, 4)], dict(kernel=(2, 3, 2), stride=(2, 3, 2), pool_type="max")),
    ("Pooling", [(2, 3, 6, 8)], dict(kernel=(2, 2), stride=(2, 2), pool_type="avg")),
    ("Pooling", [(2, 2, 9)], dict(kernel=(3,), stride=(3,), pool_type="sum")),
    ("BatchNorm", [(4, 3, 5), (3,), (3,), (3,), (3,)], dict(fix_gamma=False)),
    ("BatchNorm", [(4, 5, 3), (3,), (3,), (3,), (3,)], dict(axis=-1)),
    ("LayerNorm", [(3, 4, 5), (5,), (5,)], {}),
    ("LayerNorm", [(3, 4, 5), (4,), (4,)], dict(axis=1)),
    ("GroupNorm", [(2, 4, 3, 2), (2,), (2,)], dict(num_groups=2)),
    ("InstanceNorm", [(2, 3, 4, 2), (3,), (3,)], {}),
]


@pytest.mark.parametrize("op,shapes,attrs", _SIM_CASES)
def test_fast_paths_on_simulated_gpu(op, shapes, attrs):
    from ..gpu_sim.simulated import simulated_gpu
    inputs = [_rng.standard_normal(s).astype(np.float32) for s in shapes]
    if op == "BatchNorm":
        inputs[4] = np.abs(inputs[4]) + 0.5
    head = None
    results = []
    with simulated_gpu():
        for ctx in (mx.cpu(), mx.gpu(0)):
            arrs = [nd.array(a, ctx=ctx) for a in inputs]
            arrs[0].attach_grad()
            with mx.autograd.record():
                y = getattr(nd, op)(*arrs, **attrs)
            if head is None:
                head = _rng.standard_normal(y.shape).astype(np.float32)
            y.backward(nd.array(head, ctx=ctx))
            results.append((y.asnumpy(), arrs[0].grad.asnumpy()))
    (y_cpu, g_cpu), (y_gpu, g_gpu) = results
    np.testing.assert_allclose(y_gpu, y_cpu, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(g_gpu, g_cpu, rtol=1e-5, atol=1e-6)
