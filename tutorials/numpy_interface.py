"""MXNet's NumPy interface on gluonlite: ``mx.np`` arrays, ``npx.set_np()`` and Gluon.

Code written for MXNet 1.9's NumPy interface (the style of "Dive into Deep Learning")
runs unchanged:

1. linear regression from scratch: ``np.random.normal``, ``np.dot``, autograd on
   ``mx.np`` arrays, a minibatch SGD written by hand;
2. the same model with Gluon: under ``npx.set_np()`` data loaders, parameters, losses
   and block outputs are ``mx.np`` arrays;
3. a hybridized MLP classifier whose ``hybrid_forward`` uses ``F.np``/``F.npx``, exported
   and loaded back as a ``SymbolBlock``.

Run ``python tutorials/numpy_interface.py``.  MXNet 1.9.1 on the same script (its own
random streams): weight/bias errors 0.0004/0.0016 (scratch) and 0.0002/0.0012 (Gluon),
MLP accuracy 0.975, the exported MLP gives the same logits.
"""
import os
import tempfile

import gluonlite as mx
from gluonlite import autograd, gluon, np, npx
from gluonlite.gluon import nn


def synthetic_data(w, b, num_examples):
    """``y = Xw + b + noise``."""
    X = np.random.normal(0, 1, (num_examples, len(w)))
    y = np.dot(X, w) + b
    y += np.random.normal(0, 0.01, y.shape)
    return X, y.reshape((-1, 1))


def linear_regression_from_scratch(features, labels, true_w, true_b):
    """Minibatch SGD written by hand on ``mx.np`` arrays."""
    w = np.random.normal(0, 0.01, (2, 1))
    b = np.zeros(1)
    w.attach_grad()
    b.attach_grad()
    lr, batch_size, n = 0.03, 10, features.shape[0]
    for _ in range(3):
        for i in range(0, n, batch_size):
            X, y = features[i:i + batch_size], labels[i:i + batch_size]
            with autograd.record():
                loss = ((np.dot(X, w) + b - y) ** 2 / 2).sum()
            loss.backward()
            for param in (w, b):
                param[:] = param - lr * param.grad / batch_size
    w_err = float(np.abs(w.reshape(-1) - true_w).max())
    return w_err, float(np.abs(b - true_b).max())


def linear_regression_gluon(features, labels, true_w, true_b):
    """The same model with Gluon: every array it hands out is an ``mx.np`` array."""
    loader = gluon.data.DataLoader(gluon.data.ArrayDataset(features.asnumpy(),
                                                           labels.asnumpy()),
                                   batch_size=10, shuffle=True)
    net = nn.Sequential()
    net.add(nn.Dense(1))
    net.initialize(mx.init.Normal(sigma=0.01))
    loss_fn = gluon.loss.L2Loss()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.03})
    for _ in range(3):
        for X, y in loader:
            assert isinstance(X, np.ndarray)
            with autograd.record():
                loss = loss_fn(net(X), y)
            loss.backward()
            trainer.step(X.shape[0])
    w = net[0].weight.data()
    assert isinstance(w, np.ndarray)
    return float(np.abs(w.reshape(-1) - true_w).max()), \
        float(np.abs(net[0].bias.data() - true_b).max())


class MLP(nn.HybridBlock):
    """A two-layer perceptron written against ``F.np``/``F.npx``."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.hidden = nn.Dense(16)
            self.output = nn.Dense(2)

    def hybrid_forward(self, F, x):
        h = F.npx.relu(self.hidden(x))
        return self.output(h) + 0 * F.np.sum(h, axis=1, keepdims=True)


def mlp_classifier():
    """Two Gaussian blobs, a hybridized MLP, softmax cross-entropy; export and reload."""
    n = 200
    centers = np.array([[1.5, 1.5], [-1.5, -1.5]])
    labels = np.array([0, 1] * (n // 2), dtype="int32")
    X = centers[labels] + np.random.normal(0, 1.0, (n, 2))
    loader = gluon.data.DataLoader(gluon.data.ArrayDataset(X.asnumpy(), labels.asnumpy()),
                                   batch_size=20, shuffle=True)
    net = MLP()
    net.initialize(mx.init.Xavier())
    net.hybridize()
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.05})
    for _ in range(5):
        for xb, yb in loader:
            with autograd.record():
                loss = loss_fn(net(xb), yb)
            loss.backward()
            trainer.step(xb.shape[0])
    logits = net(X)
    accuracy = float((logits.argmax(axis=1) == labels.astype("int64")).mean())
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "mlp")
        net.export(prefix)
        loaded = gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"],
                                           prefix + "-0000.params")
        same = bool(np.abs(loaded(X) - logits).max() < 1e-5)
    return accuracy, same


def main() -> dict:
    npx.set_np()
    try:
        mx.random.seed(42)
        true_w, true_b = np.array([2.0, -3.4]), 4.2
        features, labels = synthetic_data(true_w, true_b, 1000)
        scratch = linear_regression_from_scratch(features, labels, true_w, true_b)
        with_gluon = linear_regression_gluon(features, labels, true_w, true_b)
        accuracy, export_matches = mlp_classifier()
    finally:
        npx.reset_np()
    result = {"scratch_w_err": scratch[0], "scratch_b_err": scratch[1],
              "gluon_w_err": with_gluon[0], "gluon_b_err": with_gluon[1],
              "mlp_accuracy": accuracy, "export_matches": export_matches}
    for key, value in result.items():
        print(f"{key:>14s}: {value}")
    return result


if __name__ == "__main__":
    main()
