"""GluonCV detectors and a GluonNLP BERT-base encoder: inference on the CPU, gluonlite
against MXNet 1.9.1 (issue 10's benchmark).

Usage (GluonCV 0.10.5 and GluonNLP 0.10.0 installed in each environment)::

    PYTHONPATH=. ~/.venvs/gl-cvnlp/bin/python bench/bench_gluoncv.py          # gluonlite
    ~/.venvs/mxnet-ref/bin/python bench/bench_gluoncv.py --framework mxnet

Cases: ``yolo3_mobilenet0.25_voc`` (416x416) and ``ssd_512_mobilenet1.0_voc`` (512x512),
batch 1 and 8; a BERT-base model (embeddings + 12-layer encoder, 768 units, 12 heads, no
pooler/decoder/classifier) on batch 8 x 128 tokens.  Parameters are random (``Normal(0.02)``; timing does not depend on them), networks
hybridized with ``static_alloc=True``; each figure is the median of ``--reps`` calls
after a warm-up call, in milliseconds.
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


def _framework(name: str):
    if name == "gluonlite":
        import gluonlite
        gluonlite.install_mxnet_alias()
    import mxnet as mx
    return mx


def _time(fn, reps: int) -> float:
    fn()  # warm-up (plans, caches)
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e3


def _detector(mx, name: str, size: int, batch: int, reps: int) -> float:
    import gluoncv
    net = gluoncv.model_zoo.get_model(name, pretrained=False, pretrained_base=False)
    net.initialize(mx.init.Normal(0.02))
    net.hybridize(static_alloc=True)
    x = mx.nd.array(np.random.default_rng(0).uniform(size=(batch, 3, size, size)))

    def run():
        outs = net(x)
        outs[0].wait_to_read()
    return _time(run, reps)


def _bert(mx, batch: int, length: int, reps: int) -> float:
    import gluonnlp
    encoder = gluonnlp.model.BERTEncoder(num_layers=12, units=768, hidden_size=3072,
                                         max_length=512, num_heads=12, dropout=0.0)
    net = gluonnlp.model.BERTModel(encoder, vocab_size=30522, token_type_vocab_size=2,
                                   units=768, embed_size=768, use_pooler=False,
                                   use_decoder=False, use_classifier=False)
    net.initialize(mx.init.Normal(0.02))
    net.hybridize(static_alloc=True)
    rng = np.random.default_rng(0)
    tokens = mx.nd.array(rng.integers(0, 30522, (batch, length)))
    types = mx.nd.zeros((batch, length))
    valid = mx.nd.array([length] * batch)

    def run():
        out = net(tokens, types, valid)
        (out[0] if isinstance(out, (list, tuple)) else out).wait_to_read()
    return _time(run, reps)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--framework", choices=("gluonlite", "mxnet"), default="gluonlite")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--only", default="", help="run the cases whose name contains this")
    args = parser.parse_args()
    mx = _framework(args.framework)
    results = {}
    for name, size in (("yolo3_mobilenet0.25_voc", 416), ("ssd_512_mobilenet1.0_voc", 512)):
        for batch in (1, 8):
            case = f"{name} batch {batch}"
            if args.only in case:
                results[case] = _detector(mx, name, size, batch, args.reps)
    case = "BERT-base, batch 8 x 128 tokens"
    if args.only in case:
        results[case] = _bert(mx, 8, 128, args.reps)
    if args.json:
        print(json.dumps(results))
        return
    for case, ms in results.items():
        print(f"{args.framework:<10} {case:<40} {ms:10.1f} ms")


if __name__ == "__main__":
    main()
