"""Tutorial: INT8 inference on the CPU, the way MXNet 1.x users do it.

Run it with ``python tutorials/int8_quantization_cpu.py``.  Every line is what an MXNet
1.x user writes; only the import differs (``import gluonlite as mx``).

1. Train a small convolutional network (BatchNorm, ReLU, a residual sum, Dense) on a
   synthetic task.
2. ``optimize_for(x, backend='MKLDNN')``: MXNet's oneDNN rewrite fuses each convolution
   with its BatchNorm, activation and sum into one ``_sg_mkldnn_conv`` node (the exported
   ``-symbol.json`` shows them); the outputs do not change.
3. ``mx.contrib.quantization.quantize_net``: post-training INT8 quantization with naive
   calibration on a few batches: MXNet's CPU flow (fuse, quantize, calibrate, fuse the
   requantize steps into the layers), so the INT8 graph and its numbers are MXNet's.
4. Export the INT8 model and load it back with ``SymbolBlock.imports``, as a deployment
   script (or MXNet itself) would; models MXNet exported this way (GluonCV's ``*_int8``
   models) load the same way.
"""
import json
import os
import tempfile
import warnings

import numpy as np

import gluonlite as mx
from gluonlite import autograd, gluon
from gluonlite.contrib.quantization import quantize_net
from gluonlite.gluon import nn


class Block(nn.HybridBlock):
    """conv-BN-relu, conv-BN, plus the input, relu: a ResNet basic block."""

    def __init__(self, channels, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.conv1 = nn.Conv2D(channels, 3, padding=1, use_bias=False)
            self.bn1 = nn.BatchNorm()
            self.conv2 = nn.Conv2D(channels, 3, padding=1, use_bias=False)
            self.bn2 = nn.BatchNorm()

    def hybrid_forward(self, F, x):
        y = F.Activation(self.bn1(self.conv1(x)), act_type="relu")
        return F.Activation(self.bn2(self.conv2(y)) + x, act_type="relu")


def build_network() -> nn.HybridSequential:
    net = nn.HybridSequential(prefix="int8net_")
    with net.name_scope():
        net.add(nn.Conv2D(8, 3, padding=1), nn.BatchNorm(), nn.Activation("relu"),
                Block(8), nn.MaxPool2D(), nn.Flatten(), nn.Dense(4))
    return net


def make_data(n: int, seed: int):
    """Images of 1x12x12 whose class is the quadrant holding a bright square."""
    rng = np.random.RandomState(seed)
    x = rng.uniform(0, 0.3, size=(n, 1, 12, 12)).astype(np.float32)
    y = rng.randint(0, 4, size=n)
    for i, c in enumerate(y):
        r, s = (c // 2) * 6 + 1, (c % 2) * 6 + 1
        x[i, 0, r:r + 4, s:s + 4] += 1.0
    return mx.nd.array(x), mx.nd.array(y)


def accuracy(net, x, y) -> float:
    return float((net(x).argmax(axis=1) == y).mean().asscalar())


def main() -> dict:
    mx.random.seed(7)
    np.random.seed(7)
    x_train, y_train = make_data(256, 0)
    x_test, y_test = make_data(128, 1)

    # 1. train
    net = build_network()
    net.initialize(mx.init.Xavier())
    net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.01})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    data = gluon.data.DataLoader(gluon.data.ArrayDataset(x_train, y_train), batch_size=32,
                                 shuffle=True)
    for _ in range(3):
        for xb, yb in data:
            with autograd.record():
                loss = loss_fn(net(xb), yb)
            loss.backward()
            trainer.step(xb.shape[0])
    float_acc = accuracy(net, x_test, y_test)
    float_out = net(x_test).asnumpy()

    # 2. the oneDNN rewrite: fused nodes, same outputs
    tmp = tempfile.mkdtemp()
    net.export(os.path.join(tmp, "float"))
    with warnings.catch_warnings():  # MXNet warns too: `data` has no declared type
        warnings.simplefilter("ignore", UserWarning)
        fused = gluon.SymbolBlock.imports(os.path.join(tmp, "float-symbol.json"), ["data"],
                                          os.path.join(tmp, "float-0000.params"))
    fused.optimize_for(x_test, backend="MKLDNN")
    fused.export(os.path.join(tmp, "fused"))
    with open(os.path.join(tmp, "fused-symbol.json")) as f:
        fused_ops = sorted({n["op"] for n in json.load(f)["nodes"]} - {"null"})
    fused_diff = float(np.abs(fused(x_test).asnumpy() - float_out).max())

    # 3. INT8: MXNet's CPU flow with naive calibration on 64 training images
    calib = gluon.data.DataLoader(gluon.data.ArrayDataset(x_train[:64], y_train[:64]),
                                  batch_size=32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        qnet = quantize_net(net, quantized_dtype="auto", calib_mode="naive",
                            calib_data=calib, num_calib_examples=64, ctx=mx.cpu())
    int8_acc = accuracy(qnet, x_test, y_test)

    # 4. export the INT8 model and load it as a deployment script would
    qnet.export(os.path.join(tmp, "int8"))
    with open(os.path.join(tmp, "int8-symbol.json")) as f:
        int8_ops = sorted({n["op"] for n in json.load(f)["nodes"]} - {"null"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        deployed = gluon.SymbolBlock.imports(os.path.join(tmp, "int8-symbol.json"), ["data"],
                                             os.path.join(tmp, "int8-0000.params"))
    same = bool(np.array_equal(deployed(x_test).asnumpy(), qnet(x_test).asnumpy()))

    print(f"float32 accuracy {float_acc:.3f}; fused graph ({', '.join(fused_ops)}) "
          f"differs by {fused_diff:.1e}")
    print(f"INT8 accuracy {int8_acc:.3f} with {', '.join(int8_ops)}; "
          f"reloaded model gives the same outputs: {same}")
    return {"float_accuracy": float_acc, "int8_accuracy": int8_acc,
            "fused_ops": fused_ops, "fused_diff": fused_diff, "int8_ops": int8_ops,
            "reloaded_same": same}


if __name__ == "__main__":
    main()
