"""DenseNet 121/161/169/201 (Huang et al. 2016) with MXNet 1.9's block tree and names."""
from __future__ import annotations

from ...block import HybridBlock
from ... import nn
from ...contrib.nn import HybridConcurrent, Identity
from ..model_store import load_pretrained

__all__ = ["DenseNet", "densenet121", "densenet161", "densenet169", "densenet201"]


def _bn_relu_conv(seq, channels: int, kernel_size: int, padding: int = 0) -> None:
    seq.add(nn.BatchNorm(), nn.Activation("relu"),
            nn.Conv2D(channels, kernel_size=kernel_size, padding=padding, use_bias=False))


def _dense_layer(growth_rate: int, bn_size: int, dropout: float):
    """``concat([x, f(x)])`` where ``f`` is a 1x1 bottleneck then a 3x3 convolution."""
    new_features = nn.HybridSequential(prefix="")
    _bn_relu_conv(new_features, bn_size * growth_rate, 1)
    _bn_relu_conv(new_features, growth_rate, 3, padding=1)
    if dropout:
        new_features.add(nn.Dropout(dropout))
    layer = HybridConcurrent(axis=1, prefix="")
    layer.add(Identity(), new_features)
    return layer


def _dense_block(num_layers: int, bn_size: int, growth_rate: int, dropout: float,
                 stage_index: int):
    block = nn.HybridSequential(prefix=f"stage{stage_index}_")
    with block.name_scope():
        for _ in range(num_layers):
            block.add(_dense_layer(growth_rate, bn_size, dropout))
    return block


def _transition(channels: int):
    seq = nn.HybridSequential(prefix="")
    _bn_relu_conv(seq, channels, 1)
    seq.add(nn.AvgPool2D(pool_size=2, strides=2))
    return seq


class DenseNet(HybridBlock):
    """DenseNet.

    Parameters
    ----------
    num_init_features : int
        Channels of the stem convolution.
    growth_rate : int
        Channels each dense layer adds.
    block_config : list of int
        Dense layers per block.
    bn_size : int, default 4
        Bottleneck width as a multiple of ``growth_rate``.
    dropout : float, default 0
        Dropout after each dense layer.
    classes : int, default 1000
        Output classes.
    """

    def __init__(self, num_init_features: int, growth_rate: int, block_config,
                 bn_size: int = 4, dropout: float = 0, classes: int = 1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            self.features.add(nn.Conv2D(num_init_features, kernel_size=7, strides=2, padding=3,
                                        use_bias=False))
            self.features.add(nn.BatchNorm(), nn.Activation("relu"),
                              nn.MaxPool2D(pool_size=3, strides=2, padding=1))
            num_features = num_init_features
            for i, num_layers in enumerate(block_config):
                self.features.add(_dense_block(num_layers, bn_size, growth_rate, dropout, i + 1))
                num_features += num_layers * growth_rate
                if i != len(block_config) - 1:
                    num_features //= 2
                    self.features.add(_transition(num_features))
            self.features.add(nn.BatchNorm(), nn.Activation("relu"), nn.AvgPool2D(pool_size=7),
                              nn.Flatten())
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


densenet_spec = {121: (64, 32, [6, 12, 24, 16]),
                 161: (96, 48, [6, 12, 36, 24]),
                 169: (64, 32, [6, 12, 32, 32]),
                 201: (64, 32, [6, 12, 48, 32])}


def get_densenet(num_layers: int, pretrained: bool = False, ctx=None, root: str | None = None,
                 **kwargs) -> DenseNet:
    """DenseNet with ``num_layers`` (121, 161, 169, 201); ``pretrained``, ``ctx``, ``root``
    as in ``get_resnet``."""
    num_init_features, growth_rate, block_config = densenet_spec[num_layers]
    net = DenseNet(num_init_features, growth_rate, block_config, **kwargs)
    if pretrained:
        load_pretrained(net, f"densenet{num_layers}", ctx, root)
    return net


def _factory(num_layers: int):
    def make(**kwargs) -> DenseNet:
        return get_densenet(num_layers, **kwargs)
    make.__name__ = f"densenet{num_layers}"
    make.__doc__ = f"DenseNet-{num_layers} (``get_densenet({num_layers}, **kwargs)``)."
    return make


densenet121 = _factory(121)
densenet161 = _factory(161)
densenet169 = _factory(169)
densenet201 = _factory(201)
