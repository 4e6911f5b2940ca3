"""Seeded CPU sampling: uniform and normal draws, a Dropout mask, initializing ResNet-18.

Usage::

    python3 bench/bench_random.py                                   # gluonlite
    ~/.venvs/mxnet-ref/bin/python bench/bench_random.py --framework mxnet
    python3 bench/run_bench.py bench_random.py                      # one table

gluonlite draws MXNet 1.9.1's own streams here (``gluonlite/_rng.py``); the
``numpy`` framework times NumPy's ``Generator`` doing the same draws, the stream
gluonlite used before.  Cases: 1M uniform and normal float32 draws, 64 uniform draws
(per-call cost), Dropout(0.5) in training on a 64x256x14x14 batch, and
Xavier initialization of ResNet-18 v1's 21 weight arrays (11.7 M values).  Prints the median
milliseconds over ``--repeats``.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)

from bench_trainer import resnet18_shapes  # noqa: E402


def cases_mx(mx) -> dict:
    nd = mx.nd
    x = nd.ones((64, 256, 14, 14))

    def dropout():
        with mx.autograd.record():
            nd.Dropout(x, p=0.5).wait_to_read()

    shapes = [s for s in resnet18_shapes() if len(s) > 1]  # the weights Xavier fills

    def init():
        for i, shape in enumerate(shapes):
            param = mx.gluon.Parameter(f"p{i}_weight", shape=shape)
            param.initialize(mx.init.Xavier())
            param.data().wait_to_read()

    mx.random.seed(0)
    return {"uniform 1M": lambda: nd.random.uniform(shape=(10 ** 6,)).wait_to_read(),
            "normal 1M": lambda: nd.random.normal(shape=(10 ** 6,)).wait_to_read(),
            "uniform 64": lambda: nd.random.uniform(shape=(64,)).wait_to_read(),
            "dropout 3.2M": dropout, "init resnet18": init}


def cases_numpy() -> dict:
    gen = np.random.Generator(np.random.PCG64(0))
    x = np.ones((64, 256, 14, 14), np.float32)
    return {"uniform 1M": lambda: gen.random(10 ** 6).astype(np.float32),
            "normal 1M": lambda: gen.standard_normal(10 ** 6).astype(np.float32),
            "uniform 64": lambda: gen.random(64).astype(np.float32),
            "dropout 3.2M": lambda: x * ((gen.random(x.shape) >= 0.5) * np.float32(2))}


def cases_torch() -> dict:
    import torch  # optional: only where PyTorch is installed
    torch.manual_seed(0)
    x = torch.ones((64, 256, 14, 14))
    drop = torch.nn.Dropout(0.5).train()
    return {"uniform 1M": lambda: torch.rand(10 ** 6),
            "normal 1M": lambda: torch.randn(10 ** 6),
            "uniform 64": lambda: torch.rand(64),
            "dropout 3.2M": lambda: drop(x),
            "init resnet18": lambda: [torch.nn.init.xavier_uniform_(torch.empty(s))
                                      for s in resnet18_shapes() if len(s) > 1]}


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--framework", default="gluonlite",
                    choices=("gluonlite", "mxnet", "torch", "numpy"))
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if args.framework == "torch":
        cases = cases_torch()
    elif args.framework == "numpy":
        cases = cases_numpy()
    else:
        cases = cases_mx(__import__("mxnet" if args.framework == "mxnet" else "gluonlite"))
    results = {}
    for name, fn in cases.items():
        fn()  # warm-up
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            fn()
            times.append((time.perf_counter() - start) * 1e3)
        results[name] = statistics.median(times)
    if args.json:
        print(json.dumps({"framework": args.framework, "ms": results}))
    else:
        for name, ms in results.items():
            print(f"{args.framework:10s} {name:16s} {ms:9.3f} ms")
    return results


if __name__ == "__main__":
    main()
