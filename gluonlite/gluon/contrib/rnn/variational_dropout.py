"""``VariationalDropoutCell``: dropout with one mask per sequence (Gal & Ghahramani,
https://arxiv.org/abs/1512.05287) on a cell's inputs, first state and outputs."""
from __future__ import annotations

from ...rnn import BidirectionalCell, ModifierCell, SequentialRNNCell
from ...rnn.rnn_cell import (_TENSORS, _format_sequence, _get_begin_state,
                             _mask_sequence_variable_length)

__all__ = ["VariationalDropoutCell"]


def _dropout_mask(F, like, rate: float):
    """A dropout mask shaped like ``like``: ``0`` or ``1 / (1 - rate)`` in training, ones
    otherwise."""
    return F.Dropout(F.ones_like(like), p=rate)


class VariationalDropoutCell(ModifierCell):
    """Variational dropout around ``base_cell``: the same mask at every time step.

    The input, state and output masks are separate. They are drawn at the first step
    and kept until :meth:`reset` (which ``unroll`` calls), so a cell stepped by hand
    needs ``reset()`` after each sequence. Only the first state (``h``) is dropped.

    Parameters
    ----------
    base_cell : RecurrentCell
        The cell to wrap.
    drop_inputs : float, default 0.
        Dropout rate of the inputs (0: none).
    drop_states : float, default 0.
        Dropout rate of the first state (0: none).
    drop_outputs : float, default 0.
        Dropout rate of the outputs (0: none).
    """

    def __init__(self, base_cell, drop_inputs: float = 0., drop_states: float = 0.,
                 drop_outputs: float = 0.):
        if drop_states and isinstance(base_cell, BidirectionalCell):
            raise AssertionError("BidirectionalCell doesn't support variational state "
                                 "dropout. Please add VariationalDropoutCell to the cells "
                                 "underneath instead.")
        if drop_states and isinstance(base_cell, SequentialRNNCell) and any(
                isinstance(c, BidirectionalCell) for c in base_cell._children.values()):
            raise AssertionError("Bidirectional SequentialRNNCell doesn't support "
                                 "variational state dropout. Please add "
                                 "VariationalDropoutCell to the cells underneath instead.")
        super().__init__(base_cell)
        self.drop_inputs = drop_inputs
        self.drop_states = drop_states
        self.drop_outputs = drop_outputs
        self.drop_inputs_mask = None
        self.drop_states_mask = None
        self.drop_outputs_mask = None

    def _alias(self) -> str:
        return "vardrop"

    def reset(self) -> None:
        """Restart the step counters and forget the dropout masks."""
        super().reset()
        self.drop_inputs_mask = None
        self.drop_states_mask = None
        self.drop_outputs_mask = None

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(p_out = {self.drop_outputs}, "
                f"p_state = {self.drop_states})")

    def hybrid_forward(self, F, inputs, states):
        if self.drop_states and self.drop_states_mask is None:
            self.drop_states_mask = _dropout_mask(F, states[0], self.drop_states)
        if self.drop_inputs and self.drop_inputs_mask is None:
            self.drop_inputs_mask = _dropout_mask(F, inputs, self.drop_inputs)
        if self.drop_states:
            states = [F.elemwise_mul(states[0], self.drop_states_mask)] + list(states[1:])
        if self.drop_inputs:
            inputs = F.elemwise_mul(inputs, self.drop_inputs_mask)
        output, next_states = self.base_cell(inputs, states)
        if self.drop_outputs:
            if self.drop_outputs_mask is None:
                self.drop_outputs_mask = _dropout_mask(F, output, self.drop_outputs)
            output = F.elemwise_mul(output, self.drop_outputs_mask)
        return output, next_states

    def unroll(self, length: int, inputs, begin_state=None, layout: str = "NTC",
               merge_outputs=None, valid_length=None):
        """Unroll ``length`` steps; see :meth:`RecurrentCell.unroll`.

        Without state dropout the input and output masks are applied to the whole
        sequence at once (one ``Dropout`` shared along the time axis) around the base
        cell's own ``unroll``; with state dropout the cell is stepped.

        Parameters
        ----------
        length : int
            Number of steps.
        inputs : NDArray, Symbol or list
            A merged sequence in ``layout`` or a list of ``(batch_size, ...)`` steps.
        begin_state : list, optional
            Initial states (default: :meth:`begin_state`).
        layout : str, default 'NTC'
            Layout of a merged ``inputs`` and of merged outputs.
        merge_outputs : bool, optional
            Return one merged tensor (True), a list of steps (False), or whichever is
            at hand (None).
        valid_length : NDArray or Symbol, optional
            Length of each sequence; outputs past it are zero and the states are those
            of its last valid step.

        Returns
        -------
        tuple
            ``(outputs, states)``.
        """
        if self.drop_states:
            return super().unroll(length, inputs, begin_state, layout, merge_outputs,
                                  valid_length=valid_length)
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, True)
        states = _get_begin_state(self, F, begin_state, inputs, batch_size, layout)
        if self.drop_inputs:
            inputs = F.Dropout(inputs, p=self.drop_inputs, axes=(axis,))
        outputs, states = self.base_cell.unroll(length, inputs, states, layout,
                                                merge_outputs=True, valid_length=valid_length)
        if self.drop_outputs:
            outputs = F.Dropout(outputs, p=self.drop_outputs, axes=(axis,))
        if merge_outputs is None:
            merge_outputs = isinstance(outputs, _TENSORS)
        outputs, _, _, _ = _format_sequence(length, outputs, layout, merge_outputs)
        if valid_length is not None:
            outputs = _mask_sequence_variable_length(F, outputs, length, valid_length, axis,
                                                     merge_outputs)
        return outputs, states
