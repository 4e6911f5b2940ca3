"""Images per second of an image-folder input pipeline with 2 worker processes:
decode JPEG + RandomResizedCrop(224) + ToTensor + Normalize + batching.

gluonlite: ``gluon.data.vision.ImageFolderDataset`` + ``transforms`` +
``gluon.data.DataLoader(num_workers=2)``; PyTorch: ``torchvision.datasets.ImageFolder``
+ ``torchvision.transforms`` + ``torch.utils.data.DataLoader(num_workers=2)`` on the
same files.  Usage (the PyTorch half runs in its own venv, started by this script)::

    python3 bench/bench_dataloader.py [--images 512] [--epochs 5]
        [--torch-python ~/.venvs/torchvision/bin/python]

Prints the median images/s over the epochs (after one warm-up epoch) of each.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

BATCH = 32
MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)


def make_images(root: str, count: int, seed: int = 0) -> None:
    """``count`` JPEGs of about 256 x 256 (sizes vary) in 4 class folders."""
    from PIL import Image
    rng = np.random.default_rng(seed)
    for c in range(4):
        os.makedirs(os.path.join(root, f"class{c}"), exist_ok=True)
    for i in range(count):
        h, w = rng.integers(224, 300, 2)
        yy, xx = np.mgrid[0:h, 0:w]
        img = np.stack([(xx + i) % 256, (yy * 2) % 256, (xx + yy) % 256], -1)
        img = (img + rng.integers(0, 40, (h, w, 3))).clip(0, 255).astype(np.uint8)
        Image.fromarray(img).save(os.path.join(root, f"class{i % 4}", f"{i}.jpg"),
                                  quality=90)


def _epochs(loader, epochs: int, count: int) -> list:
    rates = []
    for epoch in range(epochs + 1):
        start = time.perf_counter()
        seen = 0
        for data, _ in loader:
            seen += data.shape[0]
        elapsed = time.perf_counter() - start
        assert seen == count, (seen, count)
        if epoch:  # the first epoch starts the workers
            rates.append(seen / elapsed)
    return rates


def run_gluonlite(root: str, epochs: int, count: int) -> list:
    import gluonlite as mx
    from gluonlite.gluon.data.vision import ImageFolderDataset, transforms
    transform = transforms.Compose([transforms.RandomResizedCrop(224), transforms.ToTensor(),
                                    transforms.Normalize(MEAN, STD)])
    dataset = ImageFolderDataset(root).transform_first(transform)
    loader = mx.gluon.data.DataLoader(dataset, batch_size=BATCH, shuffle=True,
                                      num_workers=2)
    return _epochs(loader, epochs, count)


def run_torch(root: str, epochs: int, count: int) -> list:
    import torch
    from torchvision import datasets, transforms
    torch.set_num_threads(1)
    transform = transforms.Compose([transforms.RandomResizedCrop(224), transforms.ToTensor(),
                                    transforms.Normalize(MEAN, STD)])
    loader = torch.utils.data.DataLoader(datasets.ImageFolder(root, transform), batch_size=BATCH,
                                         shuffle=True, num_workers=2)
    return _epochs(loader, epochs, count)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--images", type=int, default=512)
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--torch-python",
                    default=os.path.expanduser("~/.venvs/torchvision/bin/python"))
    ap.add_argument("--framework", choices=("both", "gluonlite", "torch"), default="both")
    ap.add_argument("--root", help="existing image folder (internal)")
    args = ap.parse_args()
    if args.root:
        runner = run_torch if args.framework == "torch" else run_gluonlite
        print(json.dumps(runner(args.root, args.epochs, args.images)))
        return
    with tempfile.TemporaryDirectory() as root:
        make_images(root, args.images)
        results = {}
        frameworks = ("gluonlite", "torch") if args.framework == "both" else (args.framework,)
        for name in frameworks:
            python = args.torch_python if name == "torch" else sys.executable
            cmd = [python, os.path.abspath(__file__), "--root", root, "--framework", name,
                   "--images", str(args.images), "--epochs", str(args.epochs)]
            env = dict(os.environ)
            env["PYTHONPATH"] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
            out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)
            results[name] = json.loads(out.stdout.strip().splitlines()[-1])
        for name, rates in results.items():
            print(f"{name:10s} images/s median {np.median(rates):7.1f}  "
                  f"(epochs: {', '.join(f'{r:.0f}' for r in rates)})")


if __name__ == "__main__":
    main()
