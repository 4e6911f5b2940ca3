"""Every fusable operator's generated CUDA, checked without a GPU.

* numerically: the generated forward and backward kernels (one per operator and
  dtype) are wrapped into a host loop, compiled with g++ (CUDA-only functions such
  as ``rsqrt``/``erfinv`` are shimmed), called through ctypes and compared with the
  operator's own NumPy forward/backward in float64, float32 and integer dtypes;
* as CUDA: the same kernels, wrapped the way ElementwiseKernel wraps an operation,
  compile with ``nvcc --ptx -arch=sm_90``.
"""
from __future__ import annotations

import numpy as np
import pytest

from gluonlite.engine.cuda_expr import op_expr
from gluonlite.engine.fused_kernel import FusedGroup
from gluonlite.engine.fusion import find_groups
from gluonlite.ops.registry import all_ops, get_op

from .fusion_util import (compile_host, compile_ptx, cpu_oc, cuda_function, host_function,
                          infer, nvcc_path, op, run_host, var)

F32, F64 = np.dtype(np.float32), np.dtype(np.float64)

# input ranges that keep each operator and its gradient finite
_POS = (0.2, 3.0)
_UNIT = (-0.9, 0.9)
_DOMAIN = {
    "log": _POS, "log10": _POS, "log2": _POS, "sqrt": _POS, "rsqrt": _POS, "gamma": _POS,
    "gammaln": _POS, "log1p": (-0.5, 3.0), "arcsin": _UNIT, "arccos": _UNIT,
    "arctanh": _UNIT, "erfinv": _UNIT, "arccosh": (1.2, 3.0),
}
_NONZERO = {"reciprocal", "rcbrt", "cbrt", "elemwise_div", "_mod", "broadcast_div",
            "broadcast_mod", "_rdiv_scalar", "_rmod_scalar"}
_POS_BASE = {"_power", "broadcast_power", "_power_scalar"}

_ATTR_CASES = ([("Activation", {"act_type": a}) for a in
                ("relu", "sigmoid", "tanh", "softrelu", "softsign")] +
               [("LeakyReLU", {"act_type": a, "slope": 0.3}) for a in
                ("leaky", "elu", "selu", "gelu")] +
               [("clip", {"a_min": -0.5, "a_max": 0.7}), ("smooth_l1", {"scalar": 1.5})])


def _cases():
    """(op name, attrs, dtype) for every operator with an expression."""
    cases = []
    for o in all_ops():
        if o.cuda is None:
            continue
        attrs_list = [{"scalar": 2.5}, {"scalar": -1.5}] if "scalar" in o.attrs else [{}]
        for attrs in attrs_list:
            for dt in (F64, F32, np.dtype(np.int32), np.dtype(np.uint8)):
                cases.append((o.name, attrs, dt))
    for name, attrs in _ATTR_CASES:
        for dt in (F64, F32, np.dtype(np.int32)):
            cases.append((name, attrs, dt))
    return cases


def _inputs(name, attrs, dtype, n, rng):
    o = get_op(name)
    n_in = o.num_inputs(o.parse_attrs(attrs))
    if dtype.kind in "iu":
        lo = 0 if dtype.kind == "u" else -20
        arrays = [rng.integers(lo, 50, size=n).astype(dtype) for _ in range(n_in)]
        if name == "where":
            arrays[0] = rng.integers(0, 2, size=n).astype(dtype)
        return arrays
    lo, hi = _DOMAIN.get(name, (-2.0, 2.0))
    arrays = [rng.uniform(lo, hi, size=n) for _ in range(n_in)]
    if name in _NONZERO:
        k = n_in - 1 if name not in ("_rdiv_scalar", "_rmod_scalar") else 0
        mag = rng.uniform(0.3, 2.0, size=n)
        arrays[k] = np.where(rng.random(n) < 0.5, -mag, mag)
    if name in _POS_BASE:
        arrays[0] = rng.uniform(0.3, 2.0, size=n)
    if name == "where":
        arrays[0] = rng.integers(0, 2, size=n).astype(np.float64)
    return [a.astype(dtype) for a in arrays]


def _single_group(name, attrs, dtype):
    """The one-node group of ``name`` on (n,) inputs of ``dtype``, or ``None``."""
    o = get_op(name)
    n_in = o.num_inputs(o.parse_attrs(attrs))
    names = [f"v{k}" for k in range(n_in)]
    head = op(name, *[var(v) for v in names], **attrs)
    nodes, shapes, dtypes = infer([head], {v: (64,) for v in names},
                                  {v: dtype for v in names})
    groups = find_groups(nodes, {head}, shapes, dtypes, min_size=1)
    if not groups:
        return None
    return FusedGroup(groups[0], dtypes)


def _fusable_cases():
    out = []
    for name, attrs, dt in _cases():
        fg = _single_group(name, attrs, dt)
        if fg is not None:
            out.append((name, attrs, dt, fg))
    return out


@pytest.fixture(scope="module")
def fusable():
    return _fusable_cases()


@pytest.fixture(scope="module")
def host_lib(fusable):
    funcs = []
    for k, (_, _, _, fg) in enumerate(fusable):
        funcs.append(host_function(fg.forward_spec, f"fwd{k}"))
        if fg.backward_spec is not None:
            funcs.append(host_function(fg.backward_spec[0], f"bwd{k}"))
    return compile_host(funcs)


def test_every_float_op_is_fusable(fusable):
    got = {(n, d) for n, _, d, _ in fusable}
    for name, attrs, dt in _cases():
        if dt.kind == "f":
            assert (name, dt) in got, f"{name} ({dt}) has an expression but is not fusable"
    ints = {n for n, _, d, _ in fusable if d == np.int32}
    # integer fusion is limited to operators whose C meaning is MXNet's
    assert {"_mul_scalar", "elemwise_add", "relu", "where", "_greater_scalar"} <= ints
    assert not ints & {"elemwise_div", "_div_scalar", "exp", "_mod", "_power", "sqrt"}


def test_only_gamma_lacks_a_gradient_expression(fusable):
    missing = {n for n, _, d, fg in fusable if d.kind == "f" and fg.backward_spec is None}
    assert missing == {"gamma", "gammaln"}


def _tols(name, dtype):
    if dtype == F32:
        return dict(rtol=2e-5, atol=2e-6)
    if name in ("gamma", "gammaln", "erf", "erfinv", "LeakyReLU"):
        return dict(rtol=1e-9, atol=1e-12)
    return dict(rtol=1e-11, atol=1e-13)


def test_host_forward_matches_numpy(fusable, host_lib):
    rng = np.random.default_rng(0)
    oc = cpu_oc()
    failures = []
    for k, (name, attrs, dt, fg) in enumerate(fusable):
        xs = _inputs(name, attrs, dt, 64, rng)
        node = fg.group.nodes[0]
        want = node.op.forward(oc, node.attrs, xs, None)[0]
        got = run_host(host_lib, f"fwd{k}", fg.forward_spec, xs)[0]
        assert got.dtype == want.dtype, (name, dt)
        try:
            np.testing.assert_allclose(got, want, **_tols(name, dt))
        except AssertionError as err:
            failures.append(f"{name} {attrs} {dt}: {err}")
    assert not failures, "\n".join(failures)


def test_host_backward_matches_numpy(fusable, host_lib):
    rng = np.random.default_rng(1)
    oc = cpu_oc()
    failures = []
    n_checked = 0
    for k, (name, attrs, dt, fg) in enumerate(fusable):
        if fg.backward_spec is None:
            continue
        spec, positions = fg.backward_spec
        xs = _inputs(name, attrs, dt, 64, rng)
        node = fg.group.nodes[0]
        y = node.op.forward(oc, node.attrs, xs, None)[0]
        g = rng.uniform(-1, 1, size=y.shape).astype(dt)
        want = node.op.backward(oc, node.attrs, xs, [y], [g])
        outs = run_host(host_lib, f"bwd{k}", spec, xs + [g]) if spec.out_params else []
        for p, w, x in zip(positions, want, xs):
            got = np.zeros_like(x) if p is None else outs[p]
            try:
                np.testing.assert_allclose(got, np.broadcast_to(w, x.shape), **_tols(name, dt))
            except AssertionError as err:
                failures.append(f"{name} {attrs} {dt}: {err}")
        n_checked += 1
    assert n_checked > 150
    assert not failures, "\n".join(failures)


def test_scalar_baked_per_dtype():
    o = get_op("_mul_scalar")
    attrs = o.parse_attrs({"scalar": 2.5})
    assert op_expr(o, attrs, [F32], F32).forward == "($0 * (2.5f))"
    assert op_expr(o, attrs, [F64], F64).forward == "($0 * (2.5))"
    assert op_expr(o, attrs, [np.dtype(np.int32)], np.dtype(np.int32)).forward == \
        "($0 * ((int)2LL))"
    neg = o.parse_attrs({"scalar": -1.0})
    assert op_expr(get_op("_plus_scalar"), neg, [np.dtype(np.uint8)],
                   np.dtype(np.uint8)).forward == "($0 + ((unsigned char)255LL))"
    # is_int=False turns an integer array into float64: a dtype change is never fused
    f = o.parse_attrs({"scalar": 2.5, "is_int": False})
    assert op_expr(o, f, [np.dtype(np.int32)], F64) is None
    # float32 literals inside registry expressions get the f suffix
    sg = op_expr(get_op("log10"), get_op("log10").parse_attrs({}), [F32], F32)
    assert "2.302585092994046f" in sg.grads[0]


@pytest.mark.skipif(nvcc_path() is None, reason="nvcc not installed")
def test_nvcc_compiles_every_kernel(fusable):
    funcs, names = [], []
    for k, (name, attrs, dt, fg) in enumerate(fusable):
        if dt not in (F32, F64) and k % 3:  # integer kernels: a sample is enough
            continue
        funcs.append(cuda_function(fg.forward_spec, f"fwd{k}"))
        names.append(f"fwd{k}")
        if fg.backward_spec is not None and fg.backward_spec[0].out_params:
            funcs.append(cuda_function(fg.backward_spec[0], f"bwd{k}"))
            names.append(f"bwd{k}")
    ptx = compile_ptx(funcs)
    for name in names:
        assert f".entry {name}(" in ptx


@pytest.mark.parametrize("name", ["_mod", "_mod_scalar", "_rmod_scalar"])
def test_mod_exact_for_large_quotients(name):
    # lhs - floor(lhs / rhs) * rhs would be off by up to rhs in float32 here
    rng = np.random.default_rng(3)
    attrs = {"scalar": 0.7} if "scalar" in name else {}
    fg = _single_group(name, attrs, F32)
    lib = compile_host([host_function(fg.forward_spec, "f")])
    n = 64
    xs = [rng.uniform(-1e7, 1e7, n).astype(np.float32)]
    if name == "_mod":
        xs.append((np.where(rng.random(n) < 0.5, -1, 1) * rng.uniform(0.1, 3, n))
                  .astype(np.float32))
    if name == "_rmod_scalar":
        xs = [rng.uniform(1e-4, 1e-2, n).astype(np.float32)]
    node = fg.group.nodes[0]
    want = node.op.forward(cpu_oc(), node.attrs, xs, None)[0]
    got = run_host(lib, "f", fg.forward_spec, xs)[0]
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name,attrs", [("relu", {}), ("_maximum", {}), ("_minimum", {}),
                                        ("_maximum_scalar", {"scalar": 1.0}),
                                        ("_minimum_scalar", {"scalar": 1.0}), ("abs", {}),
                                        ("clip", {"a_min": 0.0, "a_max": 1.0})])
def test_nan_propagates_like_mxnet(name, attrs):
    # MXNet 1.9 (and NumPy) give NaN for relu(nan), maximum(1, nan), clip(nan, ...)
    fg = _single_group(name, attrs, F64)
    lib = compile_host([host_function(fg.forward_spec, "f")])
    nan = np.array([np.nan, np.nan, 0.5, -2.0] * 16)
    other = np.array([1.0, -1.0, np.nan, 3.0] * 16)
    xs = [nan, other][:len(fg.group.inputs)]
    node = fg.group.nodes[0]
    want = node.op.forward(cpu_oc(), node.attrs, xs, None)[0]
    got = run_host(lib, "f", fg.forward_spec, xs)[0]
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want)
