"""``gluon.rnn`` cells: one time step at a time, and ``unroll`` over a sequence.

``RNNCell``, ``LSTMCell``, ``GRUCell`` compute one step with two ``FullyConnected``
layers (``i2h``, ``h2h``) as MXNet 1.9 does, with its parameter names and gate order;
``SequentialRNNCell``/``HybridSequentialRNNCell`` stack cells; ``DropoutCell``,
``ZoneoutCell``, ``ResidualCell`` and ``BidirectionalCell`` wrap them.  ``unroll``
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

__all__ = ["RecurrentCell", "HybridRecurrentCell", "RNNCell", "LSTMCell", "GRUCell",
           "SequentialRNNCell", "HybridSequentialRNNCell", "DropoutCell", "ModifierCell",
           "ZoneoutCell", "ResidualCell", "BidirectionalCell"]

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

    def _alias(self) -> str:
        return "rnn"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix, i2h, h2h = self._projections(F, inputs, states[0], i2h_weight, h2h_weight,
                                             i2h_bias, h2h_bias)
        total = F.elemwise_add(i2h, h2h, name=prefix + "plus0")
        output = self._get_activation(F, total, self._activation, name=prefix + "out")
        return output, [output]


class LSTMCell(_GatedCell):
    """LSTM cell; gates in MXNet's order: input, forget, cell candidate, output."""

    _state_count = 2

    def __init__(self, hidden_size, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0,
                 prefix=None, params=None, activation="tanh", recurrent_activation="sigmoid"):
        super().__init__(hidden_size, 4, i2h_weight_initializer, h2h_weight_initializer,
                         i2h_bias_initializer, h2h_bias_initializer, input_size, prefix, params)
        self._activation = activation
        self._recurrent_activation = recurrent_activation

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
        next_h = F.elemwise_mul(out_gate, self._get_activation(F, next_c, self._activation,
                                                               name=prefix + "activation0"),
                                name=prefix + "out")
        return next_h, [next_h, next_c]


class GRUCell(_GatedCell):
    """GRU cell (Cho et al.); gates in MXNet's order: reset, update, candidate."""

    _state_count = 1

    def __init__(self, hidden_size, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0,
                 prefix=None, params=None, activation="tanh", recurrent_activation="sigmoid"):
        super().__init__(hidden_size, 3, i2h_weight_initializer, h2h_weight_initializer,
                         i2h_bias_initializer, h2h_bias_initializer, input_size, prefix, params)
        self._activation = activation
        self._recurrent_activation = recurrent_activation

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


def _split_states(cells, states):
    p = 0
    for cell in cells:
        n = len(cell.state_info())
        yield cell, states[p:p + n]
        p += n


class _SequentialMixin:
    """What ``SequentialRNNCell`` and its hybrid twin share."""

    def add(self, cell) -> None:
        """Append a cell."""
        self.register_child(cell)

    def state_info(self, batch_size: int = 0) -> list:
        return [info for c in self._children.values() for info in c.state_info(batch_size)]

    def begin_state(self, **kwargs) -> list:
        if self._modified:
            raise AssertionError("After applying modifier cells (e.g. ZoneoutCell) the base "
                                 "cell cannot be called directly. Call the modifier cell "
                                 "instead.")
        return [s for c in self._children.values() for s in c.begin_state(**kwargs)]

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        self.reset()
        inputs, _, F, batch_size = _format_sequence(length, inputs, layout, None)
        begin_state = _get_begin_state(self, F, begin_state, inputs, batch_size, layout)
        cells = list(self._children.values())
        next_states = []
        for i, (cell, states) in enumerate(_split_states(cells, begin_state)):
            merge = None if i < len(cells) - 1 else merge_outputs
            inputs, states = cell.unroll(length, inputs=inputs, begin_state=states,
                                         layout=layout, merge_outputs=merge,
                                         valid_length=valid_length)
            next_states.extend(states)
        return inputs, next_states

    def _step(self, inputs, states):
        next_states = []
        for cell, state in _split_states(self._children.values(), states):
            if isinstance(cell, BidirectionalCell):
                raise MXNetError("a BidirectionalCell cannot be stepped; use unroll")
            inputs, state = cell(inputs, state)
            next_states.extend(state)
        return inputs, next_states

    def __getitem__(self, i):
        return list(self._children.values())[i]

    def __len__(self) -> int:
        return len(self._children)


class SequentialRNNCell(_SequentialMixin, RecurrentCell):
    """Cells applied one after the other at each step."""

    def __call__(self, inputs, states):
        self._counter += 1
        return self._step(inputs, states)


class HybridSequentialRNNCell(_SequentialMixin, HybridRecurrentCell):
    """Hybridizable :class:`SequentialRNNCell`."""

    def __call__(self, inputs, states):
        self._counter += 1
        return self._step(inputs, states)

    def hybrid_forward(self, F, inputs, states):
        return self._step(inputs, states)


class DropoutCell(HybridRecurrentCell):
    """Dropout on the input of each step (no state)."""

    def __init__(self, rate: float, axes=(), prefix=None, params=None):
        super().__init__(prefix, params)
        if not isinstance(rate, (int, float)):
            raise MXNetError("DropoutCell: rate must be a number")
        self._rate = rate
        self._axes = axes

    def __repr__(self) -> str:
        return f"DropoutCell(rate={self._rate}, axes={self._axes})"

    def state_info(self, batch_size: int = 0) -> list:
        return []

    def _alias(self) -> str:
        return "dropout"

    def hybrid_forward(self, F, inputs, states):
        if self._rate > 0:
            inputs = F.Dropout(data=inputs, p=self._rate, axes=self._axes,
                               name=f"t{self._counter}_fwd")
        return inputs, states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        self.reset()
        inputs, _, F, _ = _format_sequence(length, inputs, layout, merge_outputs)
        if isinstance(inputs, _TENSORS):
            return self.hybrid_forward(F, inputs, begin_state if begin_state else [])
        return super().unroll(length, inputs, begin_state=begin_state, layout=layout,
                              merge_outputs=merge_outputs, valid_length=valid_length)


class ModifierCell(HybridRecurrentCell):
    """Base class of cells that wrap another (``base_cell``) and share its parameters."""

    def __init__(self, base_cell):
        if base_cell._modified:
            raise AssertionError(f"Cell {base_cell.name} is already modified. One cell cannot "
                                 "be modified twice")
        base_cell._modified = True
        super().__init__(prefix=base_cell.prefix + self._alias(), params=None)
        self.base_cell = base_cell

    @property
    def params(self):
        return self.base_cell.params

    def state_info(self, batch_size: int = 0) -> list:
        return self.base_cell.state_info(batch_size)

    def begin_state(self, func=ndarray.zeros, **kwargs) -> list:
        if self._modified:
            raise AssertionError("After applying modifier cells (e.g. DropoutCell) the base "
                                 "cell cannot be called directly. Call the modifier cell "
                                 "instead.")
        self.base_cell._modified = False
        begin = self.base_cell.begin_state(func=func, **kwargs)
        self.base_cell._modified = True
        return begin

    def hybrid_forward(self, F, inputs, states):
        raise NotImplementedError(f"{type(self).__name__} must define hybrid_forward")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_cell!r})"


class ZoneoutCell(ModifierCell):
    """Zoneout (Krueger et al.): each output and state unit keeps its previous value with
    probability ``zoneout_outputs``/``zoneout_states`` during training."""

    def __init__(self, base_cell, zoneout_outputs: float = 0.0, zoneout_states: float = 0.0):
        if isinstance(base_cell, BidirectionalCell):
            raise MXNetError("BidirectionalCell doesn't support zoneout since it doesn't "
                             "support step. Please add ZoneoutCell to the cells underneath "
                             "instead.")
        if isinstance(base_cell, SequentialRNNCell) and any(
                isinstance(c, BidirectionalCell) for c in base_cell._children.values()):
            raise MXNetError("Bidirectional SequentialRNNCell doesn't support zoneout. "
                             "Please add ZoneoutCell to the cells underneath instead.")
        super().__init__(base_cell)
        self.zoneout_outputs = zoneout_outputs
        self.zoneout_states = zoneout_states
        self._prev_output = None

    def _alias(self) -> str:
        return "zoneout"

    def reset(self) -> None:
        super().reset()
        self._prev_output = None

    def hybrid_forward(self, F, inputs, states):
        cell, p_out, p_states = self.base_cell, self.zoneout_outputs, self.zoneout_states
        next_output, next_states = cell(inputs, states)

        def mask(p, like):
            return F.Dropout(F.ones_like(like), p=p)

        prev = self._prev_output if self._prev_output is not None else \
            F.zeros_like(next_output)
        output = F.where(mask(p_out, next_output), next_output, prev) if p_out != 0 \
            else next_output
        states = ([F.where(mask(p_states, new), new, old)
                   for new, old in zip(next_states, states)] if p_states != 0 else next_states)
        self._prev_output = output
        return output, states


class ResidualCell(ModifierCell):
    """Adds the input of each step to the base cell's output."""

    def _alias(self) -> str:
        return "residual"

    def hybrid_forward(self, F, inputs, states):
        output, states = self.base_cell(inputs, states)
        return F.elemwise_add(output, inputs, name=f"t{self._counter}_fwd"), states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        self.reset()
        self.base_cell._modified = False
        outputs, states = self.base_cell.unroll(length, inputs=inputs, begin_state=begin_state,
                                                layout=layout, merge_outputs=merge_outputs,
                                                valid_length=valid_length)
        self.base_cell._modified = True
        if merge_outputs is None:
            merge_outputs = isinstance(outputs, _TENSORS)
        inputs, axis, F, _ = _format_sequence(length, inputs, layout, merge_outputs)
        if valid_length is not None:
            inputs = _mask_sequence_variable_length(F, inputs, length, valid_length, axis,
                                                    merge_outputs)
        if merge_outputs:
            return F.elemwise_add(outputs, inputs), states
        return [F.elemwise_add(i, j) for i, j in zip(outputs, inputs)], states


class BidirectionalCell(HybridRecurrentCell):
    """Runs ``l_cell`` forward and ``r_cell`` backward over the sequence and concatenates
    their outputs; it can only be unrolled."""

    def __init__(self, l_cell, r_cell, output_prefix: str = "bi_"):
        super().__init__(prefix="", params=None)
        self.register_child(l_cell, "l_cell")
        self.register_child(r_cell, "r_cell")
        self._output_prefix = output_prefix

    def __call__(self, inputs, states):
        raise NotImplementedError("Bidirectional cannot be stepped. Please use unroll")

    def __repr__(self) -> str:
        return f"BidirectionalCell(forward={self._children['l_cell']!r}, " \
               f"backward={self._children['r_cell']!r})"

    def state_info(self, batch_size: int = 0) -> list:
        return [i for c in self._children.values() for i in c.state_info(batch_size)]

    def begin_state(self, **kwargs) -> list:
        if self._modified:
            raise AssertionError("After applying modifier cells (e.g. DropoutCell) the base "
                                 "cell cannot be called directly. Call the modifier cell "
                                 "instead.")
        return [s for c in self._children.values() for s in c.begin_state(**kwargs)]

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None,
               valid_length=None):
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, False)
        if valid_length is None:
            reversed_inputs = list(reversed(inputs))
        else:
            reversed_inputs = F.SequenceReverse(F.stack(*inputs, axis=0),
                                                sequence_length=valid_length,
                                                use_sequence_length=True)
            reversed_inputs = _as_list(F.split(reversed_inputs, axis=0, num_outputs=length,
                                               squeeze_axis=True))
        states = _get_begin_state(self, F, begin_state, inputs, batch_size)
        l_cell, r_cell = self._children["l_cell"], self._children["r_cell"]
        n_left = len(l_cell.state_info(batch_size))
        l_outputs, l_states = l_cell.unroll(length, inputs=inputs, begin_state=states[:n_left],
                                            layout=layout, merge_outputs=merge_outputs,
                                            valid_length=valid_length)
        r_outputs, r_states = r_cell.unroll(length, inputs=reversed_inputs,
                                            begin_state=states[n_left:], layout=layout,
                                            merge_outputs=False, valid_length=valid_length)
        if valid_length is None:
            reversed_r = list(reversed(r_outputs))
        else:
            reversed_r = F.SequenceReverse(F.stack(*r_outputs, axis=0),
                                           sequence_length=valid_length,
                                           use_sequence_length=True, axis=0)
            reversed_r = _as_list(F.split(reversed_r, axis=0, num_outputs=length,
                                          squeeze_axis=True))
        if merge_outputs is None:
            merge_outputs = isinstance(l_outputs, _TENSORS)
        l_outputs, _, _, _ = _format_sequence(None, l_outputs, layout, merge_outputs)
        reversed_r, _, _, _ = _format_sequence(None, reversed_r, layout, merge_outputs)
        if merge_outputs:
            outputs = F.concat(l_outputs, reversed_r, dim=2, name=f"{self._output_prefix}out")
        else:
            outputs = [F.concat(lo, ro, dim=1, name=f"{self._output_prefix}t{i}")
                       for i, (lo, ro) in enumerate(zip(l_outputs, reversed_r))]
        if valid_length is not None:
            outputs = _mask_sequence_variable_length(F, outputs, length, valid_length, axis,
                                                     merge_outputs)
        return outputs, l_states + r_states
