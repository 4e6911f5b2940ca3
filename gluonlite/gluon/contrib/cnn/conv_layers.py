"""MXNet 1.9's ``mx.gluon.contrib.cnn`` layers: ``DeformableConvolution`` (v1) and
``ModulatedDeformableConvolution`` (v2).

Each layer holds two convolutions: a plain ``Convolution`` (``offset_weight``,
``offset_bias``, initialised to zeros, so a fresh layer samples the regular grid) that
computes the offsets (and, for v2, the mask logits: the last ``DG * kh * kw`` channels,
``2 * sigmoid``) from the input, and the deformable convolution proper
(``deformable_conv_weight``, ``deformable_conv_bias``).  Parameter names, shapes, defaults
and the graph the layers emit (``fwd`` nodes) are MXNet's.
"""
from __future__ import annotations

from ....base import numeric_types
from ...block import HybridBlock
from ...nn.activations import Activation

__all__ = ["DeformableConvolution", "ModulatedDeformableConvolution"]


def _pair(value, n: int = 2) -> tuple:
    return (value,) * n if isinstance(value, numeric_types) else value


class _DeformableBase(HybridBlock):
    """What both layers share: hyper-parameters, the four parameters, the offset conv."""

    _offset_factor = 2  # offset channels per tap and deformable group (v2 adds the mask)

    def __init__(self, channels, kernel_size, strides, padding, dilation, groups,
                 num_deformable_group, layout, use_bias, in_channels, activation,
                 weight_initializer, bias_initializer, offset_weight_initializer,
                 offset_bias_initializer, offset_use_bias, op_name, adj, prefix, params):
        super().__init__(prefix=prefix, params=params)
        with self.name_scope():
            self._channels = channels
            self._in_channels = in_channels
            assert layout in ("NCHW", "NHWC"), "Only supports 'NCHW' and 'NHWC' layout for now"
            kernel_size = _pair(kernel_size)
            strides = _pair(strides, len(kernel_size))
            padding = _pair(padding, len(kernel_size))
            dilation = _pair(dilation, len(kernel_size))
            self._op_name = op_name
            taps = kernel_size[0] * kernel_size[1]
            offset_channels = self._offset_factor * taps * num_deformable_group
            self.offset_split_index = 2 * taps * num_deformable_group
            self._kwargs_offset = {
                "kernel": kernel_size, "stride": strides, "dilate": dilation, "pad": padding,
                "num_filter": offset_channels, "num_group": groups,
                "no_bias": not offset_use_bias, "layout": layout}
            self._kwargs_deformable_conv = {
                "kernel": kernel_size, "stride": strides, "dilate": dilation, "pad": padding,
                "num_filter": channels, "num_group": groups,
                "num_deformable_group": num_deformable_group, "no_bias": not use_bias,
                "layout": layout}
            if adj:
                self._kwargs_offset["adj"] = adj
                self._kwargs_deformable_conv["adj"] = adj
            in_per_group = in_channels // groups if in_channels else 0
            self._make_params(offset_channels, in_per_group, kernel_size, channels,
                              weight_initializer, bias_initializer,
                              offset_weight_initializer, offset_bias_initializer,
                              offset_use_bias, use_bias)
            self.act = Activation(activation, prefix=activation + "_") if activation else None

    def _make_params(self, offset_channels, in_per_group, kernel_size, channels,
                     weight_initializer, bias_initializer, offset_weight_initializer,
                     offset_bias_initializer, offset_use_bias, use_bias):
        self._offset_params(offset_channels, in_per_group, kernel_size,
                            offset_weight_initializer, offset_bias_initializer,
                            offset_use_bias)
        self._conv_params(channels, kernel_size, weight_initializer, bias_initializer,
                          use_bias)

    def _offset_params(self, offset_channels, in_per_group, kernel_size, weight_init,
                       bias_init, use_bias):
        self.offset_weight = self.params.get(
            "offset_weight", shape=(offset_channels, in_per_group) + tuple(kernel_size),
            init=weight_init, allow_deferred_init=True)
        self.offset_bias = self.params.get(
            "offset_bias", shape=(offset_channels,), init=bias_init,
            allow_deferred_init=True) if use_bias else None

    def _conv_params(self, channels, kernel_size, weight_init, bias_init, use_bias):
        # as in MXNet, the input channels stay unknown until the first forward
        self.deformable_conv_weight = self.params.get(
            "deformable_conv_weight", shape=(channels, 0) + tuple(kernel_size),
            init=weight_init, allow_deferred_init=True)
        self.deformable_conv_bias = self.params.get(
            "deformable_conv_bias", shape=(channels,), init=bias_init,
            allow_deferred_init=True) if use_bias else None

    def _offsets(self, F, x, offset_weight, offset_bias):
        if offset_bias is None:
            return F.Convolution(x, offset_weight, cudnn_off=True, **self._kwargs_offset)
        return F.Convolution(x, offset_weight, offset_bias, cudnn_off=True,
                             **self._kwargs_offset)


class DeformableConvolution(_DeformableBase):
    """2-D deformable convolution v1 (Dai et al., 2017).

    The sampling positions of the kernel are shifted by offsets that a separate
    convolution (``offset_weight``/``offset_bias``, zeros at start) computes from the
    input; both convolutions live in this layer.

    Parameters
    ----------
    channels : int
        Output channels.
    kernel_size, strides, padding, dilation : int or tuple of 2 ints
        Geometry of both convolutions (defaults ``(1, 1)``, ``(1, 1)``, ``(0, 0)``,
        ``(1, 1)``).
    groups : int
        Convolution groups (of both convolutions).
    num_deformable_group : int
        Channel groups that share one set of offsets.
    layout : str
        ``'NCHW'`` (``'NHWC'`` is accepted here, as in MXNet, but the operator runs NCHW
        only).
    use_bias : bool
        Whether the main convolution has ``deformable_conv_bias``.
    in_channels : int
        Input channels; 0 defers initialisation to the first forward.
    activation : str, optional
        Activation applied to the output.
    weight_initializer, bias_initializer : str or Initializer
        Initialisers of the main convolution (bias: ``'zeros'``).
    offset_weight_initializer, offset_bias_initializer : str or Initializer
        Initialisers of the offset convolution (both ``'zeros'``).
    offset_use_bias : bool
        Whether the offset convolution has ``offset_bias``.
    op_name : str
        Kept for MXNet compatibility.
    adj : tuple, optional
        Passed to both operators as in MXNet (they reject it).
    prefix, params
        As for :class:`~gluonlite.gluon.Block`.
    """

    def __init__(self, channels: int, kernel_size=(1, 1), strides=(1, 1), padding=(0, 0),
                 dilation=(1, 1), groups: int = 1, num_deformable_group: int = 1,
                 layout: str = "NCHW", use_bias: bool = True, in_channels: int = 0,
                 activation: str | None = None, weight_initializer=None,
                 bias_initializer="zeros", offset_weight_initializer="zeros",
                 offset_bias_initializer="zeros", offset_use_bias: bool = True,
                 op_name: str = "DeformableConvolution", adj=None, prefix=None, params=None):
        super().__init__(channels, kernel_size, strides, padding, dilation, groups,
                         num_deformable_group, layout, use_bias, in_channels, activation,
                         weight_initializer, bias_initializer, offset_weight_initializer,
                         offset_bias_initializer, offset_use_bias, op_name, adj, prefix,
                         params)

    def hybrid_forward(self, F, x, offset_weight, deformable_conv_weight, offset_bias=None,
                       deformable_conv_bias=None):
        offset = self._offsets(F, x, offset_weight, offset_bias)
        kwargs = {"bias": deformable_conv_bias} if deformable_conv_bias is not None else {}
        act = F.contrib.DeformableConvolution(data=x, offset=offset,
                                              weight=deformable_conv_weight, name="fwd",
                                              **kwargs, **self._kwargs_deformable_conv)
        return self.act(act) if self.act else act

    def _alias(self) -> str:
        return "deformable_conv"

    def __repr__(self) -> str:
        k = self._kwargs_deformable_conv
        n = len(k["kernel"])
        s = f"{self.__class__.__name__}({{mapping}}, kernel_size={k['kernel']}, " \
            f"stride={k['stride']}"
        if k["pad"] != (0,) * n:
            s += f", padding={k['pad']}"
        if k["dilate"] != (1,) * n:
            s += f", dilation={k['dilate']}"
        if k["num_group"] != 1:
            s += f", groups={k['num_group']}"
        if self.deformable_conv_bias is None:
            s += ", bias=False"
        if self.act:
            s += f", {self.act}"
        s += ")"
        shape = self.deformable_conv_weight.shape
        return s.format(mapping=f"{shape[1] if shape[1] else None} -> {shape[0]}")


class ModulatedDeformableConvolution(_DeformableBase):
    """2-D modulated deformable convolution v2 (Zhu et al., 2018).

    As :class:`DeformableConvolution`, and the offset convolution also gives one mask
    logit per tap and deformable group; the samples are weighted by ``2 * sigmoid`` of
    it (1 at start, the offset convolution being zeros).  Parameters as for
    :class:`DeformableConvolution`; MXNet creates the main convolution's parameters
    first here.
    """

    _offset_factor = 3

    def __init__(self, channels: int, kernel_size=(1, 1), strides=(1, 1), padding=(0, 0),
                 dilation=(1, 1), groups: int = 1, num_deformable_group: int = 1,
                 layout: str = "NCHW", use_bias: bool = True, in_channels: int = 0,
                 activation: str | None = None, weight_initializer=None,
                 bias_initializer="zeros", offset_weight_initializer="zeros",
                 offset_bias_initializer="zeros", offset_use_bias: bool = True,
                 op_name: str = "ModulatedDeformableConvolution", adj=None, prefix=None,
                 params=None):
        super().__init__(channels, kernel_size, strides, padding, dilation, groups,
                         num_deformable_group, layout, use_bias, in_channels, activation,
                         weight_initializer, bias_initializer, offset_weight_initializer,
                         offset_bias_initializer, offset_use_bias, op_name, adj, prefix,
                         params)

    def _make_params(self, offset_channels, in_per_group, kernel_size, channels,
                     weight_initializer, bias_initializer, offset_weight_initializer,
                     offset_bias_initializer, offset_use_bias, use_bias):
        self._conv_params(channels, kernel_size, weight_initializer, bias_initializer,
                          use_bias)
        self._offset_params(offset_channels, in_per_group, kernel_size,
                            offset_weight_initializer, offset_bias_initializer,
                            offset_use_bias)

    def hybrid_forward(self, F, x, offset_weight, deformable_conv_weight, offset_bias=None,
                       deformable_conv_bias=None):
        offset = self._offsets(F, x, offset_weight, offset_bias)
        offset_t = F.slice_axis(offset, axis=1, begin=0, end=self.offset_split_index)
        mask = F.slice_axis(offset, axis=1, begin=self.offset_split_index, end=None)
        mask = F.sigmoid(mask) * 2
        kwargs = {"bias": deformable_conv_bias} if deformable_conv_bias is not None else {}
        act = F.contrib.ModulatedDeformableConvolution(
            data=x, offset=offset_t, mask=mask, weight=deformable_conv_weight, name="fwd",
            **kwargs, **self._kwargs_deformable_conv)
        return self.act(act) if self.act else act

    def _alias(self) -> str:
        return "modulated_deformable_conv"
