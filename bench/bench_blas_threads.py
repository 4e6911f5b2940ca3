"""How many BLAS threads lose least: idle, and with another process busy on one core.

Usage::

    python3 bench/bench_blas_threads.py [--threads 1 2] [--repeats 3]

Each case runs in a fresh process with ``OPENBLAS_NUM_THREADS`` (and ``OMP_NUM_THREADS``)
set to the count under test, twice: once on an idle machine and once beside a process
that keeps one core busy (a Python spin loop), as a shared machine or a DataLoader worker
would.  The workloads:

* ``epoch``: one epoch of the tutorial CNN (``bench_train_epoch.py``, small GEMMs
  between many NumPy passes), median over 3 epochs after a warm-up;
* ``resnet18``: ResNet-18 v1 inference on 8 images of 224x224 (large GEMMs), median of 5;
* ``gemm``: one 1024x1024 float32 matrix product, median of 20.

Prints the median of ``--repeats`` runs of each case, in milliseconds.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

import bench_train_epoch  # noqa: E402 - beside this file
import gluonlite as mx  # noqa: E402


def _median_ms(fn, repeats: int) -> float:
    fn()  # warm-up: plans, kernels, allocator, BLAS thread start
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def workload(name: str) -> float:
    """Milliseconds of one workload, in this process."""
    if name == "epoch":
        return 1000 * bench_train_epoch.main(["--epochs", "3", "--json"])[
            "tutorial CNN epoch (s)"]
    if name == "gemm":
        a = np.random.default_rng(0).standard_normal((1024, 1024)).astype(np.float32)
        return _median_ms(lambda: a @ a, 20)
    net = mx.gluon.model_zoo.vision.resnet18_v1()
    net.initialize(mx.init.Xavier())
    net.hybridize(static_alloc=True)
    x = mx.nd.array(np.random.default_rng(0).standard_normal((8, 3, 224, 224)))
    return _median_ms(lambda: net(x).wait_to_read(), 5)


def _run_case(name: str, threads: int) -> float:
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
    out = subprocess.run([sys.executable, __file__, "--workload", name], env=env,
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])["ms"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workload", choices=("epoch", "resnet18", "gemm"))
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    if args.workload:  # a child process: one measurement
        print(json.dumps({"ms": workload(args.workload)}))
        return
    print(f"# {os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.2f} at the start")
    print("| workload | load | " + " | ".join(f"{t} thread(s)" for t in args.threads) + " |")
    print("|---|---|" + "---|" * len(args.threads))
    for busy in (False, True):
        spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if busy else None
        try:
            for name in ("epoch", "resnet18", "gemm"):
                cells = []
                for threads in args.threads:
                    runs = [_run_case(name, threads) for _ in range(args.repeats)]
                    cells.append(f"{statistics.median(runs):.1f} "
                                 f"({min(runs):.1f}-{max(runs):.1f})")
                print(f"| {name} | {'one core busy' if busy else 'idle'} | "
                      + " | ".join(cells) + " |", flush=True)
        finally:
            if spinner is not None:
                spinner.kill()
                spinner.wait()


if __name__ == "__main__":
    main()
