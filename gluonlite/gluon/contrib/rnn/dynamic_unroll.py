"""``gluon.contrib.rnn.rnn_cell.dynamic_unroll``: run a recurrent cell over a whole
sequence with one ``F.contrib.foreach`` (one graph node when hybridized, instead of
one copy of the cell per step as ``cell.unroll`` builds)."""
from __future__ import annotations

from ...rnn.rnn_cell import _as_list, _format_sequence

__all__ = ["dynamic_unroll"]


def dynamic_unroll(cell, inputs, begin_state, drop_inputs: float = 0,
                   drop_outputs: float = 0, layout: str = "TNC", valid_length=None):
    """Unroll ``cell`` over the time axis of ``inputs`` (MXNet 1.9's semantics).

    Parameters
    ----------
    cell : RecurrentCell
        The cell run at every step.
    inputs : NDArray or Symbol
        ``(length, batch, ...)`` for ``layout='TNC'`` (faster), ``(batch, length, ...)``
        for ``'NTC'``.
    begin_state : list of NDArray or Symbol
        The cell's initial states.
    drop_inputs, drop_outputs : float
        Dropout rates applied to the whole input / output sequence (the same mask
        for every step); ``0`` applies none.
    layout : str
        ``'TNC'`` or ``'NTC'``.
    valid_length : NDArray or Symbol, optional
        ``(batch,)`` lengths of the sequences: a sequence's state stops changing after
        its last valid step and its padded outputs are zero.

    Returns
    -------
    outputs : NDArray or Symbol
        All steps' outputs, in ``layout``.
    states : list
        The final states (for each sequence, those after its last valid step).
    """
    inputs, axis, F, _ = _format_sequence(0, inputs, layout, True)
    if axis != 0:  # foreach walks axis 0
        axes = list(range(len(layout)))
        axes[0], axes[axis] = axes[axis], axes[0]
        inputs = F.transpose(inputs, axes=axes)
    if drop_inputs:
        inputs = F.Dropout(inputs, p=drop_inputs, axes=(axis,))
    states = begin_state
    if valid_length is None:
        def step(data, states):
            return cell(data, states)
    else:
        # the step counter travels as one more loop state
        states = list(_as_list(states)) + [F.zeros((1,))]

        def step(data, states):
            cell_states, counter = states[:-1], states[-1]
            out, new_states = cell(data, cell_states)
            live = F.broadcast_greater(valid_length, counter)
            new_states = [F.where(live, new, old) for new, old in zip(new_states, cell_states)]
            return out, new_states + [counter + 1]

    outputs, states = F.contrib.foreach(step, inputs, states)
    if drop_outputs:
        outputs = F.Dropout(outputs, p=drop_outputs, axes=(axis,))
    if axis != 0:
        outputs = F.transpose(outputs, axes=axes)
    if valid_length is None:
        return outputs, states
    outputs = F.SequenceMask(outputs, sequence_length=valid_length, use_sequence_length=True,
                             axis=axis)
    return outputs, states[:-1]
