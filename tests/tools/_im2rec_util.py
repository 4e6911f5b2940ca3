"""Helpers of the im2rec tests: small image trees and reading packed files back."""
from __future__ import annotations

import io
import os

import numpy as np

import gluonlite as mx


def save_image(path: str, arr: np.ndarray, fmt: str = "PNG", **kw) -> bytes:
    """Write ``arr`` (RGB, RGBA or grey uint8) to ``path`` with Pillow; its bytes."""
    from PIL import Image
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, format=fmt, **kw)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(buf.getvalue())
    return buf.getvalue()


def make_tree(root: str, seed: int = 0) -> dict:
    """``root/{x.png, cls_a/*.png, cls_b/*.jpg, cls_b/skip.txt}``: relative path ->
    RGB array of each image (None for the JPEG, which is lossy)."""
    rng = np.random.default_rng(seed)
    images = {}
    for rel, shape, fmt in [("x.png", (6, 9, 3), "PNG"), ("cls_a/a0.png", (10, 7, 3), "PNG"),
                            ("cls_a/a1.png", (8, 8, 3), "PNG"),
                            ("cls_b/b0.jpg", (12, 16, 3), "JPEG"),
                            ("cls_b/b1.JPG", (9, 11, 3), "JPEG")]:
        arr = rng.integers(0, 256, shape, dtype=np.uint8)
        save_image(os.path.join(root, rel), arr, fmt)
        images[rel] = arr if fmt == "PNG" else None
    with open(os.path.join(root, "cls_b", "skip.txt"), "w") as f:
        f.write("not an image")
    return images


def read_lst_lines(path: str) -> list:
    with open(path) as f:
        return [line.rstrip("\n").split("\t") for line in f]


def read_records(prefix: str) -> dict:
    """``{key: (IRHeader, payload bytes)}`` of ``prefix.rec``/``prefix.idx``."""
    record = mx.recordio.MXIndexedRecordIO(prefix + ".idx", prefix + ".rec", "r")
    try:
        return {key: mx.recordio.unpack(record.read_idx(key)) for key in record.keys}
    finally:
        record.close()


def record_keys(prefix: str) -> list:
    record = mx.recordio.MXIndexedRecordIO(prefix + ".idx", prefix + ".rec", "r")
    try:
        return list(record.keys)
    finally:
        record.close()
