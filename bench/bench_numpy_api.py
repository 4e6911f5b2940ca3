"""``mx.np`` per-call cost: gluonlite's MXNet NumPy interface against MXNet 1.9.1's
``mx.np`` (under ``npx.set_np()``), official NumPy and PyTorch, on 4x4 float32 arrays
(dispatch overhead) and 1000x1000 ones (the kernels).

Usage::

    python bench/run_bench.py bench_numpy_api.py      # every framework, one table
    python bench/bench_numpy_api.py --framework numpy

Each case runs ``repeat`` rounds of ``number`` calls and reports the best round's
microseconds per call.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def _best_us(fn, number, repeat=5, sync=None):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        if sync is not None:
            sync()
        best = min(best, (time.perf_counter() - t0) / number)
    return best * 1e6


def _cases(np, small, large, extra):
    """The same cases for any NumPy-like module ``np`` and arrays made by it."""
    a, b = small
    big_a, big_b = large
    cases = {
        "a + b (4x4)": lambda: a + b,
        "a * 2.0 (4x4)": lambda: a * 2.0,
        "np.exp(a) (4x4)": lambda: np.exp(a),
        "a.sum() (4x4)": lambda: a.sum(),
        "a[0] (4x4)": lambda: a[0],
        "np.dot(a, b) (4x4)": lambda: np.dot(a, b),
        "a + b (1000x1000)": lambda: big_a + big_b,
        "np.dot(a, b) (1000x1000)": lambda: np.dot(big_a, big_b),
    }
    cases.update(extra)
    return cases


def _host_arrays():
    import numpy as onp
    rs = onp.random.RandomState(0)
    return ([rs.rand(4, 4).astype("float32") for _ in range(2)],
            [rs.rand(1000, 1000).astype("float32") for _ in range(2)])


def _mx_np_cases(mx, sync):
    """The cases on ``mx.np`` (gluonlite's or MXNet's): plain calls and one recorded."""
    small, large = _host_arrays()
    np = mx.np
    w = np.array(small[0])
    w.attach_grad()
    y = np.array(small[1])

    def recorded():
        with mx.autograd.record():
            w * y + 1
    return _cases(np, [np.array(x) for x in small], [np.array(x) for x in large],
                  {"w * y + 1 recording (4x4)": recorded}), sync


def cases_gluonlite():
    import gluonlite as mx
    return _mx_np_cases(mx, None)


def cases_mxnet():
    import mxnet as mx
    mx.npx.set_np()
    return _mx_np_cases(mx, mx.nd.waitall)


def cases_numpy():
    import numpy as np
    small, large = _host_arrays()
    return _cases(np, small, large, {}), None


def cases_torch():
    import torch
    torch.set_num_threads(2)
    small, large = _host_arrays()
    w = torch.tensor(small[0], requires_grad=True)
    y = torch.tensor(small[1])

    def recorded():
        w * y + 1

    class TorchNp:  # the few NumPy names the cases use
        exp = staticmethod(torch.exp)
        dot = staticmethod(lambda p, q: p @ q)
    return _cases(TorchNp, [torch.tensor(x) for x in small], [torch.tensor(x) for x in large],
                  {"w * y + 1 recording (4x4)": recorded}), None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--framework", default="gluonlite",
                        choices=["gluonlite", "mxnet", "torch", "numpy"])
    parser.add_argument("--number", type=int, default=5000)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    cases, sync = globals()[f"cases_{args.framework}"]()
    results = {}
    for name, fn in cases.items():
        number = max(args.number // 500, 5) if "1000x1000" in name else args.number
        results[name] = _best_us(fn, number=number, sync=sync)
    if args.json:
        print(json.dumps({"framework": args.framework, "us_per_call": results}))
    else:
        for name, us in results.items():
            print(f"{args.framework:10s} {name:30s} {us:10.2f} us/call")
    return results


if __name__ == "__main__":
    main()
