"""One training epoch of the tutorial CNN (``tutorials/train_cnn_gluon.py``) on the CPU.

Usage::

    python3 bench/bench_train_epoch.py                                   # gluonlite
    ~/.venvs/mxnet-ref/bin/python bench/bench_train_epoch.py --framework mxnet
    ~/.venvs/torch/bin/python bench/bench_train_epoch.py --framework torch
    python3 bench/run_bench.py bench_train_epoch.py                      # one table

The model is the tutorial's: Conv(16, 3x3, pad 1)-ReLU-MaxPool(2)-Conv(32, 3x3,
pad 1)-ReLU-MaxPool(2)-Dense(64)-ReLU-Dense(6) on 1x16x16 images.  An epoch is
3000 samples in batches of 64 (last batch discarded) from an in-memory dataset
through the framework's own data loader (``gluon.data.DataLoader`` over an
``ArrayDataset``; PyTorch's ``DataLoader`` over a ``TensorDataset``), shuffled,
with the framework's softmax cross-entropy loss, ``Trainer``/``optim.SGD`` with
momentum 0.9 and weight decay, and an accuracy metric updated every batch.
Gluon networks are hybridized with ``static_alloc=True``; PyTorch runs eager.
Prints the median seconds per epoch over ``--epochs`` after one warm-up epoch.
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

SAMPLES, BATCH, CLASSES = 3000, 64, 6


def _data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((SAMPLES, 1, 16, 16)).astype(np.float32)
    y = rng.integers(0, CLASSES, SAMPLES).astype(np.float32)
    return x, y


def epoch_gluon(mx):
    nn = mx.gluon.nn
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(16, 3, padding=1, activation="relu"), nn.MaxPool2D(2),
                nn.Conv2D(32, 3, padding=1, activation="relu"), nn.MaxPool2D(2),
                nn.Flatten(), nn.Dense(64, activation="relu"), nn.Dense(CLASSES))
    net.initialize(mx.init.Xavier())
    net.hybridize(static_alloc=True)
    x, y = _data()
    loader = mx.gluon.data.DataLoader(mx.gluon.data.ArrayDataset(x, y), batch_size=BATCH,
                                      shuffle=True, last_batch="discard")
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd",
                               {"learning_rate": 0.05, "momentum": 0.9, "wd": 1e-4})
    metric = mx.metric.Accuracy()

    def run():
        metric.reset()
        for data, label in loader:
            with mx.autograd.record():
                out = net(data)
                loss = loss_fn(out, label)
            loss.backward()
            trainer.step(BATCH)
            metric.update([label], [out])
        mx.nd.waitall()
    return run


def epoch_torch():
    import torch
    import torch.nn as tnn
    torch.manual_seed(0)
    net = tnn.Sequential(tnn.Conv2d(1, 16, 3, padding=1), tnn.ReLU(), tnn.MaxPool2d(2),
                         tnn.Conv2d(16, 32, 3, padding=1), tnn.ReLU(), tnn.MaxPool2d(2),
                         tnn.Flatten(), tnn.Linear(512, 64), tnn.ReLU(), tnn.Linear(64, CLASSES))
    x, y = _data()
    dataset = torch.utils.data.TensorDataset(torch.from_numpy(x), torch.from_numpy(y).long())
    loader = torch.utils.data.DataLoader(dataset, batch_size=BATCH, shuffle=True,
                                         drop_last=True)
    loss_fn = tnn.CrossEntropyLoss()
    opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)

    def run():
        correct = total = 0
        for data, label in loader:
            opt.zero_grad(set_to_none=True)
            out = net(data)
            loss = loss_fn(out, label)
            loss.backward()
            opt.step()
            correct += int((out.argmax(1) == label).sum())
            total += label.numel()
    return run


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--framework", default="gluonlite", choices=("gluonlite", "mxnet", "torch"))
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--cpu-rewrite", choices=("on", "off"), default=None,
                    help="gluonlite: force the CachedOp's CPU graph rewrite on or off "
                         "(GLUONLITE_CPU_REWRITE; default: on)")
    args = ap.parse_args(argv)
    if args.cpu_rewrite is not None:
        os.environ["GLUONLITE_CPU_REWRITE"] = "1" if args.cpu_rewrite == "on" else "0"
    if args.framework == "torch":
        import torch
        torch.set_num_threads(os.cpu_count() or 1)
        run = epoch_torch()
    else:
        run = epoch_gluon(__import__("mxnet" if args.framework == "mxnet" else "gluonlite"))
    run()  # warm-up: plans, kernels, allocator
    times = []
    for _ in range(args.epochs):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    result = {"tutorial CNN epoch (s)": statistics.median(times)}
    if args.json:
        print(json.dumps({"framework": args.framework, "s": result}))
    else:
        for name, value in result.items():
            print(f"{args.framework:10s} {name:30s} {value:8.3f}")
    return result


if __name__ == "__main__":
    main()
