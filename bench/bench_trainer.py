"""``Trainer.step`` over ResNet-18's 62 parameter arrays, against ``torch.optim``.

Usage::

    python3 bench/bench_trainer.py                                  # gluonlite
    ~/.venvs/mxnet-ref/bin/python bench/bench_trainer.py --framework mxnet
    ~/.venvs/torch/bin/python bench/bench_trainer.py --framework torch
    python3 bench/run_bench.py bench_trainer.py                     # one table

The parameters have the shapes of ResNet-18 v1 (11.7 M values in 62 arrays, BatchNorm
gammas and betas included); gradients are fixed random arrays.  Cases: SGD with
momentum 0.9 and weight decay, and Adam.  gluonlite and MXNet run ``gluon.Trainer.step``
(MXNet's SGD aggregates 4 arrays per update call by default, gluonlite the same);
PyTorch runs ``optimizer.step()`` with ``foreach=True``.  Prints the median milliseconds
per step over ``--steps`` after ``--warmup``.
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


def resnet18_shapes() -> list:
    """The 62 trainable parameter shapes of ResNet-18 v1 (1000 classes)."""
    shapes = [(64, 3, 7, 7), (64,), (64,)]
    channels = [64, 128, 256, 512]
    in_c = 64
    for stage, out_c in enumerate(channels):
        for block in range(2):
            stride_block = stage > 0 and block == 0
            shapes += [(out_c, in_c if block == 0 else out_c, 3, 3), (out_c,), (out_c,),
                       (out_c, out_c, 3, 3), (out_c,), (out_c,)]
            if stride_block:
                shapes += [(out_c, in_c, 1, 1), (out_c,), (out_c,)]
        in_c = out_c
    shapes += [(1000, 512), (1000,)]
    assert len(shapes) == 62, len(shapes)
    return shapes


CASES = {"sgd momentum": ("sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 1e-4}),
         "adam": ("adam", {"learning_rate": 1e-3})}


def cases_gluon(mx):
    rng = np.random.default_rng(0)
    values = [rng.standard_normal(s).astype(np.float32) for s in resnet18_shapes()]
    grads = [rng.standard_normal(s).astype(np.float32) * 1e-3 for s in resnet18_shapes()]
    cases = {}
    for name, (opt, kwargs) in CASES.items():
        params = []
        for i, (v, g) in enumerate(zip(values, grads)):
            p = mx.gluon.Parameter(f"p{i}_weight", shape=v.shape)
            p.initialize(init=mx.init.Constant(0))
            p.set_data(mx.nd.array(v))
            p.grad()[:] = mx.nd.array(g)
            params.append(p)
        trainer = mx.gluon.Trainer(params, opt, dict(kwargs))

        def step(trainer=trainer, params=params):
            trainer.step(1, ignore_stale_grad=True)
            for p in params:  # gradients count as fresh, as after a backward
                for d in p.list_data():
                    d._fresh_grad = True
            params[-1].data().wait_to_read()
        cases[name] = step
    return cases


def cases_torch():
    import torch
    rng = np.random.default_rng(0)
    values = [rng.standard_normal(s).astype(np.float32) for s in resnet18_shapes()]
    grads = [rng.standard_normal(s).astype(np.float32) * 1e-3 for s in resnet18_shapes()]
    cases = {}
    for name, (opt, kwargs) in CASES.items():
        params = [torch.nn.Parameter(torch.from_numpy(v.copy())) for v in values]
        for p, g in zip(params, grads):
            p.grad = torch.from_numpy(g.copy())
        if opt == "sgd":
            optim = torch.optim.SGD(params, lr=kwargs["learning_rate"],
                                    momentum=kwargs["momentum"], weight_decay=kwargs["wd"],
                                    foreach=True)
        else:
            optim = torch.optim.Adam(params, lr=kwargs["learning_rate"], foreach=True)
        cases[name] = optim.step
    return cases


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--framework", default="gluonlite", choices=("gluonlite", "mxnet", "torch"))
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if args.framework == "torch":
        import torch
        torch.set_num_threads(os.cpu_count() or 1)
        cases = cases_torch()
    else:
        cases = cases_gluon(__import__("mxnet" if args.framework == "mxnet" else "gluonlite"))
    results = {}
    for name, fn in cases.items():
        for _ in range(args.warmup):
            fn()
        times = []
        for _ in range(args.steps):
            t0 = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) * 1e3)
        results[f"step, {name}"] = statistics.median(times)
    if args.json:
        print(json.dumps({"framework": args.framework, "ms": results}))
    else:
        for name, ms in results.items():
            print(f"{args.framework:10s} {name:22s} {ms:8.2f} ms")
    return results


if __name__ == "__main__":
    main()
