"""Heavy operators, forward + backward: convolution, pooling, BatchNorm and an LSTM step,
gluonlite against PyTorch on the same device.

Usage::

    python3 bench/bench_ops.py --device gpu            # gluonlite on gpu(0)
    python3 bench/bench_ops.py --device gpu --framework torch
    python3 bench/bench_ops.py --device cpu            # the same cases on the CPU

Cases (float32, recorded with autograd, backward with a head gradient of ones):

* ``conv``: Convolution 64->64, 3x3, pad 1, on (32, 64, 56, 56);
* ``pool``: max pooling 2x2 stride 2 on (32, 64, 56, 56);
* ``batchnorm``: BatchNorm in training mode on (32, 64, 56, 56);
* ``lstm``: the fused RNN operator, one LSTM layer, hidden 512, input 512,
  batch 64, 35 time steps.

Prints the median milliseconds over ``--steps`` steps after ``--warmup``, with the
device synchronised around each step.
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

IMAGE = (32, 64, 56, 56)
LSTM = {"seq": 35, "batch": 64, "input": 512, "hidden": 512}


def _median_ms(step, sync, steps: int, warmup: int) -> float:
    for _ in range(warmup):
        step()
    sync()
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        step()
        sync()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def cases_gluonlite(device: str):
    import gluonlite as mx
    nd, ag = mx.nd, mx.autograd
    ctx = mx.gpu(0) if device == "gpu" else mx.cpu()
    rng = np.random.default_rng(0)

    def arr(*shape, grad=True):
        a = nd.array(rng.standard_normal(shape).astype(np.float32), ctx=ctx)
        if grad:
            a.attach_grad()
        return a

    x = arr(*IMAGE)
    w, b = arr(64, 64, 3, 3), arr(64)
    gamma, beta = arr(64), arr(64)
    mean, var = arr(64, grad=False), nd.ones((64,), ctx=ctx)
    h, s = LSTM["hidden"], LSTM["input"]
    n_params = 4 * h * (s + h) + 8 * h
    seq = arr(LSTM["seq"], LSTM["batch"], s)
    params = nd.array(rng.uniform(-0.05, 0.05, n_params).astype(np.float32), ctx=ctx)
    params.attach_grad()
    h0 = nd.zeros((1, LSTM["batch"], h), ctx=ctx)
    c0 = nd.zeros((1, LSTM["batch"], h), ctx=ctx)

    def run(fn):
        def step():
            with ag.record():
                y = fn()
            y.backward()
        return step
    cases = {
        "conv": run(lambda: nd.Convolution(x, w, b, kernel=(3, 3), pad=(1, 1), num_filter=64)),
        "pool": run(lambda: nd.Pooling(x, kernel=(2, 2), stride=(2, 2), pool_type="max")),
        "batchnorm": run(lambda: nd.BatchNorm(x, gamma, beta, mean, var, fix_gamma=False)),
        "lstm": run(lambda: nd.RNN(seq, params, h0, c0, state_size=h, num_layers=1,
                                   mode="lstm")),
    }
    return cases, nd.waitall


def cases_torch(device: str):
    import torch
    import torch.nn.functional as F
    dev = torch.device("cuda" if device == "gpu" else "cpu")
    torch.manual_seed(0)

    def arr(*shape, grad=True):
        return torch.randn(*shape, device=dev, requires_grad=grad)

    x = arr(*IMAGE)
    w, b = arr(64, 64, 3, 3), arr(64)
    gamma, beta = arr(64), arr(64)
    mean, var = torch.zeros(64, device=dev), torch.ones(64, device=dev)
    lstm = torch.nn.LSTM(LSTM["input"], LSTM["hidden"], 1).to(dev)
    seq = arr(LSTM["seq"], LSTM["batch"], LSTM["input"])

    def run(fn):
        def step():
            fn().sum().backward()
        return step
    cases = {
        "conv": run(lambda: F.conv2d(x, w, b, padding=1)),
        "pool": run(lambda: F.max_pool2d(x, 2, 2)),
        "batchnorm": run(lambda: F.batch_norm(x, mean, var, gamma, beta, training=True)),
        "lstm": run(lambda: lstm(seq)[0]),
    }
    sync = torch.cuda.synchronize if device == "gpu" else (lambda: None)
    return cases, sync


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--framework", default="gluonlite", choices=("gluonlite", "torch"))
    ap.add_argument("--device", default="gpu", choices=("gpu", "cpu"))
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    cases, sync = globals()[f"cases_{args.framework}"](args.device)
    results = {name: _median_ms(fn, sync, args.steps, args.warmup)
               for name, fn in cases.items()}
    if args.json:
        print(json.dumps({"framework": args.framework, "device": args.device,
                          "ms": results}))
    else:
        for name, ms in results.items():
            print(f"{args.framework:10s} {args.device} {name:10s} {ms:9.2f} ms")
    return results


if __name__ == "__main__":
    main()
