"""``mx.rnn.rnn``: checkpoints of networks built from symbolic RNN cells.

Saving unpacks each cell's weights (per-gate arrays, and the named pieces of a
``FusedRNNCell``'s packed vector); loading packs them again.  The files are
``gluonlite.model`` checkpoints (``prefix-symbol.json``, ``prefix-%04d.params``).
"""
from __future__ import annotations

import warnings
from typing import Callable, List, Union

from ..model import load_checkpoint, save_checkpoint
from .base_cell import BaseRNNCell

__all__ = ["rnn_unroll", "save_rnn_checkpoint", "load_rnn_checkpoint", "do_rnn_checkpoint"]

Cells = Union[BaseRNNCell, List[BaseRNNCell]]


def _as_cells(cells: Cells) -> List[BaseRNNCell]:
    return [cells] if isinstance(cells, BaseRNNCell) else list(cells)


def rnn_unroll(cell: BaseRNNCell, length: int, inputs=None, begin_state=None,
               input_prefix: str = "", layout: str = "NTC"):
    """Deprecated: call ``cell.unroll(length, inputs, begin_state, layout)``.

    ``input_prefix`` is ignored (it named the inputs that ``unroll`` no longer makes).
    """
    warnings.warn("rnn_unroll is deprecated. Please call cell.unroll directly.")
    return cell.unroll(length=length, inputs=inputs, begin_state=begin_state, layout=layout)


def save_rnn_checkpoint(cells: Cells, prefix: str, epoch: int, symbol, arg_params: dict,
                        aux_params: dict) -> None:
    """Save a checkpoint with the weights of ``cells`` unpacked.

    Parameters
    ----------
    cells : BaseRNNCell or list of BaseRNNCell
        The cells the network was built with.
    prefix : str
        Writes ``prefix-symbol.json`` and ``prefix-%04d.params``.
    epoch : int
    symbol : Symbol
    arg_params, aux_params : dict of str to NDArray
    """
    for cell in _as_cells(cells):
        arg_params = cell.unpack_weights(arg_params)
    save_checkpoint(prefix, epoch, symbol, arg_params, aux_params)


def load_rnn_checkpoint(cells: Cells, prefix: str, epoch: int) -> tuple:
    """Load a checkpoint written by :func:`save_rnn_checkpoint`, packing the weights of
    ``cells`` again.

    Parameters
    ----------
    cells : BaseRNNCell or list of BaseRNNCell
    prefix : str
    epoch : int

    Returns
    -------
    (Symbol, dict of str to NDArray, dict of str to NDArray)
        The symbol, ``arg_params`` and ``aux_params``.
    """
    symbol, arg_params, aux_params = load_checkpoint(prefix, epoch)
    for cell in _as_cells(cells):
        arg_params = cell.pack_weights(arg_params)
    return symbol, arg_params, aux_params


def do_rnn_checkpoint(cells: Cells, prefix: str, period: int = 1) -> Callable:
    """An epoch-end callback for ``Module.fit`` that calls :func:`save_rnn_checkpoint`
    every ``period`` epochs (file number ``epoch + 1``).

    Parameters
    ----------
    cells : BaseRNNCell or list of BaseRNNCell
    prefix : str
    period : int, default 1

    Returns
    -------
    callable
        ``callback(iter_no, sym, arg, aux)``.
    """
    period = int(max(1, period))

    def _callback(iter_no, sym=None, arg=None, aux=None):
        if (iter_no + 1) % period == 0:
            save_rnn_checkpoint(cells, prefix, iter_no + 1, sym, arg, aux)
    return _callback
