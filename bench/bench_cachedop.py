"""Per-node cost of the CachedOp hot loop versus imperative calls of the same operators.

Usage::

    python3 bench/bench_cachedop.py            # human-readable
    python3 bench/bench_cachedop.py --json     # one JSON line

The graph is a chain of ``--nodes`` small elementwise operators (cycling through
``_plus_scalar``, ``relu``, ``_mul_scalar``, ``elemwise_add`` with the first input)
on a float32 array of ``--size`` elements.  Printed: microseconds per node for

* imperative ``nd.*`` calls (one Python call per operator),
* a CachedOp call (default flags, then ``static_alloc``), forward only,
* a CachedOp call under ``autograd.record`` plus its backward, against the same
  imperative chain recorded op by op and run backward;

and the memory plan of a 20-layer MLP (``FullyConnected`` + ``relu``, batch 128,
width 512): planned buffer bytes against the sum of all intermediate entries,
for inference and for a recorded call (which keeps what backward reads).

Each figure is the best of ``--repeat`` timings of ``--number`` calls (the least
disturbed by other processes on a shared machine).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import gluonlite as mx  # noqa: E402
from gluonlite.symbol import graph  # noqa: E402
from gluonlite.engine import CachedOp  # noqa: E402


class _Heads:
    def __init__(self, heads):
        self._heads = heads


_CYCLE = (("_plus_scalar", {"scalar": 0.5}), ("relu", {}), ("_mul_scalar", {"scalar": 0.9}),
          ("elemwise_add", None))


def build_chain(n: int):
    """(graph heads holder, imperative function) for an ``n``-node chain."""
    x = graph.variable_node("x")
    cur = (x, 0)
    for i in range(n):
        name, attrs = _CYCLE[i % len(_CYCLE)]
        if attrs is None:
            cur = (graph.op_node(name, f"n{i}", [cur, (x, 0)]), 0)
        else:
            cur = (graph.op_node(name, f"n{i}", [cur], attrs), 0)

    nd = mx.nd

    def imperative(a):
        y = a
        for i in range(n):
            k = i % 4
            if k == 0:
                y = nd._internal._plus_scalar(y, scalar=0.5)
            elif k == 1:
                y = nd.relu(y)
            elif k == 2:
                y = nd._internal._mul_scalar(y, scalar=0.9)
            else:
                y = nd.elemwise_add(y, a)
        return y
    return _Heads([cur]), imperative


def memory_plan(layers: int = 20, batch: int = 128, width: int = 512) -> dict:
    """Planned bytes of an MLP's forward plan, inference and recorded."""
    cur = mx.sym.var("data")
    for i in range(layers):
        cur = mx.sym.Activation(mx.sym.FullyConnected(cur, num_hidden=width, name=f"fc{i}"),
                                act_type="relu", name=f"relu{i}")
    op = CachedOp(cur)
    ins = [mx.nd.ones((batch, width)) if n == "data" else
           mx.nd.zeros((width, width)) if n.endswith("weight") else mx.nd.zeros((width,))
           for n in op.list_inputs()]
    op(*ins)
    ins[0].attach_grad()
    with mx.autograd.record():
        op(*ins)
    inference, recording = op.plans.values()
    return {"mlp_intermediate_bytes": (2 * layers - 1) * batch * width * 4,
            "mlp_planned_bytes_inference": inference.planned_bytes,
            "mlp_planned_bytes_recording": recording.planned_bytes}


def _direct_calls(op, a):
    """The operators' forward functions called back to back on preallocated buffers:
    the floor under any engine (what is left of the CachedOp figure is engine overhead)."""
    op(a)
    plan = next(iter(op.plans.values()))
    oc = plan.oc
    calls = []
    x = a._data
    for step in plan.steps:
        fwd, attrs, ins = step[0], step[1], step[2]
        calls.append((fwd, attrs, [x] * len(ins), [x.copy()]))

    def run():
        for fwd, attrs, ins, out in calls:
            fwd(oc, attrs, ins, out)
    return run


def _time(fn, number: int, repeat: int) -> float:
    fn()
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        runs.append((time.perf_counter() - t0) / number)
    return min(runs)  # best of the repeats: least disturbed by other processes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nodes", type=int, default=100)
    ap.add_argument("--size", type=int, default=16)
    ap.add_argument("--number", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    n = args.nodes
    sym, imperative = build_chain(n)
    a = mx.nd.ones((args.size,))
    op = CachedOp(sym)
    op_static = CachedOp(sym, [("static_alloc", True), ("static_shape", True)])
    res = {"nodes": n, "size": args.size}
    res["imperative_us_per_node"] = _time(lambda: imperative(a), args.number, args.repeat) / n * 1e6
    res["cachedop_us_per_node"] = _time(lambda: op(a), args.number, args.repeat) / n * 1e6
    res["cachedop_static_us_per_node"] = _time(lambda: op_static(a), args.number,
                                               args.repeat) / n * 1e6
    res["direct_forward_us_per_node"] = _time(_direct_calls(op, a), args.number,
                                              args.repeat) / n * 1e6
    b = mx.nd.ones((args.size,))
    b.attach_grad()

    def imp_train():
        with mx.autograd.record():
            y = imperative(b)
        y.backward()

    def cop_train():
        with mx.autograd.record():
            y = op_static(b)
        y.backward()
    number = max(1, args.number // 4)
    res["imperative_fwd_bwd_us_per_node"] = _time(imp_train, number, args.repeat) / n * 1e6
    res["cachedop_fwd_bwd_us_per_node"] = _time(cop_train, number, args.repeat) / n * 1e6
    res.update(memory_plan())
    if args.json:
        print(json.dumps(res))
        return
    print(f"chain of {n} elementwise nodes on {args.size} float32 elements "
          "(microseconds per node, best of repeats)")
    for key, label in (("direct_forward_us_per_node", "op forward functions only (floor)"),
                       ("imperative_us_per_node", "imperative nd.* forward"),
                       ("cachedop_us_per_node", "CachedOp forward"),
                       ("cachedop_static_us_per_node", "CachedOp forward, static_alloc"),
                       ("imperative_fwd_bwd_us_per_node", "imperative record+backward"),
                       ("cachedop_fwd_bwd_us_per_node", "CachedOp record+backward")):
        print(f"  {label:34s} {res[key]:7.2f}")
    print("20-layer MLP (batch 128, width 512), bytes:")
    print(f"  sum of intermediate entries        {res['mlp_intermediate_bytes']:>10d}")
    print(f"  planned buffers, inference         {res['mlp_planned_bytes_inference']:>10d}")
    print(f"  planned buffers, recorded call     {res['mlp_planned_bytes_recording']:>10d}")


if __name__ == "__main__":
    main()
