"""Convolution layers (MXNet 1.9 ``mx.gluon.nn.conv_layers``): ``Conv1D/2D/3D``,
``Conv1D/2D/3DTranspose`` and ``ReflectionPad2D``; the pooling layers live in
:mod:`.pool_layers` and are re-exported here, where MXNet keeps them.

Weight layouts follow the data layout, as MXNet's shape inference gives them:
convolution ``(channels, in_channels/groups, *kernel)`` (channel-first) or
``(channels, *kernel, in_channels/groups)`` (channel-last); transposed convolution
``(in_channels, channels/groups, *kernel)`` or ``(in_channels, *kernel, channels/groups)``.
"""
from __future__ import annotations

from ..block import HybridBlock
from ._util import check, expand, is_number

__all__ = ["Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose",
           "Conv3DTranspose", "MaxPool1D", "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D",
           "AvgPool3D", "GlobalMaxPool1D", "GlobalMaxPool2D", "GlobalMaxPool3D",
           "GlobalAvgPool1D", "GlobalAvgPool2D", "GlobalAvgPool3D", "ReflectionPad2D"]


def _weight_shape(transpose: bool, layout: str, channels: int, in_channels: int,
                  groups: int, kernel: tuple) -> tuple:
    if transpose:
        lead, per_group = in_channels, channels // groups
    else:
        lead, per_group = channels, in_channels // groups
    if layout.index("C") == 1:
        return (lead, per_group) + tuple(kernel)
    return (lead,) + tuple(kernel) + (per_group,)


class _Conv(HybridBlock):
    """Shared implementation of the convolution layers.

    ``op_name`` is ``'Convolution'`` or ``'Deconvolution'``; ``adj`` (the transposed
    layers' ``output_padding``) is passed to the operator only when given.
    """

    def __init__(self, channels: int, kernel_size, strides, padding, dilation, groups: int,
                 layout: str, in_channels: int = 0, activation=None, use_bias: bool = True,
                 weight_initializer=None, bias_initializer="zeros", op_name="Convolution",
                 adj=None, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        with self.name_scope():
            self._channels = channels
            self._in_channels = in_channels
            ndim = len(kernel_size)
            strides, padding, dilation = (expand(v, ndim) for v in (strides, padding, dilation))
            self._op_name = op_name
            self._kwargs = {"kernel": kernel_size, "stride": strides, "dilate": dilation,
                            "pad": padding, "num_filter": channels, "num_group": groups,
                            "no_bias": not use_bias, "layout": layout}
            if adj is not None:
                self._kwargs["adj"] = adj
            shape = _weight_shape(op_name == "Deconvolution", layout, channels, in_channels,
                                  groups, kernel_size)
            self.weight = self.params.get("weight", shape=shape, init=weight_initializer,
                                          allow_deferred_init=True)
            if use_bias:
                self.bias = self.params.get("bias", shape=(channels,), init=bias_initializer,
                                            allow_deferred_init=True)
            else:
                self.bias = None
            if activation is not None:
                from .activations import Activation
                self.act = Activation(activation, prefix=activation + "_")
            else:
                self.act = None

    def hybrid_forward(self, F, x, weight, bias=None):
        op = getattr(F, self._op_name)
        if bias is None:
            out = op(x, weight, name="fwd", **self._kwargs)
        else:
            out = op(x, weight, bias, name="fwd", **self._kwargs)
        if self.act is not None:
            out = self.act(out)
        return out

    def _alias(self) -> str:
        return "conv"

    def __repr__(self) -> str:
        k = self._kwargs
        ndim = len(k["kernel"])
        parts = [f"kernel_size={k['kernel']}", f"stride={k['stride']}"]
        if k["pad"] != (0,) * ndim:
            parts.append(f"padding={k['pad']}")
        if k["dilate"] != (1,) * ndim:
            parts.append(f"dilation={k['dilate']}")
        if k["num_group"] != 1:
            parts.append(f"groups={k['num_group']}")
        if self.bias is None:
            parts.append("bias=False")
        if self.act:
            parts.append(repr(self.act))
        shape = self.weight.shape
        mapping = f"{shape[1] if shape[1] else None} -> {shape[0]}"
        return f"{self.__class__.__name__}({mapping}, {', '.join(parts)})"


def _kernel(kernel_size, ndim: int) -> tuple:
    if is_number(kernel_size):
        kernel_size = (kernel_size,) * ndim
    check(len(kernel_size) == ndim,
          f"kernel_size must be a number or a list of {ndim} ints")
    return tuple(kernel_size)


def _output_padding(output_padding, ndim: int) -> tuple:
    if is_number(output_padding):
        output_padding = (output_padding,) * ndim
    check(len(output_padding) == ndim,
          f"output_padding must be a number or a list of {ndim} ints")
    return tuple(output_padding)


_LAYOUTS = {1: ("NCW",), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _check_layout(layout: str, ndim: int) -> None:
    valid = _LAYOUTS[ndim]
    names = " and ".join(f"'{v}'" for v in valid)
    check(layout in valid, f"Only supports {names} layout for now")


def _conv_init(self, ndim, transpose, channels, kernel_size, strides, padding,
               output_padding, dilation, groups, layout, activation, use_bias,
               weight_initializer, bias_initializer, in_channels, kwargs):
    """Constructor body shared by the six public convolution classes."""
    _check_layout(layout, ndim)
    kernel = _kernel(kernel_size, ndim)
    extra = {}
    if transpose:
        extra = {"op_name": "Deconvolution", "adj": _output_padding(output_padding, ndim)}
    _Conv.__init__(self, channels, kernel, strides, padding, dilation, groups, layout,
                   in_channels, activation, use_bias, weight_initializer, bias_initializer,
                   **extra, **kwargs)


class Conv1D(_Conv):
    """1-D convolution over ``(N, C, W)`` data.

    Parameters
    ----------
    channels : int
        Number of output channels.
    kernel_size : int or tuple of 1 int
        Window size.
    strides, padding, dilation : int or tuple of 1 int
        Stride, zero padding on both sides, dilation.
    groups : int
        Number of channel groups.
    layout : str
        ``'NCW'`` only.
    activation : str, optional
        Activation applied to the output.
    use_bias : bool
        Whether to add a bias.
    weight_initializer, bias_initializer : Initializer or str
        Initializers.
    in_channels : int
        Input channels; 0 defers it to the first forward.
    """

    def __init__(self, channels, kernel_size, strides=1, padding=0, dilation=1, groups=1,
                 layout="NCW", activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer="zeros", in_channels=0, **kwargs):
        _conv_init(self, 1, False, channels, kernel_size, strides, padding, None, dilation,
                   groups, layout, activation, use_bias, weight_initializer,
                   bias_initializer, in_channels, kwargs)


class Conv2D(_Conv):
    """2-D convolution over ``(N, C, H, W)`` (or ``NHWC``) data; arguments as
    :class:`Conv1D` with 2-tuples, ``layout`` ``'NCHW'`` or ``'NHWC'``."""

    def __init__(self, channels, kernel_size, strides=(1, 1), padding=(0, 0),
                 dilation=(1, 1), groups=1, layout="NCHW", activation=None, use_bias=True,
                 weight_initializer=None, bias_initializer="zeros", in_channels=0, **kwargs):
        _conv_init(self, 2, False, channels, kernel_size, strides, padding, None, dilation,
                   groups, layout, activation, use_bias, weight_initializer,
                   bias_initializer, in_channels, kwargs)


class Conv3D(_Conv):
    """3-D convolution over ``(N, C, D, H, W)`` (or ``NDHWC``) data; arguments as
    :class:`Conv1D` with 3-tuples, ``layout`` ``'NCDHW'`` or ``'NDHWC'``."""

    def __init__(self, channels, kernel_size, strides=(1, 1, 1), padding=(0, 0, 0),
                 dilation=(1, 1, 1), groups=1, layout="NCDHW", activation=None,
                 use_bias=True, weight_initializer=None, bias_initializer="zeros",
                 in_channels=0, **kwargs):
        _conv_init(self, 3, False, channels, kernel_size, strides, padding, None, dilation,
                   groups, layout, activation, use_bias, weight_initializer,
                   bias_initializer, in_channels, kwargs)


class Conv1DTranspose(_Conv):
    """1-D transposed convolution (``Deconvolution``); arguments as :class:`Conv1D`
    plus ``output_padding`` (extra size added to one side of the output)."""

    def __init__(self, channels, kernel_size, strides=1, padding=0, output_padding=0,
                 dilation=1, groups=1, layout="NCW", activation=None, use_bias=True,
                 weight_initializer=None, bias_initializer="zeros", in_channels=0, **kwargs):
        _conv_init(self, 1, True, channels, kernel_size, strides, padding, output_padding,
                   dilation, groups, layout, activation, use_bias, weight_initializer,
                   bias_initializer, in_channels, kwargs)
        self.outpad = output_padding


class Conv2DTranspose(_Conv):
    """2-D transposed convolution; arguments as :class:`Conv2D` plus ``output_padding``."""

    def __init__(self, channels, kernel_size, strides=(1, 1), padding=(0, 0),
                 output_padding=(0, 0), dilation=(1, 1), groups=1, layout="NCHW",
                 activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer="zeros", in_channels=0, **kwargs):
        _conv_init(self, 2, True, channels, kernel_size, strides, padding, output_padding,
                   dilation, groups, layout, activation, use_bias, weight_initializer,
                   bias_initializer, in_channels, kwargs)
        self.outpad = output_padding


class Conv3DTranspose(_Conv):
    """3-D transposed convolution; arguments as :class:`Conv3D` plus ``output_padding``."""

    def __init__(self, channels, kernel_size, strides=(1, 1, 1), padding=(0, 0, 0),
                 output_padding=(0, 0, 0), dilation=(1, 1, 1), groups=1, layout="NCDHW",
                 activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer="zeros", in_channels=0, **kwargs):
        _conv_init(self, 3, True, channels, kernel_size, strides, padding, output_padding,
                   dilation, groups, layout, activation, use_bias, weight_initializer,
                   bias_initializer, in_channels, kwargs)
        self.outpad = output_padding


class ReflectionPad2D(HybridBlock):
    """Pad the two spatial axes of ``NCHW`` data by reflection.

    Parameters
    ----------
    padding : int or tuple of 8 int
        Padding on each side of H and W, or MXNet's full ``pad_width`` (8 values).
    """

    def __init__(self, padding=0, **kwargs):
        super().__init__(**kwargs)
        if is_number(padding):
            padding = (0, 0, 0, 0, padding, padding, padding, padding)
        check(len(padding) == 8, f"ReflectionPad2D: padding must be a number or 8 values "
                                 f"(MXNet's pad_width), got {padding}")
        self._padding = padding

    def hybrid_forward(self, F, x):
        return F.pad(x, mode="reflect", pad_width=self._padding)


from .pool_layers import (MaxPool1D, MaxPool2D, MaxPool3D, AvgPool1D, AvgPool2D,  # noqa: E402
                          AvgPool3D, GlobalMaxPool1D, GlobalMaxPool2D, GlobalMaxPool3D,
                          GlobalAvgPool1D, GlobalAvgPool2D, GlobalAvgPool3D)
