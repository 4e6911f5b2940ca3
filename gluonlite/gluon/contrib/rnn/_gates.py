"""Gate arithmetic shared by the contrib cells: one LSTM step and one GRU step from
the ``i2h`` and ``h2h`` projections, with the gates sliced along any channel axis
(``1`` for ``NC``/``NCHW``-like layouts, the last axis for channel-last ones).

Gate order and node names are MXNet 1.9's: LSTM ``i, f, c, o`` and GRU ``r, z, n``.
"""
from __future__ import annotations


def lstm_update(cell, F, gates, prev_c, activation, axis: int, prefix: str,
                hidden_name: str = "out"):
    """One LSTM update from the summed projections ``gates`` (``4`` blocks on ``axis``).

    Parameters
    ----------
    cell : HybridRecurrentCell
        The cell whose ``_get_activation`` applies ``activation``.
    F : module
        ``ndarray`` or ``symbol``.
    gates : NDArray or Symbol
        ``i2h + h2h``, four gate blocks stacked along ``axis``.
    prev_c : NDArray or Symbol
        The previous memory cell.
    activation : str or Block
        Activation of the candidate and of the new memory cell.
    axis : int
        The channel axis along which the gates are stacked.
    prefix : str
        Node-name prefix of this step (``t0_``).
    hidden_name : str, default 'out'
        Name of the node that computes the new hidden state.

    Returns
    -------
    tuple
        ``(next_h, next_c)``.
    """
    parts = F.SliceChannel(gates, num_outputs=4, axis=axis, name=prefix + "slice")
    in_gate = F.Activation(parts[0], act_type="sigmoid", name=prefix + "i")
    forget_gate = F.Activation(parts[1], act_type="sigmoid", name=prefix + "f")
    in_transform = cell._get_activation(F, parts[2], activation, name=prefix + "c")
    out_gate = F.Activation(parts[3], act_type="sigmoid", name=prefix + "o")
    next_c = F.elemwise_add(F.elemwise_mul(forget_gate, prev_c),
                            F.elemwise_mul(in_gate, in_transform), name=prefix + "state")
    next_h = F.elemwise_mul(out_gate, cell._get_activation(F, next_c, activation),
                            name=prefix + hidden_name)
    return next_h, next_c


def gru_update(cell, F, i2h, h2h, prev_h, activation, axis: int, prefix: str):
    """One GRU update from the projections ``i2h`` and ``h2h`` (``3`` blocks on ``axis``).

    Parameters
    ----------
    cell : HybridRecurrentCell
        The cell whose ``_get_activation`` applies ``activation``.
    F : module
        ``ndarray`` or ``symbol``.
    i2h, h2h : NDArray or Symbol
        Input and recurrent projections, gates ``r, z, n`` stacked along ``axis``.
    prev_h : NDArray or Symbol
        The previous hidden state.
    activation : str or Block
        Activation of the candidate ``n``.
    axis : int
        The channel axis along which the gates are stacked.
    prefix : str
        Node-name prefix of this step (``t0_``).

    Returns
    -------
    NDArray or Symbol
        The new hidden state ``(1 - z) * n + z * h``.
    """
    i2h_r, i2h_z, i2h_n = F.SliceChannel(i2h, num_outputs=3, axis=axis,
                                         name=prefix + "i2h_slice")
    h2h_r, h2h_z, h2h_n = F.SliceChannel(h2h, num_outputs=3, axis=axis,
                                         name=prefix + "h2h_slice")
    reset_gate = F.Activation(F.elemwise_add(i2h_r, h2h_r), act_type="sigmoid",
                              name=prefix + "r_act")
    update_gate = F.Activation(F.elemwise_add(i2h_z, h2h_z), act_type="sigmoid",
                               name=prefix + "z_act")
    candidate = cell._get_activation(
        F, F.elemwise_add(i2h_n, F.elemwise_mul(reset_gate, h2h_n)), activation,
        name=prefix + "h_act")
    return F.elemwise_add(F.elemwise_mul(1.0 - update_gate, candidate),
                          F.elemwise_mul(update_gate, prev_h), name=prefix + "out")
