"""LeNet-sized convolution + pooling, forward and backward, per framework.

Usage::

    python3 bench/bench_conv.py                                   # gluonlite
    ~/.venvs/mxnet-ref/bin/python bench/bench_conv.py --framework mxnet
    ~/.venvs/torch/bin/python bench/bench_conv.py --framework torch
    python3 bench/bench_conv.py --json                            # one JSON line

One step: ``conv(20, 5x5) -> maxpool 2 -> conv(50, 5x5) -> maxpool 2``,
on a float32 batch of shape ``(64, 1, 28, 28)``, recorded with the
framework's imperative autograd, then backward (head gradient of ones) to both weights, both biases
and the input.  Prints the median milliseconds per step over ``--steps`` steps
(after ``--warmup`` steps).

gluonlite raises glibc's mmap and trim thresholds with ``mallopt`` at import
(``gluonlite/_malloc.py``), so that freed blocks are reused instead of being
returned to the OS and faulted back in on the next step; set
``GLUONLITE_TUNE_MALLOC=0`` to measure it without.  ``--tune-malloc`` applies the
same tuning to whichever framework runs, for a like-for-like comparison (MXNet pools
its memory itself; PyTorch CPU and NumPy use malloc).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

SHAPES = dict(x=(64, 1, 28, 28), w1=(20, 1, 5, 5), b1=(20,), w2=(50, 20, 5, 5), b2=(50,))


def _inputs():
    import numpy as np
    rng = np.random.default_rng(0)
    return {k: rng.standard_normal(s).astype(np.float32) * 0.1 for k, s in SHAPES.items()}


def step_gluonlite():
    import numpy as np
    import gluonlite as mx
    nd = mx.nd
    arrs = {k: nd.array(v, dtype="float32") for k, v in _inputs().items()}
    for a in arrs.values():
        a.attach_grad()

    def step():
        with mx.autograd.record():
            h = nd.Convolution(arrs["x"], arrs["w1"], arrs["b1"], kernel=(5, 5), num_filter=20)
            h = nd.Pooling(h, kernel=(2, 2), stride=(2, 2), pool_type="max")
            h = nd.Convolution(h, arrs["w2"], arrs["b2"], kernel=(5, 5), num_filter=50)
            h = nd.Pooling(h, kernel=(2, 2), stride=(2, 2), pool_type="max")
        h.backward()  # head gradient of ones, the gradient of sum(h)
        assert h.dtype == arrs["w1"].grad.dtype == np.float32, "upcast away from float32"
        arrs["w1"].grad.wait_to_read()
    return step


def step_mxnet():
    import mxnet as mx
    nd = mx.nd
    arrs = {k: nd.array(v, dtype="float32") for k, v in _inputs().items()}
    for a in arrs.values():
        a.attach_grad()

    def step():
        with mx.autograd.record():
            h = nd.Convolution(arrs["x"], arrs["w1"], arrs["b1"], kernel=(5, 5), num_filter=20)
            h = nd.Pooling(h, kernel=(2, 2), stride=(2, 2), pool_type="max")
            h = nd.Convolution(h, arrs["w2"], arrs["b2"], kernel=(5, 5), num_filter=50)
            h = nd.Pooling(h, kernel=(2, 2), stride=(2, 2), pool_type="max")
        h.backward()  # head gradient of ones, the gradient of sum(h)
        for a in arrs.values():
            a.grad.wait_to_read()
    return step


def step_torch():
    import torch
    import torch.nn.functional as F
    t = {k: torch.from_numpy(v).requires_grad_() for k, v in _inputs().items()}

    def step():
        for a in t.values():
            a.grad = None
        h = F.conv2d(t["x"], t["w1"], t["b1"])
        h = F.max_pool2d(h, 2, 2)
        h = F.conv2d(h, t["w2"], t["b2"])
        h = F.max_pool2d(h, 2, 2)
        h.sum().backward()
    return step


def tune_malloc() -> bool:
    """Keep freed heap memory in the process (glibc ``mallopt``); False where unavailable.

    Loads ``gluonlite/_malloc.py`` by path, so the MXNet and PyTorch venvs (which do not
    have gluonlite installed) get exactly the tuning gluonlite applies at import.
    """
    import importlib.util
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gluonlite",
                        "_malloc.py")
    os.environ["GLUONLITE_TUNE_MALLOC"] = "0"  # load without tuning; we call it below
    spec = importlib.util.spec_from_file_location("_gluonlite_malloc", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.tune_malloc()


def run(framework: str, steps: int, warmup: int) -> dict:
    step = {"gluonlite": step_gluonlite, "mxnet": step_mxnet, "torch": step_torch}[framework]()
    for _ in range(warmup):
        step()
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        step()
        times.append((time.perf_counter() - t0) * 1e3)
    return {"bench": "lenet_conv_fwd_bwd", "framework": framework, "batch": SHAPES["x"][0],
            "dtype": "float32", "steps": steps, "ms_per_step_median": statistics.median(times),
            "ms_per_step_min": min(times)}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--framework", default="gluonlite", choices=("gluonlite", "mxnet", "torch"))
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--tune-malloc", action="store_true",
                    help="raise glibc's mmap/trim thresholds before running")
    args = ap.parse_args(argv)
    tuned = tune_malloc() if args.tune_malloc else False
    res = run(args.framework, args.steps, args.warmup)
    res["malloc_tuned"] = tuned
    if args.json:
        print(json.dumps(res))
    else:
        print(f"{res['framework']:>10}: {res['ms_per_step_median']:.2f} ms/step (median of "
              f"{res['steps']}; min {res['ms_per_step_min']:.2f})"
              + (" [malloc tuned]" if tuned else ""))


if __name__ == "__main__":
    main()
