"""Elementwise forwards given preallocated ``out`` buffers (the CachedOp's memory plan).

For every elementwise operator with harness samples, in float32, float64 and int32
(where the operator takes integers): forward into ``out`` returns the buffers
themselves, holding exactly what the ``out=None`` call gives (values, NaN, signs of
zeros, dtype); the inputs are left alone; and a buffer that *is* an input (an
in-place plan) gives the same result.  Then a CachedOp chain of such operators
against the same operators called one by one.
"""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite.base import MXNetError
from gluonlite.engine import CachedOp
from gluonlite.ops.registry import get_op

from .samples import activation, elemwise_binary, elemwise_misc, elemwise_scalar, \
    elemwise_unary

_MODULES = (elemwise_unary, elemwise_scalar, elemwise_binary, activation, elemwise_misc)
CASES = [(name, i) for m in _MODULES for name in sorted(m.SAMPLES)
         for i, s in enumerate(m.SAMPLES[name]) if s.check is None]
_SAMPLES = {name: m.SAMPLES[name] for m in _MODULES for name in m.SAMPLES}
_DTYPES = (np.float32, np.float64, np.int32)


def _variant(inputs, dtype):
    """The sample's floating inputs in ``dtype`` (integer inputs stay as they are)."""
    return [a.astype(dtype) if a.dtype.kind == "f" else a.copy() for a in inputs]


def _forward(op, oc, attrs, inputs, out):
    with np.errstate(all="ignore"):
        return list(op.forward(oc, attrs, inputs, out))


def _host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


def _assert_same(got, ref, what):
    got, ref = _host(got), _host(ref)
    assert got.dtype == ref.dtype, f"{what}: dtype {got.dtype}, expected {ref.dtype}"
    assert got.shape == ref.shape, f"{what}: shape {got.shape}, expected {ref.shape}"
    np.testing.assert_array_equal(got, ref, err_msg=what)
    if ref.dtype.kind == "f":
        np.testing.assert_array_equal(np.signbit(got), np.signbit(ref), err_msg=what + " sign")


def _is_buffer(got, buf) -> bool:
    """``got`` is ``buf`` (the CuPy stand-in's ufuncs give a new wrapper of ``buf``'s
    memory where CuPy gives ``buf`` itself)."""
    inner = getattr(buf, "_a", None)
    return got is buf or (inner is not None and getattr(got, "_a", None) is inner)


def check_into_out(name, index, xp, ctx):
    """Forward into ``out`` equals forward without it, for each dtype; also in place."""
    sample = _SAMPLES[name][index]
    op = get_op(name)
    attrs = op.parse_attrs(dict(sample.attrs))
    oc = mx.ops.OpContext(xp, sample.train, ctx)
    ran = 0
    for dtype in _DTYPES:
        inputs = [xp.asarray(a) for a in _variant(sample.inputs, dtype)]
        try:
            ref = _forward(op, oc, attrs, [a.copy() for a in inputs], None)
        except (MXNetError, TypeError, ValueError):
            if dtype is np.int32:
                continue  # an operator for floating point data only
            raise
        ran += 1
        what = f"{name} {np.dtype(dtype).name}"
        ref = [xp.asarray(r) for r in ref]
        bufs = [xp.full(r.shape, np.nan if r.dtype.kind == "f" else 77, dtype=r.dtype)
                for r in ref]
        given = [a.copy() for a in inputs]
        got = _forward(op, oc, attrs, given, bufs)
        for g, b, r in zip(got, bufs, ref):
            assert _is_buffer(g, b), f"{what}: forward did not return its out buffer"
            _assert_same(b, r, what)
        for g, a in zip(given, inputs):
            _assert_same(g, a, f"{what}: an input changed")
        if len(ref) != 1:
            continue
        # in place: the out buffer is one of the inputs
        for k, a in enumerate(inputs):
            if a.shape != ref[0].shape or a.dtype != ref[0].dtype:
                continue
            given = [x.copy() for x in inputs]
            res = _forward(op, oc, attrs, given, [given[k]])
            assert _is_buffer(res[0], given[k])
            _assert_same(given[k], ref[0], f"{what} in place of input {k}")
    assert ran >= 2


@pytest.mark.parametrize("name,index", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_forward_into_out(name, index):
    check_into_out(name, index, np, mx.cpu())


@pytest.mark.parametrize("name,index", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_forward_into_out_simulated_gpu(name, index):
    """The same on the CuPy stand-in: only calls and keywords that CuPy has."""
    from ..gpu_sim.simulated import simulated_gpu
    with simulated_gpu() as cp:
        check_into_out(name, index, cp, mx.gpu(0))


@pytest.mark.gpu
@pytest.mark.parametrize("name,index", CASES, ids=[f"{n}-{i}" for n, i in CASES])
def test_forward_into_out_gpu(name, index):
    import cupy
    check_into_out(name, index, cupy, mx.gpu(0))


# operators that compute straight into ``out``: (name, attrs, number of inputs)
_DIRECT = [(n, {}, 1) for n in (
    "exp", "log1p", "sqrt", "tanh", "sigmoid", "relu", "abs", "square", "negative", "sin",
    "cos", "rsqrt", "rcbrt", "reciprocal", "softsign", "degrees", "ceil", "sign",
    "logical_not", "_copy")] + [
    ("_plus_scalar", {"scalar": 2.0}, 1), ("_rdiv_scalar", {"scalar": 2.0}, 1),
    ("_mod_scalar", {"scalar": 0.7}, 1), ("_greater_scalar", {"scalar": 0.1}, 1),
    ("elemwise_add", {}, 2), ("elemwise_div", {}, 2), ("_lesser_equal", {}, 2),
    ("broadcast_mul", {}, 2), ("broadcast_maximum", {}, 2), ("_logical_xor", {}, 2),
    ("clip", {"a_min": -0.5, "a_max": 0.5}, 1), ("Cast", {"dtype": "float32"}, 1),
] + [("Activation", {"act_type": a}, 1)
     for a in ("relu", "sigmoid", "tanh", "softrelu", "softsign")] + [
    ("LeakyReLU", {"act_type": "leaky", "slope": 0.2}, 1)]


@pytest.mark.parametrize("name,attrs,n_in", _DIRECT, ids=[f"{n}-{a}" for n, a, _ in _DIRECT])
def test_no_result_copy_into_out(name, attrs, n_in):
    """Into ``out`` the operator allocates at least one result-sized array less than
    without it: it computes in the buffer instead of copying a fresh result there."""
    import tracemalloc
    rng = np.random.default_rng(0)
    xs = [rng.uniform(0.1, 2, 1 << 18).astype(np.float32) for _ in range(n_in)]
    op = get_op(name)
    parsed = op.parse_attrs(dict(attrs))
    oc = mx.ops.OpContext(np, False, mx.cpu())
    o = np.empty_like(xs[0])
    peaks = []
    for out in (None, [o]):
        tracemalloc.start()
        try:
            res = op.forward(oc, parsed, xs, out)
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
        del res
    assert peaks[1] <= peaks[0] - 0.9 * o.nbytes, f"{name}: peak bytes {peaks}"


def _chain(F, x, b):
    t = F.sigmoid(x * 2.0 + 1.0) * b - 0.5
    t = F.relu(F.tanh(t)) + x
    t = F.exp(t) / 3.0
    t = F.Activation(t, act_type="softrelu") - F.abs(b)
    t = F.clip(F.LeakyReLU(t, slope=0.1), -0.5, 2.0) % 0.7
    t = F.broadcast_mul(t, F.sqrt(F.square(b) + 1.0)) * (t > 0.1)
    t = F.Cast(F.Activation(t, act_type="sigmoid"), dtype="float64")
    return F.log(F.Cast(t, dtype="float32") + 1.0)


@pytest.mark.parametrize("static_alloc", [False, True])
def test_cachedop_chain_unchanged(static_alloc):
    rng = np.random.default_rng(0)
    xs = [rng.uniform(-2, 2, (64, 33)).astype(np.float32),
          rng.uniform(-2, 2, (64, 33)).astype(np.float32)]
    xs[0][0, :3] = [np.nan, -0.0, 0.0]
    args = [mx.nd.array(a, dtype=a.dtype) for a in xs]
    expected = _chain(mx.nd, *args).asnumpy()
    sym = _chain(mx.sym, mx.sym.var("x"), mx.sym.var("b"))
    for flags in ([("static_alloc", static_alloc)],
                  [("static_alloc", static_alloc), ("debug", True)]):
        op = CachedOp(sym, flags)
        for _ in range(2):  # the second call reuses the planned buffers
            got = op(*args)
            got = got[0] if isinstance(got, (list, tuple)) else got
            _assert_same(got.asnumpy(), expected, f"CachedOp {flags}")
