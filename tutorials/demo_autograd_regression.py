"""Demo: fit a linear model with gluonlite's NDArray and autograd, MXNet style.

Run it with ``python tutorials/demo_autograd_regression.py``.  The code is what an
MXNet 1.x user writes; only the import differs (``import gluonlite as mx``).
"""
import numpy as np

import gluonlite as mx
from gluonlite import autograd, nd


def main(steps: int = 200, lr: float = 0.1) -> float:
    mx.random.seed(42)
    true_w = nd.array([[2.0], [-3.4]])
    true_b = 4.2
    X = nd.random.normal(0, 1, shape=(256, 2))
    y = nd.dot(X, true_w) + true_b + nd.random.normal(0, 0.01, shape=(256, 1))

    w = nd.random.normal(0, 0.01, shape=(2, 1))
    b = nd.zeros((1,))
    for p in (w, b):
        p.attach_grad()

    for step in range(steps):
        with autograd.record():
            loss = ((nd.dot(X, w) + b - y) ** 2).mean()
        loss.backward()
        for p in (w, b):
            p[:] = p - lr * p.grad
        if step % 50 == 0:
            print(f"step {step:3d}  loss {loss.asscalar():.6f}")
    print("learned w:", w.asnumpy().ravel(), " b:", b.asscalar())
    return float(np.abs(w.asnumpy().ravel() - [2.0, -3.4]).max())


if __name__ == "__main__":
    err = main()
    print(f"max weight error {err:.4f}")
