"""A 10-op elementwise chain on 16M float32 elements, fused and unfused.

The chain (two inputs ``x``, ``b``)::

    t = x * 2 + 1; t = sigmoid(t) * b - 0.5; t = relu(tanh(t)) + x; y = exp(t) / 3

Cases, in milliseconds per call (best of ``--repeat``):

* ``numpy``: op by op allocating each result; op by op into preallocated buffers;
  ``numexpr`` (one multithreaded pass) when it is installed;
* ``gluonlite``: the fused group's CPU path (the members' NumPy ops) and, with a
  GPU, the generated CuPy ElementwiseKernel against the members run one by one,
  with the effective bandwidth against the card's peak;
* ``torch``: PyTorch eager on the CPU (and CUDA when available).

Usage::

    python bench/bench_fusion.py                      # gluonlite + numpy, then torch
    python bench/bench_fusion.py --framework torch    # in an environment with torch
    python bench/run_bench.py bench_fusion.py         # one table
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

N = 16 * 1024 * 1024
TORCH_PYTHON = os.path.expanduser("~/.venvs/torch/bin/python")


def _best_ms(fn, repeat: int, sync=None) -> float:
    fn()
    if sync:
        sync()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        if sync:
            sync()
        best = min(best, time.perf_counter() - t0)
    return best * 1e3


def bench_numpy(n: int, repeat: int) -> dict:
    import numpy as np
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, n).astype(np.float32)
    b = rng.uniform(-1, 1, n).astype(np.float32)

    def alloc():
        t = x * np.float32(2) + np.float32(1)
        t = 1 / (1 + np.exp(-t))
        t = t * b - np.float32(0.5)
        t = np.maximum(np.tanh(t), np.float32(0)) + x
        return np.exp(t) / np.float32(3)

    t1, t2 = np.empty_like(x), np.empty_like(x)

    def prealloc():
        np.multiply(x, np.float32(2), out=t1)
        np.add(t1, np.float32(1), out=t1)
        np.negative(t1, out=t1)
        np.exp(t1, out=t1)
        np.add(t1, np.float32(1), out=t1)
        np.reciprocal(t1, out=t1)
        np.multiply(t1, b, out=t1)
        np.subtract(t1, np.float32(0.5), out=t1)
        np.tanh(t1, out=t1)
        np.maximum(t1, np.float32(0), out=t1)
        np.add(t1, x, out=t1)
        np.exp(t1, out=t1)
        np.divide(t1, np.float32(3), out=t2)
        return t2

    res = {"numpy_op_by_op_ms": _best_ms(alloc, repeat),
           "numpy_prealloc_out_ms": _best_ms(prealloc, repeat)}
    assert np.allclose(alloc(), prealloc(), rtol=1e-5, atol=1e-6)
    try:
        import numexpr as ne
    except ImportError:
        return res
    expr = ("exp(where(tanh((1 / (1 + exp(-(x * 2 + 1)))) * b - 0.5) > 0, "
            "tanh((1 / (1 + exp(-(x * 2 + 1)))) * b - 0.5), 0) + x) / 3")
    out = np.empty_like(x)

    def numexpr_run():
        return ne.evaluate(expr, local_dict={"x": x, "b": b}, out=out)
    assert np.allclose(numexpr_run(), alloc(), rtol=1e-5, atol=1e-6)
    res["numexpr_ms"] = _best_ms(numexpr_run, repeat)
    res["numexpr_threads"] = ne.nthreads
    return res


def _chain_group(n: int, dtype):
    from gluonlite.engine.fused_kernel import FusedGroup
    from gluonlite.engine.fusion import find_groups
    from gluonlite.symbol.graph import op_node, topo_order, variable_node
    import numpy as np
    x, b = (variable_node("x"), 0), (variable_node("b"), 0)

    def op(name, *inputs, **attrs):
        return (op_node(name, name, list(inputs), attrs), 0)
    t = op("_mul_scalar", x, scalar=2.0)
    t = op("_plus_scalar", t, scalar=1.0)
    t = op("sigmoid", t)
    t = op("elemwise_mul", t, b)
    t = op("_minus_scalar", t, scalar=0.5)
    t = op("tanh", t)
    t = op("relu", t)
    t = op("elemwise_add", t, x)
    t = op("exp", t)
    head = op("_div_scalar", t, scalar=3.0)
    nodes = topo_order([head])
    shapes, dtypes = {}, {}
    for nd in nodes:
        shapes[(nd, 0)] = (n,)
        dtypes[(nd, 0)] = np.dtype(dtype)
    (group,) = find_groups(nodes, {head}, shapes, dtypes)
    return FusedGroup(group, dtypes), nodes, head


def _cachedop_ms(arrays, repeat: int, ctx, sync=None) -> float:
    """The chain hybridized: one CachedOp (memory-planned; fused on a GPU)."""
    import gluonlite as mx
    from gluonlite.engine import CachedOp
    x, b = mx.sym.var("x"), mx.sym.var("b")
    t = mx.sym.sigmoid(x * 2.0 + 1.0) * b - 0.5
    y = mx.sym.exp(mx.sym.relu(mx.sym.tanh(t)) + x) / 3.0
    op = CachedOp(y, [("static_alloc", True)])
    args = [mx.nd.array(a, ctx=ctx) for a in arrays]
    return _best_ms(lambda: op(*args), repeat, sync)


def bench_gluonlite(n: int, repeat: int) -> dict:
    import numpy as np
    import gluonlite as mx
    from gluonlite.ops.registry import OpContext
    fg, nodes, head = _chain_group(n, np.float32)
    res = {"group_ops": len(fg.group.nodes)}
    rng = np.random.default_rng(0)
    xs = [rng.uniform(-1, 1, n).astype(np.float32) for _ in fg.group.inputs]
    oc = OpContext(np, False, mx.cpu())
    out = [np.empty(n, np.float32)]
    res["gluonlite_cpu_group_ms"] = _best_ms(lambda: fg.forward(oc, None, xs, out), repeat)
    res["gluonlite_cachedop_cpu_ms"] = _cachedop_ms(xs, repeat, mx.cpu())
    if mx.num_gpus() == 0:
        return res
    import cupy as cp
    goc = OpContext(cp, False, mx.gpu(0))
    gx = [cp.asarray(a) for a in xs]
    gout = [cp.empty(n, cp.float32)]
    sync = cp.cuda.get_current_stream().synchronize
    inputs = {e[0]: a for e, a in zip(fg.group.inputs, gx)}

    def unfused():
        env = {(k, 0): v for k, v in inputs.items()}
        for node in nodes:
            if node.op is not None:
                env[(node, 0)] = node.op.forward(goc, node.attrs,
                                                 [env[e] for e in node.inputs], None)[0]
        return env[head]
    fused_ms = _best_ms(lambda: fg.forward(goc, None, gx, gout), repeat * 5, sync)
    res["gpu_fused_ms"] = fused_ms
    res["gpu_unfused_ms"] = _best_ms(unfused, repeat * 5, sync)
    res["gpu_cachedop_ms"] = _cachedop_ms(xs, repeat * 5, mx.gpu(0), sync)
    attrs = cp.cuda.Device(0).attributes
    clock, width = attrs.get("MemoryClockRate"), attrs.get("GlobalMemoryBusWidth")
    if not clock or not width:
        props = cp.cuda.runtime.getDeviceProperties(0)
        clock, width = props["memoryClockRate"], props["memoryBusWidth"]
    peak = clock * 1e3 * width * 2 / 8  # kHz x bits x DDR / 8
    res["gpu_fused_GBps"] = 3 * n * 4 / (fused_ms / 1e3) / 1e9
    res["gpu_peak_GBps"] = peak / 1e9
    g = fg.backward(goc, None, gx, None, [cp.ones(n, cp.float32)])
    sync()
    res["gpu_fused_backward_ms"] = _best_ms(
        lambda: fg.backward(goc, None, gx, None, [gout[0]]), repeat * 5, sync)
    del g
    return res


_TORCH_SNIPPET = r"""
import json, sys, time, torch
n, repeat = int(sys.argv[1]), int(sys.argv[2])
def best(fn, sync=None):
    fn()
    b = float('inf')
    for _ in range(repeat):
        t0 = time.perf_counter(); fn()
        if sync: sync()
        b = min(b, time.perf_counter() - t0)
    return b * 1e3
def chain(x, b):
    t = x * 2 + 1
    t = torch.sigmoid(t) * b - 0.5
    t = torch.relu(torch.tanh(t)) + x
    return torch.exp(t) / 3
res = {"torch_threads": torch.get_num_threads()}
x = torch.rand(n) * 2 - 1; b = torch.rand(n) * 2 - 1
with torch.no_grad():
    res["torch_cpu_eager_ms"] = best(lambda: chain(x, b))
    if torch.cuda.is_available():
        xc, bc = x.cuda(), b.cuda()
        res["torch_cuda_eager_ms"] = best(lambda: chain(xc, bc), torch.cuda.synchronize)
print(json.dumps(res))
"""


def bench_torch(n: int, repeat: int, in_process: bool) -> dict:
    if in_process:
        return json.loads(_run_torch_snippet(sys.executable, n, repeat))
    if not os.path.exists(TORCH_PYTHON):
        return {}
    return json.loads(_run_torch_snippet(TORCH_PYTHON, n, repeat))


def _run_torch_snippet(python: str, n: int, repeat: int) -> str:
    res = subprocess.run([python, "-c", _TORCH_SNIPPET, str(n), str(repeat)],
                         capture_output=True, text=True, check=True)
    return res.stdout.strip().splitlines()[-1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--framework", choices=("all", "gluonlite", "numpy", "torch"),
                    default="all")
    ap.add_argument("--n", type=int, default=N)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    res: dict = {"n": args.n}
    if args.framework in ("all", "numpy"):
        res.update(bench_numpy(args.n, args.repeat))
    if args.framework in ("all", "gluonlite"):
        res.update(bench_gluonlite(args.n, args.repeat))
    if args.framework in ("all", "torch"):
        res.update(bench_torch(args.n, args.repeat, in_process=args.framework == "torch"))
    if args.json:
        print(json.dumps(res))
    else:
        for k, v in res.items():
            print(f"{k:28s} {v:10.3f}" if isinstance(v, float) else f"{k:28s} {v}")


if __name__ == "__main__":
    main()
