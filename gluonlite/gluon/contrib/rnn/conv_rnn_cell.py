"""Convolutional recurrent cells (Shi et al., 2015): ``Conv{1,2,3}D{RNN,LSTM,GRU}Cell``.

The fully connected ``i2h``/``h2h`` projections of the plain cells become
convolutions, so inputs and states keep their spatial axes. A public class is a
spatial rank (``_Conv1D``, ``_Conv2D``, ``_Conv3D``: the defaults of the
convolution settings and of ``conv_layout``) combined with a cell kind
(``_ConvRNNCell``, ``_ConvLSTMCell``, ``_ConvGRUCell``: the gates and the step).
"""
from __future__ import annotations

from ._conv_base import BaseConvRNNCell, conv_output_size
from ._gates import gru_update, lstm_update

__all__ = ["Conv1DRNNCell", "Conv2DRNNCell", "Conv3DRNNCell",
           "Conv1DLSTMCell", "Conv2DLSTMCell", "Conv3DLSTMCell",
           "Conv1DGRUCell", "Conv2DGRUCell", "Conv3DGRUCell"]


# MXNet's private names in this module, for code that reaches for them
_BaseConvRNNCell = BaseConvRNNCell
_get_conv_out_size = conv_output_size


class _ConvRNNCell(BaseConvRNNCell):
    """Elman step: ``h_t = activation(W * x_t + R * h_{t-1} + b)``."""

    _gate_names = ("",)
    _state_count = 1

    def _alias(self) -> str:
        return "conv_rnn"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = f"t{self._counter}_"
        i2h, h2h = self._conv_forward(F, inputs, states, i2h_weight, h2h_weight, i2h_bias,
                                      h2h_bias, prefix)
        output = self._get_activation(F, F.elemwise_add(i2h, h2h), self._activation,
                                      name=prefix + "out")
        return output, [output]


class _ConvLSTMCell(BaseConvRNNCell):
    """LSTM step; states ``[h, c]``, gates ``i, f, c, o`` along the channel axis."""

    _gate_names = ("_i", "_f", "_c", "_o")
    _state_count = 2

    def _alias(self) -> str:
        return "conv_lstm"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = f"t{self._counter}_"
        i2h, h2h = self._conv_forward(F, inputs, states, i2h_weight, h2h_weight, i2h_bias,
                                      h2h_bias, prefix)
        next_h, next_c = lstm_update(self, F, F.elemwise_add(i2h, h2h), states[1],
                                     self._activation, self._channel_axis, prefix)
        return next_h, [next_h, next_c]


class _ConvGRUCell(BaseConvRNNCell):
    """GRU step; gates ``r, z, n`` along the channel axis."""

    _gate_names = ("_r", "_z", "_o")
    _state_count = 1

    def _alias(self) -> str:
        return "conv_gru"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = f"t{self._counter}_"
        i2h, h2h = self._conv_forward(F, inputs, states, i2h_weight, h2h_weight, i2h_bias,
                                      h2h_bias, prefix)
        next_h = gru_update(self, F, i2h, h2h, states[0], self._activation,
                            self._channel_axis, prefix)
        return next_h, [next_h]


class _Conv1D:
    """Spatial rank 1: defaults of the convolution settings and ``conv_layout='NCW'``."""

    def __init__(self, input_shape, hidden_channels: int, i2h_kernel, h2h_kernel,
                 i2h_pad=(0,), i2h_dilate=(1,), h2h_dilate=(1,),
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros",
                 conv_layout: str = "NCW", activation="tanh", prefix=None, params=None):
        super().__init__(input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad,
                         i2h_dilate, h2h_dilate, i2h_weight_initializer,
                         h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                         1, conv_layout, activation, prefix=prefix, params=params)


class _Conv2D:
    """Spatial rank 2: defaults of the convolution settings and ``conv_layout='NCHW'``."""

    def __init__(self, input_shape, hidden_channels: int, i2h_kernel, h2h_kernel,
                 i2h_pad=(0, 0), i2h_dilate=(1, 1), h2h_dilate=(1, 1),
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros",
                 conv_layout: str = "NCHW", activation="tanh", prefix=None, params=None):
        super().__init__(input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad,
                         i2h_dilate, h2h_dilate, i2h_weight_initializer,
                         h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                         2, conv_layout, activation, prefix=prefix, params=params)


class _Conv3D:
    """Spatial rank 3: defaults of the convolution settings and ``conv_layout='NCDHW'``."""

    def __init__(self, input_shape, hidden_channels: int, i2h_kernel, h2h_kernel,
                 i2h_pad=(0, 0, 0), i2h_dilate=(1, 1, 1), h2h_dilate=(1, 1, 1),
                 i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros",
                 conv_layout: str = "NCDHW", activation="tanh", prefix=None, params=None):
        super().__init__(input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad,
                         i2h_dilate, h2h_dilate, i2h_weight_initializer,
                         h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                         3, conv_layout, activation, prefix=prefix, params=params)


_MATH = {
    "RNN": r"""
    .. math::

        h_t = activation(W \ast x_t + R \ast h_{t-1} + b)
""",
    "LSTM": r"""
    .. math::
        \begin{array}{ll}
        i_t = \sigma(W_i \ast x_t + R_i \ast h_{t-1} + b_i) \\
        f_t = \sigma(W_f \ast x_t + R_f \ast h_{t-1} + b_f) \\
        o_t = \sigma(W_o \ast x_t + R_o \ast h_{t-1} + b_o) \\
        c^\prime_t = activation(W_c \ast x_t + R_c \ast h_{t-1} + b_c) \\
        c_t = f_t \circ c_{t-1} + i_t \circ c^\prime_t \\
        h_t = o_t \circ activation(c_t)
        \end{array}

    States: ``[h, c]``, both of shape ``(batch_size,) + state shape``.
""",
    "GRU": r"""
    .. math::
        \begin{array}{ll}
        r_t = \sigma(W_r \ast x_t + R_r \ast h_{t-1} + b_r) \\
        z_t = \sigma(W_z \ast x_t + R_z \ast h_{t-1} + b_z) \\
        n_t = activation(W_i \ast x_t + b_i + r_t \circ (R_n \ast h_{t-1} + b_n)) \\
        h_t = (1 - z_t) \circ n_t + z_t \circ h_{t-1}
        \end{array}
""",
}

_LAYOUTS = {1: ("NCW", "NWC", "(C, W)"), 2: ("NCHW", "NHWC", "(C, H, W)"),
            3: ("NCDHW", "NDHWC", "(C, D, H, W)")}

_PARAMS = """
    Parameters
    ----------
    input_shape : tuple of int
        Shape of one step of one sample, without the batch and time axes, in
        ``conv_layout`` (for ``{first}``: ``{example}``). A 0 channel count is inferred
        from the first input.
    hidden_channels : int
        Number of channels of the output and the states.
    i2h_kernel : int or tuple of int
        Kernel of the input convolution.
    h2h_kernel : int or tuple of int
        Kernel of the recurrent convolution; odd sizes only (it is padded to keep the
        state's shape).
    i2h_pad : int or tuple of int, default {zeros}
        Padding of the input convolution.
    i2h_dilate : int or tuple of int, default {ones}
        Dilation of the input convolution.
    h2h_dilate : int or tuple of int, default {ones}
        Dilation of the recurrent convolution.
    i2h_weight_initializer, h2h_weight_initializer : str or Initializer
        Initializers of the input and recurrent convolution weights.
    i2h_bias_initializer, h2h_bias_initializer : str or Initializer, default 'zeros'
        Initializers of the input and recurrent convolution biases.
    conv_layout : str, default '{first}'
        Layout of inputs, states and weights: ``'{first}'`` or ``'{last}'``.
    activation : str or Block, default 'tanh'
        Activation (an ``Activation`` type name, or a block such as ``nn.LeakyReLU``).
    prefix : str, default ``'{alias}_'``
        Prefix of the parameter and node names.
    params : ParameterDict, optional
        Parameters to share instead of creating new ones.
"""


def _document(cls, dims: int, kind: str, alias: str):
    first, last, example = _LAYOUTS[dims]
    cls.__doc__ = (f"{dims}D convolutional {kind} cell.\n" + _MATH[kind] + _PARAMS.format(
        first=first, last=last, example=example, alias=alias,
        zeros=str((0,) * dims), ones=str((1,) * dims)))
    return cls


class Conv1DRNNCell(_Conv1D, _ConvRNNCell):
    pass


class Conv2DRNNCell(_Conv2D, _ConvRNNCell):
    pass


class Conv3DRNNCell(_Conv3D, _ConvRNNCell):
    pass


class Conv1DLSTMCell(_Conv1D, _ConvLSTMCell):
    pass


class Conv2DLSTMCell(_Conv2D, _ConvLSTMCell):
    pass


class Conv3DLSTMCell(_Conv3D, _ConvLSTMCell):
    pass


class Conv1DGRUCell(_Conv1D, _ConvGRUCell):
    pass


class Conv2DGRUCell(_Conv2D, _ConvGRUCell):
    pass


class Conv3DGRUCell(_Conv3D, _ConvGRUCell):
    pass


for _dims, _kind, _alias, _cls in [
        (1, "RNN", "conv_rnn", Conv1DRNNCell), (2, "RNN", "conv_rnn", Conv2DRNNCell),
        (3, "RNN", "conv_rnn", Conv3DRNNCell), (1, "LSTM", "conv_lstm", Conv1DLSTMCell),
        (2, "LSTM", "conv_lstm", Conv2DLSTMCell), (3, "LSTM", "conv_lstm", Conv3DLSTMCell),
        (1, "GRU", "conv_gru", Conv1DGRUCell), (2, "GRU", "conv_gru", Conv2DGRUCell),
        (3, "GRU", "conv_gru", Conv3DGRUCell)]:
    _document(_cls, _dims, _kind, _alias)
del _dims, _kind, _alias, _cls
