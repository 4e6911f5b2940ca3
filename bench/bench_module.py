"""``Module.fit`` throughput against the same model trained by a hybridized Gluon loop
(both gluonlite) and against MXNet 1.9.1's ``Module.fit``; and ``BucketingModule``
switching between 5 bucket keys every batch against a single-bucket Module.

Usage::

    python3 bench/bench_module.py                                         # gluonlite
    ~/.venvs/mxnet-ref/bin/python bench/bench_module.py --framework mxnet

Models: an MLP 784-256-256-10 (batch 128) and LeNet (Conv 20 5x5 - tanh - max pool -
Conv 50 5x5 - tanh - max pool - FC 500 - tanh - FC 10, 1x28x28, batch 64), SGD with
momentum, an accuracy metric, 1024 random samples per epoch from an ``NDArrayIter``.
Prints samples/s (median of ``--repeats`` timed epochs after a warm-up epoch).  The
bucketing case is an Embedding / 2-layer ``mx.rnn.LSTMCell`` / FullyConnected /
SoftmaxOutput language model, batch 32, keys 10/15/20/25/30 in turn; it reports
ms per batch for the rotation and for the same batches grouped by key (one switch per
4 batches), and how many plans the engine compiled after the first epoch (0 means
every batch reused a plan).
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

SAMPLES = 1024


def mlp(mx):
    x = mx.sym.var("data")
    for i, width in enumerate((256, 256)):
        x = mx.sym.Activation(mx.sym.FullyConnected(x, num_hidden=width, name=f"fc{i}"),
                              act_type="relu")
    return mx.sym.SoftmaxOutput(mx.sym.FullyConnected(x, num_hidden=10, name="out"),
                                name="softmax")


def lenet(mx):
    x = mx.sym.var("data")
    for i, filters in enumerate((20, 50)):
        x = mx.sym.Convolution(x, kernel=(5, 5), num_filter=filters, name=f"conv{i}")
        x = mx.sym.Pooling(mx.sym.Activation(x, act_type="tanh"), pool_type="max",
                           kernel=(2, 2), stride=(2, 2))
    x = mx.sym.Activation(mx.sym.FullyConnected(mx.sym.flatten(x), num_hidden=500,
                                                name="fc"), act_type="tanh")
    return mx.sym.SoftmaxOutput(mx.sym.FullyConnected(x, num_hidden=10, name="out"),
                                name="softmax")


def gluon_net(mx, name: str):
    """The same network from Gluon layers."""
    nn = mx.gluon.nn
    net = nn.HybridSequential()
    if name == "mlp":
        net.add(nn.Dense(256, activation="relu"), nn.Dense(256, activation="relu"),
                nn.Dense(10))
    else:
        net.add(nn.Conv2D(20, 5, activation="tanh"), nn.MaxPool2D(2, 2),
                nn.Conv2D(50, 5, activation="tanh"), nn.MaxPool2D(2, 2), nn.Flatten(),
                nn.Dense(500, activation="tanh"), nn.Dense(10))
    return net


CASES = {"mlp": (mlp, (784,), 128), "lenet": (lenet, (1, 28, 28), 64)}
OPT = {"learning_rate": 0.01, "momentum": 0.9}


def _iter(mx, shape, batch):
    rng = np.random.RandomState(0)
    x = rng.randn(SAMPLES, *shape).astype(np.float32)
    y = rng.randint(0, 10, SAMPLES).astype(np.float32)
    return mx.io.NDArrayIter(x, y, batch_size=batch)


def module_fit(mx, name: str, repeats: int) -> float:
    build, shape, batch = CASES[name]
    it = _iter(mx, shape, batch)
    mod = mx.mod.Module(build(mx))
    mod.fit(it, num_epoch=1, optimizer="sgd", optimizer_params=OPT,
            initializer=mx.init.Xavier())  # warm-up epoch (plans, buffers)
    times = []
    for _ in range(repeats):
        it.reset()
        start = time.perf_counter()
        mod.fit(it, num_epoch=1, optimizer="sgd", optimizer_params=OPT)
        mx.nd.waitall()
        times.append(time.perf_counter() - start)
    return SAMPLES / statistics.median(times)


def gluon_loop(mx, name: str, repeats: int) -> float:
    _, shape, batch = CASES[name]
    net = gluon_net(mx, name)
    net.initialize(mx.init.Xavier())
    net.hybridize(static_alloc=True)
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", OPT)
    metric = mx.metric.Accuracy()
    it = _iter(mx, shape, batch)

    def epoch():
        it.reset()
        metric.reset()
        for b in it:
            with mx.autograd.record():
                out = net(b.data[0])
                loss = loss_fn(out, b.label[0])
            loss.backward()
            trainer.step(batch)
            metric.update(b.label, [out])
        mx.nd.waitall()

    epoch()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        epoch()
        times.append(time.perf_counter() - start)
    return SAMPLES / statistics.median(times)


def bucketing(mx, repeats: int) -> dict:
    stack = mx.rnn.SequentialRNNCell()
    for i in range(2):
        stack.add(mx.rnn.LSTMCell(num_hidden=64, prefix=f"lstm_l{i}_"))

    def sym_gen(seq_len):
        embed = mx.sym.Embedding(mx.sym.var("data"), input_dim=100, output_dim=32,
                                 name="embed")
        stack.reset()
        out, _ = stack.unroll(seq_len, inputs=embed, merge_outputs=True)
        pred = mx.sym.FullyConnected(mx.sym.Reshape(out, shape=(-1, 64)), num_hidden=100,
                                     name="pred")
        label = mx.sym.Reshape(mx.sym.var("softmax_label"), shape=(-1,))
        return mx.sym.SoftmaxOutput(pred, label, name="softmax"), ("data",), \
            ("softmax_label",)

    keys, batch, rng = [10, 15, 20, 25, 30], 32, np.random.RandomState(0)
    batches = {k: mx.io.DataBatch(
        [mx.nd.array(rng.randint(0, 100, (batch, k)))],
        [mx.nd.array(rng.randint(0, 100, (batch, k)))], bucket_key=k,
        provide_data=[mx.io.DataDesc("data", (batch, k))],
        provide_label=[mx.io.DataDesc("softmax_label", (batch, k))]) for k in keys}
    mod = mx.mod.BucketingModule(sym_gen, default_bucket_key=30)
    mod.bind(batches[30].provide_data, batches[30].provide_label)
    mod.init_params(mx.init.Xavier())
    mod.init_optimizer(optimizer="sgd", optimizer_params=OPT)

    def run(sequence):
        start = time.perf_counter()
        for k in sequence:
            mod.forward_backward(batches[k])
            mod.update()
        mx.nd.waitall()
        return (time.perf_counter() - start) * 1000 / len(sequence)

    run(keys * 2)  # first epoch: every bucket bound and planned
    plans_before = _plan_count(mod)
    rotation = statistics.median(run(keys * 4) for _ in range(repeats))
    # the same batches grouped by key: a bucket switch every 4 batches instead of each
    grouped = statistics.median(run([k for k in keys for _ in range(4)])
                                for _ in range(repeats))
    new_plans = None if plans_before is None else _plan_count(mod) - plans_before
    return {"rotation_ms": rotation, "grouped_ms": grouped, "new_plans": new_plans}


def _plan_count(mod):
    """Plans compiled by the engines of every bucket (gluonlite only)."""
    total = 0
    for module in getattr(mod, "_buckets", {}).values():
        group = getattr(module, "_exec_group", None)
        block = getattr(group, "_block", None)
        op = getattr(block, "_cached_op", None)
        if op is None:
            return None
        total += len(getattr(op, "_plans", {}))
    return total


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--framework", default="gluonlite", choices=["gluonlite", "mxnet"])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    if args.framework == "mxnet":
        import mxnet as mx
    else:
        import gluonlite as mx
    import logging
    logging.disable(logging.WARNING)
    result = {"framework": args.framework}
    for name in CASES:
        result[f"{name}_module_fit"] = module_fit(mx, name, args.repeats)
        if args.framework == "gluonlite":
            result[f"{name}_gluon_loop"] = gluon_loop(mx, name, args.repeats)
    result["bucketing"] = bucketing(mx, args.repeats)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
