"""Tutorial: build a Gluon network, hybridize it, export it, and import it elsewhere
for feature extraction.

Run it with ``python tutorials/gluon_export_and_features.py``.  Every line is what
an MXNet 1.x user writes; only the import differs (``import gluonlite as mx``).

1. Build a small convolutional network imperatively with ``nn.HybridSequential``
   and train it for a few steps on a synthetic task, in plain Python: every layer
   runs as soon as it is called, so you can print and debug anything.
2. ``hybridize()`` it: the same code is traced once into a graph and then runs
   through the graph engine (the CachedOp); the results do not change.
3. ``export`` it: ``<prefix>-symbol.json`` (the graph) and ``<prefix>-0000.params``
   (the weights), the files MXNet itself writes and reads.
4. Somewhere else (another script, another machine), import the files with
   ``SymbolBlock.imports`` for predictions, or pick an internal layer of the graph
   with ``get_internals()`` and use the network as a feature extractor.
"""
import os
import tempfile

import numpy as np

import gluonlite as mx
from gluonlite import autograd, gluon, nd
from gluonlite.gluon import nn


def build_network() -> nn.HybridSequential:
    """A small convolutional classifier for 1x16x16 images and 4 classes."""
    net = nn.HybridSequential(prefix="tiny_")
    with net.name_scope():
        net.add(nn.Conv2D(8, kernel_size=3, padding=1),
                nn.BatchNorm(),
                nn.Activation("relu"),
                nn.MaxPool2D(pool_size=2),
                nn.Conv2D(16, kernel_size=3, padding=1, activation="relu"),
                nn.GlobalAvgPool2D(),
                nn.Flatten(),
                nn.Dense(4))
    return net


def synthetic_batch(rng: np.random.Generator, batch: int = 32):
    """Noisy images of one stroke; the class is its direction: horizontal, vertical,
    diagonal or anti-diagonal (at a random place)."""
    labels = rng.integers(0, 4, size=batch)
    images = rng.normal(0, 0.1, size=(batch, 1, 16, 16)).astype(np.float32)
    steps = [(0, 1), (1, 0), (1, 1), (1, -1)]  # (row, column) step of each class
    for i, c in enumerate(labels):
        dr, dc = steps[int(c)]
        r, q = rng.integers(4, 12, size=2)
        for t in range(-3, 4):
            images[i, 0, r + t * dr, q + t * dc] += 1.0
    return nd.array(images), nd.array(labels)


def train(net, steps: int = 60, lr: float = 0.1) -> float:
    """Plain SGD on softmax cross-entropy; returns the accuracy of the last batch."""
    rng = np.random.default_rng(0)
    params = list(net.collect_params().values())
    for _ in range(steps):
        x, y = synthetic_batch(rng)
        with autograd.record():
            out = net(x)
            loss = -nd.pick(nd.log_softmax(out), y).mean()
        loss.backward()
        for p in params:
            if p.grad_req != "null":
                p.data()[:] -= lr * p.grad()
    x, y = synthetic_batch(rng, 128)
    return float((net(x).argmax(axis=1) == y).mean().asscalar())


def main() -> dict:
    mx.random.seed(0)
    net = build_network()
    net.initialize(mx.init.Xavier())
    print(net)

    # 1. imperative: train, then look at a prediction
    accuracy = train(net)
    print(f"accuracy after training: {accuracy:.2f}")
    x, _ = synthetic_batch(np.random.default_rng(1), 8)
    imperative = net(x)

    # 2. hybridize: the same network, now one graph
    net.hybridize()
    hybridized = net(x)
    np.testing.assert_allclose(hybridized.asnumpy(), imperative.asnumpy(), rtol=1e-5,
                               atol=1e-6)

    with tempfile.TemporaryDirectory() as folder:
        # 3. export the graph and the weights
        prefix = os.path.join(folder, "tiny")
        net.export(prefix, epoch=0)
        print("exported:", sorted(os.listdir(folder)))

        # 4a. import for predictions
        imported = gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"],
                                             prefix + "-0000.params")
        np.testing.assert_allclose(imported(x).asnumpy(), imperative.asnumpy(), rtol=1e-5,
                                   atol=1e-6)

        # 4b. import an internal layer as a feature extractor
        graph = mx.sym.load(prefix + "-symbol.json")
        internals = graph.get_internals()
        # every layer's output is listed: ..., 'tiny_pool1_fwd_output', 'tiny_flatten0_...'
        feature_name = "tiny_pool1_fwd_output"  # the global average pool: 16 features
        assert feature_name in internals.list_outputs()
        extractor = gluon.SymbolBlock(internals[feature_name], mx.sym.var("data"))
        extractor.collect_params().load(prefix + "-0000.params", ignore_extra=True)
        features = extractor(x)
        print(f"features from {feature_name}: shape {features.shape}")

    return {"accuracy": accuracy, "feature_shape": features.shape}


if __name__ == "__main__":
    main()
