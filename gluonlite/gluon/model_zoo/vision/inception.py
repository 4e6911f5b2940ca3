"""Inception V3 (Szegedy et al. 2015) with MXNet 1.9's block tree and names.

Each mixed block is a :class:`HybridConcurrent` of branches; a branch is an optional
pooling layer followed by "basic convolutions" (convolution without bias, BatchNorm
with epsilon 1e-3, ReLU), written below as tuples
``(channels, kernel_size, strides, padding)`` with ``None`` for the layer default.
"""
from __future__ import annotations

from ...block import HybridBlock
from ... import nn
from ...contrib.nn import HybridConcurrent
from ..model_store import load_pretrained

__all__ = ["Inception3", "inception_v3"]

_CONV_ARGS = ("channels", "kernel_size", "strides", "padding")


def _basic_conv(**kwargs):
    seq = nn.HybridSequential(prefix="")
    seq.add(nn.Conv2D(use_bias=False, **kwargs), nn.BatchNorm(epsilon=0.001),
            nn.Activation("relu"))
    return seq


def _branch(pool: str | None, *convs):
    seq = nn.HybridSequential(prefix="")
    if pool == "avg":
        seq.add(nn.AvgPool2D(pool_size=3, strides=1, padding=1))
    elif pool == "max":
        seq.add(nn.MaxPool2D(pool_size=3, strides=2))
    for setting in convs:
        seq.add(_basic_conv(**{k: v for k, v in zip(_CONV_ARGS, setting) if v is not None}))
    return seq


def _concurrent(prefix: str, *branches):
    """``branches`` are callables building the branches inside the block's name scope."""
    block = HybridConcurrent(axis=1, prefix=prefix)
    with block.name_scope():
        for make in branches:
            block.add(make())
    return block


def _make_A(pool_features: int, prefix: str):
    return _concurrent(
        prefix,
        lambda: _branch(None, (64, 1, None, None)),
        lambda: _branch(None, (48, 1, None, None), (64, 5, None, 2)),
        lambda: _branch(None, (64, 1, None, None), (96, 3, None, 1), (96, 3, None, 1)),
        lambda: _branch("avg", (pool_features, 1, None, None)))


def _make_B(prefix: str):
    return _concurrent(
        prefix,
        lambda: _branch(None, (384, 3, 2, None)),
        lambda: _branch(None, (64, 1, None, None), (96, 3, None, 1), (96, 3, 2, None)),
        lambda: _branch("max"))


def _make_C(c7: int, prefix: str):
    return _concurrent(
        prefix,
        lambda: _branch(None, (192, 1, None, None)),
        lambda: _branch(None, (c7, 1, None, None), (c7, (1, 7), None, (0, 3)),
                        (192, (7, 1), None, (3, 0))),
        lambda: _branch(None, (c7, 1, None, None), (c7, (7, 1), None, (3, 0)),
                        (c7, (1, 7), None, (0, 3)), (c7, (7, 1), None, (3, 0)),
                        (192, (1, 7), None, (0, 3))),
        lambda: _branch("avg", (192, 1, None, None)))


def _make_D(prefix: str):
    return _concurrent(
        prefix,
        lambda: _branch(None, (192, 1, None, None), (320, 3, 2, None)),
        lambda: _branch(None, (192, 1, None, None), (192, (1, 7), None, (0, 3)),
                        (192, (7, 1), None, (3, 0)), (192, 3, 2, None)),
        lambda: _branch("max"))


def _split_3x3(first):
    """``first`` then a 1x3 and a 3x1 convolution side by side."""
    seq = nn.HybridSequential(prefix="")
    seq.add(first)
    split = HybridConcurrent(axis=1, prefix="")
    split.add(_branch(None, (384, (1, 3), None, (0, 1))))
    split.add(_branch(None, (384, (3, 1), None, (1, 0))))
    seq.add(split)
    return seq


def _make_E(prefix: str):
    return _concurrent(
        prefix,
        lambda: _branch(None, (320, 1, None, None)),
        lambda: _split_3x3(_branch(None, (384, 1, None, None))),
        lambda: _split_3x3(_branch(None, (448, 1, None, None), (384, 3, None, 1))),
        lambda: _branch("avg", (192, 1, None, None)))


def make_aux(classes: int):
    """The auxiliary classifier head (kept for MXNet's API; Inception3 does not use it)."""
    seq = nn.HybridSequential(prefix="")
    seq.add(nn.AvgPool2D(pool_size=5, strides=3), _basic_conv(channels=128, kernel_size=1),
            _basic_conv(channels=768, kernel_size=5), nn.Flatten(), nn.Dense(classes))
    return seq


class Inception3(HybridBlock):
    """Inception V3 (input 299x299).

    Parameters
    ----------
    classes : int, default 1000
        Output classes.
    """

    def __init__(self, classes: int = 1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            self.features.add(_basic_conv(channels=32, kernel_size=3, strides=2))
            self.features.add(_basic_conv(channels=32, kernel_size=3))
            self.features.add(_basic_conv(channels=64, kernel_size=3, padding=1))
            self.features.add(nn.MaxPool2D(pool_size=3, strides=2))
            self.features.add(_basic_conv(channels=80, kernel_size=1))
            self.features.add(_basic_conv(channels=192, kernel_size=3))
            self.features.add(nn.MaxPool2D(pool_size=3, strides=2))
            self.features.add(_make_A(32, "A1_"), _make_A(64, "A2_"), _make_A(64, "A3_"))
            self.features.add(_make_B("B_"))
            self.features.add(_make_C(128, "C1_"), _make_C(160, "C2_"), _make_C(160, "C3_"),
                              _make_C(192, "C4_"))
            self.features.add(_make_D("D_"))
            self.features.add(_make_E("E1_"), _make_E("E2_"))
            self.features.add(nn.AvgPool2D(pool_size=8), nn.Dropout(0.5))
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def inception_v3(pretrained: bool = False, ctx=None, root: str | None = None,
                 **kwargs) -> Inception3:
    """Inception V3; ``pretrained``, ``ctx``, ``root`` as in ``get_resnet``."""
    net = Inception3(**kwargs)
    if pretrained:
        load_pretrained(net, "inceptionv3", ctx, root)
    return net
