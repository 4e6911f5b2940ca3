"""VGG 11/13/16/19 (Simonyan & Zisserman 2014), with and without BatchNorm,
with MXNet 1.9's block tree, names and initializers."""
from __future__ import annotations

from ....initializer import Xavier
from ...block import HybridBlock
from ... import nn
from ..model_store import load_pretrained

__all__ = ["VGG", "vgg11", "vgg13", "vgg16", "vgg19", "vgg11_bn", "vgg13_bn", "vgg16_bn",
           "vgg19_bn", "get_vgg"]


class VGG(HybridBlock):
    """VGG.

    Parameters
    ----------
    layers : list of int
        Convolutions per stage.
    filters : list of int
        Channels per stage.
    classes : int, default 1000
        Output classes.
    batch_norm : bool, default False
        BatchNorm after every convolution.
    """

    def __init__(self, layers, filters, classes: int = 1000, batch_norm: bool = False,
                 **kwargs):
        super().__init__(**kwargs)
        assert len(layers) == len(filters)
        with self.name_scope():
            self.features = self._make_features(layers, filters, batch_norm)
            for _ in range(2):
                self.features.add(nn.Dense(4096, activation="relu", weight_initializer="normal",
                                           bias_initializer="zeros"))
                self.features.add(nn.Dropout(rate=0.5))
            self.output = nn.Dense(classes, weight_initializer="normal",
                                   bias_initializer="zeros")

    @staticmethod
    def _make_features(layers, filters, batch_norm: bool):
        features = nn.HybridSequential(prefix="")
        for num, channels in zip(layers, filters):
            for _ in range(num):
                features.add(nn.Conv2D(channels, kernel_size=3, padding=1,
                                       weight_initializer=Xavier(rnd_type="gaussian",
                                                                 factor_type="out",
                                                                 magnitude=2),
                                       bias_initializer="zeros"))
                if batch_norm:
                    features.add(nn.BatchNorm())
                features.add(nn.Activation("relu"))
            features.add(nn.MaxPool2D(strides=2))
        return features

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


vgg_spec = {11: ([1, 1, 2, 2, 2], [64, 128, 256, 512, 512]),
            13: ([2, 2, 2, 2, 2], [64, 128, 256, 512, 512]),
            16: ([2, 2, 3, 3, 3], [64, 128, 256, 512, 512]),
            19: ([2, 2, 4, 4, 4], [64, 128, 256, 512, 512])}


def get_vgg(num_layers: int, pretrained: bool = False, ctx=None, root: str | None = None,
            **kwargs) -> VGG:
    """VGG with ``num_layers`` (11, 13, 16, 19); ``batch_norm=True`` for the BN variant;
    ``pretrained``, ``ctx``, ``root`` as in ``get_resnet``."""
    layers, filters = vgg_spec[num_layers]
    net = VGG(layers, filters, **kwargs)
    if pretrained:
        suffix = "_bn" if kwargs.get("batch_norm") else ""
        load_pretrained(net, f"vgg{num_layers}{suffix}", ctx, root)
    return net


def _factory(num_layers: int, batch_norm: bool):
    def make(**kwargs) -> VGG:
        if batch_norm:
            kwargs["batch_norm"] = True
        return get_vgg(num_layers, **kwargs)
    make.__name__ = f"vgg{num_layers}" + ("_bn" if batch_norm else "")
    make.__doc__ = f"VGG-{num_layers}" + (" with BatchNorm" if batch_norm else "") + "."
    return make


vgg11 = _factory(11, False)
vgg13 = _factory(13, False)
vgg16 = _factory(16, False)
vgg19 = _factory(19, False)
vgg11_bn = _factory(11, True)
vgg13_bn = _factory(13, True)
vgg16_bn = _factory(16, True)
vgg19_bn = _factory(19, True)
