"""One training step of a 2-layer LSTM language model on the CPU, against PyTorch and MXNet.

Usage::

    python3 bench/bench_lstm_lm.py                     # all three, one table
    python3 bench/bench_lstm_lm.py --framework gluonlite
    ~/.venvs/mxnet-ref/bin/python bench/bench_lstm_lm.py --framework mxnet
    ~/.venvs/torch/bin/python bench/bench_lstm_lm.py --framework torch
    python3 bench/run_bench.py bench_lstm_lm.py        # the same table via run_bench

Without ``--framework`` gluonlite runs in this process and PyTorch and MXNet 1.9.1 in
subprocesses with their side environments (``~/.venvs/torch``, ``~/.venvs/mxnet-ref``),
one after the other, so all three numbers come from the same run on the same machine.

The model is the word-level language model of MXNet's and PyTorch's examples without
dropout: ``Embedding(10000, 200)`` -> 2-layer ``LSTM(200)`` (time-major, the fused
operator / ``torch.nn.LSTM``) -> ``Dense(10000)`` decoder on every step; softmax
cross-entropy against the next tokens; plain SGD (lr 0.1).  A step is one batch of
``bptt`` 35 x batch 20 token ids: forward, loss, backward and the update, with the
hidden state carried over from the previous step and detached (truncated BPTT).  Gluon
networks are hybridized (``static_alloc=True``); PyTorch runs eager with as many threads
as cores.  Prints the median milliseconds per step over ``--steps`` after ``--warmup``.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

VOCAB, EMBED, HIDDEN, LAYERS, BPTT, BATCH, LR = 10000, 200, 200, 2, 35, 20, 0.1
PYTHONS = {"torch": os.path.expanduser("~/.venvs/torch/bin/python"),
           "mxnet": os.path.expanduser("~/.venvs/mxnet-ref/bin/python")}


def _batches(n: int = 8) -> list:
    """``n`` fixed (data, target) pairs of token ids, time-major ``(BPTT, BATCH)``."""
    rng = np.random.default_rng(0)
    tokens = rng.integers(0, VOCAB, size=(n * BPTT + 1, BATCH))
    return [(tokens[i * BPTT:(i + 1) * BPTT], tokens[i * BPTT + 1:(i + 1) * BPTT + 1])
            for i in range(n)]


def step_gluon(mx):
    """A closure running one training step of the Gluon model (gluonlite or MXNet)."""
    gluon = mx.gluon

    class LanguageModel(gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.embedding = gluon.nn.Embedding(VOCAB, EMBED)
                self.rnn = gluon.rnn.LSTM(HIDDEN, num_layers=LAYERS, input_size=EMBED)
                self.decoder = gluon.nn.Dense(VOCAB, flatten=False, in_units=HIDDEN)

        def hybrid_forward(self, F, data, h, c):
            out, (h, c) = self.rnn(self.embedding(data), [h, c])
            return self.decoder(out), h, c

    mx.random.seed(0)
    net = LanguageModel()
    net.initialize(mx.init.Xavier())
    net.hybridize(static_alloc=True)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": LR})
    batches = [(mx.nd.array(d), mx.nd.array(t)) for d, t in _batches()]
    state = [mx.nd.zeros((LAYERS, BATCH, HIDDEN)) for _ in range(2)]
    counter = [0]

    def step():
        data, target = batches[counter[0] % len(batches)]
        counter[0] += 1
        h, c = (s.detach() for s in state)
        with mx.autograd.record():
            out, state[0], state[1] = net(data, h, c)
            loss = loss_fn(out, target)
        loss.backward()
        trainer.step(BATCH)
        loss.wait_to_read()
        mx.nd.waitall()
    return step


def step_torch():
    """A closure running one training step of the PyTorch model."""
    import torch
    import torch.nn as tnn

    class LanguageModel(tnn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = tnn.Embedding(VOCAB, EMBED)
            self.rnn = tnn.LSTM(EMBED, HIDDEN, LAYERS)
            self.decoder = tnn.Linear(HIDDEN, VOCAB)

        def forward(self, data, state):
            out, state = self.rnn(self.embedding(data), state)
            return self.decoder(out), state

    torch.manual_seed(0)
    net = LanguageModel()
    loss_fn = tnn.CrossEntropyLoss()
    opt = torch.optim.SGD(net.parameters(), lr=LR)
    batches = [(torch.from_numpy(d), torch.from_numpy(t)) for d, t in _batches()]
    state = [(torch.zeros(LAYERS, BATCH, HIDDEN), torch.zeros(LAYERS, BATCH, HIDDEN))]
    counter = [0]

    def step():
        data, target = batches[counter[0] % len(batches)]
        counter[0] += 1
        hidden = tuple(s.detach() for s in state[0])
        opt.zero_grad(set_to_none=True)
        out, state[0] = net(data, hidden)
        loss = loss_fn(out.reshape(-1, VOCAB), target.reshape(-1))
        loss.backward()
        opt.step()
    return step


def measure(framework: str, steps: int, warmup: int) -> float:
    """Median milliseconds per training step of ``framework`` in this process."""
    if framework == "torch":
        import torch
        torch.set_num_threads(os.cpu_count() or 1)
        step = step_torch()
    else:
        step = step_gluon(__import__("mxnet" if framework == "mxnet" else "gluonlite"))
    for _ in range(warmup):
        step()
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        step()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def _in_subprocess(framework: str, steps: int, warmup: int) -> float | None:
    python = PYTHONS[framework]
    if not os.path.exists(python):
        print(f"# {framework}: {python} missing, skipped", file=sys.stderr)
        return None
    cmd = [python, os.path.abspath(__file__), "--framework", framework, "--json",
           "--steps", str(steps), "--warmup", str(warmup)]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        print(f"# {framework} failed:\n{res.stderr[-2000:]}", file=sys.stderr)
        return None
    line = [ln for ln in res.stdout.splitlines() if ln.startswith("{")][-1]
    return json.loads(line)["ms"]["LSTM LM training step"]


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--framework", default="all",
                    choices=("all", "gluonlite", "mxnet", "torch"))
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if args.framework != "all":
        ms = measure(args.framework, args.steps, args.warmup)
        if args.json:
            print(json.dumps({"framework": args.framework, "ms": {"LSTM LM training step": ms}}))
        else:
            print(f"{args.framework:10s} LSTM LM training step {ms:8.1f} ms")
        return {args.framework: ms}
    results = {"gluonlite": measure("gluonlite", args.steps, args.warmup)}
    for framework in ("torch", "mxnet"):
        results[framework] = _in_subprocess(framework, args.steps, args.warmup)
    print("| case | " + " | ".join(results) + " |")
    print("|---|" + "---|" * len(results))
    print("| LSTM LM training step (ms) | " + " | ".join(
        "-" if v is None else f"{v:.1f}" for v in results.values()) + " |")
    return results


if __name__ == "__main__":
    main()
