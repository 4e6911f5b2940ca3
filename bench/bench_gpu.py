"""GPU speed: gluonlite against PyTorch eager on the same GPU, in one process.

Usage::

    python3 bench/bench_gpu.py                     # every case
    python3 bench/bench_gpu.py --cases conv,lstm   # a subset
    python3 bench/bench_gpu.py --json out.json     # also write the results

Cases (float32 unless named; fwd+bwd means forward recorded by autograd and a
backward with a head gradient of ones):

* ``conv``: Convolution 64->64, 3x3, pad 1, on (32, 64, 56, 56), fwd+bwd;
* ``pool``: max pooling 2x2 stride 2 on (32, 64, 56, 56), fwd+bwd;
* ``batchnorm``: BatchNorm in training mode on (32, 64, 56, 56), fwd+bwd;
* ``lstm``: one LSTM layer, hidden 512, input 512, batch 64, 35 steps, fwd+bwd;
* ``lenet``: LeNet inference, batch 64, 28x28, hybridized with static_alloc/shape;
* ``mlp``: MLP 784-512-512-10 train step (forward, softmax cross-entropy,
  backward, SGD update), batch 128, hybridized;
* ``mobilenet``: the MXNet-exported mobilenet0.25 and mobilenetv2_0.25 fixtures
  (``SymbolBlock.imports``), inference, batch 8, 3x64x64; PyTorch's counterpart of
  the second is torchvision's ``mobilenet_v2(width_mult=0.25)``;
* ``resnet18``: ResNet-18 v1 train step, batch 32, 224x224, float32 and float16
  (PyTorch: torchvision ``resnet18``, same step), plus the first call of a new
  shape (plan and cuDNN set-up included);
* ``tiny``: one elementwise add of two 4x4 arrays, per call: gluonlite
  ``nd`` imperative, PyTorch, and a raw CuPy ``cupy.add``;
* ``fusion``: the 10-op elementwise chain on 16M float32 values as one fused
  kernel, against the unfused ops and the measured device-to-device copy
  bandwidth (bytes read + written per second).

PyTorch runs with TF32 off (``torch.backends.cudnn.allow_tf32 = False``): gluonlite
computes float32 convolutions in full float32 by default, as MXNet does.
Times are medians over ``--steps`` steps after warm-up, the device synchronised
around each step (host clock), in milliseconds.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)
from bench_ops import _median_ms  # noqa: E402 - the same timing as the CPU/GPU op bench
MODELS = os.path.join(HERE, "..", "tests", "fixtures", "models")
# ResNet-18 batch and image size (``--device cpu`` checks the code on small ones)
RESNET = {"batch": 32, "size": 224}


def median_ms(step, sync, steps: int, warmup: int = 3) -> float:
    """Median milliseconds of ``step`` (synchronised) after ``warmup`` calls."""
    return _median_ms(step, sync, steps, warmup)


class Bench:
    """Both frameworks' handles, shared by the cases."""

    def __init__(self, steps: int, device: str = "gpu"):
        import torch
        import gluonlite as mx
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cuda.matmul.allow_tf32 = False
        self.gpu = device == "gpu"
        if self.gpu:
            import cupy as cp
            self.cp = cp
        self.torch, self.mx = torch, mx
        self.ctx = mx.gpu(0) if self.gpu else mx.cpu()
        self.dev = torch.device("cuda" if self.gpu else "cpu")
        self.steps = steps
        self.rng = np.random.default_rng(0)

    def gsync(self):
        if self.gpu:
            self.cp.cuda.get_current_stream().synchronize()

    def tsync(self):
        if self.gpu:
            self.torch.cuda.synchronize()

    def both(self, gl_step, torch_step, steps=None) -> dict:
        steps = steps or self.steps
        res = {"gluonlite_ms": median_ms(gl_step, self.gsync, steps)}
        if torch_step is not None:
            res["torch_ms"] = median_ms(torch_step, self.tsync, steps)
            res["ratio"] = res["gluonlite_ms"] / res["torch_ms"]
        if self.gpu:
            self.cp.get_default_memory_pool().free_all_blocks()
            self.torch.cuda.empty_cache()
        return res

    def nd(self, *shape, grad=True, dtype=np.float32):
        a = self.mx.nd.array(self.rng.standard_normal(shape).astype(dtype), ctx=self.ctx,
                             dtype=dtype)
        if grad:
            a.attach_grad()
        return a

    def tt(self, a, grad=True):
        t = self.torch.tensor(a.asnumpy(), device=self.dev)
        return t.requires_grad_(grad)


def _fwd_bwd(mx, fn):
    def step():
        with mx.autograd.record():
            y = fn()
        y.backward()
    return step


def _tb(fn):
    """PyTorch forward + backward with a head gradient of ones."""
    y = fn()
    y.backward(y.new_ones(y.shape))


def case_conv(b: Bench) -> dict:
    mx, F = b.mx, b.torch.nn.functional
    x, w, bias = b.nd(32, 64, 56, 56), b.nd(64, 64, 3, 3), b.nd(64)
    tx, tw, tb = b.tt(x), b.tt(w), b.tt(bias)
    return b.both(_fwd_bwd(mx, lambda: mx.nd.Convolution(x, w, bias, kernel=(3, 3), pad=(1, 1),
                                                         num_filter=64)),
                  lambda: _tb(lambda: F.conv2d(tx, tw, tb, padding=1)))


def case_pool(b: Bench) -> dict:
    mx, F = b.mx, b.torch.nn.functional
    x = b.nd(32, 64, 56, 56)
    tx = b.tt(x)
    return b.both(_fwd_bwd(mx, lambda: mx.nd.Pooling(x, kernel=(2, 2), stride=(2, 2),
                                                     pool_type="max")),
                  lambda: _tb(lambda: F.max_pool2d(tx, 2, 2)))


def case_batchnorm(b: Bench) -> dict:
    mx, F = b.mx, b.torch.nn.functional
    x, gamma, beta = b.nd(32, 64, 56, 56), b.nd(64), b.nd(64)
    mean, var = b.nd(64, grad=False), mx.nd.ones((64,), ctx=b.ctx)
    tx, tg, tbeta = b.tt(x), b.tt(gamma), b.tt(beta)
    tm, tv = b.torch.zeros(64, device=b.dev), b.torch.ones(64, device=b.dev)
    return b.both(_fwd_bwd(mx, lambda: mx.nd.BatchNorm(x, gamma, beta, mean, var,
                                                       fix_gamma=False)),
                  lambda: _tb(lambda: F.batch_norm(tx, tm, tv, tg, tbeta, training=True)))


def case_lstm(b: Bench) -> dict:
    mx, torch = b.mx, b.torch
    seq, batch, n_in, h = 35, 64, 512, 512
    n_params = 4 * h * (n_in + h) + 8 * h
    x = b.nd(seq, batch, n_in)
    params = mx.nd.array(b.rng.uniform(-0.05, 0.05, n_params).astype(np.float32), ctx=b.ctx)
    params.attach_grad()
    h0, c0 = (mx.nd.zeros((1, batch, h), ctx=b.ctx) for _ in range(2))
    lstm = torch.nn.LSTM(n_in, h).to(b.dev)
    tx = b.tt(x)
    return b.both(_fwd_bwd(mx, lambda: mx.nd.RNN(x, params, h0, c0, state_size=h, num_layers=1,
                                                 mode="lstm")),
                  lambda: _tb(lambda: lstm(tx)[0]))


def _lenet_gluon(mx):
    nn = mx.gluon.nn
    net = nn.HybridSequential()
    net.add(nn.Conv2D(20, 5, activation="relu"), nn.MaxPool2D(2, 2),
            nn.Conv2D(50, 5, activation="relu"), nn.MaxPool2D(2, 2), nn.Flatten(),
            nn.Dense(500, activation="relu"), nn.Dense(10))
    return net


def _lenet_torch(torch):
    nn = torch.nn
    return nn.Sequential(nn.Conv2d(1, 20, 5), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(20, 50, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                         nn.Linear(800, 500), nn.ReLU(), nn.Linear(500, 10))


def case_lenet(b: Bench) -> dict:
    mx, torch = b.mx, b.torch
    net = _lenet_gluon(mx)
    net.initialize(mx.init.Xavier(), ctx=b.ctx)
    net.hybridize(static_alloc=True, static_shape=True)
    x = b.nd(64, 1, 28, 28, grad=False)
    tnet = _lenet_torch(torch).to(b.dev).eval()
    tx = b.tt(x, grad=False)

    def tstep():
        with torch.no_grad():
            tnet(tx)
    return b.both(lambda: net(x), tstep, steps=b.steps * 5)


def case_mlp(b: Bench) -> dict:
    mx, torch = b.mx, b.torch
    nn = mx.gluon.nn
    net = nn.HybridSequential()
    net.add(nn.Dense(512, activation="relu"), nn.Dense(512, activation="relu"), nn.Dense(10))
    net.initialize(mx.init.Xavier(), ctx=b.ctx)
    net.hybridize(static_alloc=True, static_shape=True)
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.01})
    x = b.nd(128, 784, grad=False)
    label = mx.nd.array(b.rng.integers(0, 10, 128), ctx=b.ctx)

    def step():
        with mx.autograd.record():
            loss = loss_fn(net(x), label)
        loss.backward()
        trainer.step(128)
    tn = torch.nn
    tnet = tn.Sequential(tn.Linear(784, 512), tn.ReLU(), tn.Linear(512, 512), tn.ReLU(),
                         tn.Linear(512, 10)).to(b.dev)
    opt = torch.optim.SGD(tnet.parameters(), lr=0.01)
    tx = b.tt(x, grad=False)
    tl = torch.tensor(label.asnumpy().astype(np.int64), device=b.dev)

    def tstep():
        opt.zero_grad()
        torch.nn.functional.cross_entropy(tnet(tx), tl).backward()
        opt.step()
    return b.both(step, tstep, steps=b.steps * 5)


def _torch_inference(torch, net, x):
    def step():
        with torch.no_grad():
            net(x)
    return step


def case_mobilenet(b: Bench) -> dict:
    mx, torch = b.mx, b.torch
    import torchvision
    res = {}
    x = b.nd(8, 3, 64, 64, grad=False)
    for name in ("mobilenet0.25", "mobilenetv2_0.25"):
        net = mx.gluon.SymbolBlock.imports(os.path.join(MODELS, f"{name}-symbol.json"),
                                           ["data"], os.path.join(MODELS, f"{name}-0000.params"),
                                           ctx=b.ctx)
        net.hybridize(static_alloc=True, static_shape=True)
        tstep = None
        if name == "mobilenetv2_0.25":
            tnet = torchvision.models.mobilenet_v2(width_mult=0.25).to(b.dev).eval()
            tstep = _torch_inference(torch, tnet, b.tt(x, grad=False))
        r = b.both(lambda: net(x), tstep, steps=b.steps * 3)
        res.update({f"{name}_{k}": v for k, v in r.items()})
    return res


def case_resnet18(b: Bench) -> dict:
    mx, torch = b.mx, b.torch
    import torchvision
    res = {}
    for dtype in ("float32", "float16"):
        net = mx.gluon.model_zoo.vision.resnet18_v1()
        net.initialize(mx.init.Xavier(), ctx=b.ctx)
        if dtype == "float16":
            net.cast("float16")
        net.hybridize(static_alloc=True, static_shape=True)
        loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
        trainer = mx.gluon.Trainer(net.collect_params(), "sgd",
                                   {"learning_rate": 0.01, "momentum": 0.9})
        batch, size = RESNET["batch"], RESNET["size"]
        x = b.nd(batch, 3, size, size, grad=False, dtype=np.dtype(dtype))
        label = mx.nd.array(b.rng.integers(0, 1000, batch), ctx=b.ctx, dtype=dtype)

        def step():
            with mx.autograd.record():
                loss = loss_fn(net(x), label)
            loss.backward()
            trainer.step(batch)
        t0 = time.perf_counter()
        step()
        b.gsync()
        res[f"resnet18_{dtype}_first_call_s"] = time.perf_counter() - t0
        tnet = torchvision.models.resnet18().to(b.dev)
        if dtype == "float16":
            tnet = tnet.half()
        opt = torch.optim.SGD(tnet.parameters(), lr=0.01, momentum=0.9)
        tx = b.tt(x, grad=False)
        tl = torch.tensor(label.asnumpy().astype(np.int64), device=b.dev)

        def tstep():
            opt.zero_grad()
            torch.nn.functional.cross_entropy(tnet(tx).float(), tl).backward()
            opt.step()
        r = b.both(step, tstep)
        res.update({f"resnet18_{dtype}_{k}": v for k, v in r.items()})
    return res


def case_tiny(b: Bench) -> dict:
    cp = b.cp
    x, y = b.nd(4, 4, grad=False), b.nd(4, 4, grad=False)
    cx, cy = x._data, y._data
    tx, ty = b.tt(x, grad=False), b.tt(y, grad=False)
    n = 2000

    def per_call(fn, sync):
        fn()
        sync()
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            sync()
            best = min(best, (time.perf_counter() - t0) / n * 1e6)
        return best
    res = {"gluonlite_us": per_call(lambda: x + y, b.gsync),
           "cupy_us": per_call(lambda: cp.add(cx, cy), b.gsync),
           "torch_us": per_call(lambda: tx + ty, b.tsync)}
    res["ratio_to_cupy"] = res["gluonlite_us"] / res["cupy_us"]
    return res


def _copy_bandwidth(b: Bench, nbytes: int) -> float:
    """Bytes read + written per second by a device-to-device copy of ``nbytes``."""
    src = b.cp.empty(nbytes, b.cp.uint8)
    dst = b.cp.empty_like(src)
    ms = median_ms(lambda: b.cp.copyto(dst, src), b.gsync, 20)
    return 2 * nbytes / (ms / 1e3)


def case_fusion(b: Bench) -> dict:
    mx, cp = b.mx, b.cp
    from gluonlite.engine import CachedOp
    n = 16 * 1024 * 1024
    xs = [cp.random.uniform(-1, 1, n, dtype=cp.float32) for _ in range(2)]
    copy_bw = _copy_bandwidth(b, 64 * n)
    xv, bv = mx.sym.var("x"), mx.sym.var("b")
    t = mx.sym.sigmoid(xv * 2.0 + 1.0) * bv - 0.5
    head = mx.sym.exp(mx.sym.relu(mx.sym.tanh(t)) + xv) / 3.0
    op = CachedOp(head, [("static_alloc", True)])
    args = [mx.nd.array(a, ctx=b.ctx) for a in xs]
    fused_ms = median_ms(lambda: op(*args), b.gsync, 50)

    def unfused():
        a, c = args
        u = mx.nd.sigmoid(a * 2.0 + 1.0) * c - 0.5
        return mx.nd.exp(mx.nd.relu(mx.nd.tanh(u)) + a) / 3.0
    unfused_ms = median_ms(unfused, b.gsync, 20)
    moved = 3 * n * 4
    return {"fused_ms": fused_ms, "unfused_ms": unfused_ms,
            "fused_GBps": moved / (fused_ms / 1e3) / 1e9, "copy_GBps": copy_bw / 1e9,
            "fraction_of_copy": moved / (fused_ms / 1e3) / copy_bw}


CASES = {"conv": case_conv, "pool": case_pool, "batchnorm": case_batchnorm,
         "lstm": case_lstm, "lenet": case_lenet, "mlp": case_mlp, "mobilenet": case_mobilenet,
         "resnet18": case_resnet18, "tiny": case_tiny, "fusion": case_fusion}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--json")
    ap.add_argument("--device", default="gpu", choices=("gpu", "cpu"),
                    help="cpu: a quick check of the cases' code (tiny and fusion need a GPU)")
    args = ap.parse_args()
    if args.device == "cpu":
        RESNET.update(batch=2, size=64)
    b = Bench(args.steps, args.device)
    import gluonlite.ops._cudnn_lib as cudnn
    results = {"device": "cpu", "torch": b.torch.__version__}
    if b.gpu:
        props = b.cp.cuda.runtime.getDeviceProperties(0)
        name = props["name"]
        results.update(device=name.decode() if isinstance(name, bytes) else str(name),
                       cudnn=cudnn.library().version if cudnn.library() else None,
                       cupy=b.cp.__version__)
    print(json.dumps(results), flush=True)
    for name in args.cases.split(","):
        try:
            results[name] = CASES[name](b)
        except Exception as e:  # report and go on: one broken case must not hide the rest
            results[name] = {"error": f"{type(e).__name__}: {e}"}
        print(name, json.dumps(results[name]), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
