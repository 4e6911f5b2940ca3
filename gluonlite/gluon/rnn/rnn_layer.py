"""``gluon.rnn.RNN``, ``LSTM``, ``GRU``: multi-layer recurrent layers on the fused ``RNN``
operator, with MXNet 1.9's parameters (``l0_i2h_weight``, ..., ``r0_...`` for the
reverse direction), structural names in parameter files (``_unfused.0.i2h_weight``)
and state layout ``(layers * directions, batch, hidden)``.

The per-layer parameters are flattened and concatenated (``_rnn_param_concat``) into
the operator's ``parameters`` input in MXNet's order: all weights (layer by layer,
direction by direction, ``i2h`` then ``h2h`` [then ``h2r``]), then all biases.

Deferred initialization: with ``input_size=0`` the first layer's ``i2h`` weights get
their shape from the first input this layer sees (:meth:`infer_shape`).  Inside a
hybridized parent block the graph's shape inference infers it back from the ``RNN``
operator's packed parameter size, through ``_rnn_param_concat`` and ``Reshape`` (both
declare ``infer_shape_outputs``: they fill an unknown input from a known output).

``_unfuse()`` gives the same network as a stack of cells (``HybridSequentialRNNCell``
of ``RNNCell``/``LSTMCell``/``GRUCell``, ``BidirectionalCell`` pairs, ``DropoutCell``
between layers) that shares this layer's parameters.
"""
from __future__ import annotations

import re

from ...base import MXNetError
from ... import ndarray, symbol
from ..hybrid_block import HybridBlock
from . import rnn_cell, rnn_cell_wrappers

__all__ = ["RNN", "LSTM", "GRU"]

_GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}
_KEY = re.compile(r"(l|r)(\d+)_(i2h|h2h|h2r)_(weight|bias)\Z")


class _RNNLayer(HybridBlock):
    """Shared implementation of :class:`RNN`, :class:`LSTM` and :class:`GRU`."""

    def __init__(self, hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                 i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                 h2h_bias_initializer, mode, projection_size, h2r_weight_initializer,
                 lstm_state_clip_min, lstm_state_clip_max, lstm_state_clip_nan, dtype,
                 use_sequence_length=False, **kwargs):
        super().__init__(**kwargs)
        if layout not in ("TNC", "NTC"):
            raise AssertionError(f"Invalid layout {layout}; must be one of ['TNC' or 'NTC']")
        self._hidden_size = hidden_size
        self._projection_size = projection_size if projection_size else None
        self._num_layers = num_layers
        self._mode = mode
        self._layout = layout
        self._dropout = dropout
        self._dir = 2 if bidirectional else 1
        self._input_size = input_size
        self._i2h_weight_initializer = i2h_weight_initializer
        self._h2h_weight_initializer = h2h_weight_initializer
        self._i2h_bias_initializer = i2h_bias_initializer
        self._h2h_bias_initializer = h2h_bias_initializer
        self._h2r_weight_initializer = h2r_weight_initializer
        self._lstm_state_clip_min = lstm_state_clip_min
        self._lstm_state_clip_max = lstm_state_clip_max
        self._lstm_state_clip_nan = lstm_state_clip_nan
        self._dtype = dtype
        self._use_sequence_length = use_sequence_length
        self.skip_states = None
        self._gates = _GATES[mode]
        gates_hidden = self._gates * hidden_size
        recurrent = self._projection_size or hidden_size
        ni = input_size
        for layer in range(num_layers):
            for d in ("l", "r")[:self._dir]:
                self._register_param(f"{d}{layer}_i2h_weight", (gates_hidden, ni),
                                     i2h_weight_initializer, dtype)
                self._register_param(f"{d}{layer}_h2h_weight", (gates_hidden, recurrent),
                                     h2h_weight_initializer, dtype)
                self._register_param(f"{d}{layer}_i2h_bias", (gates_hidden,),
                                     i2h_bias_initializer, dtype)
                self._register_param(f"{d}{layer}_h2h_bias", (gates_hidden,),
                                     h2h_bias_initializer, dtype)
                if self._projection_size:
                    self._register_param(f"{d}{layer}_h2r_weight",
                                         (self._projection_size, hidden_size),
                                         h2r_weight_initializer, dtype)
            ni = recurrent * self._dir

    def _register_param(self, name, shape, init, dtype):
        param = self.params.get(name, shape=shape, init=init, allow_deferred_init=True,
                                dtype=dtype)
        setattr(self, name, param)
        return param

    def __repr__(self) -> str:
        shape = self.l0_i2h_weight.shape
        text = f"{type(self).__name__}({shape[1] if shape[1] else None} -> " \
               f"{shape[0] // self._gates}, {self._layout}"
        if self._num_layers != 1:
            text += f", num_layers={self._num_layers}"
        if self._dropout != 0:
            text += f", dropout={self._dropout}"
        if self._dir == 2:
            text += ", bidirectional"
        return text + ")"

    def _collect_params_with_prefix(self, prefix: str = ""):
        """MXNet's structural names (``_unfused.<layer>.[l|r]_cell.]i2h_weight``), so
        parameter files of MXNet's layers load."""
        if prefix:
            prefix += "."
        bidirectional = self._dir == 2
        ret = {}
        for key, val in self._reg_params.items():
            d, layer, g, t = _KEY.match(key).groups()
            cell = f"{d}_cell." if bidirectional else ""
            ret[f"{prefix}_unfused.{layer}.{cell}{g}_{t}"] = val
        for name, child in self._children.items():
            ret.update(child._collect_params_with_prefix(prefix + name))
        return ret

    def state_info(self, batch_size: int = 0) -> list:
        raise NotImplementedError

    def _make_cell(self, **kwargs):
        """One cell of this layer's mode (``kwargs``: prefix, input size, initializers)."""
        if self._mode == "lstm":
            return rnn_cell.LSTMCell(self._hidden_size, **kwargs)
        if self._mode == "gru":
            return rnn_cell.GRUCell(self._hidden_size, **kwargs)
        return rnn_cell.RNNCell(self._hidden_size, activation=self._mode[len("rnn_"):],
                                **kwargs)

    def _unfuse(self) -> "rnn_cell_wrappers.HybridSequentialRNNCell":
        """This layer as a stack of recurrent cells that share its parameters.

        Returns
        -------
        HybridSequentialRNNCell
            One cell (or ``BidirectionalCell`` of an ``l``/``r`` pair) per layer, with a
            ``DropoutCell`` between layers when ``dropout > 0``; cell ``i`` uses the
            parameters ``l<i>_*`` (and ``r<i>_*``) of this layer.
        """
        if self._projection_size:
            raise AssertionError("_unfuse does not support projection layer yet!")
        if self._lstm_state_clip_min or self._lstm_state_clip_max:
            raise AssertionError("_unfuse does not support state clipping yet!")
        stack = rnn_cell_wrappers.HybridSequentialRNNCell(prefix=self.prefix,
                                                          params=self.params)
        with stack.name_scope():
            in_size = self._input_size
            for layer in range(self._num_layers):
                kwargs = dict(input_size=in_size,
                              i2h_weight_initializer=self._i2h_weight_initializer,
                              h2h_weight_initializer=self._h2h_weight_initializer,
                              i2h_bias_initializer=self._i2h_bias_initializer,
                              h2h_bias_initializer=self._h2h_bias_initializer)
                cells = [self._make_cell(prefix=f"{d}{layer}_", **kwargs)
                         for d in ("l", "r")[:self._dir]]
                stack.add(cells[0] if self._dir == 1 else
                          rnn_cell_wrappers.BidirectionalCell(*cells))
                if self._dropout > 0 and layer + 1 < self._num_layers:
                    stack.add(rnn_cell_wrappers.DropoutCell(self._dropout))
                in_size = self._hidden_size * self._dir
        return stack

    def cast(self, dtype) -> None:
        super().cast(dtype)
        self._dtype = dtype

    def begin_state(self, batch_size: int = 0, func=ndarray.zeros, **kwargs) -> list:
        """Initial states (zeros by default) for ``batch_size`` sequences."""
        states = []
        for i, info in enumerate(self.state_info(batch_size)):
            info = dict(info) if info is not None else {}
            info.update(kwargs)
            info.pop("__layout__", None)
            states.append(func(name=f"{self.prefix}h0_{i}", **info))
        return states

    def infer_shape(self, inputs, *args) -> None:
        """Shapes of the first layer's input weights from the input's channel axis."""
        channels = inputs.shape[self._layout.find("C")]
        for d in ("l", "r")[:self._dir]:
            param = getattr(self, f"{d}0_i2h_weight")
            param.shape = (param.shape[0], channels)

    def __call__(self, inputs, states=None, sequence_length=None, **kwargs):
        self.skip_states = states is None
        if states is None:
            if isinstance(inputs, ndarray.NDArray):
                batch = inputs.shape[self._layout.find("N")]
                states = self.begin_state(batch, ctx=inputs.context, dtype=inputs.dtype)
            elif not self._use_sequence_length:
                # traced inside a hybridized parent: the batch size is not known yet, so
                # hybrid_forward makes zero states shaped like the input
                return super().__call__(inputs, **kwargs)
            else:
                states = self.begin_state(0, func=symbol.zeros)
        if isinstance(states, (ndarray.NDArray, symbol.Symbol)):
            states = [states]
        if self._use_sequence_length:
            return super().__call__(inputs, states, sequence_length, **kwargs)
        return super().__call__(inputs, states, **kwargs)

    def _zero_states(self, F, inputs) -> list:
        """Zero begin states whose batch axis follows ``inputs`` (symbolic batch size)."""
        batch_axis = self._layout.find("N")
        states = []
        for info in self.state_info(1):
            zero = F.zeros(info["shape"], dtype=info["dtype"])
            states.append(F.broadcast_like(zero, inputs, lhs_axes=(1,),
                                           rhs_axes=(batch_axis,)))
        return states

    def hybrid_forward(self, F, inputs, states=None, sequence_length=None, **kwargs):
        if states is None:
            states = self._zero_states(F, inputs)
        if F is ndarray:
            batch = inputs.shape[self._layout.find("N")]
            for state, info in zip(states, self.state_info(batch)):
                if state.shape != info["shape"]:
                    raise ValueError(f"Invalid recurrent state shape. Expecting "
                                     f"{info['shape']}, got {state.shape}.")
        out = self._forward_kernel(F, inputs, states, sequence_length, **kwargs)
        return out[0] if self.skip_states else out

    def _flat_params(self, F, kwargs) -> list:
        kinds = ("i2h", "h2h", "h2r") if self._projection_size else ("i2h", "h2h")
        flat = []
        for t in ("weight", "bias"):
            for layer in range(self._num_layers):
                for d in ("l", "r")[:self._dir]:
                    for g in kinds:
                        if g == "h2r" and t == "bias":
                            continue
                        flat.append(kwargs[f"{d}{layer}_{g}_{t}"].reshape(-1))
        return flat

    def _forward_kernel(self, F, inputs, states, sequence_length, **kwargs):
        if self._layout == "NTC":
            inputs = F.swapaxes(inputs, 0, 1)
        params = F._internal._rnn_param_concat(*self._flat_params(F, kwargs), dim=0)
        args = list(states) + ([sequence_length] if self._use_sequence_length else [])
        rnn = F.RNN(inputs, params, *args, use_sequence_length=self._use_sequence_length,
                    state_size=self._hidden_size, projection_size=self._projection_size,
                    num_layers=self._num_layers, bidirectional=self._dir == 2,
                    p=self._dropout, state_outputs=True, mode=self._mode,
                    lstm_state_clip_min=self._lstm_state_clip_min,
                    lstm_state_clip_max=self._lstm_state_clip_max,
                    lstm_state_clip_nan=self._lstm_state_clip_nan)
        outputs, new_states = (rnn[0], [rnn[1], rnn[2]]) if self._mode == "lstm" \
            else (rnn[0], [rnn[1]])
        if self._layout == "NTC":
            outputs = F.swapaxes(outputs, 0, 1)
        return outputs, new_states


def _state(self, batch_size, size):
    return {"shape": (self._num_layers * self._dir, batch_size, size), "__layout__": "LNC",
            "dtype": self._dtype}


class RNN(_RNNLayer):
    """Elman RNN layers with ``relu`` or ``tanh`` activation."""

    def __init__(self, hidden_size, num_layers=1, activation="relu", layout="TNC", dropout=0,
                 bidirectional=False, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0,
                 dtype="float32", **kwargs):
        if activation not in ("relu", "tanh"):
            raise MXNetError(f"RNN: activation must be 'relu' or 'tanh', got {activation!r}")
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, "rnn_" + activation, None, None, None, None,
                         False, dtype, **kwargs)

    def state_info(self, batch_size: int = 0) -> list:
        return [_state(self, batch_size, self._hidden_size)]


class LSTM(_RNNLayer):
    """Long short-term memory layers, optionally with a projection (LSTMP) and state
    clipping."""

    def __init__(self, hidden_size, num_layers=1, layout="TNC", dropout=0, bidirectional=False,
                 input_size=0, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros",
                 projection_size=None, h2r_weight_initializer=None, state_clip_min=None,
                 state_clip_max=None, state_clip_nan=False, dtype="float32", **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, "lstm", projection_size, h2r_weight_initializer,
                         state_clip_min, state_clip_max, state_clip_nan, dtype, **kwargs)

    def state_info(self, batch_size: int = 0) -> list:
        return [_state(self, batch_size, self._projection_size or self._hidden_size),
                _state(self, batch_size, self._hidden_size)]


class GRU(_RNNLayer):
    """Gated recurrent unit layers."""

    def __init__(self, hidden_size, num_layers=1, layout="TNC", dropout=0, bidirectional=False,
                 input_size=0, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", dtype="float32",
                 **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, "gru", None, None, None, None, False, dtype,
                         **kwargs)

    def state_info(self, batch_size: int = 0) -> list:
        return [_state(self, batch_size, self._hidden_size)]
