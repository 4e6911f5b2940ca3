"""AlexNet (Krizhevsky 2014, "one weird trick" variant) with MXNet 1.9's names."""
from __future__ import annotations

from ...block import HybridBlock
from ... import nn
from ..model_store import load_pretrained

__all__ = ["AlexNet", "alexnet"]

# (channels, kernel, stride, padding, max-pool after)
_CONVS = [(64, 11, 4, 2, True), (192, 5, 1, 2, True), (384, 3, 1, 1, False),
          (256, 3, 1, 1, False), (256, 3, 1, 1, True)]


class AlexNet(HybridBlock):
    """AlexNet.

    Parameters
    ----------
    classes : int, default 1000
        Output classes.
    """

    def __init__(self, classes: int = 1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            with self.features.name_scope():
                for channels, kernel, stride, pad, pool in _CONVS:
                    self.features.add(nn.Conv2D(channels, kernel_size=kernel, strides=stride,
                                                padding=pad, activation="relu"))
                    if pool:
                        self.features.add(nn.MaxPool2D(pool_size=3, strides=2))
                self.features.add(nn.Flatten())
                for _ in range(2):
                    self.features.add(nn.Dense(4096, activation="relu"))
                    self.features.add(nn.Dropout(0.5))
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def alexnet(pretrained: bool = False, ctx=None, root: str | None = None, **kwargs) -> AlexNet:
    """AlexNet; ``pretrained``, ``ctx``, ``root`` as in ``get_resnet``."""
    net = AlexNet(**kwargs)
    if pretrained:
        load_pretrained(net, "alexnet", ctx, root)
    return net
