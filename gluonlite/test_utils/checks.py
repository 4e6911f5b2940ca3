"""More of ``mxnet.test_utils``: statistical checks of random generators, optimizer and
symbol comparisons, consistency across contexts and dtypes, and matrix generators.

``gluonlite.test_utils`` re-exports every public name here, so
``from mxnet.test_utils import *`` gives what MXNet 1.9's star-import gives.
"""
from __future__ import annotations

import copy
import json
import platform
import time
from typing import Callable, Sequence

import numpy as np

import gluonlite as mx  # the package face: test_utils loads after it, on first use
from ..base import MXNetError
from ..context import Context, current_context
from ..util import get_cuda_compute_capability  # noqa: F401 - mxnet.test_utils has it
from .core import assert_almost_equal

__all__ = [
    "random_uniform_arrays", "create_2d_tensor", "create_vector", "get_identity_mat",
    "get_identity_mat_batch", "locationError", "simple_forward", "check_speed",
    "check_consistency", "gen_buckets_probs_with_ppf", "mean_check", "var_check",
    "chi_square_check", "verify_generator", "compare_optimizer", "same_symbol_structure",
    "check_gluon_hybridize_consistency", "new_matrix_with_real_eigvals_2d",
    "new_matrix_with_real_eigvals_nd", "new_orthonormal_matrix_2d",
    "new_sym_matrix_with_real_eigvals_2d", "new_sym_matrix_with_real_eigvals_nd",
    "is_aarch64_run", "get_cuda_compute_capability",
]


# ----------------------------------------------------------------------------- data makers
def random_uniform_arrays(*shapes, **kwargs) -> list:
    """Uniform random NumPy arrays of the given shapes.

    Keyword arguments: ``low`` (default 0), ``high`` (default 1), ``dtype``
    (default float32).  Always a list, also for one shape (MXNet's rule, unlike
    ``random_arrays``).
    """
    low = kwargs.pop("low", 0.0)
    high = kwargs.pop("high", 1.0)
    dtype = kwargs.pop("dtype", np.float32)
    if kwargs:
        raise TypeError(f"random_uniform_arrays: unexpected arguments {sorted(kwargs)}")
    return [np.random.uniform(low, high, size=s).astype(dtype) for s in shapes]


def create_2d_tensor(rows: int, columns: int, dtype=np.int64):
    """NDArray of shape ``(rows, columns)`` whose row ``i`` is filled with ``i``."""
    values = np.repeat(np.arange(rows, dtype=dtype)[:, None], columns, axis=1)
    return mx.nd.array(values, dtype=dtype)


def create_vector(size: int, dtype=np.int64):
    """NDArray ``[0, 1, ..., size - 1]``."""
    return mx.nd.arange(0, size, dtype=dtype)


def get_identity_mat(size: int):
    """Identity matrix of shape ``(size, size)`` as an NDArray."""
    return mx.nd.array(np.eye(size))


def get_identity_mat_batch(size: int):
    """Two stacked identity matrices of shape ``(size, size)``: ``(2, size, size)``."""
    eye = np.eye(size)
    return mx.nd.array(np.stack([eye, eye]))


def locationError(a, b, index, names, maxError=False) -> str:
    """Describe the element at ``index`` where ``a`` and ``b`` differ."""
    kind = "Maximum error" if maxError else "Error"
    return f"{kind} at index {index}: {names[0]}={a[index]} vs {names[1]}={b[index]}"


# ----------------------------------------------------------------------------- symbols
def simple_forward(sym, ctx: Context | None = None, is_train: bool = False, **inputs):
    """Run ``sym`` forward on NumPy inputs (keyword per argument name).

    Returns one NumPy array, or a list when the symbol has several outputs.
    """
    ctx = ctx or current_context()
    args = {k: mx.nd.array(v, ctx=ctx) for k, v in inputs.items()}
    exe = sym.bind(ctx, args=args)
    exe.forward(is_train=is_train)
    outs = [o.asnumpy() for o in exe.outputs]
    return outs[0] if len(outs) == 1 else outs


def same_symbol_structure(sym1, sym2) -> bool:
    """True when both symbols' graphs have the same operator at every node position."""
    nodes1 = json.loads(sym1.tojson())["nodes"]
    nodes2 = json.loads(sym2.tojson())["nodes"]
    return all(a["op"] == b["op"] for a, b in zip(nodes1, nodes2))


def _bind_random(sym, ctx, shapes: dict, dtype, grad_req):
    exe = sym.simple_bind(ctx, grad_req=grad_req,
                          type_dict={k: dtype for k in sym.list_arguments()}, **shapes)
    return exe


def check_speed(sym, location=None, ctx=None, N: int = 20, grad_req=None, typ: str = "whole",
                **kwargs) -> float:
    """Seconds per iteration of ``sym`` (``typ='whole'``: forward and backward;
    ``'forward'``: forward only), after one warm-up run."""
    ctx = ctx or current_context()
    grad_req = grad_req or "write"
    if location is None:
        exe = sym.simple_bind(ctx, grad_req=grad_req, **kwargs)
        location = {k: np.random.normal(size=a.shape).astype(np.float32)
                    for k, a in exe.arg_dict.items()}
    else:
        exe = sym.simple_bind(ctx, grad_req=grad_req,
                              **{k: v.shape for k, v in location.items()})
    for name, value in location.items():
        exe.arg_dict[name][:] = value
    if typ not in ("whole", "forward"):
        raise ValueError(f"check_speed: typ must be 'whole' or 'forward', got {typ!r}")
    whole = typ == "whole"

    def once():
        exe.forward(is_train=whole)
        if whole:
            exe.backward(out_grads=[mx.nd.ones_like(o) for o in exe.outputs])
        for o in exe.outputs:
            o.wait_to_read()

    once()
    start = time.time()
    for _ in range(N):
        once()
    mx.nd.waitall()
    return (time.time() - start) / N


def check_consistency(sym, ctx_list: Sequence[dict], scale: float = 1.0, grad_req="write",
                      arg_params=None, aux_params=None, tol=None, raise_on_err: bool = True,
                      ground_truth=None, equal_nan: bool = False, use_uniform: bool = False,
                      rand_type=np.float64) -> list:
    """Run ``sym`` (or one symbol per entry) on every entry of ``ctx_list`` and check
    that forward outputs and gradients agree with the most precise run.

    Each entry of ``ctx_list`` is a dict with ``ctx``, the input shapes by argument
    name, and optionally ``type_dict``.  Returns the ground truth (the outputs and
    gradients of the most precise entry) as a list of dicts of NumPy arrays.
    """
    default_tol = {np.dtype(np.float16): 1e-1, np.dtype(np.float32): 1e-3,
                   np.dtype(np.float64): 1e-5, np.dtype(np.uint8): 0, np.dtype(np.int32): 0,
                   np.dtype(np.int64): 0}
    if tol is None:
        tol = default_tol
    elif isinstance(tol, (int, float)):
        tol = {k: tol for k in default_tol}
    syms = list(sym) if isinstance(sym, (list, tuple)) else [sym] * len(ctx_list)
    if len(syms) != len(ctx_list):
        raise MXNetError("check_consistency: got %d symbols for %d contexts"
                         % (len(syms), len(ctx_list)))
    exes = []
    for s, spec in zip(syms, ctx_list):
        spec = dict(spec)
        ctx = spec.pop("ctx")
        type_dict = spec.pop("type_dict", {})
        exes.append(s.simple_bind(ctx, grad_req=grad_req, type_dict=type_dict, **spec))
    first = exes[0]
    arg_params = dict(arg_params or {})
    aux_params = dict(aux_params or {})
    for name, arr in first.arg_dict.items():
        if name not in arg_params:
            if use_uniform:
                arg_params[name] = np.random.uniform(-scale, scale, arr.shape).astype(rand_type)
            else:
                arg_params[name] = (np.random.normal(size=arr.shape) * scale).astype(rand_type)
    for name, arr in first.aux_dict.items():
        aux_params.setdefault(name, np.zeros(arr.shape))
    for exe in exes:
        for name, arr in exe.arg_dict.items():
            arr[:] = arg_params[name]
        for name, arr in exe.aux_dict.items():
            arr[:] = aux_params[name]

    def precision(exe):
        return max(np.dtype(a.dtype).itemsize for a in exe.arg_arrays) if exe.arg_arrays else 0

    max_idx = int(np.argmax([precision(e) for e in exes]))
    names_out = syms[0].list_outputs()

    def compare(results, label):
        gt = results[max_idx] if ground_truth is None else ground_truth
        for i, res in enumerate(results):
            if i == max_idx and ground_truth is None:
                continue
            for name, got in res.items():
                if name not in gt:
                    continue
                dtype = np.dtype(got.dtype)
                t = tol.get(dtype, 1e-3)
                try:
                    assert_almost_equal(
                        got, gt[name], rtol=t, atol=t, equal_nan=equal_nan,
                        names=(f"{label}[{i}].{name}", f"ground_truth.{name}"))
                except AssertionError:
                    if raise_on_err:
                        raise
                    print(f"check_consistency: {label} of {name} differs on {ctx_list[i]}")

    # forward in predict mode
    fwd = []
    for exe in exes:
        exe.forward(is_train=False)
        fwd.append({n: o.asnumpy() for n, o in zip(names_out, exe.outputs)})
    compare(fwd, "forward")
    # forward and backward in training mode
    results = []
    for exe in exes:
        exe.forward(is_train=True)
        exe.backward([mx.nd.array(np.ones(o.shape), ctx=o.context, dtype=o.dtype)
                      for o in exe.outputs])
        res = {n: o.asnumpy() for n, o in zip(names_out, exe.outputs)}
        if grad_req != "null":
            for name, grad in exe.grad_dict.items():
                if grad is not None:
                    res[name + "_grad"] = grad.asnumpy()
        results.append(res)
    compare(results, "training")
    return results if ground_truth is None else [ground_truth]


# ----------------------------------------------------------------------------- random checks
def gen_buckets_probs_with_ppf(ppf: Callable, nbuckets: int):
    """``nbuckets`` equal-probability buckets ``(ppf(i/n), ppf((i+1)/n))`` and their
    probabilities, for :func:`chi_square_check` on a continuous distribution."""
    if nbuckets <= 0:
        raise ValueError("gen_buckets_probs_with_ppf: nbuckets must be positive")
    edges = [ppf(i / float(nbuckets)) for i in range(nbuckets + 1)]
    return list(zip(edges[:-1], edges[1:])), [1.0 / nbuckets] * nbuckets


def mean_check(generator: Callable, mu: float, sigma: float, nsamples: int = 1000000) -> bool:
    """True when the sample mean of ``generator(nsamples)`` lies within three standard
    errors of ``mu``."""
    mean = np.asarray(generator(nsamples), dtype=np.float64).mean()
    half = 3 * sigma / np.sqrt(nsamples)
    return bool(mu - half < mean < mu + half)


def var_check(generator: Callable, sigma: float, nsamples: int = 1000000) -> bool:
    """True when the sample variance of ``generator(nsamples)`` lies within three
    standard errors of ``sigma ** 2``."""
    var = np.asarray(generator(nsamples), dtype=np.float64).var(ddof=1)
    half = 3 * np.sqrt(2 * sigma ** 4 / (nsamples - 1))
    return bool(sigma ** 2 - half < var < sigma ** 2 + half)


def chi_square_check(generator: Callable, buckets: list, probs, nsamples: int = 1000000):
    """Chi-square goodness of fit of ``generator(nsamples)`` to bucket probabilities.

    ``buckets`` holds ``(low, high)`` ranges for a continuous distribution, or the
    possible values of a discrete one.  Returns ``(p, observed, expected)``.
    """
    try:
        from scipy import stats
    except ImportError as err:  # pragma: no cover - scipy is present where tests run
        raise ImportError("chi_square_check needs scipy") from err
    if not isinstance(buckets, list) or len(buckets) != len(probs):
        raise ValueError("chi_square_check: buckets must be a list as long as probs")
    samples = np.asarray(generator(nsamples)).reshape(-1)
    expected = (nsamples * np.asarray(probs, dtype=np.float32)).astype(np.int64)
    if isinstance(buckets[0], (list, tuple)):
        edges = np.asarray(buckets, dtype=np.float32)
        if np.any(edges[:, 0] > edges[:, 1]) or np.any(edges[1:, 0] < edges[:-1, 1]):
            raise ValueError("chi_square_check: buckets must be ascending and disjoint")
        ids = np.searchsorted(edges.reshape(-1), samples, side="right") // 2
        observed = np.bincount(ids, minlength=len(buckets) + 1)[:len(buckets)]
    else:
        values = np.asarray(buckets)
        observed = (samples[:, None] == values[None, :]).sum(axis=0)
    # scipy insists both sums agree; rescale expected to the observed total
    exp = expected * (observed.sum() / max(expected.sum(), 1))
    _, p = stats.chisquare(f_obs=observed, f_exp=exp)
    return p, observed, expected


def verify_generator(generator: Callable, buckets: list, probs, nsamples: int = 1000000,
                     nrepeat: int = 5, success_rate: float = 0.2, alpha: float = 0.05) -> list:
    """Repeat :func:`chi_square_check` ``nrepeat`` times; raise ``AssertionError`` when
    fewer than ``success_rate`` of the runs have ``p > alpha``.  Returns the p values."""
    runs = [chi_square_check(generator, buckets, probs, nsamples) for _ in range(nrepeat)]
    pvals = [r[0] for r in runs]
    if (np.asarray(pvals) > alpha).sum() < nrepeat * success_rate:
        raise AssertionError("Generator test fails, Chi-square p=%s, obs_freq=%s, "
                             "expected_freq=%s.\nbuckets=%s, probs=%s"
                             % (pvals, [r[1] for r in runs], [r[2] for r in runs],
                                buckets, probs))
    return pvals


# ----------------------------------------------------------------------------- optimizers
def _compare_tuple(a, b, rtol, atol):
    if a is None or b is None:
        return
    if isinstance(a, (tuple, list)):
        for x, y in zip(a, b):
            _compare_tuple(x, y, rtol, atol)
    else:
        assert_almost_equal(a, b, rtol=rtol, atol=atol)


def _optimizer_pair(shape, dtype, stype: str, ctx, density):
    """``(dense copy, array of storage type stype)`` of one random array."""
    if stype == "default":
        second = mx.nd.random.uniform(shape=shape, ctx=ctx, dtype=dtype)
        return second.copyto(ctx), second
    if stype not in ("row_sparse", "csr"):
        raise MXNetError(f"compare_optimizer: unknown storage type '{stype}'")
    second = mx.test_utils.rand_ndarray(shape, stype, density=density, dtype=dtype, ctx=ctx)
    return second.copyto(ctx).tostype("default"), second


def compare_optimizer(opt1, opt2, shape, dtype, w_stype: str = "default",
                      g_stype: str = "default", rtol: float = 1e-4, atol: float = 1e-5,
                      compare_states: bool = True, ntensors: int = 1) -> None:
    """Apply one update of ``opt1`` and of ``opt2`` to the same random weight and
    gradient and assert that weights (and states) agree.

    With ``shape`` a list of shapes, ``opt2`` updates all ``ntensors`` tensors in one
    aggregated call and ``opt1`` one by one.  A sparse ``w_stype`` (``'row_sparse'``,
    ``'csr'``) gives ``opt2`` a sparse weight holding every row or entry, a sparse
    ``g_stype`` a sparse gradient of random density (:func:`rand_ndarray`); ``opt1``
    always gets their dense copies, and results are compared densified.
    """
    ctx = current_context()
    if not isinstance(shape, list):
        if ntensors != 1:
            raise ValueError("compare_optimizer: one shape needs ntensors=1")
        w1, w2 = _optimizer_pair(shape, dtype, w_stype, ctx, density=1)
        g1, g2 = _optimizer_pair(shape, dtype, g_stype, ctx, density=None)
        state1 = opt1.create_state_multi_precision(0, w1)
        state2 = opt2.create_state_multi_precision(0, w2)
        if compare_states:
            _compare_tuple(state1, state2, None, None)
        opt1.update_multi_precision(0, w1, g1, state1)
        opt2.update_multi_precision(0, w2, g2, state2)
        if compare_states:
            _compare_tuple(state1, state2, rtol, atol)
        mx.test_utils.assert_almost_equal(w1, w2, rtol=rtol, atol=atol)
        return
    w1 = tuple(mx.nd.random.uniform(shape=s, ctx=ctx, dtype=dtype) for s in shape)
    g1 = tuple(mx.nd.random.uniform(shape=s, ctx=ctx, dtype=dtype) for s in shape)
    w2 = copy.deepcopy(w1)
    g2 = copy.deepcopy(g1)
    state2 = [opt2.create_state_multi_precision(0, w2[i]) for i in range(ntensors)]
    opt2.update_multi_precision(list(range(ntensors)), w2, g2, state2)
    for i in range(ntensors):
        state1 = opt1.create_state_multi_precision(i, w1[i])
        opt1.update_multi_precision(i, w1[i], g1[i], state1)
        if compare_states:
            _compare_tuple(state1, state2[i], rtol, atol)
        _compare_tuple(w1[i], w2[i], rtol, atol)


# ----------------------------------------------------------------------------- gluon
def check_gluon_hybridize_consistency(net_builder: Callable, data_l: list, numpy_func=None,
                                      test_grad: bool = True, rtol: float = 1e-4,
                                      atol: float = 1e-4) -> None:
    """Build ``net_builder(prefix='net_')`` four times (imperative and hybridized, with
    and without autograd) from the same parameters and assert identical outputs and
    input gradients; optionally compare with ``numpy_func`` on the inputs."""
    saved_params = None
    reference_out = None
    reference_grads = None
    for hybridize in (False, True):
        for use_autograd in ((False, True) if test_grad else (False,)):
            net = net_builder(prefix="net_")
            net.initialize()
            inputs = [x.copy() for x in data_l]
            # the first forward finishes deferred initialization; then load the saved values
            if saved_params is not None:
                net(*[x.copy() for x in data_l])
                for name, param in net.collect_params().items():
                    param.set_data(mx.nd.array(saved_params[name], dtype=param.dtype))
            if hybridize:
                net.hybridize()
            if use_autograd:
                for x in inputs:
                    x.attach_grad()
                with mx.autograd.record():
                    out = net(*inputs)
                out.backward(out)
            else:
                out = net(*inputs)
            if saved_params is None:
                saved_params = {k: v.data().asnumpy() for k, v in net.collect_params().items()}
            if reference_out is None:
                reference_out = out.asnumpy()
            else:
                mx.test_utils.assert_almost_equal(out.asnumpy(), reference_out,
                                                  rtol=rtol, atol=atol)
            if use_autograd:
                grads = [x.grad.asnumpy() for x in inputs]
                if reference_grads is None:
                    reference_grads = grads
                else:
                    for got, want in zip(grads, reference_grads):
                        mx.test_utils.assert_almost_equal(got, want, rtol=rtol, atol=atol)
    if numpy_func is not None:
        expected = numpy_func(*[x.asnumpy() for x in data_l])
        mx.test_utils.assert_almost_equal(reference_out, expected, rtol=rtol, atol=atol)


# ----------------------------------------------------------------------------- matrices
def _householder_times_diag(n: int) -> np.ndarray:
    """A random well-conditioned (condition number < 3) matrix: a Householder
    reflection times a diagonal of magnitudes in [1/3, 1]."""
    v = np.random.uniform(-1.0, 1.0, (n, 1))
    v /= np.linalg.norm(v)
    reflection = np.eye(n) - 2 * v @ v.T
    diag = np.random.uniform(1.0 / 3.0, 1.0, n) * np.random.choice([-1.0, 1.0], n)
    return reflection @ np.diag(diag)


def new_matrix_with_real_eigvals_2d(n: int) -> np.ndarray:
    """A random ``(n, n)`` matrix similar to a diagonal of real eigenvalues in
    [-10, 10], through a well-conditioned change of basis."""
    q = _householder_times_diag(n)
    eig = np.diag(np.random.uniform(-10.0, 10.0, n))
    return np.linalg.inv(q) @ eig @ q


def new_matrix_with_real_eigvals_nd(shape) -> np.ndarray:
    """A batch of :func:`new_matrix_with_real_eigvals_2d` matrices of ``shape``."""
    count = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    return np.array([new_matrix_with_real_eigvals_2d(shape[-1])
                     for _ in range(count)]).reshape(shape)


def new_orthonormal_matrix_2d(n: int) -> np.ndarray:
    """A random ``(n, n)`` orthonormal matrix."""
    x = np.random.randn(n, n)
    return np.linalg.qr(x.T @ x)[0]


def new_sym_matrix_with_real_eigvals_2d(n: int) -> np.ndarray:
    """A random symmetric ``(n, n)`` matrix with eigenvalues in [-10, 10]."""
    q = new_orthonormal_matrix_2d(n)
    return q.T @ np.diag(np.random.uniform(-10.0, 10.0, n)) @ q


def new_sym_matrix_with_real_eigvals_nd(shape) -> np.ndarray:
    """A batch of :func:`new_sym_matrix_with_real_eigvals_2d` matrices of ``shape``."""
    count = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    return np.array([new_sym_matrix_with_real_eigvals_2d(shape[-1])
                     for _ in range(count)]).reshape(shape)


def is_aarch64_run() -> bool:
    """True on a 64-bit ARM machine."""
    return platform.machine() in ("aarch64", "arm64")

