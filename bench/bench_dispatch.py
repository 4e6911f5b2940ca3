"""Imperative per-operator overhead on tiny arrays, for gluonlite, MXNet, PyTorch and NumPy.

Usage::

    python bench/bench_dispatch.py                     # gluonlite (this checkout)
    python bench/bench_dispatch.py --framework torch   # in an environment with torch
    python bench/run_bench.py                          # all frameworks, one table

Each case runs ``repeat`` rounds of ``number`` calls and reports the best
round's microseconds per call.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def _best_us(fn, number=20000, repeat=5, sync=None):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        if sync is not None:
            sync()
        best = min(best, (time.perf_counter() - t0) / number)
    return best * 1e6


def cases_gluonlite():
    import numpy as np
    import gluonlite as mx
    x = mx.nd.array(np.random.rand(4, 4))
    y = mx.nd.array(np.random.rand(4, 4))
    w = mx.nd.array(np.random.rand(4, 4))
    w.attach_grad()
    relu = mx.nd.relu

    def recorded_add():
        with mx.autograd.record():
            w + y
    return {
        "add (x + y)": lambda: x + y,
        "relu (nd.relu(x))": lambda: relu(x),
        "add scalar (x * 2.0)": lambda: x * 2.0,
        "add while recording": recorded_add,
    }, None


def cases_mxnet():
    import numpy as np
    import mxnet as mx
    x = mx.nd.array(np.random.rand(4, 4))
    y = mx.nd.array(np.random.rand(4, 4))
    w = mx.nd.array(np.random.rand(4, 4))
    w.attach_grad()

    def recorded_add():
        with mx.autograd.record():
            w + y
    return {
        "add (x + y)": lambda: x + y,
        "relu (nd.relu(x))": lambda: mx.nd.relu(x),
        "add scalar (x * 2.0)": lambda: x * 2.0,
        "add while recording": recorded_add,
    }, mx.nd.waitall


def cases_torch():
    import torch
    torch.set_num_threads(1)
    x = torch.rand(4, 4)
    y = torch.rand(4, 4)
    w = torch.rand(4, 4, requires_grad=True)

    def recorded_add():
        with torch.enable_grad():
            w + y
    with torch.no_grad():
        pass
    return {
        "add (x + y)": lambda: x + y,
        "relu (nd.relu(x))": lambda: torch.relu(x),
        "add scalar (x * 2.0)": lambda: x * 2.0,
        "add while recording": recorded_add,
    }, None


def cases_numpy():
    import numpy as np
    x = np.random.rand(4, 4).astype(np.float32)
    y = np.random.rand(4, 4).astype(np.float32)
    return {
        "add (x + y)": lambda: x + y,
        "relu (nd.relu(x))": lambda: np.maximum(x, 0),
        "add scalar (x * 2.0)": lambda: x * 2.0,
    }, None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--framework", default="gluonlite",
                        choices=["gluonlite", "mxnet", "torch", "numpy"])
    parser.add_argument("--number", type=int, default=20000)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    cases, sync = globals()[f"cases_{args.framework}"]()
    results = {name: _best_us(fn, number=args.number, sync=sync) for name, fn in cases.items()}
    if args.json:
        print(json.dumps({"framework": args.framework, "us_per_op": results}))
    else:
        for name, us in results.items():
            print(f"{args.framework:10s} {name:28s} {us:8.2f} us/op")
    return results


if __name__ == "__main__":
    main()
