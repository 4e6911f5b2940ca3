"""What every convolutional recurrent cell shares: its convolution settings, the
parameter and state shapes they give, and the two convolutions ``i2h`` (input) and
``h2h`` (recurrent, "same" padding so the state keeps its shape)."""
from __future__ import annotations

from ....base import numeric_types
from ...rnn import HybridRecurrentCell

__all__ = ["conv_output_size", "BaseConvRNNCell"]


def conv_output_size(dimensions, kernels, pads, dilates) -> tuple:
    """Spatial size of a stride-1 convolution's output (0 where the input's is unknown).

    Parameters
    ----------
    dimensions, kernels, pads, dilates : tuple of int
        Input size, kernel size, padding and dilation along each spatial axis.

    Returns
    -------
    tuple of int
        ``x + 2 p - d (k - 1)`` per axis, or 0 where ``x`` is 0.
    """
    return tuple(x + 2 * p - d * (k - 1) if x else 0
                 for x, k, p, d in zip(dimensions, kernels, pads, dilates))


def _as_tuple(spec, dims: int) -> tuple:
    return (spec,) * dims if isinstance(spec, numeric_types) else tuple(spec)


class BaseConvRNNCell(HybridRecurrentCell):
    """Base of the convolutional cells; a subclass sets ``_gate_names`` (one name per
    gate: the convolutions have ``hidden_channels * len(_gate_names)`` filters) and
    ``_state_count``.

    Parameters
    ----------
    input_shape : tuple of int
        Shape of one step of one sample, in ``conv_layout`` without ``N``; a 0 channel
        count is inferred from the first input.
    hidden_channels : int
        Channels of the states and the output.
    i2h_kernel, h2h_kernel : int or tuple of int
        Kernels of the input and the recurrent convolution (``h2h_kernel`` odd).
    i2h_pad, i2h_dilate, h2h_dilate : int or tuple of int
        Padding and dilation of the input convolution, dilation of the recurrent one.
    i2h_weight_initializer, h2h_weight_initializer : str or Initializer
        Initializers of the two convolution weights.
    i2h_bias_initializer, h2h_bias_initializer : str or Initializer
        Initializers of the two convolution biases.
    dims : int
        Number of spatial dimensions (1, 2 or 3).
    conv_layout : str
        Layout of inputs, states and weights (``NCW``, ``NHWC``, ...).
    activation : str or Block
        Activation of the output (RNN) or of the candidate and cell (LSTM, GRU).
    prefix : str, optional
        Prefix of the parameter and node names.
    params : ParameterDict, optional
        Parameters to share instead of creating new ones.
    """

    _gate_names: tuple = ()
    _state_count = 1

    def __init__(self, input_shape, hidden_channels: int, i2h_kernel, h2h_kernel, i2h_pad,
                 i2h_dilate, h2h_dilate, i2h_weight_initializer, h2h_weight_initializer,
                 i2h_bias_initializer, h2h_bias_initializer, dims: int, conv_layout: str,
                 activation, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        specs = [i2h_kernel, i2h_pad, i2h_dilate, h2h_kernel, h2h_dilate]
        if not all(isinstance(s, int) or len(s) == dims for s in specs):
            raise AssertionError(f"For {dims}D convolution, the convolution settings can "
                                 f"only be either int or list/tuple of length {dims}")
        self._hidden_channels = hidden_channels
        self._input_shape = tuple(input_shape)
        self._conv_layout = conv_layout
        self._activation = activation
        self._i2h_kernel = _as_tuple(i2h_kernel, dims)
        self._i2h_pad = _as_tuple(i2h_pad, dims)
        self._i2h_dilate = _as_tuple(i2h_dilate, dims)
        self._h2h_kernel = _as_tuple(h2h_kernel, dims)
        self._h2h_dilate = _as_tuple(h2h_dilate, dims)
        self._stride = (1,) * dims
        if not all(k % 2 == 1 for k in self._h2h_kernel):
            raise AssertionError(f"Only support odd number, get h2h_kernel= {h2h_kernel}")
        self._h2h_pad = tuple(d * (k - 1) // 2
                              for d, k in zip(self._h2h_dilate, self._h2h_kernel))
        self._decide_shapes()
        filters = (hidden_channels * self._num_gates,)
        self.i2h_weight = self.params.get("i2h_weight", shape=self._i2h_weight_shape,
                                          init=i2h_weight_initializer,
                                          allow_deferred_init=True)
        self.h2h_weight = self.params.get("h2h_weight", shape=self._h2h_weight_shape,
                                          init=h2h_weight_initializer,
                                          allow_deferred_init=True)
        self.i2h_bias = self.params.get("i2h_bias", shape=filters, init=i2h_bias_initializer,
                                        allow_deferred_init=True)
        self.h2h_bias = self.params.get("h2h_bias", shape=filters, init=h2h_bias_initializer,
                                        allow_deferred_init=True)

    def _decide_shapes(self) -> None:
        """Channel axis, input channels, weight shapes and the state shape (without
        ``N``) from ``input_shape`` and the settings."""
        channel_axis = self._conv_layout.find("C")
        channel_first = channel_axis == 1
        shape = self._input_shape
        in_channels = shape[channel_axis - 1]
        dimensions = shape[1:] if channel_first else shape[:-1]
        out_size = conv_output_size(dimensions, self._i2h_kernel, self._i2h_pad,
                                    self._i2h_dilate)
        filters = (self._hidden_channels * self._num_gates,)
        hidden = (self._hidden_channels,)
        self._channel_axis = channel_axis
        self._in_channels = in_channels
        if channel_first:
            self._i2h_weight_shape = filters + (in_channels,) + self._i2h_kernel
            self._h2h_weight_shape = filters + hidden + self._h2h_kernel
            self._state_shape = hidden + out_size
        else:
            self._i2h_weight_shape = filters + self._i2h_kernel + (in_channels,)
            self._h2h_weight_shape = filters + self._h2h_kernel + hidden
            self._state_shape = out_size + hidden

    @property
    def _num_gates(self) -> int:
        return len(self._gate_names)

    def state_info(self, batch_size: int = 0) -> list:
        """Shapes of the states: ``(batch_size,) + state shape`` in ``conv_layout``.

        Parameters
        ----------
        batch_size : int, default 0
            Leading dimension of the shapes (0: unknown).

        Returns
        -------
        list of dict
            One ``{'shape': ..., '__layout__': conv_layout}`` per state.
        """
        return [{"shape": (batch_size,) + self._state_shape,
                 "__layout__": self._conv_layout}] * self._state_count

    def __repr__(self) -> str:
        shape = self.i2h_weight.shape
        in_channels = shape[1 if self._channel_axis == 1 else -1]
        return (f"{type(self).__name__}({in_channels if in_channels else None} -> "
                f"{shape[0]}, {self._activation}, {self._conv_layout})")

    def _conv_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias,
                      prefix: str):
        """The input and the recurrent convolution of one step: ``(i2h, h2h)``."""
        filters = self._hidden_channels * self._num_gates
        i2h = F.Convolution(data=inputs, weight=i2h_weight, bias=i2h_bias, num_filter=filters,
                            kernel=self._i2h_kernel, stride=self._stride, pad=self._i2h_pad,
                            dilate=self._i2h_dilate, layout=self._conv_layout,
                            name=prefix + "i2h")
        h2h = F.Convolution(data=states[0], weight=h2h_weight, bias=h2h_bias,
                            num_filter=filters, kernel=self._h2h_kernel, stride=self._stride,
                            pad=self._h2h_pad, dilate=self._h2h_dilate,
                            layout=self._conv_layout, name=prefix + "h2h")
        return i2h, h2h

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        raise NotImplementedError(f"{type(self).__name__} is an abstract convolutional "
                                  "recurrent cell")
