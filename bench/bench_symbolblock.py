"""Feature extraction through ``SymbolBlock.imports``: a 60-layer Dense export against
the same net hybridized from Python, and MXNet-exported mobilenet0.25 /
mobilenetv2_0.25 inference against MXNet 1.9.1 on the same files.

Usage::

    python3 bench/bench_symbolblock.py            # gluonlite, then MXNet in a subprocess
    python3 bench/bench_symbolblock.py --framework gluonlite --no-mxnet

Dense net: 60 ``Dense(64)`` layers (relu), batch 8.  Model-zoo nets: the fixtures in
``tests/fixtures/models`` (MXNet exports), batch 8, 3x64x64, ``hybridize(static_alloc=True,
static_shape=True)`` in gluonlite, ``SymbolBlock.imports`` + hybridize in MXNet.
Prints median ms per call over 50 calls after 5 warm-up calls.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "..", "tests", "fixtures", "models")
MXNET_PY = os.path.expanduser("~/.venvs/mxnet-ref/bin/python")


def _time(fn, x, mx) -> float:
    for _ in range(5):
        fn(x).wait_to_read()
    times = []
    for _ in range(50):
        start = time.perf_counter()
        fn(x).wait_to_read()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def dense_case(mx) -> dict:
    net = mx.gluon.nn.HybridSequential()
    for _ in range(60):
        net.add(mx.gluon.nn.Dense(64, activation="relu"))
    net.initialize(mx.init.Xavier())
    net.hybridize(static_alloc=True, static_shape=True)
    x = mx.nd.array(np.random.RandomState(0).randn(8, 64))
    net(x)
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "dense60")
        net.export(prefix)
        imported = mx.gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"],
                                                prefix + "-0000.params")
    imported.hybridize(static_alloc=True, static_shape=True)
    return {"dense60_python_ms": _time(net, x, mx), "dense60_imported_ms": _time(imported, x, mx)}


def zoo_case(mx, name: str) -> float:
    net = mx.gluon.SymbolBlock.imports(os.path.join(MODELS, f"{name}-symbol.json"), ["data"],
                                       os.path.join(MODELS, f"{name}-0000.params"))
    net.hybridize(static_alloc=True, static_shape=True)
    x = mx.nd.array(np.random.RandomState(0).rand(8, 3, 64, 64))
    return _time(net, x, mx)


def run(mx, framework: str, dense: bool = True) -> dict:
    result = {"framework": framework}
    if dense:
        result.update(dense_case(mx))
    for name in ("mobilenet0.25", "mobilenetv2_0.25"):
        result[f"{name}_ms"] = zoo_case(mx, name)
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--framework", default="gluonlite", choices=["gluonlite", "mxnet"])
    parser.add_argument("--no-mxnet", action="store_true")
    parser.add_argument("--zoo-only", action="store_true",
                        help="skip the 60-layer Dense case (model-zoo exports only)")
    parser.add_argument("--cpu-rewrite", choices=("on", "off"), default=None,
                        help="gluonlite: force the CachedOp's CPU graph rewrite on or off "
                             "(GLUONLITE_CPU_REWRITE; default: on)")
    args = parser.parse_args()
    if args.cpu_rewrite is not None:
        os.environ["GLUONLITE_CPU_REWRITE"] = "1" if args.cpu_rewrite == "on" else "0"
    if args.framework == "mxnet":
        import mxnet as mx
        print(json.dumps(run(mx, "mxnet", not args.zoo_only)))
        return
    sys.path.insert(0, os.path.join(HERE, ".."))
    import gluonlite as mx
    print(json.dumps(run(mx, "gluonlite", not args.zoo_only)))
    if not args.no_mxnet and os.path.exists(MXNET_PY):
        cmd = [MXNET_PY, __file__, "--framework", "mxnet"] + (["--zoo-only"] if args.zoo_only
                                                              else [])
        out = subprocess.run(cmd, capture_output=True, text=True, check=True)
        print(out.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
