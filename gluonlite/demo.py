"""The whole Gluon workflow in a few seconds, on data made here: ``python -m gluonlite.demo``.

1. makes a labelled data set of 8x8 grey images of four stroke directions (no download);
2. trains a hybridized convolutional network on it with a ``DataLoader``, a ``Trainer``
   and ``SoftmaxCrossEntropyLoss``, and reports the held-out accuracy;
3. exports it as MXNet's ``-symbol.json`` and ``-0000.params`` files;
4. re-imports the files with ``SymbolBlock.imports`` and checks that they predict the same;
5. turns the imported graph into a feature extractor at an internal layer and extracts
   the features of a few images.

Every random source is seeded (``--seed``), so a run is reproducible.  Pass ``--out DIR``
to keep the exported files; by default they go to a temporary folder.
"""
from __future__ import annotations

import argparse
import os
import tempfile
import warnings

import numpy as np

from . import autograd, gluon, init, metric, nd, random, symbol
from .gluon import nn

SIZE = 8
DIRECTIONS = ("horizontal", "vertical", "diagonal", "anti-diagonal")
FEATURE_LAYER = "demo_dense0_relu_fwd_output"  # the 32 hidden units before the classifier


def make_strokes(count: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``count`` noisy 1x8x8 images, each one 5-pixel stroke in one of four directions,
    and their labels (the direction's index)."""
    labels = rng.integers(0, len(DIRECTIONS), size=count)
    images = rng.normal(0.0, 0.2, size=(count, 1, SIZE, SIZE)).astype(np.float32)
    step = np.array([(0, 1), (1, 0), (1, 1), (1, -1)])[labels]         # (row, column) step
    centre = rng.integers(2, SIZE - 2, size=(count, 2))
    offsets = np.arange(-2, 3)
    rows = centre[:, :1] + offsets * step[:, :1]                        # (count, 5)
    cols = centre[:, 1:] + offsets * step[:, 1:]
    images[np.arange(count)[:, None], 0, rows, cols] += 1.0
    return images, labels.astype(np.float32)


def build_network() -> nn.HybridSequential:
    """Two convolutions, a hidden dense layer (the features) and the classifier."""
    net = nn.HybridSequential(prefix="demo_")
    with net.name_scope():
        net.add(nn.Conv2D(8, kernel_size=3, padding=1, activation="relu"),
                nn.MaxPool2D(pool_size=2),
                nn.Conv2D(16, kernel_size=3, padding=1, activation="relu"),
                nn.Flatten(),
                nn.Dense(32, activation="relu"),
                nn.Dense(len(DIRECTIONS)))
    return net


def accuracy(net, images: np.ndarray, labels: np.ndarray) -> float:
    """Classification accuracy of ``net`` on the arrays ``images``/``labels``."""
    acc = metric.Accuracy()
    acc.update([nd.array(labels)], [net(nd.array(images))])
    return float(acc.get()[1])


def run(epochs: int = 4, batch_size: int = 32, seed: int = 0, out: str | None = None,
        verbose: bool = True) -> dict:
    """Train, export, re-import and extract features; return what was measured.

    Parameters
    ----------
    epochs : int
        Passes over the 1,600 training images.
    batch_size : int
        Images per step.
    seed : int
        Seeds the data, the initial weights and the loader's shuffle.
    out : str, optional
        Folder for the exported files; a temporary one (removed afterwards) if None.
    verbose : bool
        Print each stage.

    Returns
    -------
    dict
        ``accuracy`` (held out), ``reimported_accuracy``, ``max_difference`` between the
        trained and re-imported network's outputs, ``files`` (the exported file names),
        ``feature_layer`` and ``feature_shape``.
    """
    say = print if verbose else (lambda *args, **kwargs: None)
    random.seed(seed)       # weight initialization
    np.random.seed(seed)    # the DataLoader's shuffle (NumPy's generator, as MXNet's)
    rng = np.random.default_rng(seed)
    train_x, train_y = make_strokes(1600, rng)
    test_x, test_y = make_strokes(400, rng)
    say(f"data: {len(train_x)} training and {len(test_x)} test images of "
        f"{SIZE}x{SIZE} strokes, {len(DIRECTIONS)} classes ({', '.join(DIRECTIONS)})")

    net = build_network()
    net.initialize(init.Xavier())
    net.hybridize()
    loader = gluon.data.DataLoader(gluon.data.ArrayDataset(train_x, train_y),
                                   batch_size=batch_size, shuffle=True)
    trainer = gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.01})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    for epoch in range(epochs):
        total = 0.0
        for data, label in loader:
            with autograd.record():
                loss = loss_fn(net(data), label)
            loss.backward()
            trainer.step(data.shape[0])
            total += float(loss.sum().asscalar())
        say(f"epoch {epoch}: mean loss {total / len(train_x):.4f}")
    trained_accuracy = accuracy(net, test_x, test_y)
    say(f"trained: held-out accuracy {trained_accuracy:.3f}")

    with tempfile.TemporaryDirectory() as scratch:
        folder = out or scratch
        os.makedirs(folder, exist_ok=True)
        prefix = os.path.join(folder, "demo")
        net.export(prefix, epoch=0)
        files = [f"{prefix}-symbol.json", f"{prefix}-0000.params"]
        say("exported: " + ", ".join(files)
            + ("" if out else " (a temporary folder; --out DIR keeps the files)"))

        with warnings.catch_warnings():
            # as MXNet's, imports warns that the untyped input "data" makes every parameter
            # float32, which is what these files hold
            warnings.filterwarnings("ignore", "Cannot decide type")
            imported = gluon.SymbolBlock.imports(files[0], ["data"], files[1])
        difference = float(np.abs(imported(nd.array(test_x)).asnumpy()
                                  - net(nd.array(test_x)).asnumpy()).max())
        reimported_accuracy = accuracy(imported, test_x, test_y)
        say(f"re-imported with SymbolBlock.imports: accuracy {reimported_accuracy:.3f}, "
            f"largest output difference {difference:.2g}")

        # any internal output of the imported graph can be the network's output instead
        internals = symbol.load(files[0]).get_internals()
        extractor = gluon.SymbolBlock(internals[FEATURE_LAYER],
                                      symbol.var("data", dtype="float32"))
        extractor.collect_params().load(files[1], ignore_extra=True)
        features = extractor(nd.array(test_x[:5])).asnumpy()
    say(f"features at {FEATURE_LAYER}: shape {features.shape}, "
        f"{int((features > 0).sum())} of {features.size} units active")
    return {"accuracy": trained_accuracy, "reimported_accuracy": reimported_accuracy,
            "max_difference": difference, "files": [os.path.basename(f) for f in files],
            "feature_layer": FEATURE_LAYER, "feature_shape": features.shape}


def main(argv: list[str] | None = None) -> dict:
    """The command line: ``python -m gluonlite.demo [--epochs N] [--seed S] [--out DIR]``."""
    parser = argparse.ArgumentParser(prog="python -m gluonlite.demo", description=__doc__
                                     .split("\n", 1)[0])
    parser.add_argument("--epochs", type=int, default=4, help="training epochs (4)")
    parser.add_argument("--batch-size", type=int, default=32, help="images per step (32)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (0)")
    parser.add_argument("--out", default=None, help="keep the exported files in this folder")
    args = parser.parse_args(argv)
    return run(args.epochs, args.batch_size, args.seed, args.out)


if __name__ == "__main__":
    main()
