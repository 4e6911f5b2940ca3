"""``gluon.rnn`` cells: one time step at a time, and ``unroll`` over a sequence.

``RNNCell``, ``LSTMCell``, ``GRUCell`` compute one step with two ``FullyConnected``
layers (``i2h``, ``h2h``) as MXNet 1.9 does, with its parameter names and gate order
(the cells that stack and wrap them are in ``rnn_cell_wrappers.py``).  ``unroll``
accepts a merged tensor (``layout`` ``NTC`` or ``TNC``) or a list of steps, and
``valid_length`` masks the outputs past each sequence's end and returns the states at
its last valid step.
"""
from __future__ import annotations

from ...base import MXNetError
from ... import ndarray, symbol
from ..block import Block
from ..hybrid_block import HybridBlock
from ..nn import LeakyReLU

__all__ = ["RecurrentCell", "HybridRecurrentCell", "RNNCell", "LSTMCell", "GRUCell"]

_TENSORS = (ndarray.NDArray, symbol.Symbol)


def _as_list(x):
    """A list of steps: lists stay, a grouped symbol gives its outputs."""
    if isinstance(x, symbol.Symbol):
        return list(x) if len(x.list_outputs()) > 1 else [x]
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _format_sequence(length, inputs, layout, merge, in_layout=None):
    """``(inputs as a list of steps or one merged tensor, time axis, F, batch size)``."""
    if inputs is None:
        raise MXNetError("unroll: inputs must be given")
    axis = layout.find("T")
    batch_axis = layout.find("N")
    batch_size = 0
    in_axis = in_layout.find("T") if in_layout is not None else axis
    if isinstance(inputs, symbol.Symbol):
        F = symbol
        if merge is False:
            if len(inputs.list_outputs()) != 1:
                raise MXNetError("unroll doesn't allow grouped symbol as input. Please convert "
                                 "to list with list(inputs) first or let unroll handle "
                                 "splitting.")
            inputs = _as_list(symbol.split(inputs, axis=in_axis, num_outputs=length,
                                           squeeze_axis=1))
    elif isinstance(inputs, ndarray.NDArray):
        F = ndarray
        batch_size = inputs.shape[batch_axis]
        if merge is False:
            if length is not None and length != inputs.shape[in_axis]:
                raise MXNetError(f"unroll: length {length} but the input has "
                                 f"{inputs.shape[in_axis]} steps (shape {inputs.shape})")
            inputs = _as_list(ndarray.split(inputs, axis=in_axis,
                                            num_outputs=inputs.shape[in_axis], squeeze_axis=1))
    else:
        if length is not None and len(inputs) != length:
            raise MXNetError(f"unroll: length {length} but {len(inputs)} input steps")
        F = symbol if isinstance(inputs[0], symbol.Symbol) else ndarray
        if F is ndarray:
            batch_size = inputs[0].shape[0]  # a step is (batch, ...) whatever the layout
        if merge is True:
            inputs = F.stack(*inputs, axis=axis)
            in_axis = axis
    if isinstance(inputs, _TENSORS) and axis != in_axis:
        inputs = F.swapaxes(inputs, dim1=axis, dim2=in_axis)
    return inputs, axis, F, batch_size


def _mask_sequence_variable_length(F, data, length, valid_length, time_axis, merge):
    if not isinstance(data, _TENSORS):
        data = F.stack(*data, axis=time_axis)
    outputs = F.SequenceMask(data, sequence_length=valid_length, use_sequence_length=True,
                             axis=time_axis)
    if not merge:
        outputs = _as_list(F.split(outputs, num_outputs=length, axis=time_axis,
                                   squeeze_axis=True))
    return outputs


def _get_begin_state(cell, F, begin_state, inputs, batch_size, layout="NTC"):
    if begin_state is not None:
        return begin_state
    if F is ndarray:
        ctx = inputs.context if isinstance(inputs, ndarray.NDArray) else inputs[0].context
        with ctx:
            return cell.begin_state(func=F.zeros, batch_size=batch_size)
    # symbolic: the batch size is unknown, so the zero states take it from the input
    # (a merged sequence has it on the layout's N axis, a step on axis 0)
    if isinstance(inputs, symbol.Symbol):
        like, axis = inputs, layout.find("N")
    else:
        like, axis = inputs[0], 0
    states = []
    for info in cell.state_info(1):
        zero = symbol.zeros(info["shape"], dtype=info.get("dtype", "float32"))
        states.append(symbol.broadcast_like(zero, like, lhs_axes=(0,), rhs_axes=(axis,)))
    return states


class RecurrentCell(Block):
    """Base class of recurrent cells: ``cell(inputs, states) -> (output, new_states)``."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._modified = False
        self.reset()

    def reset(self) -> None:
        """Restart the step counter (called by ``unroll``)."""
        self._init_counter = -1
        self._counter = -1
        for cell in self._children.values():
            cell.reset()

    def state_info(self, batch_size: int = 0) -> list:
        raise NotImplementedError(f"{type(self).__name__} must define state_info")

    def begin_state(self, batch_size: int = 0, func=ndarray.zeros, **kwargs) -> list:
        """Initial states made by ``func`` (zeros) from :meth:`state_info`."""
        if self._modified:
            raise AssertionError("After applying modifier cells (e.g. ZoneoutCell) the base "
                                 "cell cannot be called directly. Call the modifier cell "
                                 "instead.")
        states = []
        for info in self.state_info(batch_size):
            self._init_counter += 1
            info = dict(info or {})
            info.update(kwargs)
            info.pop("__layout__", None)
            states.append(func(name=f"{self._prefix}begin_state_{self._init_counter}",
                               **info))
        return states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        """Run ``length`` steps; return ``(outputs, states)``."""
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, False)
        states = _get_begin_state(self, F, begin_state, inputs, batch_size)
        outputs, all_states = [], []
        for i in range(length):
            output, states = self(inputs[i], states)
            outputs.append(output)
            if valid_length is not None:
                all_states.append(states)
        if valid_length is not None:
            states = [F.SequenceLast(F.stack(*steps, axis=0), sequence_length=valid_length,
                                     use_sequence_length=True, axis=0)
                      for steps in zip(*all_states)]
            outputs = _mask_sequence_variable_length(F, outputs, length, valid_length, axis,
                                                     True)
        outputs, _, _, _ = _format_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def _get_activation(self, F, inputs, activation, **kwargs):
        func = {"tanh": F.tanh, "relu": F.relu, "sigmoid": F.sigmoid,
                "softsign": F.softsign}.get(activation) if isinstance(activation, str) else None
        if func is not None:
            return func(inputs, **kwargs)
        if isinstance(activation, str):
            return F.Activation(inputs, act_type=activation, **kwargs)
        if isinstance(activation, LeakyReLU):
            return F.LeakyReLU(inputs, act_type="leaky", slope=activation._alpha, **kwargs)
        return activation(inputs, **kwargs)

    def forward(self, inputs, states):
        self._counter += 1
        return super().forward(inputs, states)


class HybridRecurrentCell(RecurrentCell, HybridBlock):
    """A recurrent cell whose step is a ``hybrid_forward``."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define hybrid_forward")


class _GatedCell(HybridRecurrentCell):
    """``i2h``/``h2h`` parameters of ``gates * hidden_size`` rows."""

    def __init__(self, hidden_size, gates, i2h_weight_initializer, h2h_weight_initializer,
                 i2h_bias_initializer, h2h_bias_initializer, input_size, prefix, params):
        super().__init__(prefix=prefix, params=params)
        self._hidden_size = hidden_size
        self._input_size = input_size
        rows = gates * hidden_size
        self.i2h_weight = self.params.get("i2h_weight", shape=(rows, input_size),
                                          init=i2h_weight_initializer,
                                          allow_deferred_init=True)
        self.h2h_weight = self.params.get("h2h_weight", shape=(rows, hidden_size),
                                          init=h2h_weight_initializer,
                                          allow_deferred_init=True)
        self.i2h_bias = self.params.get("i2h_bias", shape=(rows,), init=i2h_bias_initializer,
                                        allow_deferred_init=True)
        self.h2h_bias = self.params.get("h2h_bias", shape=(rows,), init=h2h_bias_initializer,
                                        allow_deferred_init=True)
        self._gates = gates

    def state_info(self, batch_size: int = 0) -> list:
        return [{"shape": (batch_size, self._hidden_size), "__layout__": "NC"}] * \
            self._state_count

    def __repr__(self) -> str:
        shape = self.i2h_weight.shape
        return f"{type(self).__name__}({shape[1] if shape[1] else None} -> {shape[0]})"

    def _projections(self, F, inputs, state, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = f"t{self._counter}_"
        rows = self._gates * self._hidden_size
        i2h = F.FullyConnected(data=inputs, weight=i2h_weight, bias=i2h_bias, num_hidden=rows,
                               name=prefix + "i2h")
        h2h = F.FullyConnected(data=state, weight=h2h_weight, bias=h2h_bias, num_hidden=rows,
                               name=prefix + "h2h")
        return prefix, i2h, h2h


class RNNCell(_GatedCell):
    """Elman cell: ``h' = activation(W_i x + b_i + W_h h + b_h)``."""

    _state_count = 1

    def __init__(self, hidden_size, activation="tanh", i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", input_size=0, prefix=None, params=None):
        super().__init__(hidden_size, 1, i2h_weight_initializer, h2h_weight_initializer,
                         i2h_bias_initializer, h2h_bias_initializer, input_size, prefix, params)
        self._activation = activation

    def __repr__(self) -> str:
        return f"{super().__repr__()[:-1]}, {self._activation})"

    def _alias(self) -> str:
        return "rnn"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix, i2h, h2h = self._projections(F, inputs, states[0], i2h_weight, h2h_weight,
                                             i2h_bias, h2h_bias)
        total = F.elemwise_add(i2h, h2h, name=prefix + "plus0")
        output = self._get_activation(F, total, self._activation, name=prefix + "out")
        return output, [output]


class _ActivatedGatedCell(_GatedCell):
    """LSTM and GRU cells: ``gates`` blocks with ``activation`` and
    ``recurrent_activation``."""

    def __init__(self, hidden_size, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0,
                 prefix=None, params=None, activation="tanh", recurrent_activation="sigmoid"):
        super().__init__(hidden_size, self._gate_count, i2h_weight_initializer,
                         h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer,
                         input_size, prefix, params)
        self._activation = activation
        self._recurrent_activation = recurrent_activation


class LSTMCell(_ActivatedGatedCell):
    """LSTM cell; gates in MXNet's order: input, forget, cell candidate, output."""

    _state_count = 2
    _gate_count = 4

    def _alias(self) -> str:
        return "lstm"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix, i2h, h2h = self._projections(F, inputs, states[0], i2h_weight, h2h_weight,
                                             i2h_bias, h2h_bias)
        gates = F.elemwise_add(i2h, h2h, name=prefix + "plus0")
        parts = F.SliceChannel(gates, num_outputs=4, name=prefix + "slice")
        rec = self._recurrent_activation
        in_gate = self._get_activation(F, parts[0], rec, name=prefix + "i")
        forget_gate = self._get_activation(F, parts[1], rec, name=prefix + "f")
        in_transform = self._get_activation(F, parts[2], self._activation, name=prefix + "c")
        out_gate = self._get_activation(F, parts[3], rec, name=prefix + "o")
        next_c = F.elemwise_add(F.elemwise_mul(forget_gate, states[1], name=prefix + "mul0"),
                                F.elemwise_mul(in_gate, in_transform, name=prefix + "mul1"),
                                name=prefix + "state")
        # MXNet's cell writes an Activation node here (its exported JSON says so)
        if isinstance(self._activation, str):
            cell_out = F.Activation(next_c, act_type=self._activation, name=prefix + "activation0")
        else:
            cell_out = self._get_activation(F, next_c, self._activation,
                                            name=prefix + "activation0")
        next_h = F.elemwise_mul(out_gate, cell_out, name=prefix + "out")
        return next_h, [next_h, next_c]


class GRUCell(_ActivatedGatedCell):
    """GRU cell (Cho et al.); gates in MXNet's order: reset, update, candidate."""

    _state_count = 1
    _gate_count = 3

    def _alias(self) -> str:
        return "gru"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prev = states[0]
        prefix, i2h, h2h = self._projections(F, inputs, prev, i2h_weight, h2h_weight,
                                             i2h_bias, h2h_bias)
        i2h_r, i2h_z, i2h = F.SliceChannel(i2h, num_outputs=3, name=prefix + "i2h_slice")
        h2h_r, h2h_z, h2h = F.SliceChannel(h2h, num_outputs=3, name=prefix + "h2h_slice")
        rec = self._recurrent_activation
        reset_gate = self._get_activation(F, F.elemwise_add(i2h_r, h2h_r,
                                                            name=prefix + "plus0"),
                                          rec, name=prefix + "r_act")
        update_gate = self._get_activation(F, F.elemwise_add(i2h_z, h2h_z,
                                                             name=prefix + "plus1"),
                                           rec, name=prefix + "z_act")
        candidate = self._get_activation(
            F, F.elemwise_add(i2h, F.elemwise_mul(reset_gate, h2h, name=prefix + "mul0"),
                              name=prefix + "plus2"), self._activation, name=prefix + "h_act")
        ones = F.ones_like(update_gate, name=prefix + "ones_like0")
        next_h = F.elemwise_add(
            F.elemwise_mul(F.elemwise_sub(ones, update_gate, name=prefix + "minus0"),
                           candidate, name=prefix + "mul1"),
            F.elemwise_mul(update_gate, prev, name=prefix + "mul20"), name=prefix + "out")
        return next_h, [next_h]
