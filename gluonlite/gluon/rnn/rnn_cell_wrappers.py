"""``gluon.rnn`` cells built from other cells: ``SequentialRNNCell`` and
``HybridSequentialRNNCell`` (a stack), ``DropoutCell``, the modifiers ``ZoneoutCell``
and ``ResidualCell``, and ``BidirectionalCell`` (unroll only)."""
from __future__ import annotations

from ...base import MXNetError
from ... import ndarray
from ..parameter_dict import _indent
from .rnn_cell import (_TENSORS, HybridRecurrentCell, RecurrentCell, _as_list,
                       _format_sequence, _get_begin_state, _mask_sequence_variable_length)

__all__ = ["SequentialRNNCell", "HybridSequentialRNNCell", "DropoutCell", "ModifierCell",
           "ZoneoutCell", "ResidualCell", "BidirectionalCell"]


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

    def __repr__(self) -> str:
        mods = "\n".join(f"({key}): {_indent(repr(cell), 2)}"
                         for key, cell in self._children.items())
        return f"{type(self).__name__}(\n{mods}\n)"

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
