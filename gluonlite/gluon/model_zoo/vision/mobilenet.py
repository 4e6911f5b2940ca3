"""MobileNet V1 (Howard et al. 2017) and V2 (Sandler et al. 2018) with width multipliers.

Block tree, prefixes and parameter names follow MXNet 1.9's model zoo, so its
parameter files load into these nets.
"""
from __future__ import annotations

from ...block import HybridBlock
from ... import nn
from ..model_store import load_pretrained

__all__ = ["MobileNet", "MobileNetV2", "mobilenet1_0", "mobilenet_v2_1_0", "mobilenet0_75",
           "mobilenet_v2_0_75", "mobilenet0_5", "mobilenet_v2_0_5", "mobilenet0_25",
           "mobilenet_v2_0_25", "get_mobilenet", "get_mobilenet_v2"]


class RELU6(HybridBlock):
    """``clip(x, 0, 6)``."""

    def hybrid_forward(self, F, x):
        return F.clip(x, 0, 6, name="relu6")


def _add_conv(seq, channels: int = 1, kernel: int = 1, stride: int = 1, pad: int = 0,
              num_group: int = 1, active: bool = True, relu6: bool = False) -> None:
    """Append convolution (no bias) + BatchNorm (+ ReLU or ReLU6) to ``seq``."""
    seq.add(nn.Conv2D(channels, kernel, stride, pad, groups=num_group, use_bias=False))
    seq.add(nn.BatchNorm(scale=True))
    if active:
        seq.add(RELU6() if relu6 else nn.Activation("relu"))


def _add_conv_dw(seq, dw_channels: int, channels: int, stride: int,
                 relu6: bool = False) -> None:
    """Depthwise 3x3 then pointwise 1x1, each with BatchNorm and activation."""
    _add_conv(seq, channels=dw_channels, kernel=3, stride=stride, pad=1,
              num_group=dw_channels, relu6=relu6)
    _add_conv(seq, channels=channels, relu6=relu6)


class LinearBottleneck(HybridBlock):
    """MobileNetV2's inverted residual: expand 1x1, depthwise 3x3, linear project 1x1.

    Parameters
    ----------
    in_channels : int
        Input channels.
    channels : int
        Output channels.
    t : int
        Expansion factor.
    stride : int
        Depthwise stride; the input is added back when it is 1 and the channels agree.
    """

    def __init__(self, in_channels: int, channels: int, t: int, stride: int, **kwargs):
        super().__init__(**kwargs)
        self.use_shortcut = stride == 1 and in_channels == channels
        expanded = in_channels * t
        with self.name_scope():
            self.out = nn.HybridSequential()
            _add_conv(self.out, expanded, relu6=True)
            _add_conv(self.out, expanded, kernel=3, stride=stride, pad=1, num_group=expanded,
                      relu6=True)
            _add_conv(self.out, channels, active=False, relu6=True)

    def hybrid_forward(self, F, x):
        out = self.out(x)
        return F.elemwise_add(out, x) if self.use_shortcut else out


def _scaled(multiplier: float, widths) -> list:
    return [int(w * multiplier) for w in widths]


class MobileNet(HybridBlock):
    """MobileNet V1.

    Parameters
    ----------
    multiplier : float, default 1.0
        Width multiplier applied to every layer's channels.
    classes : int, default 1000
        Output classes.
    """

    def __init__(self, multiplier: float = 1.0, classes: int = 1000, **kwargs):
        super().__init__(**kwargs)
        dw_channels = _scaled(multiplier, [32, 64] + [128] * 2 + [256] * 2 + [512] * 6 + [1024])
        channels = _scaled(multiplier, [64] + [128] * 2 + [256] * 2 + [512] * 6 + [1024] * 2)
        strides = [1, 2] * 3 + [1] * 5 + [2, 1]
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="")
            with self.features.name_scope():
                _add_conv(self.features, channels=int(32 * multiplier), kernel=3, pad=1,
                          stride=2)
                for dwc, c, s in zip(dw_channels, channels, strides):
                    _add_conv_dw(self.features, dw_channels=dwc, channels=c, stride=s)
                self.features.add(nn.GlobalAvgPool2D(), nn.Flatten())
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


class MobileNetV2(HybridBlock):
    """MobileNet V2; parameters as :class:`MobileNet`."""

    def __init__(self, multiplier: float = 1.0, classes: int = 1000, **kwargs):
        super().__init__(**kwargs)
        in_group = _scaled(multiplier, [32] + [16] + [24] * 2 + [32] * 3 + [64] * 4 + [96] * 3
                           + [160] * 3)
        out_group = _scaled(multiplier, [16] + [24] * 2 + [32] * 3 + [64] * 4 + [96] * 3
                            + [160] * 3 + [320])
        expansions = [1] + [6] * 16
        strides = [1, 2] * 2 + [1, 1, 2] + [1] * 6 + [2] + [1] * 3
        with self.name_scope():
            self.features = nn.HybridSequential(prefix="features_")
            with self.features.name_scope():
                _add_conv(self.features, int(32 * multiplier), kernel=3, stride=2, pad=1,
                          relu6=True)
                for in_c, c, t, s in zip(in_group, out_group, expansions, strides):
                    self.features.add(LinearBottleneck(in_channels=in_c, channels=c, t=t,
                                                       stride=s))
                last_channels = int(1280 * multiplier) if multiplier > 1.0 else 1280
                _add_conv(self.features, last_channels, relu6=True)
                self.features.add(nn.GlobalAvgPool2D())
            self.output = nn.HybridSequential(prefix="output_")
            with self.output.name_scope():
                self.output.add(nn.Conv2D(classes, 1, use_bias=False, prefix="pred_"),
                                nn.Flatten())

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def _version_suffix(multiplier: float) -> str:
    """MXNet's file-name spelling of a multiplier: 1.0, 0.75, 0.5, 0.25."""
    suffix = f"{multiplier:.2f}"
    return suffix[:-1] if suffix in ("1.00", "0.50") else suffix


def get_mobilenet(multiplier: float, pretrained: bool = False, ctx=None,
                  root: str | None = None, **kwargs) -> MobileNet:
    """MobileNet V1 with width ``multiplier``; ``pretrained``, ``ctx``, ``root`` as
    :func:`~gluonlite.gluon.model_zoo.vision.get_resnet`, other keywords to :class:`MobileNet`."""
    net = MobileNet(multiplier, **kwargs)
    if pretrained:
        load_pretrained(net, "mobilenet" + _version_suffix(multiplier), ctx, root)
    return net


def get_mobilenet_v2(multiplier: float, pretrained: bool = False, ctx=None,
                     root: str | None = None, **kwargs) -> MobileNetV2:
    """MobileNet V2 with width ``multiplier``; arguments as :func:`get_mobilenet`."""
    net = MobileNetV2(multiplier, **kwargs)
    if pretrained:
        load_pretrained(net, "mobilenetv2_" + _version_suffix(multiplier), ctx, root)
    return net


def _factory(getter, multiplier: float, name: str):
    def make(**kwargs) -> HybridBlock:
        return getter(multiplier, **kwargs)
    make.__name__ = name
    make.__doc__ = f"``{getter.__name__}({multiplier}, **kwargs)``."
    return make


mobilenet1_0 = _factory(get_mobilenet, 1.0, "mobilenet1_0")
mobilenet0_75 = _factory(get_mobilenet, 0.75, "mobilenet0_75")
mobilenet0_5 = _factory(get_mobilenet, 0.5, "mobilenet0_5")
mobilenet0_25 = _factory(get_mobilenet, 0.25, "mobilenet0_25")
mobilenet_v2_1_0 = _factory(get_mobilenet_v2, 1.0, "mobilenet_v2_1_0")
mobilenet_v2_0_75 = _factory(get_mobilenet_v2, 0.75, "mobilenet_v2_0_75")
mobilenet_v2_0_5 = _factory(get_mobilenet_v2, 0.5, "mobilenet_v2_0_5")
mobilenet_v2_0_25 = _factory(get_mobilenet_v2, 0.25, "mobilenet_v2_0_25")
