"""Gluon forward and training-step time: an MLP and a LeNet-sized CNN on the CPU.

Usage::

    python3 bench/bench_gluon.py                                   # gluonlite
    ~/.venvs/mxnet-ref/bin/python bench/bench_gluon.py --framework mxnet
    ~/.venvs/torch/bin/python bench/bench_gluon.py --framework torch
    python3 bench/run_bench.py bench_gluon.py                      # one table

Workloads (float32):

* ``mlp``: Dense 784-512-512-10 with ReLU, batch 128;
* ``lenet``: Conv(20, 5x5)-ReLU-MaxPool(2)-Conv(50, 5x5)-ReLU-MaxPool(2)-Dense(500)-ReLU-Dense(10),
  batch 64 of 1x28x28.

For gluonlite and MXNet the same Gluon code runs imperatively and after
``hybridize(static_alloc=True)``.  A training step is forward, softmax
cross-entropy written with ``log_softmax``/``pick`` (the same expression in every
framework), backward and a plain SGD update ``w -= lr * grad`` on every parameter,
so no optimizer implementation is compared.  PyTorch runs eager with the same step.
Prints the median milliseconds over ``--steps`` steps after ``--warmup``.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

LR = 0.01
SHAPES = {"mlp": (128, 784), "lenet": (64, 1, 28, 28)}


def _median_ms(fn, steps, warmup, sync=None):
    for _ in range(warmup):
        fn()
    if sync:
        sync()
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        fn()
        if sync:
            sync()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def _gluon_net(mx, workload):
    nn = mx.gluon.nn
    net = nn.HybridSequential()
    with net.name_scope():
        if workload == "mlp":
            net.add(nn.Dense(512, activation="relu"), nn.Dense(512, activation="relu"),
                    nn.Dense(10))
        else:
            net.add(nn.Conv2D(20, 5, activation="relu"), nn.MaxPool2D(2, 2),
                    nn.Conv2D(50, 5, activation="relu"), nn.MaxPool2D(2, 2),
                    nn.Dense(500, activation="relu"), nn.Dense(10))
    net.initialize(mx.init.Xavier())
    return net


def cases_gluon(mx, workload):
    """(name -> step function) for gluonlite or MXNet, imperative and hybridized."""
    rng = np.random.default_rng(0)
    x = mx.nd.array(rng.standard_normal(SHAPES[workload]).astype(np.float32))
    label = mx.nd.array(rng.integers(0, 10, SHAPES[workload][0]).astype(np.float32))
    cases = {}
    for mode in ("imperative", "hybridized"):
        net = _gluon_net(mx, workload)
        net(x)  # finish deferred initialization
        if mode == "hybridized":
            net.hybridize(static_alloc=True)
        params = list(net.collect_params().values())

        def forward(net=net):
            net(x).wait_to_read()

        def train(net=net, params=params):
            with mx.autograd.record():
                out = net(x)
                loss = -mx.nd.pick(mx.nd.log_softmax(out), label).mean()
            loss.backward()
            for p in params:
                w = p.data()
                w -= LR * p.grad()
            w.wait_to_read()
        cases[f"{workload} forward ({mode})"] = forward
        cases[f"{workload} train step ({mode})"] = train
    return cases, mx.nd.waitall


def cases_torch(workload):
    import torch
    import torch.nn as tnn
    import torch.nn.functional as F
    torch.manual_seed(0)
    if workload == "mlp":
        net = tnn.Sequential(tnn.Linear(784, 512), tnn.ReLU(), tnn.Linear(512, 512), tnn.ReLU(),
                             tnn.Linear(512, 10))
    else:
        net = tnn.Sequential(tnn.Conv2d(1, 20, 5), tnn.ReLU(), tnn.MaxPool2d(2),
                             tnn.Conv2d(20, 50, 5), tnn.ReLU(), tnn.MaxPool2d(2), tnn.Flatten(),
                             tnn.Linear(800, 500), tnn.ReLU(), tnn.Linear(500, 10))
    rng = np.random.default_rng(0)
    x = torch.from_numpy(rng.standard_normal(SHAPES[workload]).astype(np.float32))
    label = torch.from_numpy(rng.integers(0, 10, SHAPES[workload][0]))
    params = list(net.parameters())

    def forward():
        with torch.no_grad():
            net(x)

    def train():
        out = net(x)
        loss = -F.log_softmax(out, dim=1).gather(1, label[:, None]).mean()
        for p in params:
            p.grad = None
        loss.backward()
        with torch.no_grad():
            for p in params:
                p -= LR * p.grad
    return {f"{workload} forward (eager)": forward,
            f"{workload} train step (eager)": train}, None


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--framework", default="gluonlite", choices=("gluonlite", "mxnet", "torch"))
    ap.add_argument("--workload", default="all", choices=("all", "mlp", "lenet"))
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--tune-malloc", action="store_true",
                    help="apply gluonlite's glibc allocator tuning (for MXNet/PyTorch runs)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if args.tune_malloc:
        from bench_conv import tune_malloc
        tune_malloc()
    workloads = ("mlp", "lenet") if args.workload == "all" else (args.workload,)
    results = {}
    for workload in workloads:
        if args.framework == "torch":
            import torch
            torch.set_num_threads(os.cpu_count() or 1)
            cases, sync = cases_torch(workload)
        else:
            mx = __import__("mxnet" if args.framework == "mxnet" else "gluonlite")
            cases, sync = cases_gluon(mx, workload)
        for name, fn in cases.items():
            results[name] = _median_ms(fn, args.steps, args.warmup, sync)
    if args.json:
        print(json.dumps({"framework": args.framework, "ms": results}))
    else:
        for name, ms in results.items():
            print(f"{args.framework:10s} {name:36s} {ms:8.2f} ms")
    return results


if __name__ == "__main__":
    main()
