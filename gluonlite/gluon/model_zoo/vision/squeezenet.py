"""SqueezeNet 1.0 and 1.1 (Iandola et al. 2016), with MXNet 1.9's block tree and names."""
from __future__ import annotations

from ...block import HybridBlock
from ... import nn
from ...contrib.nn import HybridConcurrent
from ..model_store import load_pretrained

__all__ = ["SqueezeNet", "squeezenet1_0", "squeezenet1_1"]


def _conv_relu(channels: int, kernel_size: int, padding: int = 0):
    seq = nn.HybridSequential(prefix="")
    seq.add(nn.Conv2D(channels, kernel_size, padding=padding), nn.Activation("relu"))
    return seq


def _fire(squeeze: int, expand1x1: int, expand3x3: int):
    """Fire module: a 1x1 squeeze, then 1x1 and 3x3 expansions concatenated on channels."""
    fire = nn.HybridSequential(prefix="")
    fire.add(_conv_relu(squeeze, 1))
    expand = HybridConcurrent(axis=1, prefix="")
    expand.add(_conv_relu(expand1x1, 1), _conv_relu(expand3x3, 3, 1))
    fire.add(expand)
    return fire


def _pool():
    return nn.MaxPool2D(pool_size=3, strides=2, ceil_mode=True)


# the feature stack after the stem: "P" is a pooling layer, a triple a fire module
_LAYOUT = {
    "1.0": ((96, 7), [(16, 64, 64), (16, 64, 64), (32, 128, 128), "P", (32, 128, 128),
                      (48, 192, 192), (48, 192, 192), (64, 256, 256), "P", (64, 256, 256)]),
    "1.1": ((64, 3), [(16, 64, 64), (16, 64, 64), "P", (32, 128, 128), (32, 128, 128), "P",
                      (48, 192, 192), (48, 192, 192), (64, 256, 256), (64, 256, 256)]),
}


class SqueezeNet(HybridBlock):
    """SqueezeNet.

    Parameters
    ----------
    version : str
        ``'1.0'`` or ``'1.1'``.
    classes : int, default 1000
        Output classes.
    """

    def __init__(self, version: str, classes: int = 1000, **kwargs):
        super().__init__(**kwargs)
        assert version in _LAYOUT, \
            f"Unsupported SqueezeNet version {version}:1.0 or 1.1 expected"
        (stem_channels, stem_kernel), layers = _LAYOUT[version]
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            self.features.add(nn.Conv2D(stem_channels, kernel_size=stem_kernel, strides=2))
            self.features.add(nn.Activation("relu"))
            self.features.add(_pool())
            for layer in layers:
                self.features.add(_pool() if layer == "P" else _fire(*layer))
            self.features.add(nn.Dropout(0.5))
            self.output = nn.HybridSequential(prefix="")
            self.output.add(nn.Conv2D(classes, kernel_size=1))
            self.output.add(nn.Activation("relu"))
            self.output.add(nn.AvgPool2D(13))
            self.output.add(nn.Flatten())

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def get_squeezenet(version: str, pretrained: bool = False, ctx=None, root: str | None = None,
                   **kwargs) -> SqueezeNet:
    """SqueezeNet ``version``; ``pretrained``, ``ctx``, ``root`` as in ``get_resnet``."""
    net = SqueezeNet(version, **kwargs)
    if pretrained:
        load_pretrained(net, f"squeezenet{version}", ctx, root)
    return net


def squeezenet1_0(**kwargs) -> SqueezeNet:
    """SqueezeNet 1.0 (``get_squeezenet('1.0', **kwargs)``)."""
    return get_squeezenet("1.0", **kwargs)


def squeezenet1_1(**kwargs) -> SqueezeNet:
    """SqueezeNet 1.1 (``get_squeezenet('1.1', **kwargs)``)."""
    return get_squeezenet("1.1", **kwargs)
