"""INT8 inference on the CPU: GluonCV classifiers quantized by MXNet 1.9.1's
``quantize_net_v2`` (its oneDNN graph: ``_sg_mkldnn_conv`` nodes), run by gluonlite and
by MXNet from the same exported files, beside the float32 export of the same network.

Usage::

    # 1. make the models (MXNet 1.9.1 + GluonCV 0.10.5 environment)
    ~/.venvs/mxnet-ref/bin/python bench/bench_int8.py --make /tmp/int8bench
    # 2. time them, each framework in its own run
    python3 bench/bench_int8.py --dir /tmp/int8bench                       # gluonlite
    ~/.venvs/mxnet-ref/bin/python bench/bench_int8.py --dir /tmp/int8bench --framework mxnet

Networks have random parameters (Xavier, random BatchNorm statistics; the time does
not depend on the values, though gluonlite's choice of float32 or float64 GEMMs does:
see ``ops/_quantized_math.exact_dtype``), are calibrated naively on 4 random images
and run on one 224x224 image, hybridized with ``static_alloc`` and ``static_shape``.
The float32 and INT8 networks run interleaved; the figures are the minimum and median
of ``--reps`` calls after two warm-up calls, in milliseconds.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

MODELS = ("resnet50_v1", "resnet18_v1b", "mobilenetv2_1.0")


def make(root: str) -> None:
    """Export each model's float32 and INT8 graphs under ``root/<model>/``."""
    import mxnet as mx
    from gluoncv.model_zoo import get_model
    for name in MODELS:
        out = os.path.join(root, name)
        os.makedirs(out, exist_ok=True)
        mx.random.seed(0)
        net = get_model(name, pretrained=False)
        net.initialize(mx.init.Xavier(magnitude=2))
        x = mx.nd.array(np.random.RandomState(0).uniform(-1, 1, (1, 3, 224, 224)))
        net(x)
        rng = np.random.RandomState(1)
        for key, p in net.collect_params().items():
            if key.endswith("running_var"):
                p.set_data(mx.nd.array(rng.uniform(0.5, 1.5, p.shape)))
            elif key.endswith("running_mean"):
                p.set_data(mx.nd.array(rng.uniform(-0.1, 0.1, p.shape)))
        net.hybridize()
        net(x)
        net.export(os.path.join(out, "float"))
        np.save(os.path.join(out, "x.npy"), x.asnumpy())
        calib = mx.nd.array(np.random.RandomState(3).uniform(-1, 1, (4, 3, 224, 224)))
        batchify = mx.gluon.data.dataloader.default_batchify_fn
        loader = mx.gluon.data.DataLoader(mx.gluon.data.ArrayDataset(calib), batch_size=2,
                                          batchify_fn=lambda b: [batchify(b)])
        net = mx.gluon.SymbolBlock.imports(os.path.join(out, "float-symbol.json"), ["data"],
                                           os.path.join(out, "float-0000.params"))
        qnet = mx.contrib.quantization.quantize_net_v2(
            net, quantized_dtype="auto", quantize_mode="smart", calib_data=loader,
            calib_mode="naive", num_calib_examples=4, ctx=mx.cpu())
        qnet.hybridize(static_alloc=True, static_shape=True)
        qnet(x)
        qnet.export(os.path.join(out, "int8"))
        print("made", out)


def time_models(mx, root: str, reps: int) -> None:
    """Print one line per model: float32 and INT8, minimum and median."""
    for name in MODELS:
        d = os.path.join(root, name)
        x = mx.nd.array(np.load(os.path.join(d, "x.npy")))
        nets = {}
        for kind in ("float", "int8"):
            with warnings.catch_warnings():  # an INT8 graph types its data late
                warnings.simplefilter("ignore")
                net = mx.gluon.SymbolBlock.imports(os.path.join(d, f"{kind}-symbol.json"),
                                                   ["data"],
                                                   os.path.join(d, f"{kind}-0000.params"))
            net.hybridize(static_alloc=True, static_shape=True)
            for _ in range(2):
                net(x).wait_to_read()
            nets[kind] = net
        times: dict = {kind: [] for kind in nets}
        for _ in range(reps):
            for kind, net in nets.items():
                t = time.perf_counter()
                net(x).wait_to_read()
                times[kind].append((time.perf_counter() - t) * 1e3)
        cells = "  ".join(f"{kind} {min(v):.1f} / {np.median(v):.1f}"
                          for kind, v in times.items())
        print(f"{name:16s} {cells}   (ms, min / median)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--make", metavar="DIR", help="export the models (needs MXNet)")
    parser.add_argument("--dir", help="time the models exported here")
    parser.add_argument("--framework", choices=("gluonlite", "mxnet"), default="gluonlite")
    parser.add_argument("--reps", type=int, default=15)
    args = parser.parse_args()
    if args.make:
        make(args.make)
        return
    if not args.dir:
        parser.error("give --make DIR or --dir DIR")
    if args.framework == "gluonlite":
        import gluonlite as mx
    else:
        import mxnet as mx
    print(f"{args.framework}:")
    time_models(mx, args.dir, args.reps)


if __name__ == "__main__":
    main()
