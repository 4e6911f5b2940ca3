"""Where the host time of a GPU train step goes: ``cProfile`` over a few steps.

Usage::

    python3 bench/profile_gpu_step.py [resnet18|mlp] [steps]

Builds the model of ``bench_gpu.py`` (ResNet-18 v1, batch 32, 224x224; or the MLP
784-512-512-10, batch 128), hybridized with static_alloc/shape, SGD with momentum;
warms up, then profiles ``steps`` train steps (device synchronised after each)
and prints the wall time per step and the 30 functions with the most own time.
"""
from __future__ import annotations

import cProfile
import os
import pstats
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def main() -> None:
    import cupy as cp
    import gluonlite as mx
    model = sys.argv[1] if len(sys.argv) > 1 else "resnet18"
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    ctx = mx.gpu(0)
    if model == "mlp":
        nn = mx.gluon.nn
        net = nn.HybridSequential()
        net.add(nn.Dense(512, activation="relu"), nn.Dense(512, activation="relu"),
                nn.Dense(10))
        shape, classes = (128, 784), 10
    else:
        net = mx.gluon.model_zoo.vision.resnet18_v1()
        shape, classes = (32, 3, 224, 224), 1000
    net.initialize(mx.init.Xavier(), ctx=ctx)
    net.hybridize(static_alloc=True, static_shape=True)
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd",
                               {"learning_rate": 0.01, "momentum": 0.9})
    rng = np.random.default_rng(0)
    x = mx.nd.array(rng.standard_normal(shape).astype(np.float32), ctx=ctx)
    label = mx.nd.array(rng.integers(0, classes, shape[0]), ctx=ctx)
    sync = cp.cuda.get_current_stream().synchronize

    def step():
        with mx.autograd.record():
            loss = loss_fn(net(x), label)
        loss.backward()
        trainer.step(shape[0])
        sync()
    for _ in range(3):
        step()
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.enable()
    for _ in range(steps):
        step()
    prof.disable()
    print(f"{model}: {(time.perf_counter() - t0) / steps * 1e3:.1f} ms per step (profiled)")
    pstats.Stats(prof).sort_stats("tottime").print_stats(30)


if __name__ == "__main__":
    main()
