"""ResNet V1 (He et al. 2015) and V2 (pre-activation, He et al. 2016), 18 to 152 layers.

The block tree, prefixes and parameter names are MXNet 1.9's model zoo's, so its
``save_parameters`` files and exported graphs load into these nets.  (V1's
bottleneck keeps MXNet's bias on its first 1x1 convolution.)
"""
from __future__ import annotations

from ...block import HybridBlock
from ... import nn
from ..model_store import load_pretrained

__all__ = ["ResNetV1", "ResNetV2", "BasicBlockV1", "BasicBlockV2", "BottleneckV1",
           "BottleneckV2", "resnet18_v1", "resnet34_v1", "resnet50_v1", "resnet101_v1",
           "resnet152_v1", "resnet18_v2", "resnet34_v2", "resnet50_v2", "resnet101_v2",
           "resnet152_v2", "get_resnet"]


def _conv3x3(channels: int, stride: int, in_channels: int):
    return nn.Conv2D(channels, kernel_size=3, strides=stride, padding=1, use_bias=False,
                     in_channels=in_channels)


def _sequential(*blocks, prefix: str = ""):
    seq = nn.HybridSequential(prefix=prefix)
    seq.add(*blocks)
    return seq


def _projection_v1(channels: int, stride: int, in_channels: int):
    """V1 shortcut that changes shape: 1x1 convolution + BatchNorm."""
    return _sequential(nn.Conv2D(channels, kernel_size=1, strides=stride, use_bias=False,
                                 in_channels=in_channels), nn.BatchNorm())


class _ResidualV1(HybridBlock):
    """``relu(body(x) + shortcut(x))``; subclasses build ``body``."""

    def __init__(self, channels: int, stride: int, downsample: bool, in_channels: int,
                 **kwargs):
        super().__init__(**kwargs)
        self.body = self._make_body(channels, stride, in_channels)
        self.downsample = (_projection_v1(channels, stride, in_channels) if downsample
                           else None)

    def hybrid_forward(self, F, x):
        shortcut = self.downsample(x) if self.downsample else x
        return F.Activation(self.body(x) + shortcut, act_type="relu")


class BasicBlockV1(_ResidualV1):
    """Two 3x3 convolutions (ResNet-18/34 V1).

    Parameters
    ----------
    channels : int
        Output channels.
    stride : int
        Stride of the first convolution.
    downsample : bool, default False
        Project the shortcut (when the shape changes).
    in_channels : int, default 0
        Input channels (0: inferred).
    """

    def __init__(self, channels: int, stride: int, downsample: bool = False,
                 in_channels: int = 0, **kwargs):
        super().__init__(channels, stride, downsample, in_channels, **kwargs)

    @staticmethod
    def _make_body(channels, stride, in_channels):
        return _sequential(_conv3x3(channels, stride, in_channels), nn.BatchNorm(),
                           nn.Activation("relu"), _conv3x3(channels, 1, channels),
                           nn.BatchNorm())


class BottleneckV1(_ResidualV1):
    """1x1 - 3x3 - 1x1 bottleneck (ResNet-50/101/152 V1); parameters as :class:`BasicBlockV1`."""

    def __init__(self, channels: int, stride: int, downsample: bool = False,
                 in_channels: int = 0, **kwargs):
        super().__init__(channels, stride, downsample, in_channels, **kwargs)

    @staticmethod
    def _make_body(channels, stride, in_channels):
        inner = channels // 4
        return _sequential(nn.Conv2D(inner, kernel_size=1, strides=stride), nn.BatchNorm(),
                           nn.Activation("relu"), _conv3x3(inner, 1, inner), nn.BatchNorm(),
                           nn.Activation("relu"), nn.Conv2D(channels, kernel_size=1, strides=1),
                           nn.BatchNorm())


class _ResidualV2(HybridBlock):
    """Pre-activation residual: ``relu(bn1(x))`` feeds ``conv1`` (and the projected
    shortcut), then each further ``(bn_k, conv_k)`` pair runs as ``conv_k(relu(bn_k))``."""

    def _pairs(self) -> list:
        return [(self.bn2, self.conv2)]

    def hybrid_forward(self, F, x):
        x_act = F.Activation(self.bn1(x), act_type="relu")
        shortcut = self.downsample(x_act) if self.downsample else x
        out = self.conv1(x_act)
        for bn, conv in self._pairs():
            out = conv(F.Activation(bn(out), act_type="relu"))
        return out + shortcut


class BasicBlockV2(_ResidualV2):
    """Pre-activation block of two 3x3 convolutions (ResNet-18/34 V2).

    Parameters as :class:`BasicBlockV1`.
    """

    def __init__(self, channels: int, stride: int, downsample: bool = False,
                 in_channels: int = 0, **kwargs):
        super().__init__(**kwargs)
        self.bn1 = nn.BatchNorm()
        self.conv1 = _conv3x3(channels, stride, in_channels)
        self.bn2 = nn.BatchNorm()
        self.conv2 = _conv3x3(channels, 1, channels)
        self.downsample = (nn.Conv2D(channels, 1, stride, use_bias=False,
                                     in_channels=in_channels) if downsample else None)


class BottleneckV2(_ResidualV2):
    """Pre-activation 1x1 - 3x3 - 1x1 bottleneck (ResNet-50/101/152 V2).

    Parameters as :class:`BasicBlockV1`.
    """

    def __init__(self, channels: int, stride: int, downsample: bool = False,
                 in_channels: int = 0, **kwargs):
        super().__init__(**kwargs)
        inner = channels // 4
        self.bn1 = nn.BatchNorm()
        self.conv1 = nn.Conv2D(inner, kernel_size=1, strides=1, use_bias=False)
        self.bn2 = nn.BatchNorm()
        self.conv2 = _conv3x3(inner, stride, inner)
        self.bn3 = nn.BatchNorm()
        self.conv3 = nn.Conv2D(channels, kernel_size=1, strides=1, use_bias=False)
        self.downsample = (nn.Conv2D(channels, 1, stride, use_bias=False,
                                     in_channels=in_channels) if downsample else None)

    def _pairs(self) -> list:
        return [(self.bn2, self.conv2), (self.bn3, self.conv3)]


def _stem(channels: int, thumbnail: bool) -> list:
    if thumbnail:
        return [_conv3x3(channels, 1, 0)]
    return [nn.Conv2D(channels, 7, 2, 3, use_bias=False), nn.BatchNorm(),
            nn.Activation("relu"), nn.MaxPool2D(3, 2, 1)]


def _stage(block, num_blocks: int, channels: int, stride: int, index: int,
           in_channels: int):
    stage = nn.HybridSequential(prefix=f"stage{index}_")
    with stage.name_scope():
        stage.add(block(channels, stride, channels != in_channels, in_channels=in_channels,
                        prefix=""))
        for _ in range(num_blocks - 1):
            stage.add(block(channels, 1, False, in_channels=channels, prefix=""))
    return stage


class _ResNet(HybridBlock):
    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


class ResNetV1(_ResNet):
    """ResNet V1 from "Deep Residual Learning for Image Recognition".

    Parameters
    ----------
    block : type
        :class:`BasicBlockV1` or :class:`BottleneckV1`.
    layers : list of int
        Blocks per stage.
    channels : list of int
        Stem channels, then the channels of each stage (one more than ``layers``).
    classes : int, default 1000
        Output classes.
    thumbnail : bool, default False
        A single 3x3 stem convolution for small (CIFAR-sized) images.
    """

    def __init__(self, block, layers, channels, classes: int = 1000, thumbnail: bool = False,
                 **kwargs):
        super().__init__(**kwargs)
        assert len(layers) == len(channels) - 1
        with self.name_scope():
            self.features = _sequential(*_stem(channels[0], thumbnail))
            for i, num_blocks in enumerate(layers):
                self.features.add(_stage(block, num_blocks, channels[i + 1], 1 if i == 0 else 2,
                                         i + 1, channels[i]))
            self.features.add(nn.GlobalAvgPool2D())
            self.output = nn.Dense(classes, in_units=channels[-1])


class ResNetV2(_ResNet):
    """ResNet V2 from "Identity Mappings in Deep Residual Networks".

    Parameters as :class:`ResNetV1`, with :class:`BasicBlockV2` or :class:`BottleneckV2`.
    """

    def __init__(self, block, layers, channels, classes: int = 1000, thumbnail: bool = False,
                 **kwargs):
        super().__init__(**kwargs)
        assert len(layers) == len(channels) - 1
        with self.name_scope():
            # input normalisation without affine parameters, then the V1 stem
            self.features = _sequential(nn.BatchNorm(scale=False, center=False),
                                        *_stem(channels[0], thumbnail))
            in_channels = channels[0]
            for i, num_blocks in enumerate(layers):
                self.features.add(_stage(block, num_blocks, channels[i + 1], 1 if i == 0 else 2,
                                         i + 1, in_channels))
                in_channels = channels[i + 1]
            self.features.add(nn.BatchNorm(), nn.Activation("relu"), nn.GlobalAvgPool2D(),
                              nn.Flatten())
            self.output = nn.Dense(classes, in_units=in_channels)


resnet_spec = {18: ("basic_block", [2, 2, 2, 2], [64, 64, 128, 256, 512]),
               34: ("basic_block", [3, 4, 6, 3], [64, 64, 128, 256, 512]),
               50: ("bottle_neck", [3, 4, 6, 3], [64, 256, 512, 1024, 2048]),
               101: ("bottle_neck", [3, 4, 23, 3], [64, 256, 512, 1024, 2048]),
               152: ("bottle_neck", [3, 8, 36, 3], [64, 256, 512, 1024, 2048])}
resnet_net_versions = [ResNetV1, ResNetV2]
resnet_block_versions = [{"basic_block": BasicBlockV1, "bottle_neck": BottleneckV1},
                         {"basic_block": BasicBlockV2, "bottle_neck": BottleneckV2}]


def get_resnet(version: int, num_layers: int, pretrained: bool = False, ctx=None,
               root: str | None = None, **kwargs) -> HybridBlock:
    """ResNet ``version`` (1 or 2) with ``num_layers`` (18, 34, 50, 101, 152) layers.

    Parameters
    ----------
    version : int
        1 or 2.
    num_layers : int
        18, 34, 50, 101 or 152.
    pretrained : bool, default False
        Load MXNet's pretrained parameters from ``root``.
    ctx : Context, default cpu()
        Where the pretrained parameters are loaded.
    root : str, default ``$MXNET_HOME/models``
        Directory of the pretrained files.
    **kwargs
        Passed to :class:`ResNetV1` / :class:`ResNetV2` (``classes``, ``thumbnail``, ``prefix``).
    """
    assert num_layers in resnet_spec, \
        f"Invalid number of layers: {num_layers}. Options are {list(resnet_spec)}"
    assert version in (1, 2), f"Invalid resnet version: {version}. Options are 1 and 2."
    block_type, layers, channels = resnet_spec[num_layers]
    net = resnet_net_versions[version - 1](resnet_block_versions[version - 1][block_type],
                                           layers, channels, **kwargs)
    if pretrained:
        load_pretrained(net, f"resnet{num_layers}_v{version}", ctx, root)
    return net


def _factory(version: int, num_layers: int):
    def make(**kwargs) -> HybridBlock:
        return get_resnet(version, num_layers, **kwargs)
    make.__name__ = f"resnet{num_layers}_v{version}"
    make.__doc__ = (f"ResNet-{num_layers} V{version}; keyword arguments as "
                    ":func:`get_resnet` (``pretrained``, ``ctx``, ``root``, ``classes``).")
    return make


resnet18_v1 = _factory(1, 18)
resnet34_v1 = _factory(1, 34)
resnet50_v1 = _factory(1, 50)
resnet101_v1 = _factory(1, 101)
resnet152_v1 = _factory(1, 152)
resnet18_v2 = _factory(2, 18)
resnet34_v2 = _factory(2, 34)
resnet50_v2 = _factory(2, 50)
resnet101_v2 = _factory(2, 101)
resnet152_v2 = _factory(2, 152)
